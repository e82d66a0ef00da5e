import Foundation
import RetryFlow
import RetryFlowCharts
import RetryFlowHTTP
import RetryFlowTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A 401 goes to a "refresh credentials" step; the attempt after it carries the new token.
func refreshCredentialsOn401() async throws -> (outcome: RetryOutcome<HTTPResponse>, chart: String) {
    let server = try FlakyServer(scripts: ["/me": [.status(200, body: "me")]])
    defer { server.stop() }
    server.requireAuthorization("Bearer fresh", for: "/me") // 401 for any other token

    let refresh = RetryStep("refresh credentials") { _ in
        let token = "fresh" // your token service here
        return .change(RequestChange { $0.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") })
    }
    var policy = RetryPolicy.default
    policy.add(refresh)
    var rules = HTTPRetryRules.default
    rules.statusSteps[401] = refresh.id // a 401 goes to the step (by its id, not its name), not the backoff

    var request = URLRequest(url: server.url("/me"))
    request.setValue("Bearer stale", forHTTPHeaderField: "Authorization")
    let outcome = try await URLSession.shared.retryOutcome(for: request, retry: HTTPRetryOptions(policy, rules: rules))
    return (outcome, DOTChart.render(policy: policy))
}
