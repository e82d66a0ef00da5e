import Foundation
import RetryFlow
import RetryFlowCharts
import RetryFlowHTTP
import RetryFlowTesting
import Testing

/// The hedging machine and its run loop on a manual clock: gRPC A6's semantics, one winner, every
/// loser cancelled and awaited, hedges counted, traces checked against ``TransitionTable/hedging``.
@Suite struct HedgingTests {
    /// One scripted attempt: answer `status` after `after`, or throw `error`.
    struct Plan: Sendable {
        var after: Duration
        var status = 200
        var pushback = HedgePushback.none
    }

    /// Scripted attempts by number; records what each did (started, answered, cancelled).
    final class Script: Sendable {
        let plans: [Int: Plan]
        let clock: ManualClock
        let log = Locked<[String]>([])

        init(_ plans: [Int: Plan], clock: ManualClock) {
            self.plans = plans
            self.clock = clock
        }

        var events: [String] { log.withLock { $0 } }
        var started: Int { events.filter { $0.hasSuffix("started") }.count }
        var cancelled: [String] { events.filter { $0.hasSuffix("cancelled") } }
        var stillRunning: Int {
            started - events.filter { $0.hasSuffix("answered") || $0.hasSuffix("cancelled") }.count
        }

        func attempt(_ attempt: HedgedRun<ManualClock>.Attempt) async throws -> Plan {
            let plan = plans[attempt.number] ?? Plan(after: .seconds(1_000))
            log.withLock { $0.append("#\(attempt.number) started") }
            do {
                try await clock.sleep(until: clock.now.advanced(by: plan.after), tolerance: nil)
            } catch {
                log.withLock { $0.append("#\(attempt.number) cancelled") }
                throw error
            }
            log.withLock { $0.append("#\(attempt.number) answered") }
            return plan
        }

        /// 2xx accepted; 503 non-fatal with the plan's pushback; anything else final.
        static func classify(_ result: Result<Plan, any Error>) -> HedgeVerdict {
            switch result {
            case .success(let plan) where plan.status < 300: .accept
            case .success(let plan) where plan.status == 503: .nonFatal(plan.pushback)
            case .success: .final
            case .failure: .nonFatal(.none)
            }
        }

        func run(
            _ policy: HedgingPolicy, budget: RetryBudget? = nil, deadline: Duration? = nil,
            onTransition: (@Sendable (HedgingTrace.Step) -> Void)? = nil
        ) async -> HedgingOutcome<Plan> {
            var run = HedgedRun(policy, clock: clock, budget: budget, deadline: deadline)
            run.onTransition = onTransition
            return await run.outcome(
                classify: Self.classify, describe: { result in (try? result.get()).map { "HTTP \($0.status)" } }
            ) { try await self.attempt($0) }
        }
    }

    static func check(_ record: HedgingRecord, sourceLocation: SourceLocation = #_sourceLocation) {
        expectConsistent(record.trace, with: HedgingTable.hedging, sourceLocation: sourceLocation)
        #expect(record.inFlightAtReturn == 0, sourceLocation: sourceLocation)
        // The driver hands the machine only events its table has a row for (a stale timer is not one).
        #expect(record.trace.rejections.isEmpty, "\(record.trace.rejections)", sourceLocation: sourceLocation)
        #expect(record.finalState.isTerminalHedgingState, sourceLocation: sourceLocation)
    }

    @Test func hedgingTableIsValid() throws {
        try HedgingTable.hedging.validate()
    }

    @Test func explorationHoldsEveryInvariant() {
        let result = HedgingExploration.explore(maxAttempts: 3)
        #expect(result.holds, "\(result.text)")
        #expect(result.violations.isEmpty)
    }

