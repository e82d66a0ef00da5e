import Foundation
import RetryFlow
import RetryFlowCharts
import RetryFlowTesting
import Testing

/// Breaker admission as rows of the retry table: every try asks the breaker (`ask breaker`), and its
/// answer picks a row that the chart draws and the trace records. A refused try is not sent and uses
/// up no attempt (`count refusal` and `refusals left` bound the waits instead).
@Suite struct BreakerAdmissionTests {
    let constant = RetryPolicy(maxAttempts: 2, backoff: .constant(.seconds(1)), jitter: .none)

    /// The breaker's rows, as the trace names them and the chart labels them.
    static let admitted = "breaker --admitted / start attempt--> request"
    static let failsFast = "breaker --circuit open [fails fast] / finish--> failure"
    static let noRefusalsLeft = "breaker --circuit open [no refusals left] / finish--> failure"
    static let waitsOut = "breaker --circuit open / count refusal, plan delay--> retry"

    /// The table rows `steps` took, as they read (`?` for a step that matches no row).
    static func rows(of steps: [RetryTrace.Step]) -> [String] {
        steps.map { step in
            RetryTable.retry.index(from: step.from, event: step.event, condition: step.condition, to: step.to)
                .map { RetryTable.retry.rows[$0].description } ?? "?"
        }
    }

    @Test func theChartDrawsBreakerAdmission() {
        let rows = RetryTable.retry.rows.map(\.description)
        for row in [Self.admitted, Self.failsFast, Self.noRefusalsLeft, Self.waitsOut] {
            #expect(rows.contains(row), "\(row)")
        }
        #expect(rows.contains("limiter --token granted / ask breaker--> breaker"))
        #expect(rows.contains("token wait --delay elapsed / ask breaker--> breaker"))
        #expect(!rows.contains { $0.hasPrefix("request --circuit open") }, "the driver no longer refuses in request")
        let dot = DOTChart.render(RetryTable.retry, style: .state)
        #expect(dot.contains(#""limiter" -> "breaker""#) && dot.contains(#"label="token granted / ask breaker""#))
        #expect(dot.contains(#""breaker" -> "request""#) && dot.contains(#"label="admitted / start attempt""#))
        #expect(dot.contains(#"label="circuit open [fails fast] / finish""#))
        #expect(dot.contains(#"label="circuit open [no refusals left] / finish""#))
        #expect(dot.contains(#""breaker" -> "retry""#))
        #expect(dot.contains(#"label="circuit open [else] / count refusal, plan delay""#))
    }

    /// The machine alone: `start` asks the limiter, its token asks the breaker for attempt 1;
    /// `admitted` starts it; a refusal waits (the break's rest as a Retry-After) and asks again, limiter
    /// first, for the same attempt number.
    @Test func theMachineAsksTheBreakerBeforeEveryAttempt() throws {
        var machine = RetryMachine(policy: constant, random: SeededRandom(seed: 1))
        #expect(Array(try machine.handle(.start, at: .zero).actions) == [.askLimiter])
        #expect(Array(try machine.handle(.tokenGranted, at: .zero).actions) == [.askBreaker(attempt: 1)])
        #expect(machine.state == .breaker)
        let refused = try machine.handle(.circuitOpen(.retryAfter(.seconds(3)), detail: "circuit open"), at: .zero)
        #expect(Self.rows(of: refused.taken).first == Self.waitsOut)
        #expect(Array(refused.actions) == [.askRetryBudget(afterTimeout: false)])
        let waits = try machine.handle(.budgetAnswered(granted: true, detail: nil), at: .zero)
        #expect(Array(waits.actions) == [.notifyRetry(attempt: 0, delay: .seconds(3)), .sleep(.seconds(3))])
        #expect(Array(try machine.handle(.delayElapsed, at: .seconds(3)).actions) == [.askLimiter])
        #expect(Array(try machine.handle(.tokenGranted, at: .seconds(3)).actions) == [.askBreaker(attempt: 1)])
        #expect(Array(try machine.handle(.admitted, at: .seconds(3)).actions) == [.startAttempt(1)])
        #expect(machine.attempt == 1, "the refused try used up no attempt")
    }

    /// Waits out the break: one failure trips the breaker, the retry is refused and waits the rest
    /// of the break, then the probe is admitted. With maxAttempts 2 the probe is attempt 2: the
    /// refused try did not use up an attempt (it did before breaker admission was on the table).
    @Test func aRefusedTryWaitsOutTheBreakAndUsesUpNoAttempt() async throws {
        let clock = ManualClock()
        let breaker = try CircuitBreaker(
            .init(trip: .consecutiveFailures(1), breakDuration: .seconds(5)), clock: clock, tracing: true)
        let calls = Counter()
        let engine = Retry(constant, clock: clock, guards: FleetGuards(breaker: breaker))
        let outcome = await clock.runAdvancing {
            try! await engine.outcome { attempt -> String in
                if calls.next() == 1 { throw Boom(n: 1) }
                return "ok #\(attempt.number)"
            }
        }
        #expect(outcome.finalState == .success)
        #expect(outcome.value == "ok #2")
        #expect(calls.current == 2, "the refused try was never sent")
        // The refused try is kept (its error is the run's), under the number the attempt then took.
        #expect(outcome.attempts.map(\.number) == [1, 2, 2])
        #expect(outcome.attempts[1].error is CircuitRejection)
        #expect(outcome.attempts[1].decision == .retryAfter(.seconds(4)))
        #expect(outcome.attempts.map(\.start) == [.zero, .seconds(1), .seconds(5)])
        let rows = Self.rows(of: outcome.trace.steps)
        #expect(rows.filter { $0 == Self.admitted }.count == 2)
        #expect(rows.filter { $0 == Self.waitsOut }.count == 1)
        expectConsistent(outcome.trace)
        expectBreakerConsistent(breaker)
        // On the chart: the run's overlay draws the refusal's edge as taken.
        let dot = DOTChart.render(
            RetryTable.retry, style: .state, overlay: TraceOverlay(trace: outcome.trace, table: .retry))
        let refusalEdge = try #require(dot.split(separator: "\n").first { $0.contains("count refusal, plan delay") })
        #expect(refusalEdge.contains("penwidth"), "\(refusalEdge)")
    }

