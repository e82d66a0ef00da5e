import BenchSupport
import Foundation
import RetryFlow
import RetryFlowHTTP
import RetryFlowTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The fleet guards: what a retry budget costs per call, and what it and the breaker save a
/// struggling server in a real retry storm.
enum FleetBenchmarks {
    /// `budget-acquire` and the breaker's figures (issue 16): what a guard adds to a run, measured
    /// through the engine, as differences of whole runs, because the guards' `ask` and `record` are
    /// package API. A run here fails its first attempt (retryable) and returns on its second, with no
    /// wait, inline; a budget then takes one ask and one refund, a breaker is asked and told on each of
    /// the two tries. Each repetition times the same number of runs (at least 0.5 s a side) with no
    /// guards, with an AWS budget and with a breaker, in slices whose order of sides rotates; a figure
    /// is the median of the repetitions' paired differences in wall time (process CPU time in the
    /// note). Then the same with two tasks at once on one guard, wall time per task.
    static func budgetAcquire(quick: Bool) async throws -> [BenchmarkResult] {
        let repetitions = quick ? 3 : 11
        let runs = quick ? 200 : try await calibratedRuns(seconds: 0.6)
        let slices = quick ? 2 : 10
        var samples: [String: [Double]] = [:]
        for repetition in 0..<repetitions {
            for threads in [1, 2] {
                let budget = try RetryBudget(.awsStandard)
                let breaker = try CircuitBreaker(breakerOptions)
                let sides: [(name: String, guards: FleetGuards)] = [
                    ("none", FleetGuards()), ("budget", FleetGuards(budget: budget)),
                    ("breaker", FleetGuards(breaker: breaker)),
                ]
                // A repetition's runs a side go in slices, the sides' order rotated every slice and
                // reversed every other one, so a change in the machine's load falls on every side.
                var wall = [Double](repeating: 0, count: sides.count)
                var cpu = wall
                for slice in 0..<slices {
                    let turn = (repetition * slices + slice) % sides.count
                    var order = Array(turn..<sides.count) + Array(0..<turn)
                    if !slice.isMultiple(of: 2) { order.reverse() }
                    for index in order {
                        let time = try await timeRuns(runs / slices, threads: threads, guards: sides[index].guards)
                        wall[index] += time.wall
                        cpu[index] += time.cpu
                    }
                }
                let timed = Double(runs / slices * slices)
                for (index, side) in sides.enumerated() {
                    samples["\(side.name)\(threads)", default: []].append(wall[index] / timed * 1e9)
                    samples["\(side.name)\(threads) cpu", default: []].append(
                        cpu[index] / timed / Double(threads) * 1e9)
                }
                // The budget ends where it began (every retry's 5 tokens refunded by its success), and
                // the breaker never tripped: every run took the same path.
                precondition(budget.tokens == 500, "the bucket must end where it began, not at \(budget.tokens)")
                precondition(breaker.state == .closed, "the breaker must stay closed, not \(breaker.state)")
            }
        }
        /// Median of the paired differences `side − none` per run (wall), their range, and the same
        /// median in process CPU time per run.
        func difference(_ side: String, _ threads: Int, per divisor: Double = 1) -> (median: Double, range: String) {
            func paired(_ suffix: String) -> [Double] {
                zip(samples["\(side)\(threads)\(suffix)"] ?? [], samples["none\(threads)\(suffix)"] ?? []).map {
                    ($0 - $1) / divisor
                }
            }
            let differences = paired("")
            let range = String(
                format: "wall %.0f to %.0f ns; CPU %.0f ns", differences.min() ?? 0, differences.max() ?? 0,
                Measure.median(paired(" cpu")))
            return (Measure.median(differences), range)
        }
        func median(_ key: String) -> Double { Measure.median(samples[key] ?? []) }
        let note =
            "differences of whole runs (fail once, retry with no wait, succeed; inline): "
            + "\(runs) runs a side per repetition ("
            + String(format: "%.2f s unguarded", Double(runs) * median("none1") / 1e9)
            + "), in \(slices) slices, the sides rotated every slice; "
            + "median of \(repetitions) repetitions"
        let budget1 = difference("budget", 1)
        let budget2 = difference("budget", 2)
        let breaker1 = difference("breaker", 1, per: 2)
        let breaker2 = difference("breaker", 2, per: 2)
        func result(
            _ name: String, _ figure: (median: Double, range: String), unit: String, threads: Int, side: String,
            goal: String, met: Bool?, what: String
        ) -> BenchmarkResult {
            BenchmarkResult(
                name: name, value: figure.median, unit: unit,
                baseline: "a run without guards\(threads == 2 ? ", 2 tasks" : "") (ratio: guarded run ÷ it)",
                baselineValue: median("none\(threads)"), ratio: median("\(side)\(threads)") / median("none\(threads)"),
                goal: goal, met: met, note: "\(what); \(note); \(figure.range)")
        }
        return [
            result(
                "budget-acquire", budget1, unit: "ns per run (one ask + one refund)", threads: 1, side: "budget",
                goal: "< 1000 ns a run that retries once", met: budget1.median < 1000,
                what: "RetryBudget(.awsStandard), uncontended"),
            result(
                "budget-acquire, 2 threads", budget2, unit: "ns per run (wall, per task)", threads: 2, side: "budget",
                goal: "report", met: nil, what: "2 tasks at once on one budget, minus the same without guards"),
            result(
                "breaker-check", breaker1, unit: "ns per try (run difference ÷ 2)", threads: 1, side: "breaker",
                goal: "< 1000 ns a try", met: breaker1.median < 1000,
                what: "closed breaker, Polly's window with the trip ratio at 0.6 (Polly's 0.1 trips on these runs)"),
            result(
                "breaker-check, 2 threads", breaker2, unit: "ns per try (wall, per task)", threads: 2, side: "breaker",
                goal: "report", met: nil, what: "2 tasks at once on one breaker, minus the same without guards"),
        ]
    }

