import Foundation
import RetryFlow
import RetryFlowTesting
import Testing

/// The engine under a shared budget and breaker: refusals are rows of the retry table, recorded in
/// the trace and the outcome, and every machine's trace matches its own table.
@Suite struct FleetEngineTests {
    let constant = RetryPolicy(maxAttempts: 4, backoff: .constant(.seconds(1)), jitter: .none)

    @Test func exhaustedBudgetEndsTheRunOnItsOwnRow() async throws {
        let clock = ManualClock()
        let budget = try RetryBudget(
            .awsStandard(capacity: 5, retryCost: 5, timeoutRetryCost: 10, successIncrement: 1),
            clock: clock, tracing: true)
        let calls = Counter()
        let engine = Retry(constant, clock: clock, guards: FleetGuards(budget: budget))
        let outcome = await clock.runAdvancing {
            try! await engine.outcome { _ -> Int in throw Boom(n: calls.next()) }
        }
        #expect(outcome.finalState == .failure)
        #expect(outcome.reason == .budgetExhausted)
        #expect(calls.current == 2, "one retry paid for, the second refused")
        #expect(outcome.attempts.count == 2)
        let steps = outcome.trace.steps
        let last = try #require(steps.last)
        #expect(last.from == .admission && last.condition == .unless(.retryBudgetLeft) && last.to == .failure)
        #expect(steps[steps.count - 2].event == .budgetAnswered)
        #expect(steps[steps.count - 2].detail == "retry budget exhausted (aws: 0.0 tokens left)")
        expectConsistent(outcome.trace)
        expectBudgetConsistent(budget)
        #expect(outcome.error?.description.hasPrefix("gave up (retry budget exhausted) after 2 attempts") == true)
    }

    @Test func openBreakerIsWaitedOutLikeARetryAfterAndTheProbeCloses() async throws {
        let clock = ManualClock()
        let breaker = try CircuitBreaker(
            .init(trip: .consecutiveFailures(1), breakDuration: .seconds(5)), clock: clock, tracing: true)
        let calls = Counter()
        let engine = Retry(constant, clock: clock, guards: FleetGuards(breaker: breaker))
        let outcome = await clock.runAdvancing {
            try! await engine.outcome { _ -> String in
                if calls.next() == 1 { throw Boom(n: 1) }
                return "ok"
            }
        }
        #expect(outcome.finalState == .success)
        #expect(calls.current == 2, "the refused attempt was never sent")
        #expect(outcome.attempts.count == 3)
        let refused = outcome.attempts[1]
        #expect(refused.error is CircuitRejection)
        #expect(refused.decision == .retryAfter(.seconds(4)))
        #expect(outcome.attempts.map(\.start) == [.zero, .seconds(1), .seconds(5)])
        #expect(outcome.trace.steps.contains { $0.event == .circuitOpen && $0.from == .breaker && $0.to == .retry })
        #expect(breaker.state == .closed)
        expectConsistent(outcome.trace)
        expectBreakerConsistent(breaker)
        #expect(breaker.trace?.steps.map(\.to) == [.closed, .tripping, .open, .open, .halfOpen, .halfOpen, .closed])
    }

    @Test func openBreakerFailsFastWhenThePolicySaysSo() async throws {
        let clock = ManualClock()
        let breaker = try CircuitBreaker(.init(trip: .consecutiveFailures(1)), clock: clock)
        breaker.isolate()
        let engine = Retry(constant, clock: clock, guards: FleetGuards(breaker: breaker, whenCircuitOpen: .fail))
        let calls = Counter()
        let outcome = await clock.runAdvancing {
            try! await engine.outcome { _ -> Int in calls.next() }
        }
        #expect(outcome.reason == .circuitOpen)
        #expect(calls.current == 0)
        #expect(outcome.attempts.first?.errorDescription == "circuit isolated")
        expectConsistent(outcome.trace)
    }

    /// 1,000 concurrent runs through the engine, one shared bucket: each either pays 5 and gets
    /// them back on success, or is refused; either way the bucket ends exactly where it began.
    @Test func thousandConcurrentRunsLoseNoToken() async throws {
        let budget = try RetryBudget(.awsStandard)
        let policy = RetryPolicy(maxAttempts: 2, backoff: .constant(.zero), jitter: .none)
        let engine = Retry(policy, clock: ContinuousClock(), guards: FleetGuards(budget: budget))
        let reasons = await withTaskGroup(of: StopReason.self) { group in
            for _ in 0..<1000 {
                group.addTask {
                    let calls = Counter()
                    let outcome = try! await engine.outcome { _ -> Int in
                        if calls.next() == 1 { throw Boom(n: 1) }
                        return 2
                    }
                    expectConsistent(outcome.trace)
                    return outcome.reason
                }
            }
            return await group.reduce(into: [StopReason]()) { $0.append($1) }
        }
        #expect(reasons.count == 1000)
        #expect(reasons.allSatisfy { $0 == .succeeded || $0 == .budgetExhausted })
        #expect(budget.tokens == 500)
        #expect(budget.state == .available)
    }

    @Test func registryKeepsOneBudgetAndOneBreakerPerKey() throws {
        let registry = try ResilienceRegistry(budget: .grpc(), breaker: .polly, clock: ManualClock())
        let a = registry.guards(forKey: "a.example", completing: FleetGuards())
        let b = registry.guards(forKey: "b.example", completing: FleetGuards())
        #expect(a.budget === registry.guards(forKey: "a.example", completing: FleetGuards()).budget)
        #expect(a.breaker === registry.breaker(forKey: "a.example"))
        #expect(a.budget !== b.budget)
        #expect(registry.keys == ["a.example", "b.example"])
        let own = try RetryBudget(.awsStandard)
        #expect(registry.guards(forKey: "a.example", completing: FleetGuards(budget: own)).budget === own)
    }

    @Test func perpetualTablesValidateButDeadEndsStillFail() {
        enum S: String, TableSymbol { case on, off, stuck }
        enum E: String, TableSymbol { case flip }
        enum G: String, TableSymbol { case never }
        enum X: String, TableSymbol { case none }
        typealias V = TableWords<S, E, G, X, PerpetualReason>
        let table = TransitionTable<V>(
            name: "toggle", initial: .on, terminals: [],
            rows: [.init(from: .on, event: .flip, to: .off), .init(from: .off, event: .flip, to: .stuck)])
        #expect(table.problems == [.deadEnd(state: "stuck")])
    }
}
