import Foundation
import RetryFlow
import RetryFlowHTTP
import RetryFlowTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `hedge-tail`: what hedging does to the tail. GETs against FlakyServer on loopback, 1 in 20 of
/// whose first answer takes 1 s and the rest about 5 ms (a hedge's answer always about 5 ms), sent
/// `inFlight` at a time through real URLSession, with `HTTPRetryOptions.hedging` at 50 ms and without.
/// Figures: p99 latency hedged against unhedged (goal ≤ 0.15), and requests the server saw against
/// requests made (goal ≤ 1.10); p50 in the notes.
enum HedgeTailBenchmark {
    static func run(quick: Bool) async throws -> [BenchmarkResult] {
        let count = quick ? 100 : 1000
        let inFlight = 32
        var policy = RetryPolicy(maxAttempts: 1)
        policy.perAttemptTimeout = .seconds(10)
        let plain = HTTPRetryOptions.policy(policy)
        var hedged = plain
        hedged.hedging = HedgingPolicy(delay: .milliseconds(50), maxAttempts: 2)
        let session = HTTPBenchmarks.session(connections: 2 * inFlight)
        let (unhedgedTimes, unhedgedRequests) = try await latencies(count, inFlight, plain, session)
        let (hedgedTimes, hedgedRequests) = try await latencies(count, inFlight, hedged, session)
        func percentile(_ times: [Double], _ p: Double) -> Double {
            let sorted = times.sorted()
            return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)] * 1000
        }
        let (p99, baseP99) = (percentile(hedgedTimes, 0.99), percentile(unhedgedTimes, 0.99))
        let (p50, baseP50) = (percentile(hedgedTimes, 0.50), percentile(unhedgedTimes, 0.50))
        let sent = Double(hedgedRequests) / Double(count)
        let note =
            "\(count) GETs, \(inFlight) at a time, 1 in 20 first answers after 1 s; p50 \(format(p50)) ms hedged, "
            + "\(format(baseP50)) ms unhedged"
        return [
            BenchmarkResult(
                name: "hedge-tail p99", value: p99, unit: "ms", baseline: "the same GETs without hedging",
                baselineValue: baseP99, ratio: p99 / baseP99, goal: "≤ 0.15", met: p99 / baseP99 <= 0.15, note: note),
            BenchmarkResult(
                name: "hedge-tail requests", value: Double(hedgedRequests), unit: "requests",
                baseline: "requests made (unhedged: \(unhedgedRequests) sent)", baselineValue: Double(count),
                ratio: sent, goal: "≤ 1.10", met: sent <= 1.10, note: note),
        ]
    }

    static func format(_ value: Double) -> String { String(format: "%.1f", value) }

    /// Per-request latencies, in seconds, and the requests the server saw.
    static func latencies(
        _ count: Int, _ inFlight: Int, _ options: HTTPRetryOptions, _ session: URLSession
    ) async throws -> ([Double], Int) {
        var scripts: [String: [FlakyServer.Step]] = [:]
        for index in 0..<count {
            let first = index % 20 == 7 ? Duration.seconds(1) : .milliseconds(5)
            scripts["/r\(index)"] = [
                .status(200, body: "first").delayed(by: first),
                .status(200, body: "hedge").delayed(by: .milliseconds(5)),
            ]
        }
        let server = try FlakyServer(scripts: scripts)
        defer { server.stop() }
        var times: [Double] = []
        try await withThrowingTaskGroup(of: Double.self) { group in
            var next = 0
            func add() {
                let request = URLRequest(url: server.url("/r\(next)"))
                next += 1
                group.addTask {
                    try await Measure.seconds { _ = try await session.data(for: request, retry: options) }
                }
            }
            while next < min(inFlight, count) { add() }
            while let time = try await group.next() {
                times.append(time)
                if next < count { add() }
            }
        }
        return (times, server.requests.count)
    }
}
