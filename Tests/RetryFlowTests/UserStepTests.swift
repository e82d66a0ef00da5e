import Foundation
import RetryFlow
import RetryFlowCharts
import RetryFlowTesting
import Testing

/// A user's step runs on the engine like the shipped rows: entered from a failure, its action
/// awaited between attempts, what it produced handed to the attempts after it, bounded by its
/// visits, drawn and traced; and the tables that could not run are refused, naming the row.
@Suite struct UserStepTests {
    struct Unauthorized: Error {}
    struct RefreshFailed: Error {}

    static let fast = RetryPolicy(maxAttempts: 3, backoff: .constant(.zero), jitter: .none)
    /// What the steps below hand the attempts after them.
    static let token = RetryStep.Key<String>("token")
    static let host = RetryStep.Key<String>("host")

    /// A policy whose classifier sends `Unauthorized` to `refresh credentials`.
    static func policy(refresh: RetryStep) -> RetryPolicy {
        var policy = fast
        policy.retryIf = RetryClassifier(sendingTo: [refresh.id]) { $0 is Unauthorized ? .step(refresh.id) : .retry }
        policy.add(refresh)
        return policy
    }

    @Test func aStepRunsBetweenAttemptsAndItsValuesReachTheNext() async throws {
        let refresh = RetryStep("refresh credentials") { context in
            #expect(context.error is Unauthorized && context.attempt == 1 && context.visit == 1)
            return .done.with(Self.token, "new")
        }
        let seen = Locked<[String?]>([])
        let outcome = try await Retry(Self.policy(refresh: refresh)).outcome { attempt -> String in
            seen.withLock { $0.append(attempt.values[Self.token]) }
            guard attempt.values[Self.token] == "new" else { throw Unauthorized() }
            return "ok"
        }
        #expect(outcome.succeeded && outcome.value == "ok")
        #expect(seen.withLock { $0 } == [nil, "new"])
        #expect(outcome.steps.map(\.name) == ["refresh credentials"])
        let table = Self.policy(refresh: refresh).table
        #expect(outcome.trace.isConsistent(with: table))
        #expect(!outcome.trace.isConsistent(with: .retry), "the step's rows are not the shipped table's")
        let path = outcome.trace.steps.map { "\($0.from.label) → \($0.to.label)" }
        #expect(
            path == [
                "idle → limiter", "limiter → breaker", "breaker → request", "request → retry",
                "retry → refresh credentials", "refresh credentials → limiter", "limiter → breaker",
                "breaker → request", "request → success",
            ])
        #expect(outcome.trace.steps[4].condition == .when(.enters(refresh.id)))
        #expect(outcome.steps.map(\.exit) == [.done])
    }

    @Test func aStepsVisitsBoundTheLoop() async throws {
        let calls = Locked(0)
        let refresh = RetryStep("refresh credentials", maxVisits: 2) { _ in
            calls.withLock { $0 += 1 }
            return .done
        }
        var policy = Self.policy(refresh: refresh)
        policy.maxAttempts = 10
        let outcome = try await Retry(policy).outcome { _ -> Int in throw Unauthorized() }
        #expect(calls.withLock { $0 } == 2, "two visits, then the 401 is not retryable")
        #expect(outcome.reason == .notRetryable)
        #expect(outcome.attempts.count == 3)
        #expect(outcome.trace.isConsistent(with: policy.table))
    }

    @Test func aStepThatThrowsEndsTheRunWithItsReasonAndKeepsTheError() async throws {
        let refresh = RetryStep("refresh credentials", failureReason: "credentials refused") { _ in
            throw RefreshFailed()
        }
        let policy = Self.policy(refresh: refresh)
        let outcome = try await Retry(policy).outcome { _ -> Int in throw Unauthorized() }
        #expect(outcome.finalState == .failure && outcome.reason == .step("credentials refused"))
        #expect(outcome.steps.first?.error is RefreshFailed)
        #expect(outcome.attempts.first?.error is Unauthorized, "the attempt's error is kept too")
        #expect(outcome.trace.isConsistent(with: policy.table))
        #expect(outcome.error?.steps.first?.error is RefreshFailed)
    }

    @Test func aMirrorAfterTwoFailuresChangesWhereLaterAttemptsGo() async throws {
        var policy = Self.fast
        policy.maxAttempts = 4
        policy.add(RetryStep("use mirror", entry: .afterFailures(2)) { _ in .done.with(Self.host, "mirror") })
        let hosts = Locked<[String]>([])
        let outcome = try await Retry(policy).outcome { attempt -> String in
            let host = attempt.values[Self.host] ?? "primary"
            hosts.withLock { $0.append(host) }
            if host == "primary" { throw URLError(.cannotConnectToHost) }
            return host
        }
        #expect(hosts.withLock { $0 } == ["primary", "primary", "mirror"])
        #expect(outcome.value == "mirror")
        #expect(outcome.trace.isConsistent(with: policy.table))
    }

    @Test func cancellingDuringAStepEndsTheRun() async throws {
        let entered = AsyncStream<Void>.makeStream()
        let refresh = RetryStep("refresh credentials") { _ in
            entered.continuation.yield()
            try await Task.sleep(for: .seconds(3600))
            return .done
        }
        let policy = Self.policy(refresh: refresh)
        let run = Task { try await Retry(policy).outcome { _ -> Int in throw Unauthorized() } }
        for await _ in entered.stream { break }
        run.cancel()
        let outcome = try await run.value
        #expect(outcome.finalState == .cancelled)
        #expect(outcome.trace.isConsistent(with: policy.table))
    }

    @Test func theChartsDrawTheStepByName() {
        var policy = Self.fast
        policy.add(RetryStep("refresh credentials") { _ in .done })
        let dot = DOTChart.render(policy.table, style: .state)
        #expect(dot.contains("refresh credentials"))
        #expect(dot.contains("to refresh credentials"))
        #expect(MarkdownTable.render(policy.table).contains("| refresh credentials | step done | (else) | limiter |"))
    }

    /// docs/policies.md shows the rows a step adds: they are the ones `policy.add` puts in the table.
    @Test func theGuideShowsTheRowsAStepAdds() throws {
        var policy = Self.fast
        policy.add(RetryStep("refresh credentials") { _ in .done })
        let rendered = MarkdownTable.render(policy.table).split(separator: "\n").map(String.init)
        let guide = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
                "../../docs/policies.md"), encoding: .utf8)
        let shown = guide.split(separator: "\n").map(String.init).filter { $0.contains("refresh credentials |") }
        #expect(shown.count == 5)
        for line in shown { #expect(rendered.contains(line), "\(line)") }
    }

    // MARK: refused

    static func problem(_ policy: RetryPolicy) -> String? {
        do { try policy.validate() } catch { return error.description }
        return nil
    }

    @Test func aLoopThroughAStepWithoutABoundIsRefusedNamingTheRow() {
        var policy = Self.fast
        let clear = RetryStep("clear cache") { _ in .done }
        policy.steps = [clear]
        var rows = RetryTable.retry.rows
        // Entered whenever the failure is retryable: nothing counts the visits.
        rows.insert(
            .init(from: .retry, event: nil, condition: .when(.retryable), to: clear.state, effects: [.runStep]),
            at: rows.firstIndex { $0.from == .retry }!)
        rows.append(.init(from: clear.state, event: .stepExit(.done), to: .request, effects: [.startAttempt]))
        policy.table = RetryTable(
            name: "loops", initial: .idle, terminals: [.success, .answered, .failure, .cancelled], rows: rows)
        let problem = Self.problem(policy)
        #expect(problem?.contains("without a bound") == true, "\(problem ?? "accepted")")
        #expect(problem?.contains("retry --[retryable] / run step--> clear cache") == true, "\(problem ?? "")")
    }

    /// `attempts left` bounds only a loop that starts attempts: a wait that goes straight back to the
    /// decision, sending nothing, would loop forever however many attempts are left.
    @Test func aBoundWhoseCountTheLoopNeverGrowsIsNoBound() {
        var policy = Self.fast
        let rows = RetryTable.retry.rows.map { row -> RetryTable.Row in
            guard row.from == .wait, row.event == .delayElapsed else { return row }
            return .init(from: .wait, event: .delayElapsed, to: .retry, effects: [.planDelay])
        }
        policy.table = RetryTable(
            name: "idle loop", initial: .idle, terminals: [.success, .answered, .failure, .cancelled], rows: rows)
        let problem = Self.problem(policy)
        #expect(problem?.contains("without a bound") == true, "\(problem ?? "accepted")")
    }

    @Test func aStepWithNoWayOutIsRefused() {
        var policy = Self.fast
        let stuck = RetryStep("stuck") { _ in .done }
        policy.steps = [stuck]
        var rows = RetryTable.retry.rows
        rows.insert(
            .init(from: .retry, event: nil, condition: .when(.enters(stuck.id)), to: stuck.state, effects: [.runStep]),
            at: rows.firstIndex { $0.from == .retry }!)
        policy.table = RetryTable(
            name: "stuck", initial: .idle, terminals: [.success, .answered, .failure, .cancelled], rows: rows)
        #expect(Self.problem(policy)?.contains("state 'stuck' is not terminal but no row leaves it") == true)
    }

    @Test func aRowReadingAFactNoEffectProducesIsRefused() {
        var policy = Self.fast
        // `retry immediately` reads the delay `plan delay` works out; here nothing plans one.
        let rows = RetryTable.retry.rows.map { row -> RetryTable.Row in
            guard row.from == .request, row.event == .failed else { return row }
            return .init(from: .request, event: .failed, to: .retry, effects: [])
        }
        policy.table = RetryTable(
            name: "unplanned", initial: .idle, terminals: [.success, .answered, .failure, .cancelled], rows: rows)
        let problem = Self.problem(policy)
        #expect(problem?.contains("reads 'within deadline'") == true, "\(problem ?? "accepted")")
        #expect(problem?.contains("request --failed--> retry") == true, "\(problem ?? "")")
    }

    @Test func aStepWithoutAnActionAndAStepNamedLikeABuiltInAreRefused() {
        var policy = Self.fast
        policy.table = RetryTable.retry.adding(RetryStep("ghost") { _ in .done })
        #expect(Self.problem(policy)?.contains("'ghost' but steps has no action") == true)
        var named = Self.fast
        named.steps = [RetryStep("wait") { _ in .done }]
        #expect(Self.problem(named)?.contains("a built-in state") == true)
    }

    /// `reset backoff` between attempts, as the credential rows take it before the resend is put to
    /// the breaker, makes the resend attempt 1 of a new series: the failure after it still has its
    /// retries, and waits the first delay. (Reset as after an attempt, the resend was attempt 2 of
    /// its series, and with 2 attempts the run ended at once, `attempts exhausted`.)
    @Test func aResetBetweenAttemptsMakesTheNextAttemptTheFirstOfItsSeries() throws {
        let relogin = RetryStep("log in again") { _ in .done }
        var policy = RetryPolicy(maxAttempts: 2, backoff: .exponential(base: .seconds(1), multiplier: 2), jitter: .none)
        policy.steps = [relogin]
        let (entry, exits) = relogin.rows
        var rows = RetryTable.retry.rows
        rows.insert(entry, at: rows.firstIndex { $0.from == .retry }!)
        rows += exits.map { row in
            guard row.event == .stepExit(.done), row.condition == .always else { return row }
            return .init(from: row.from, event: .stepExit(.done), to: .breaker, effects: [.resetBackoff, .askBreaker])
        }
        policy.table = RetryTable(
            name: "relogin", initial: .idle, terminals: [.success, .answered, .failure, .cancelled], rows: rows)
        try policy.validate()
        var machine = RetryMachine(policy: policy, table: policy.table, random: SeededRandom(seed: 1))
        _ = try machine.handle(.start, at: .zero)
        _ = try machine.handle(.tokenGranted, at: .zero)
        _ = try machine.handle(.admitted, at: .zero)
        #expect(
            Array(try machine.handle(.failed(.step(relogin.id), detail: nil), at: .zero).actions).last
                == .runStep(relogin.id))
        #expect(
            Array(try machine.handle(.stepExit(.done, detail: nil), at: .zero).actions) == [.askBreaker(attempt: 2)])
        #expect(Array(try machine.handle(.admitted, at: .zero).actions) == [.startAttempt(2)])
        // Attempt 2 is the first of its series: one retry is left, after the first delay (1 s).
        let retried = Array(try machine.handle(.failed(.retry, detail: nil), at: .zero).actions)
        #expect(retried.last == .askRetryBudget(afterTimeout: false), "\(retried)")
        let waits = Array(try machine.handle(.budgetAnswered(granted: true, detail: nil), at: .zero).actions)
        #expect(waits.last == .sleep(.seconds(1)), "\(waits)")
        _ = try machine.handle(.delayElapsed, at: .seconds(1))
        _ = try machine.handle(.tokenGranted, at: .seconds(1))
        #expect(Array(try machine.handle(.admitted, at: .seconds(1)).actions) == [.startAttempt(3)])
        let last = Array(try machine.handle(.failed(.retry, detail: nil), at: .seconds(1)).actions)
        #expect(last.last == .finish(state: .failure, reason: .attemptsExhausted))
    }

    // MARK: typed joints (issue 36 item 5)

    /// A step ends in named exits, each routed by its own rows: one step can go on or end the run,
    /// with its reason, and no value passes between two steps to say which.
    @Test func aStepsNamedExitsAreRoutedByRows() async throws {
        let cached = RetryStep.Exit("cached")
        let giveUp = RetryStep.Exit("give up")
        let answers = Locked<[RetryStep.Exit]>([cached, giveUp])
        let find = RetryStep("find token", maxVisits: 2, exits: [cached, giveUp]) { _ in
            RetryStep.Output(answers.withLock { $0.removeFirst() })
        }
        var policy = RetryPolicy(maxAttempts: 5, backoff: .constant(.zero), jitter: .none)
        policy.retryIf = RetryClassifier(sendingTo: [find.id]) { _ in .step(find.id) }
        policy.steps = [find]
        var rows = RetryTable.retry.rows
        rows.insert(
            .init(from: .retry, event: nil, condition: .when(.enters(find.id)), to: find.state, effects: [.runStep]),
            at: rows.firstIndex { $0.from == .retry }!)
        rows += [
            .init(from: find.state, event: .stepExit(cached), to: .breaker, effects: [.askBreaker]),
            .init(
                from: find.state, event: .stepExit(giveUp), to: .failure, effects: [.finish], reason: .step("gave up")),
            .init(from: find.state, event: .stepFailed, to: .failure, effects: [.finish], reason: .step("find failed")),
            .init(from: find.state, event: .cancelled, to: .cancelled, effects: [.finish], reason: .cancelled),
        ]
        policy.table = RetryTable(
            name: "exits", initial: .idle, terminals: [.success, .answered, .failure, .cancelled], rows: rows)
        let outcome = try await Retry(policy).outcome { _ -> Int in throw Unauthorized() }
        #expect(outcome.reason == .step("gave up"))
        #expect(outcome.attempts.count == 2)
        #expect(outcome.steps.map(\.exit) == [cached, giveUp])
        #expect(
            outcome.trace.steps.filter { $0.from == find.state }.map { "\($0.event?.label ?? "") → \($0.to.label)" }
                == [
                    "cached → breaker", "give up → failure",
                ])
        #expect(outcome.trace.isConsistent(with: policy.table))
    }

    /// An action that returns an exit its step does not have ends the step in `step failed`, naming
    /// the exit; what it produced is not kept.
    @Test func anExitTheStepLacksEndsItInStepFailedNamingIt() async throws {
        let refresh = RetryStep("refresh credentials", failureReason: "credentials refused") { _ in
            RetryStep.Output(RetryStep.Exit("bogus")).with(Self.token, "leaked")
        }
        let outcome = try await Retry(Self.policy(refresh: refresh)).outcome { _ -> Int in throw Unauthorized() }
        #expect(outcome.reason == .step("credentials refused"))
        #expect(outcome.steps.first?.exit == nil)
        #expect(
            outcome.steps.first.map { String(describing: $0.error!) }
                == "the step 'refresh credentials' ended in 'bogus', which is not one of its exits ('step done')")
        #expect(outcome.trace.steps.last?.detail?.contains("'bogus'") == true)
    }

    /// Every exit needs a row from its step's state, a row may route only an exit the step has,
    /// and an exit may not take a built-in event's name: each refusal names the exit and the step.
    @Test func exitsWithoutARowOrUnknownToTheirStepAreRefusedByName() {
        let current = RetryStep.Exit("current")
        var policy = Self.fast
        let check = RetryStep("check", exits: [.done, current]) { _ in .done }
        policy.steps = [check]
        policy.table = RetryTable.retry.adding(RetryStep("check") { _ in .done }) // routes `step done` only
        #expect(Self.problem(policy)?.contains("has no row for the exit 'current' of the step 'check'") == true)
        var extra = Self.fast
        extra.steps = [RetryStep("check") { _ in .done }]
        extra.table = RetryTable.retry.adding(check) // routes `current` too
        #expect(
            Self.problem(extra)?.contains("routes the exit 'current', which the step 'check' does not have") == true,
            "\(Self.problem(extra) ?? "accepted")")
        var clash = Self.fast
        let named = RetryStep("check", exits: [RetryEvent.failed.label].map(RetryStep.Exit.init)) { _ in .done }
        clash.add(named)
        #expect(Self.problem(clash)?.contains("may not name an exit 'failed', a built-in event") == true)
    }

    /// A step entered on a verdict that no classifier sends failures to cannot be reached: the engine
    /// refuses it by name before any attempt (it ran the attempts and never the step). So is a
    /// classifier that sends failures to a step the policy does not have.
    @Test func theEngineRefusesAStepNothingReachesAndAClassifierNamingNoStep() async throws {
        let calls = Locked(0)
        var policy = Self.fast
        let refresh = RetryStep("refresh credentials") { _ in .done }
        policy.add(refresh)
        policy.retryIf = RetryClassifier { _ in .retry } // sends nothing to the step
        await #expect(throws: RetryPolicyError.self) {
            _ = try await Retry(policy).outcome { _ -> Int in
                calls.withLock { $0 += 1 }
                return 1
            }
        }
        do {
            _ = try await Retry(policy).outcome { _ -> Int in 1 }
        } catch {
            #expect(error.description.contains("has the step 'refresh credentials', entered on a verdict, but no rule"))
        }
        let other = RetryStep("refresh credential") { _ in .done } // a step of no policy
        policy.retryIf = RetryClassifier(sendingTo: [refresh.id, other.id]) { _ in .step(other.id) }
        do {
            _ = try await Retry(policy).outcome { _ -> Int in 1 }
            Issue.record("accepted")
        } catch {
            #expect(
                error.description == "invalid retry policy: steps has no step 'refresh credential', which retryIf "
                    + "sends failures to")
        }
        #expect(calls.withLock { $0 } == 0, "nothing ran")
    }

    @Test func theShippedTableStillValidatesWithEveryCheck() throws {
        try RetryPolicy.default.validate()
        try RetryTable.retry.validate()
    }
}