    /// Fails fast: a refused first try ends the run on the `[fails fast]` row; nothing was sent.
    @Test func aRefusedTryFailsFastOnItsOwnRow() async throws {
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
        let rows = Self.rows(of: outcome.trace.steps)
        #expect(
            rows == [
                "idle --start / ask limiter--> limiter", "limiter --token granted / ask breaker--> breaker",
                Self.failsFast,
            ])
        #expect(outcome.trace.steps.last?.attempt == 0, "no attempt started")
        #expect(outcome.attempts.map(\.errorDescription) == ["circuit isolated"])
        expectConsistent(outcome.trace)
    }

    /// A breaker held open refuses every try: the run waits out maxAttempts refusals, then ends on
    /// `[no refusals left]`. Bounded though no attempt is ever started.
    @Test func refusalsAreBoundedByMaxAttempts() async throws {
        let clock = ManualClock()
        let breaker = try CircuitBreaker(.init(trip: .consecutiveFailures(1)), clock: clock)
        breaker.isolate()
        let engine = Retry(constant, clock: clock, guards: FleetGuards(breaker: breaker))
        let calls = Counter()
        let outcome = await clock.runAdvancing {
            try! await engine.outcome { _ -> Int in calls.next() }
        }
        #expect(calls.current == 0)
        #expect(outcome.reason == .circuitOpen)
        let rows = Self.rows(of: outcome.trace.steps)
        #expect(rows.filter { $0 == Self.waitsOut }.count == 2)
        #expect(rows.last == Self.noRefusalsLeft)
        // Isolated, the breaker names no break: the policy's backoff is waited between refusals.
        #expect(outcome.duration == .seconds(2))
        expectConsistent(outcome.trace)
    }

    /// Without a breaker the engine answers `ask breaker` at once: one `admitted` row per attempt.
    @Test func withoutABreakerEveryTryIsAdmittedAtOnce() async throws {
        let clock = ManualClock()
        let engine = Retry(constant, clock: clock)
        let outcome = await clock.runAdvancing {
            try! await engine.outcome { attempt -> Int in
                if attempt.number == 1 { throw Boom(n: 1) }
                return 7
            }
        }
        #expect(outcome.value == 7)
        #expect(outcome.trace.steps.filter { $0.event == .admitted }.map(\.at) == [.zero, .seconds(1)])
        expectConsistent(outcome.trace)
    }

    /// `validate()` still proves every loop ends: a waits-out row that counts no refusal, or one with
    /// no `[no refusals left]` before it, loops through `breaker` without a bound.
    @Test func anUncountedRefusalLoopIsRefused() {
        let uncounted = RetryTable.retry.rows.map { row in
            row.description == Self.waitsOut
                ? RetryTable.Row(from: .breaker, event: .circuitOpen, to: .retry, effects: [.planDelay]) : row
        }
        let unguarded = RetryTable.retry.rows.filter { $0.description != Self.noRefusalsLeft }
        for rows in [uncounted, unguarded] {
            let table = RetryTable(
                name: "mine", initial: .idle, terminals: [.success, .answered, .failure, .cancelled], rows: rows)
            #expect(
                table.problems.contains {
                    if case .unboundedLoop(let states, _) = $0 { return states.contains("breaker") }
                    return false
                }, "\(table.problems)")
        }
        #expect(RetryTable.retry.problems.isEmpty)
    }

    /// Every run in a world with a breaker, waiting out breaks or failing fast, keeps every invariant
    /// and takes the breaker's rows.
    @Test(arguments: [true, false])
    func explorationCoversTheBreakerRows(waitsOutBreak: Bool) throws {
        let world = RetryWorld(breaker: true, waitsOutBreak: waitsOutBreak)
        let result = RetryExploration.explore(policy: constant, world: world)
        #expect(result.holds, "\(result.text)")
        let expected =
            waitsOutBreak ? [Self.admitted, Self.noRefusalsLeft, Self.waitsOut] : [Self.admitted, Self.failsFast]
        for description in expected {
            let index = try #require(RetryTable.retry.rows.firstIndex { $0.description == description })
            #expect(result.reachableRows.contains(index), "\(description)")
        }
    }
}
