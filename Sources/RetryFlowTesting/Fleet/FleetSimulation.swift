import Foundation
import RetryFlow
import RetryFlowHTTP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Many clients against one scripted server on a ``ManualClock``: the real engine, HTTP rules,
/// retry table, budget and breaker, instantly.
///
/// ```swift
/// let report = try await FleetSimulation.run(FleetScenario(clients: 100, budget: .awsStandard))
/// print(FleetSimulation.table(report))
/// ```
///
/// Determinism: the clock moves only when every request is parked (asleep on the clock or not yet
/// started), and then wakes exactly one sleeper, the earliest (ties: the first to sleep). So runs
/// never race each other for the budget or the breaker, and a seed replays a simulation exactly.
public enum FleetSimulation {
    /// The host every simulated request goes to (the reserved `.invalid` domain: never resolved).
    public static let url = URL(string: "http://fleet.invalid/")!

    /// Runs `scenario` and reports what happened each second.
    public static func run(_ scenario: FleetScenario) async throws(RetryPolicyError) -> FleetReport {
        try scenario.validate()
        let clock = ManualClock()
        let budget = try scenario.budget.map { mode throws(RetryPolicyError) in try RetryBudget(mode, clock: clock) }
        let breaker = try scenario.breaker.map { options throws(RetryPolicyError) in try CircuitBreaker(options, clock: clock) }
        let resilience = Resilience(
            policy: scenario.policy, budget: budget, breaker: breaker, whenCircuitOpen: scenario.whenCircuitOpen)
        let perClient = Int((scenario.duration / scenario.interval).rounded(.up))
        let starts: [(client: Int, at: Duration)] = (0..<perClient).flatMap { k in
            (0..<scenario.clients).map { client in
                (client, scenario.interval * k + scenario.interval * (Double(client) / Double(scenario.clients)))
            }
        }.filter { $0.at < scenario.duration }
        let book = Locked(Book(healedAt: scenario.outage.upperBound, live: 0))

        @Sendable func send(_ index: Int, client: Int) async {
            let seed = scenario.seed &+ UInt64(client) &+ UInt64(index) &* 7919
            _ = try? await HTTPRetryRun.outcome(
                for: URLRequest(url: url), resilience: resilience, clock: clock, random: SeededRandom(seed: seed),
                onTransition: { step in
                    // The clock is read outside the book's lock: the driver's wait condition takes the
                    // clock's lock, then the book's, so the two must never nest the other way.
                    let now = clock.now.offset
                    book.withLock { $0.record(step, at: now) }
                }
            ) { _ in
                let now = clock.now.offset
                book.withLock { $0.count(now) { $0.serverLoad += 1 } }
                let status = scenario.outage.contains(now) ? 503 : 200
                return HTTPResponse(
                    data: Data(), response: HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: [:])!)
            }
            book.withLock { $0.live -= 1 }
            clock.recheck()
        }

        // Drive: when every request in flight is parked, either start the next scheduled request (when
        // it comes before every wake-up) or wake the earliest sleeper. Only one thing moves at a time.
        await withTaskGroup(of: Void.self) { group in
            var next = 0
            while true {
                await clock.waitUntil { deadlines in book.withLock { $0.live == deadlines.count } }
                let wake = clock.nextDeadline?.offset
                if next < starts.count, wake.map({ starts[next].at < $0 }) ?? true {
                    let start = starts[next]
                    clock.advance(to: ManualClock.Instant(offset: start.at))
                    book.withLock { $0.live += 1 }
                    let index = next
                    group.addTask { await send(index, client: start.client) }
                    next += 1
                } else if wake != nil {
                    clock.resumeEarliestSleeper()
                } else {
                    break
                }
            }
        }
        return book.withLock { $0.report(scenario) }
    }

    /// The simulation's bookkeeping: counters per second, the last trouble after healing.
    struct Book {
        let healedAt: Duration
        var live: Int
        var seconds: [FleetReport.Second] = []
        var lastTrouble: Duration?

        mutating func count(_ time: Duration, _ change: (inout FleetReport.Second) -> Void) {
            let second = Int(time / .seconds(1))
            while seconds.count <= second { seconds.append(FleetReport.Second(time: seconds.count)) }
            change(&seconds[second])
        }

        /// Reads the transition as the table names it: every count is a kind of row.
        mutating func record(_ step: RetryTrace.Step, at time: Duration) {
            var trouble = false
            count(time) { second in
                if step.event == .start { second.offered += 1 }
                if step.to == .request && step.attempt > 1 && step.event != .start { second.retries += 1 }
                if step.event == .circuitOpen {
                    second.refusedByBreaker += 1
                    second.retries -= step.attempt > 1 ? 1 : 0  // the refused attempt was never sent
                    trouble = true
                }
                if step.condition == .unless(.retryBudgetLeft) {
                    second.refusedByBudget += 1
                    trouble = true
                }
                if step.to == .success { second.successes += 1 }
                if step.to == .failure {
                    second.failures += 1
                    trouble = true
                }
            }
            if trouble && time >= healedAt { lastTrouble = max(lastTrouble ?? time, time) }
        }

        func report(_ scenario: FleetScenario) -> FleetReport {
            FleetReport(scenario: scenario, seconds: seconds, lastTroubleAfterHealing: lastTrouble)
        }
    }
}
