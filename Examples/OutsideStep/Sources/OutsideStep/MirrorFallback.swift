import Foundation
import RetryFlow
import RetryFlowCharts
import RetryFlowHTTP
import RetryFlowTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// After two failures of the primary, a "use mirror" step changes every later request to the
/// mirror's base URL (a `RequestChange`, its own kind of output), so the attempts after it go there.
func mirrorAfterTwoFailures() async throws -> (outcome: RetryOutcome<HTTPResponse>, chart: String) {
    let primary = try FlakyServer(scripts: ["/file": [.status(503)]])
    let mirror = try FlakyServer(scripts: ["/file": [.status(200, body: "from the mirror")]])
    defer {
        primary.stop()
        mirror.stop()
    }

    var policy = RetryPolicy(maxAttempts: 4, backoff: .constant(.milliseconds(10)), jitter: .none)
    let mirrorBase = mirror.baseURL
    policy.add(
        RetryStep("use mirror", entry: .afterFailures(2)) { _ in
            .change(RequestChange { $0.url = mirrorBase.appendingPathComponent($0.url!.path) })
        })

    let request = URLRequest(url: primary.url("/file"))
    let outcome = try await URLSession.shared.retryOutcome(for: request, retry: .policy(policy))
    return (outcome, DOTChart.render(policy: policy))
}