    /// Polly's breaker (100 calls over 30 s, 5 s break) with its trip ratio raised from 0.1 to 0.6: the
    /// runs timed fail every other try, so at 0.1 it would open after 100 calls and every side after it
    /// would wait out breaks instead of running. The sampling it does per try is Polly's.
    static let breakerOptions = CircuitBreakerOptions(
        trip: .failureRatio(0.6, minimumThroughput: 100, samplingDuration: .seconds(30)))

    /// The attempt's error: retryable (the policy retries every error).
    struct Flake: Error {}

    /// A run's policy: two attempts, no wait between them.
    static let policy = RetryPolicy(maxAttempts: 2, backoff: .constant(.zero), jitter: .none)

    /// Wall and process CPU seconds of `runs` runs on each of `threads` tasks at once, every run
    /// failing its first attempt and returning on its second.
    static func timeRuns(_ runs: Int, threads: Int, guards: FleetGuards) async throws -> (wall: Double, cpu: Double) {
        let retry = Retry(policy, clock: ContinuousClock(), runsAttemptsInline: true, guards: guards)
        let returned = Locked(0)
        let cpuBefore = processCPUSeconds()
        let wall = try await Measure.seconds {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<threads {
                    group.addTask {
                        var sum = 0
                        for _ in 0..<runs {
                            sum &+= try await retry.run { attempt in
                                if attempt.number == 1 { throw Flake() }
                                return attempt.number
                            }
                        }
                        return sum
                    }
                }
                for try await sum in group { returned.withLock { $0 &+= sum } }
            }
        }
        let cpu = processCPUSeconds() - cpuBefore
        precondition(returned.withLock { $0 } == 2 * runs * threads, "every run must return on its second attempt")
        return (wall, cpu)
    }

    /// CPU time this process has used, in seconds.
    static func processCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
    }

    /// Runs a side needs to take at least `seconds` without guards (the cheapest side): from the
    /// fastest of three timed samples, so a sample slowed by the machine's load does not shorten it.
    static func calibratedRuns(seconds: Double) async throws -> Int {
        _ = try await timeRuns(2_000, threads: 1, guards: FleetGuards())
        var fastest = Double.infinity
        for _ in 0..<3 {
            fastest = min(fastest, try await timeRuns(10_000, threads: 1, guards: FleetGuards()).wall / 10_000)
        }
        return max(20_000, Int((seconds / fastest).rounded(.up)))
    }

    /// The protections compared in `retry-storm`.
    static let configurations: [(name: String, budget: RetryBudgetMode?, breaker: CircuitBreakerOptions?)] = [
        ("no protection", nil, nil),
        ("budget (gRPC)", .grpc(maxTokens: 10, tokenRatio: 0.1), nil),
        ("budget (AWS)", .awsStandard, nil),
        ("breaker (Polly)", nil, .polly),
        ("budget (AWS) + breaker", .awsStandard, .polly),
    ]

    /// `retry-storm`: 200 clients each send one request a second (staggered) to a loopback server that
    /// answers 503 to everything for 5 s, then 200; each request runs 4 attempts with exponential
    /// backoff (100 ms × 2, full jitter) under each configuration. Amplification = requests the server
    /// received during the outage ÷ first attempts sent in it.
    static func retryStorm(quick: Bool) async throws -> [BenchmarkResult] {
        let clients = quick ? 50 : 200
        // Quick (the smoke test): the same storm squeezed into 1.5 s; its figures only prove it runs.
        let outage = Duration.seconds(quick ? 1 : 5)
        let total = Duration.seconds(quick ? 1.5 : 7)
        var results: [BenchmarkResult] = []
        var unprotected: (amplification: Double, afterTrip: Int)?
        for configuration in configurations {
            let server = try FlakyServer(scripts: ["/storm": [.status(503)]])
            defer { server.stop() }
            let session = HTTPBenchmarks.session(connections: 64)
            let budget = try configuration.budget.map { mode throws(RetryPolicyError) in try RetryBudget(mode) }
            let breaker = try configuration.breaker.map { options throws(RetryPolicyError) in
                try CircuitBreaker(options)
            }
            let options = HTTPRetryOptions(
                RetryPolicy(maxAttempts: 4, backoff: .exponential(base: .milliseconds(100), multiplier: 2)),
                guards: FleetGuards(budget: budget, breaker: breaker, whenCircuitOpen: .fail))
            let start = ContinuousClock.now
            let firstAttempts = Locked(0)
            let lastFailure = Locked(Duration.zero)
            let healer = Task {
                try? await Task.sleep(until: start.advanced(by: outage), clock: .continuous)
                try? server.setScript([.status(200)], for: "/storm")
            }
            await withTaskGroup(of: Void.self) { group in
                for client in 0..<clients {
                    group.addTask {
                        var next = start.advanced(by: .seconds(1) * (Double(client) / Double(clients)))
                        while next < start.advanced(by: total) {
                            try? await Task.sleep(until: next, clock: .continuous)
                            if start.duration(to: .now) < outage { firstAttempts.withLock { $0 += 1 } }
                            let outcome = try? await session.retryOutcome(
                                for: URLRequest(url: server.url("/storm")), retry: options)
                            if outcome?.succeeded != true {
                                let at = start.duration(to: .now)
                                lastFailure.withLock { $0 = max($0, at) }
                            }
                            next = next.advanced(by: .seconds(1))
                        }
                    }
                }
            }
            healer.cancel()
            let received = server.requests.filter { $0.path == "/storm" }
            let duringOutage = received.filter { $0.arrival < outage }.count
            let first = firstAttempts.withLock { $0 }
            let amplification = Double(duringOutage) / Double(max(first, 1))
            // After the first second (by then Polly's 100-call window has tripped the breaker).
            let afterTrip = received.filter { $0.arrival >= .seconds(1) && $0.arrival < outage }.count
            let recovered = max(.zero, lastFailure.withLock { $0 } - outage)
            if configuration.budget == nil && configuration.breaker == nil { unprotected = (amplification, afterTrip) }
            let goal: String
            let met: Bool?
            switch (configuration.budget, configuration.breaker) {
            case (nil, nil):
                goal = "≈ 4 (the reference)"
                met = nil
            case (_?, nil):
                goal = "amplification ≤ 1.2"
                met = amplification <= 1.2
            default:
                let share = Double(afterTrip) / Double(max(unprotected?.afterTrip ?? 1, 1))
                goal = "load 1–5 s ≤ 5 % of no protection; recovered ≤ 5 s"
                met = share <= 0.05 && recovered <= .seconds(5)
            }
            results.append(
                BenchmarkResult(
                    name: "retry-storm: \(configuration.name)", value: amplification, unit: "requests ÷ first attempts",
                    baseline: "no protection", baselineValue: unprotected?.amplification,
                    ratio: unprotected.map { amplification / $0.amplification }, goal: goal,
                    // Not judged when quick: its ~50 first attempts can make ~150 retries, about what the
                    // AWS budget's 500 tokens pay for (100), so it printed "no" for a budget working as
                    // designed; the full storm (~1,000 first attempts) is the one that judges.
                    met: quick ? nil : met,
                    note:
                        "\(clients) clients; outage \(quick ? 1 : 5) s: \(first) first attempts, \(duringOutage) requests "
                        + "(\(afterTrip) in 1–5 s); last failure \(String(format: "%.2f s", recovered.inSecondsValue)) after healing"
                ))
            session.invalidateAndCancel()
        }
        return results
    }
}