    @Test func slowFirstAnswerIsBeatenByTheHedgeAndTheLoserIsCancelledAndAwaited() async {
        let clock = ManualClock()
        let script = Script([1: Plan(after: .seconds(5)), 2: Plan(after: .milliseconds(10))], clock: clock)
        let run = Task { await script.run(HedgingPolicy(delay: .milliseconds(100), maxAttempts: 2)) }
        await clock.waitForSleepers(2) // attempt 1 and the hedge timer
        clock.advance(by: .milliseconds(100))
        let due = clock.now.advanced(by: .milliseconds(10))
        await clock.waitUntil { $0.contains(due) }
        clock.advance(by: .milliseconds(10))
        let outcome = await run.value
        #expect(outcome.succeeded)
        #expect(outcome.record.reason == .accepted)
        #expect(script.started == 2)
        #expect(outcome.record.hedges == 1)
        #expect(outcome.record.answeredBy == 2)
        #expect(script.cancelled == ["#1 cancelled"], "the loser was cancelled")
        #expect(script.stillRunning == 0, "and awaited before the run returned")
        #expect(outcome.record.attempts.map(\.ending) == [.cancelled, .won])
        #expect(outcome.record.duration == .milliseconds(110))
        Self.check(outcome.record)
    }

    @Test func fastFirstAnswerSendsNoHedge() async {
        let clock = ManualClock()
        let script = Script([1: Plan(after: .milliseconds(20))], clock: clock)
        let run = Task { await script.run(HedgingPolicy(delay: .milliseconds(100), maxAttempts: 3)) }
        await clock.waitForSleepers(2)
        clock.advance(by: .milliseconds(20))
        let outcome = await run.value
        #expect(outcome.succeeded)
        #expect(script.started == 1)
        #expect(outcome.record.hedges == 0)
        #expect(clock.sleeperCount == 0, "the hedge timer was cancelled and awaited too")
        Self.check(outcome.record)
    }

    @Test func nonFatal503SendsTheNextHedgeAtOnce() async {
        let clock = ManualClock()
        let script = Script(
            [1: Plan(after: .milliseconds(30), status: 503), 2: Plan(after: .milliseconds(10))], clock: clock)
        let run = Task { await script.run(HedgingPolicy(delay: .seconds(1), maxAttempts: 2)) }
        await clock.waitForSleepers(2)
        clock.advance(by: .milliseconds(30)) // the 503, long before the 1 s hedging delay
        let due = clock.now.advanced(by: .milliseconds(10))
        await clock.waitUntil { $0.contains(due) }
        #expect(script.started == 2, "the hedge went out at the 503, at 30 ms")
        clock.advance(by: .milliseconds(10))
        let outcome = await run.value
        #expect(outcome.succeeded)
        #expect(outcome.record.attempts.map(\.start) == [.zero, .milliseconds(30)])
        #expect(outcome.record.attempts.map(\.ending) == [.failed, .won])
        Self.check(outcome.record)
    }

    @Test func finalAnswer404ReturnsAtOnceAndCancelsTheHedges() async {
        let clock = ManualClock()
        let script = Script(
            [1: Plan(after: .seconds(5)), 2: Plan(after: .milliseconds(10), status: 404), 3: Plan(after: .seconds(5))],
            clock: clock)
        let run = Task { await script.run(HedgingPolicy(delay: .milliseconds(100), maxAttempts: 3)) }
        await clock.waitForSleepers(2)
        clock.advance(by: .milliseconds(100)) // hedge 2
        await clock.waitForSleepers(3) // attempts 1, 2 and the timer for 3
        clock.advance(by: .milliseconds(10)) // 2 answers 404
        let outcome = await run.value
        #expect(!outcome.succeeded)
        #expect(outcome.record.reason == .finalAnswer)
        #expect((try? outcome.result?.get())?.status == 404)
        #expect(script.started == 2, "hedge 3 was never sent")
        #expect(script.cancelled == ["#1 cancelled"])
        #expect(script.stillRunning == 0)
        Self.check(outcome.record)
    }

