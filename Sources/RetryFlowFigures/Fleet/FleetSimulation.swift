import Foundation
import RetryFlow
import RetryFlowHTTP
import RetryFlowTestSupport

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
/// Determinism: the clock moves only when every request in flight is parked in its backoff wait and
/// the clock's sleepers are exactly those waits, and then wakes exactly one sleeper, the earliest
/// (ties: the first to park). A request in its attempt is never parked, even when a sleeper of its own
/// is registered (HTTP's default per-attempt timer). So runs never race each other for the budget or
/// the breaker, and a seed replays a simulation exactly, however loaded the machine.
package enum FleetSimulation {
    /// The host every simulated request goes to (the reserved `.invalid` domain: never resolved).
    package static let url = URL(string: "http://fleet.invalid/")!

    /// Runs `scenario` and reports what happened each second.
    package static func run(_ scenario: FleetScenario) async throws(RetryPolicyError) -> FleetReport {
        try scenario.validate()
        let clock = ManualClock()
        let budget = try scenario.budget.map { mode throws(RetryPolicyError) in try RetryBudget(mode, clock: clock) }
        let breaker = try scenario.breaker.map { options throws(RetryPolicyError) in
            try CircuitBreaker(options, clock: clock)
        }
        let guards = FleetGuards(budget: budget, breaker: breaker, whenCircuitOpen: scenario.whenCircuitOpen)
        let perClient = Int((scenario.duration / scenario.interval).rounded(.up))
        let starts: [(client: Int, at: Duration)] = (0..<perClient).flatMap { k in
            (0..<scenario.clients).map { client in
                (client, scenario.interval * k + scenario.interval * (Double(client) / Double(scenario.clients)))
            }
        }.filter { $0.at < scenario.duration }
        let tally = Locked(Tally(healedAt: scenario.outage.upperBound))

        @Sendable func send(_ index: Int, client: Int, at start: Duration) async {
            let seed = scenario.seed &+ UInt64(client) &+ UInt64(index) &* 7919
            var options = HTTPRetryOptions(scenario.policy, guards: guards)
            options.onTransition = { step in
                // The clock is read outside the tally's lock: the driver's wait condition takes the
                // clock's lock, then the tally's, so the two must never nest the other way.
                let now = clock.now.offset
                tally.withLock {
                    $0.record(step, at: now)
                    $0.track(index, step, runStart: start)
                }
                // No recheck: a transition can only end the driver's wait by parking the run, and the
                // sleep that parks it tells the clock's waiters; a run's end rechecks below.
            }
            // The server's own draws (which attempts fail in a partial outage), apart from the run's jitter.
            let serverDraws = Locked(SeededRandom(seed: seed ^ 0x5EED_FA11))
            _ = try? await HTTPRetryRun.outcome(
                for: URLRequest(url: url), retry: options, clock: clock, random: SeededRandom(seed: seed)
            ) { _ in
                let now = clock.now.offset
                tally.withLock { $0.count(now) { $0.serverLoad += 1 } }
                let fails =
                    scenario.outage.contains(now)
                    && (scenario.failureRate >= 1 || serverDraws.withLock { $0.unitDraw() } < scenario.failureRate)
                let status = fails ? 503 : 200
                return HTTPResponse(
                    data: Data(),
                    response: HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: [:])!
                )
            }
            // The finishing row has already removed it; a run that ends without one must not hold the driver.
            tally.withLock { $0.set(index, nil) }
            clock.recheck()
        }

        // Drive: when every request in flight is parked, either start the next scheduled request (when
        // it comes before every wake-up) or wake the earliest sleeper. Only one thing moves at a time.
        // Parked means the clock's sleepers are exactly the runs' waits: counting sleepers is not enough,
        // since a run in its attempt also sleeps (its timer), and moving the clock then would let that
        // attempt see a later time, or fire its timer, depending on how threads were scheduled.
        await withTaskGroup(of: Void.self) { group in
            var next = 0
            while true {
                await clock.waitUntil { deadlines in
                    tally.withLock { $0.isParked(on: deadlines.map(\.offset)) }
                }
                let wake = clock.nextDeadline?.offset
                if next < starts.count, wake.map({ starts[next].at < $0 }) ?? true {
                    let start = starts[next]
                    clock.advance(to: ManualClock.Instant(offset: start.at))
                    let index = next
                    tally.withLock { $0.set(index, .moving) }
                    group.addTask { await send(index, client: start.client, at: start.at) }
                    next += 1
                } else if wake != nil {
                    clock.resumeEarliestSleeper()
                } else {
                    break
                }
            }
        }
        return tally.withLock { $0.report(scenario) }
    }

    /// The simulation's bookkeeping: counters per second, the last trouble after healing, and where
    /// each request in flight stands.
    struct Tally {
        /// A request in flight, as the driver sees it.
        enum Run: Equatable {
            /// Starting, in its attempt, or between two rows: it will act without the clock moving.
            case moving
            /// In its backoff wait, asleep (or about to be) until this instant of the clock.
            case waiting(until: Duration)
        }

        let healedAt: Duration
        var seconds: [FleetReport.Second] = []
        var lastTrouble: Duration?
        /// The requests started and not finished, by index.
        private(set) var inFlight: [Int: Run]
        /// How many of them are moving: the driver's condition is checked at every transition, and
        /// this answers it without a look at every request while any of them moves.
        private var moving = 0

        init(healedAt: Duration) {
            self.healedAt = healedAt
            self.inFlight = [:]
        }

        /// Records where request `index` stands; `nil` once it has finished.
        mutating func set(_ index: Int, _ run: Run?) {
            if inFlight[index] == .moving { moving -= 1 }
            if run == .moving { moving += 1 }
            inFlight[index] = run
        }

        /// Whether every request is parked and the clock's sleepers (`deadlines`, sorted) are exactly
        /// their waits: a sleeper too many is an attempt's timer, one too few a run just woken.
        func isParked(on deadlines: [Duration]) -> Bool {
            guard moving == 0, inFlight.count == deadlines.count else { return false }
            let waits = inFlight.values.map { run -> Duration in
                guard case .waiting(let until) = run else { preconditionFailure("counted as moving") }
                return until
            }
            return waits.sorted() == deadlines
        }

        /// Follows request `index` through its transitions. The engine sleeps until its start plus the
        /// step's time plus the planned delay (a wait row always plans more than zero: a zero delay
        /// retries at once), so the instant is the engine's own, to the attosecond.
        mutating func track(_ index: Int, _ step: RetryTrace.Step, runStart: Duration) {
            if RetryTable.retry.isTerminal(step.to) {
                set(index, nil)
            } else if step.to == .wait, let delay = step.delay, delay > .zero {
                set(index, .waiting(until: runStart + step.at + delay))
            } else {
                set(index, .moving)
            }
        }

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
                // An attempt is sent only from `breaker` on `admitted`; a refused try enters no `request`.
                if step.to == .request && step.attempt > 1 { second.retries += 1 }
                if step.event == .circuitOpen {
                    second.refusedByBreaker += 1
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
