import Foundation
import RetryFlow
import RetryFlowTesting
import Testing

/// The engine on the manual clock: nothing here sleeps for real.
@Suite(.timeLimit(.minutes(1))) struct EngineTests {
    let constant = RetryPolicy(maxAttempts: 3, backoff: .constant(.milliseconds(500)), jitter: .none)

    /// The engine keeps its settings behind one reference (a parked run's frames stay small), and is
    /// still a value: changing a copy leaves the original as it was, whichever setting it is.
    @Test func anEngineIsAValueWhoseCopiesChangeAlone() async throws {
        let clock = ManualClock()
        let original = Retry(constant, clock: clock, runsAttemptsInline: true)
        var copy = original
        copy.policy = RetryPolicy(maxAttempts: 1, jitter: .none)
        copy.runsAttemptsInline = false
        copy.describeError = { _ in "changed" }
        copy.onRetry = { _ in }
        #expect(original.policy.maxAttempts == 3 && copy.policy.maxAttempts == 1)
        #expect(original.runsAttemptsInline && !copy.runsAttemptsInline)
        #expect(original.onRetry == nil && copy.onRetry != nil)
        #expect(original.describeError(Boom(n: 1)) != "changed" && copy.describeError(Boom(n: 1)) == "changed")
        // And runs by the original still follow its own policy: three attempts, not one.
        let run = Task { try await original.outcome { _ -> Int in throw Boom(n: 1) } }
        await clock.waitUntil { $0.count == 1 }
        clock.advance(by: .milliseconds(500))
        await clock.waitUntil { $0.count == 1 }
        clock.advance(by: .milliseconds(500))
        #expect(try await run.value.attempts.count == 3)
    }

    @Test func failFailSucceedWaitsThePolicysDelays() async throws {
        let clock = ManualClock()
        let calls = Counter()
        let policy = RetryPolicy(
            maxAttempts: 5, backoff: .exponential(base: .milliseconds(500), multiplier: 2), jitter: .none)
        let task = Task {
            try await Retry(policy, clock: clock).outcome { attempt in
                let n = calls.next()
                #expect(attempt.number == n)
                if n < 3 { throw Boom(n: n) }
                return "ok on \(n)"
            }
        }
        await clock.waitForSleepers(1)
        #expect(clock.nextDeadline?.offset == .milliseconds(500))
        clock.advance(by: .milliseconds(499))
        #expect(clock.sleeperCount == 1, "never early")
        clock.advance(by: .milliseconds(1))
        await clock.waitForSleepers(1)
        #expect(clock.nextDeadline?.offset == .milliseconds(1500))
        clock.advanceToNextDeadline()
        let outcome = try await task.value

        #expect(outcome.finalState == .success)
        #expect(outcome.reason == .succeeded)
        #expect(outcome.value == "ok on 3")
        #expect(outcome.attempts.count == 3)
        #expect(outcome.attempts.map(\.delayBefore) == [.zero, .milliseconds(500), .seconds(1)])
        #expect(outcome.attempts.map(\.start) == [.zero, .milliseconds(500), .milliseconds(1500)])
        #expect(outcome.attempts.compactMap { $0.error as? Boom } == [Boom(n: 1), Boom(n: 2)])
        #expect(outcome.duration == .milliseconds(1500))
        let path = outcome.trace.steps.map { "\($0.from)>\($0.to)" }
        #expect(
            path == [
                "idle>limiter", "limiter>breaker", "breaker>request", "request>retry", "retry>budget",
                "budget>admission", "admission>wait", "wait>limiter", "limiter>breaker", "breaker>request",
                "request>retry", "retry>budget", "budget>admission", "admission>wait", "wait>limiter",
                "limiter>breaker", "breaker>request", "request>success",
            ])
        expectConsistent(outcome.trace)
    }

    @Test func exhaustedAttemptsKeepEveryError() async throws {
        let clock = ManualClock()
        let calls = Counter()
        let outcome = try await clock.runAdvancing {
            try await Retry(constant, clock: clock).outcome { _ -> Int in throw Boom(n: calls.next()) }
        }
        #expect(outcome.finalState == .failure)
        #expect(outcome.reason == .attemptsExhausted)
        #expect(calls.current == 3)
        #expect(outcome.attempts.compactMap { $0.error as? Boom } == [Boom(n: 1), Boom(n: 2), Boom(n: 3)])
        #expect(outcome.attempts.map(\.errorDescription) == ["boom 1", "boom 2", "boom 3"])
        #expect(outcome.trace.steps.last?.condition == .unless(.attemptsLeft))
        let error = try #require(outcome.error)
        #expect(error.description.contains("gave up (attempts exhausted) after 3 attempts"))
        #expect(error.description.contains("#3 at 1 s"))
        expectConsistent(outcome.trace)
    }

    @Test func runThrowsRetryErrorWithEveryAttempt() async throws {
        let clock = ManualClock()
        await clock.runAdvancing {
            do {
                _ = try await Retry(constant, clock: clock).run { attempt -> Int in throw Boom(n: attempt.number) }
                Issue.record("should throw")
            } catch let error as RetryError {
                #expect(error.attempts.count == 3)
                #expect(error.lastError as? Boom == Boom(n: 3))
                expectConsistent(error.trace)
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
    }

    @Test func nonRetryableErrorMakesOneAttempt() async throws {
        let clock = ManualClock()
        var policy = constant
        policy.retryIf = RetryClassifier { ($0 as? Boom)?.n == 404 ? .fail : .retry }
        let outcome = try await Retry(policy, clock: clock).outcome { _ -> Int in throw Boom(n: 404) }
        #expect(outcome.finalState == .failure)
        #expect(outcome.reason == .notRetryable)
        #expect(outcome.attempts.count == 1)
        #expect(outcome.attempts[0].decision == .fail)
        expectConsistent(outcome.trace)
    }

    @Test func rejectedResultsAreRetriedAndTheLastIsKept() async throws {
        let clock = ManualClock()
        let calls = Counter()
        let outcome = try await clock.runAdvancing {
            try await Retry(constant, clock: clock).outcome(classifyResult: {
                $0 == 503 ? RetryVerdict(.retry, "HTTP 503") : nil
            }) { _ in
                calls.next() < 3 ? 503 : 200
            }
        }
        #expect(outcome.value == 200)
        #expect(outcome.attempts.map { $0.error is RejectedResult } == [true, true, false])
        #expect(outcome.attempts.map(\.errorDescription) == ["HTTP 503", "HTTP 503", nil])
        expectConsistent(outcome.trace)

        let allBad = try await clock.runAdvancing {
            try await Retry(constant, clock: clock).outcome(classifyResult: { _ in RetryVerdict(.retry, "HTTP 503") }) {
                _ in 503
            }
        }
        #expect(allBad.finalState == .failure)
        #expect(allBad.value == 503, "the last rejected value is not lost")
    }

    @Test func retryAfterIsWaitedExactlyAndCapped() async throws {
        let clock = ManualClock()
        let calls = Counter()
        let task = Task {
            try await Retry(constant, clock: clock).outcome(classifyResult: {
                $0 == 429 ? RetryVerdict(.retryAfter(.seconds(2)), "HTTP 429") : nil
            }) { _ in
                calls.next() == 1 ? 429 : 200
            }
        }
        await clock.waitForSleepers(1)
        #expect(clock.nextDeadline?.offset == .seconds(2), "Retry-After, not the 0.5 s backoff")
        clock.advanceToNextDeadline()
        let outcome = try await task.value
        #expect(outcome.value == 200)
        #expect(outcome.trace.steps.first { $0.to == .wait }?.delay == .seconds(2))
        expectConsistent(outcome.trace)

        var capped = constant
        capped.maxRetryAfter = .seconds(1)
        let refused = try await Retry(capped, clock: clock).outcome(classifyResult: { _ in
            RetryVerdict(.retryAfter(.seconds(2)), "HTTP 429")
        }) { _ in 429 }
        #expect(refused.finalState == .failure)
        #expect(refused.reason == .retryAfterBeyondCap)
        #expect(refused.attempts.count == 1, "ends at once, no wait")
        expectConsistent(refused.trace)
    }

    @Test func zeroDelayRetriesImmediatelyWithoutSleeping() async throws {
        let clock = ManualClock()
        let policy = RetryPolicy(maxAttempts: 3, backoff: .constant(.zero), jitter: .none)
        let outcome = try await Retry(policy, clock: clock).outcome { attempt -> Int in throw Boom(n: attempt.number) }
        #expect(outcome.attempts.count == 3)
        #expect(outcome.trace.steps.contains { $0.condition == .when(.retryImmediately) })
        #expect(!outcome.trace.steps.contains { $0.to == .wait })
        expectConsistent(outcome.trace)
    }

    @Test func deadlineThatTheNextWaitWouldCrossEndsWithoutWaiting() async throws {
        let clock = ManualClock()
        let policy = RetryPolicy(
            maxAttempts: 10, backoff: .constant(.milliseconds(600)), jitter: .none, deadline: .seconds(1))
        let task = Task {
            try await Retry(policy, clock: clock).outcome { attempt -> Int in throw Boom(n: attempt.number) }
        }
        // attempt 1 fails at 0; 0 + 0.6 < 1, so it waits (attempt 1's deadline timer is cancelled).
        await clock.waitUntil { $0.map(\.offset) == [.milliseconds(600)] }
        clock.advanceToNextDeadline()
        // attempt 2 fails at 0.6; 0.6 + 0.6 would cross 1 s: no wait, failure now.
        let outcome = try await task.value
        #expect(outcome.finalState == .failure)
        #expect(outcome.reason == .deadlineExceeded)
        #expect(outcome.attempts.count == 2)
        #expect(outcome.duration == .milliseconds(600), "finished at once, not at the deadline")
        #expect(outcome.trace.steps.last?.condition == .unless(.withinDeadline))
        expectConsistent(outcome.trace)
    }

    @Test func deadlinePassingDuringAnAttemptCancelsIt() async throws {
        let clock = ManualClock()
        let policy = RetryPolicy(maxAttempts: 3, backoff: .constant(.zero), jitter: .none, deadline: .seconds(1))
        let task = Task {
            try await Retry(policy, clock: clock).outcome { _ -> Int in
                try await clock.sleep(for: .seconds(3600))
                return 1
            }
        }
        await clock.waitForSleepers(2) // the attempt and the deadline timer
        clock.advance(by: .seconds(1))
        let outcome = try await task.value
        #expect(outcome.finalState == .failure)
        #expect(outcome.reason == .deadlineExceeded)
        #expect(outcome.attempts.first?.error is DeadlineExceeded)
        #expect(outcome.trace.steps.last?.event == .deadlineExceeded)
        expectConsistent(outcome.trace)
        await clock.waitUntil { $0.isEmpty }
        #expect(clock.sleeperCount == 0, "the abandoned attempt was cancelled")
    }

    @Test func perAttemptTimeoutCancelsAndRetries() async throws {
        let clock = ManualClock()
        let policy = RetryPolicy(
            maxAttempts: 2, backoff: .constant(.milliseconds(100)), jitter: .none, perAttemptTimeout: .seconds(1))
        let calls = Counter()
        let task = Task {
            try await Retry(policy, clock: clock).outcome { _ -> String in
                if calls.next() == 1 { try await clock.sleep(for: .seconds(3600)) }
                return "second"
            }
        }
        await clock.waitForSleepers(2) // the hung attempt and its timer
        clock.advance(by: .seconds(1))
        // The hung attempt is cancelled (its sleeper goes) and the backoff wait begins.
        await clock.waitUntil { $0.map(\.offset) == [.milliseconds(1100)] }
        clock.advanceToNextDeadline()
        let outcome = try await task.value
        #expect(outcome.value == "second")
        #expect(outcome.attempts[0].error is AttemptTimeout)
        #expect(outcome.attempts[0].duration == .seconds(1))
        #expect(outcome.trace.steps[3].event == .attemptTimedOut)
        expectConsistent(outcome.trace)
    }

    @Test func cancellationDuringAWaitEndsPromptly() async throws {
        let clock = ManualClock()
        let task = Task {
            try await Retry(constant, clock: clock).outcome { attempt -> Int in throw Boom(n: attempt.number) }
        }
        await clock.waitForSleepers(1)
        task.cancel()
        let outcome = try await task.value
        #expect(outcome.finalState == .cancelled)
        #expect(outcome.reason == .cancelled)
        #expect(outcome.attempts.count == 1)
        #expect(outcome.trace.steps.last.map { "\($0.from)>\($0.to)" } == "wait>cancelled")
        expectConsistent(outcome.trace)
    }

    @Test func cancellationDuringAnAttemptIsNeverRetried() async throws {
        let clock = ManualClock()
        let calls = Counter()
        let task = Task {
            try await Retry(constant, clock: clock).outcome { _ -> Int in
                _ = calls.next()
                try await clock.sleep(for: .seconds(3600))
                return 1
            }
        }
        await clock.waitForSleepers(1)
        task.cancel()
        let outcome = try await task.value
        #expect(outcome.finalState == .cancelled)
        #expect(calls.current == 1)
        #expect(outcome.trace.steps.last.map { "\($0.from)>\($0.to)" } == "request>cancelled")
        expectConsistent(outcome.trace)

        // `run` reports cancellation as CancellationError.
        let thrower = Task {
            try await Retry(constant, clock: clock).run { _ -> Int in
                try await clock.sleep(for: .seconds(9))
                return 1
            }
        }
        await clock.waitForSleepers(1)
        thrower.cancel()
        await #expect(throws: CancellationError.self) { try await thrower.value }
    }

    /// A run with inline attempts whose operation hangs on the manual clock.
    static func inlineRunThatHangs(_ policy: RetryPolicy, clock: ManualClock) -> Task<RetryOutcome<Int>, any Error> {
        let engine = Retry(policy, clock: clock, runsAttemptsInline: true)
        return Task { [engine] in
            try await engine.outcome { _ -> Int in
                try await clock.sleep(for: .seconds(3600))
                return 1
            }
        }
    }

    @Test func inlineAttemptsStillEndPromptlyOnCancellation() async throws {
        let clock = ManualClock()
        let task = Self.inlineRunThatHangs(constant, clock: clock)
        await clock.waitForSleepers(1)
        task.cancel()
        let outcome = try await task.value
        #expect(outcome.finalState == .cancelled)
        #expect(outcome.attempts.count == 1)
        expectConsistent(outcome.trace)
    }

    /// Inline attempts are only for attempts without a timer: a timeout still cuts a hung attempt.
    @Test func inlineAttemptsKeepTheirTimeouts() async throws {
        let clock = ManualClock()
        var policy = constant
        policy.perAttemptTimeout = .seconds(1)
        policy.maxAttempts = 1
        let task = Self.inlineRunThatHangs(policy, clock: clock)
        await clock.waitForSleepers(2)
        clock.advance(by: .seconds(1))
        let outcome = try await task.value
        #expect(outcome.reason == .attemptsExhausted)
        #expect(outcome.attempts.first?.error is AttemptTimeout)
        expectConsistent(outcome.trace)
    }

    /// A timed attempt of an operation that listens to AttemptInterrupt runs inline: the timer
    /// ends it through the interrupt (the run's task is not cancelled), and an answer taken before
    /// the timer's instant is kept even when the engine only runs again after that instant.
    @Test func interruptibleInlineAttemptsAreEndedByTheirTimerAndKeepAnEarlyAnswer() async throws {
        let clock = ManualClock()
        var policy = constant
        policy.perAttemptTimeout = .seconds(1)
        policy.maxAttempts = 2
        var engine = Retry(policy, clock: clock, runsAttemptsInline: true)
        engine.interruptsInlineAttempts = true
        let answer = AsyncStream.makeStream(of: Int.self)
        let task = Task { [engine] in
            try await engine.outcome { attempt -> Int in
                let interrupt = try #require(AttemptInterrupt.current, "the attempt runs inline, with its interrupt")
                if attempt.number == 1 {
                    // Hangs until the timer ends it (no Task cancellation reaches it).
                    let (ended, end) = AsyncStream.makeStream(of: Void.self)
                    interrupt.onInterrupt { end.finish() }
                    for await _ in ended {}
                    throw CancellationError()
                }
                // Answered before the instant; the engine sees it only after the instant.
                for await value in answer.stream {
                    interrupt.answered()
                    clock.advance(by: .seconds(2))
                    return value
                }
                return -1
            }
        }
        await clock.waitForSleepers(1) // attempt 1's timer (the operation does not sleep)
        clock.advance(by: .seconds(1))
        await clock.waitForSleepers(1) // the backoff
        clock.advance(by: constant.backoff.base)
        await clock.waitForSleepers(1) // attempt 2's timer
        answer.continuation.yield(7)
        let outcome = try await task.value
        #expect(outcome.attempts.first?.error is AttemptTimeout)
        #expect(outcome.value == 7 && outcome.succeeded, "an answer taken before the instant is kept")
        expectConsistent(outcome.trace)
    }

    @Test func cancelledBeforeStartingMakesNoAttempt() async throws {
        let clock = ManualClock()
        let calls = Counter()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await Retry(constant, clock: clock).outcome { _ in calls.next() }
        }
        let outcome = try await task.value
        #expect(outcome.finalState == .cancelled)
        #expect(calls.current == 0)
        #expect(outcome.trace.steps.map(\.from) == [.idle])
        expectConsistent(outcome.trace)
    }

    @Test func operationsCancellationErrorWithoutCallerCancellingIsNotRetried() async throws {
        let clock = ManualClock()
        let outcome = try await Retry(constant, clock: clock).outcome { _ -> Int in throw URLError(.cancelled) }
        #expect(outcome.finalState == .failure)
        #expect(outcome.reason == .notRetryable)
        #expect(outcome.attempts.count == 1)
        expectConsistent(outcome.trace)
    }

    @Test func hooksSeeEveryRetryAndEveryTransition() async throws {
        let clock = ManualClock()
        let notices = Shared<[String]>([])
        var retry = Retry(constant, clock: clock)
        retry.onRetry = { notice in
            notices.update {
                $0.append(
                    "\(notice.attempt) \(notice.error) \(notice.delay.shortDescription) left \(notice.remainingAttempts)"
                )
            }
        }
        let (stream, continuation) = AsyncStream.makeStream(of: RetryTrace.Step.self)
        let outcome = try await clock.runAdvancing { [retry] in
            try await retry.outcome(transitions: continuation) { attempt -> Int in
                if attempt.number < 3 { throw Boom(n: attempt.number) }
                return 7
            }
        }
        #expect(notices.current == ["1 boom 1 500 ms left 2", "2 boom 2 500 ms left 1"])
        var streamed: [RetryTrace.Step] = []
        for await step in stream { streamed.append(step) }
        #expect(streamed == outcome.trace.steps, "the stream saw every transition and then finished")
    }

    @Test func invalidPolicyIsRejectedBeforeAnyAttempt() async {
        let calls = Counter()
        await #expect(throws: RetryPolicyError(field: "maxAttempts", problem: "must be at least 1 (got 0)")) {
            _ = try await Retry(RetryPolicy(maxAttempts: 0), clock: ManualClock()).outcome { _ in calls.next() }
        }
        #expect(calls.current == 0)
    }

    @Test func seededJitterReplaysExactly() async throws {
        func delays(seed: UInt64) async throws -> [Duration] {
            let clock = ManualClock()
            let outcome = try await clock.runAdvancing {
                try await Retry(RetryPolicy(maxAttempts: 6), clock: clock, random: SeededRandom(seed: seed))
                    .outcome { attempt -> Int in throw Boom(n: attempt.number) }
            }
            expectConsistent(outcome.trace)
            return outcome.attempts.map(\.delayBefore)
        }
        let first = try await delays(seed: 11)
        #expect(first == (try await delays(seed: 11)))
        #expect(first != (try await delays(seed: 12)))
    }

    @Test func traceRoundTripsThroughJSON() async throws {
        let clock = ManualClock()
        let outcome = try await clock.runAdvancing {
            try await Retry(constant, clock: clock).outcome { attempt -> Int in
                if attempt.number == 1 { throw Boom(n: 1) }
                return 1
            }
        }
        let json = try TraceJSON.encode(outcome.trace)
        let back = try TraceJSON<RetryVocabulary>.decode(json)
        #expect(back == outcome.trace)
        let text = String(decoding: json, as: UTF8.self)
        #expect(text.contains(#""event":"failed""#))
        #expect(text.contains(#""detail":"boom 1""#))
        // Any name reads back as a state (a table's own steps are states too); the table decides.
        let limbo = try TraceJSON<RetryVocabulary>.decode(
            Data(#"{"steps":[{"from":"limbo","to":"wait","at":0,"attempt":0}]}"#.utf8))
        #expect(limbo.steps.first?.from.label == "limbo")
        #expect(!limbo.isConsistent(with: .retry))
        // So does any event's name, as a step's exit (a table's steps name their own); the table decides.
        let teleported = try TraceJSON<RetryVocabulary>.decode(
            Data(#"{"steps":[{"from":"idle","event":"teleported","to":"wait","at":0,"attempt":0}]}"#.utf8))
        #expect(teleported.steps.first?.event == .stepExit(RetryStep.Exit("teleported")))
        #expect(!teleported.isConsistent(with: .retry))
    }

    @Test func inconsistentTracesAreCaught() {
        var trace = RetryTrace()
        trace.steps.append(.init(from: .idle, event: .start, condition: .always, to: .limiter, at: .zero, attempt: 0))
        trace.steps.append(
            .init(from: .limiter, event: .delayElapsed, condition: .always, to: .success, at: .zero, attempt: 1))
        let problems = trace.inconsistencies(with: RetryTable.retry)
        #expect(problems == ["step 1 is not a row of the table: limiter --delay elapsed--> success"])
        trace.steps[1] = .init(
            from: .wait, event: .delayElapsed, condition: .always, to: .limiter, at: .zero, attempt: 1)
        #expect(trace.inconsistencies(with: RetryTable.retry) == ["step 1 leaves 'wait' but step 0 entered 'limiter'"])
    }
}