    @Test func budgetAtHalfOrBelowSendsNoHedge() async throws {
        let clock = ManualClock()
        let budget = try RetryBudget(.grpcThrottling(maxTokens: 10, tokenRatio: 0.1), clock: clock)
        for _ in 1...5 { budget.record(.failure) } // 5 of 10: at half
        let script = Script([1: Plan(after: .seconds(1))], clock: clock)
        let (rows, rowSink) = AsyncStream.makeStream(of: HedgingTrace.Step.self)
        let run = Task {
            await script.run(
                HedgingPolicy(delay: .milliseconds(100), maxAttempts: 3), budget: budget,
                onTransition: { rowSink.yield($0) })
        }
        await clock.waitForSleepers(2)
        clock.advance(by: .milliseconds(100)) // the hedge is due, and refused
        for await row in rows where row.from == .admitting && row.to == .windingDown { break }
        #expect(script.started == 1)
        clock.advance(by: .milliseconds(900))
        let outcome = await run.value
        #expect(outcome.succeeded, "the run waited for the attempt in flight")
        #expect(outcome.record.hedges == 0)
        #expect(
            outcome.record.deniedHedges == 1,
            "\(outcome.record.trace.steps.map { HedgingTrace.describe($0) + " @\($0.at)" })")
        #expect(outcome.record.trace.steps.contains { $0.from == .admitting && $0.to == .windingDown })
        Self.check(outcome.record)
    }

    @Test func budgetAboveHalfSendsTheHedge() async throws {
        let clock = ManualClock()
        let budget = try RetryBudget(.grpcThrottling(maxTokens: 10, tokenRatio: 0.1), clock: clock)
        for _ in 1...4 { budget.record(.failure) } // 6 of 10
        let script = Script([1: Plan(after: .seconds(1)), 2: Plan(after: .milliseconds(1))], clock: clock)
        let run = Task { await script.run(HedgingPolicy(delay: .milliseconds(100), maxAttempts: 2), budget: budget) }
        await clock.waitForSleepers(2)
        clock.advance(by: .milliseconds(100))
        await clock.waitForSleepers(2) // attempts 1 and 2 (no timer: no attempts left)
        clock.advance(by: .milliseconds(1))
        let outcome = await run.value
        #expect(outcome.record.hedges == 1)
        #expect(outcome.record.deniedHedges == 0)
        Self.check(outcome.record)
    }

    @Test func pushbackDelaysTheNextHedge() async {
        let clock = ManualClock()
        let script = Script(
            [1: Plan(after: .milliseconds(10), status: 503, pushback: .delay(.seconds(2))), 2: Plan(after: .zero)],
            clock: clock)
        let run = Task { await script.run(HedgingPolicy(delay: .milliseconds(100), maxAttempts: 2)) }
        await clock.waitForSleepers(2)
        clock.advance(by: .milliseconds(10)) // 503 with pushback 2 s
        let due = clock.now.advanced(by: .seconds(2))
        await clock.waitUntil { $0 == [due] }
        clock.advance(by: .milliseconds(90)) // past the ordinary delay: no hedge yet
        let later = clock.now.advanced(by: .milliseconds(1_910))
        await clock.waitUntil { $0 == [later] }
        #expect(script.started == 1)
        clock.advance(by: .milliseconds(1_910))
        let outcome = await run.value
        #expect(outcome.succeeded)
        #expect(outcome.record.attempts.map(\.start) == [.zero, .milliseconds(2_010)])
        #expect(outcome.record.trace.steps.contains { $0.delay == .seconds(2) })
        Self.check(outcome.record)
    }

    @Test func pushbackStopSendsNoMoreHedgesButWaitsForThoseInFlight() async {
        let clock = ManualClock()
        let script = Script(
            [1: Plan(after: .seconds(1)), 2: Plan(after: .milliseconds(10), status: 503, pushback: .stop)],
            clock: clock)
        let run = Task { await script.run(HedgingPolicy(delay: .milliseconds(100), maxAttempts: 4)) }
        await clock.waitForSleepers(2)
        clock.advance(by: .milliseconds(100))
        await clock.waitForSleepers(3)
        clock.advance(by: .milliseconds(10)) // hedge 2: 503, "don't retry"
        await clock.waitUntil { $0.count == 1 } // only attempt 1 left: the timer was disarmed
        clock.advance(by: .milliseconds(890))
        let outcome = await run.value
        #expect(outcome.succeeded)
        #expect(script.started == 2)
        #expect(outcome.record.answeredBy == 1)
        Self.check(outcome.record)
    }

    @Test func everyAttemptFailingEndsWithTheLastFailure() async {
        let clock = ManualClock()
        let script = Script(
            [1: Plan(after: .milliseconds(1), status: 503), 2: Plan(after: .milliseconds(1), status: 503)],
            clock: clock)
        let run = Task { await script.run(HedgingPolicy(delay: .milliseconds(100), maxAttempts: 2)) }
        await clock.waitForSleepers(2)
        clock.advance(by: .milliseconds(1))
        let due = clock.now.advanced(by: .milliseconds(1))
        await clock.waitUntil { $0 == [due] }
        clock.advance(by: .milliseconds(1))
        let outcome = await run.value
        #expect(outcome.record.reason == .everyAttemptFailed)
        #expect((try? outcome.result?.get())?.status == 503)
        #expect(outcome.record.attempts.map(\.ending) == [.failed, .failed])
        Self.check(outcome.record)
    }

    @Test func deadlineDuringThreeOverlappingAttemptsCancelsAndAwaitsThemAll() async {
        let clock = ManualClock()
        let script = Script([:], clock: clock) // every attempt takes 1,000 s
        let run = Task {
            await script.run(HedgingPolicy(delay: .milliseconds(100), maxAttempts: 3), deadline: .milliseconds(250))
        }
        await clock.waitForSleepers(3) // deadline, attempt 1, timer
        clock.advance(by: .milliseconds(100))
        await clock.waitForSleepers(4)
        clock.advance(by: .milliseconds(100))
        await clock.waitForSleepers(4) // deadline, attempts 1–3
        #expect(script.started == 3)
        clock.advance(by: .milliseconds(50))
        let outcome = await run.value
        #expect(outcome.record.reason == .deadline)
        #expect(outcome.result == nil)
        #expect(script.cancelled.count == 3)
        #expect(script.stillRunning == 0)
        #expect(outcome.record.attempts.map(\.ending) == [.cancelled, .cancelled, .cancelled])
        #expect(outcome.record.duration == .milliseconds(250))
        #expect(clock.sleeperCount == 0)
        Self.check(outcome.record)
    }

    /// Nothing is lost: a copy that failed before the deadline keeps its error as thrown, and the
    /// loser cancelled by the deadline keeps the cancellation it ended with.
    @Test func aDeadlineKeepsEveryCopysErrorAsThrown() async {
        struct Refused: Error, Equatable { let copy: Int }
        let clock = ManualClock()
        let start = clock.now
        let run = Task {
            await HedgedRun(
                HedgingPolicy(delay: .milliseconds(100), maxAttempts: 2), clock: clock, deadline: .milliseconds(50)
            )
            .outcome(
                classify: { _ in .nonFatal(.none) }, describe: { "\($0)" }
            ) { attempt -> Int in
                if attempt.number == 1 { throw Refused(copy: 1) }
                try await clock.sleep(until: clock.now.advanced(by: .seconds(1_000)), tolerance: nil)
                return 2
            }
        }
        // Copy 1's failure sent copy 2 at once and the hedge timer is gone: the deadline and copy 2 sleep.
        await clock.waitUntil { $0 == [start.advanced(by: .milliseconds(50)), start.advanced(by: .seconds(1_000))] }
        clock.advance(by: .milliseconds(50))
        let outcome = await run.value
        #expect(outcome.record.reason == .deadline)
        #expect(outcome.result == nil, "a deadline returns no result; the errors are in the record")
        #expect(outcome.record.attempts.map(\.ending) == [.failed, .cancelled])
        #expect(outcome.record.attempts.first?.error as? Refused == Refused(copy: 1))
        #expect(outcome.record.attempts.first?.detail?.contains("Refused") == true)
        #expect(outcome.record.attempts.last?.error is CancellationError)
        Self.check(outcome.record)
    }

    @Test func callerCancellationDuringThreeOverlappingAttemptsCancelsAndAwaitsThemAll() async {
        let clock = ManualClock()
        let script = Script([:], clock: clock)
        let run = Task { await script.run(HedgingPolicy(delay: .milliseconds(100), maxAttempts: 3)) }
        await clock.waitForSleepers(2)
        clock.advance(by: .milliseconds(100))
        await clock.waitForSleepers(3)
        clock.advance(by: .milliseconds(100))
        await clock.waitForSleepers(3) // attempts 1–3, no timer left
        run.cancel()
        let outcome = await run.value
        #expect(outcome.record.finalState == .cancelled)
        #expect(outcome.record.reason == .cancelled)
        #expect(script.started == 3)
        #expect(script.cancelled.count == 3)
        #expect(script.stillRunning == 0)
        #expect(clock.sleeperCount == 0)
        Self.check(outcome.record)
    }

    @Test func policyLimitsAreChecked() throws {
        #expect(throws: RetryPolicyError.self) { try HedgingPolicy(delay: .zero, maxAttempts: 6).validate() }
        #expect(throws: RetryPolicyError.self) { try HedgingPolicy(delay: .zero, maxAttempts: 0).validate() }
        #expect(throws: RetryPolicyError.self) { try HedgingPolicy(delay: .seconds(-1)).validate() }
        try HedgingPolicy(delay: .zero, maxAttempts: HedgingPolicy.attemptLimit).validate()
    }
}

