import Foundation
import RetryFlow
import RetryFlowHTTP
import RetryFlowTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `connection-close`: what exact request counts cost. Sequential GETs that succeed at once with
/// `HTTPRetryRules.connectionClose = .always` (a new TCP connection per request) against the
/// default (pooled keep-alive connections), same session, same server, interleaved.
enum ConnectionCloseBenchmark {
    static func run(quick: Bool) async throws -> BenchmarkResult {
        let count = quick ? 300 : 2000
        let server = try FlakyServer(scripts: ["/ok": [.status(200, body: "ok")]])
        defer { server.stop() }
        let session = HTTPBenchmarks.session()
        let request = URLRequest(url: server.url("/ok"))
        var closing = HTTPRetryRules.default
        closing.connectionClose = .always
        let policy = RetryPolicy.default
        for _ in 0..<50 { _ = try await session.data(for: request, retry: .policy(policy)) }
        var pooledTimes: [Double] = []
        var closeTimes: [Double] = []
        var ratios: [Double] = []
        for _ in 0..<(quick ? 5 : 9) {
            let pooled = try await Measure.seconds {
                for _ in 0..<count { _ = try await session.data(for: request, retry: .policy(policy)) }
            }
            let close = try await Measure.seconds {
                for _ in 0..<count {
                    _ = try await session.data(for: request, retry: HTTPRetryOptions(policy, rules: closing))
                }
            }
            pooledTimes.append(pooled)
            closeTimes.append(close)
            ratios.append(close / pooled)
        }
        let connections = Set(server.requests.map(\.connection)).count
        return BenchmarkResult(
            name: "connection-close", value: Measure.median(closeTimes) / Double(count) * 1e6, unit: "µs/request",
            baseline: "pooled keep-alive (the default)",
            baselineValue: Measure.median(pooledTimes) / Double(count) * 1e6,
            ratio: Measure.median(ratios), goal: "report", met: nil,
            note:
                "\(count) sequential GETs, median of \(ratios.count) interleaved pairs; \(connections) connections in all"
        )
    }
}