extension HedgingState {
    fileprivate var isTerminalHedgingState: Bool { HedgingTable.hedging.isTerminal(self) }
}

/// Hedging's JSON form, in seconds; a policy's JSON no longer carries it (it is an HTTP option,
/// `HTTPRetryOptions.hedging`), and says so by name.
@Suite struct HedgingPolicyCodingTests {
    @Test func hedgingRoundTripsThroughJSON() throws {
        let hedging = HedgingPolicy(delay: .milliseconds(50), maxAttempts: 3)
        let data = try JSONEncoder().encode(hedging)
        #expect(try JSONDecoder().decode(HedgingPolicy.self, from: data) == hedging)
        let defaulted = try JSONDecoder().decode(HedgingPolicy.self, from: Data(#"{"delay": 0.25}"#.utf8))
        #expect(defaulted == HedgingPolicy(delay: .milliseconds(250), maxAttempts: 2))
    }

    @Test func badHedgingInJSONNamesTheField() {
        for (json, field) in [
            (#"{"delay": 0.05, "maxAttempts": 9}"#, "hedging.maxAttempts"),
            (#"{"delay": -1}"#, "hedging.delay"),
        ] {
            #expect(throws: RetryPolicyError.self, "\(json)") {
                do { _ = try JSONDecoder().decode(HedgingPolicy.self, from: Data(json.utf8)) } catch let error
                    as RetryPolicyError
                {
                    #expect(error.field == field, "\(json): \(error)")
                    throw error
                }
            }
        }
    }

    /// A policy file written when hedging was a policy field is refused with where it went, not
    /// decoded with the hedging dropped.
    @Test func aPolicyWithHedgingIsRefusedNamingWhereItWent() {
        let json = #"{"maxAttempts": 2, "hedging": {"delay": 0.05, "maxAttempts": 2}}"#
        #expect(throws: RetryPolicyError.self) {
            do { _ = try JSONDecoder().decode(RetryPolicy.self, from: Data(json.utf8)) } catch let error
                as RetryPolicyError
            {
                #expect(error.field == "hedging")
                #expect(error.problem.contains("HTTPRetryOptions.hedging"), "\(error)")
                throw error
            }
        }
        let encoded = (try? JSONEncoder().encode(RetryPolicy.default)).map { String(decoding: $0, as: UTF8.self) }
        #expect(encoded?.contains("hedging") == false)
    }
}
