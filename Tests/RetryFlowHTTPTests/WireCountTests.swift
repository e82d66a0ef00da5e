import Foundation
import RetryFlow
import RetryFlowHTTP
import RetryFlowTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What goes on the wire against what the trace counts: the `Connection: close` knob and the
/// default per-attempt timeout that bounds a dead pooled connection.
@Suite(.timeLimit(.minutes(2))) struct WireCountTests {
    static let policy = RetryPolicy(maxAttempts: 3, backoff: .constant(.milliseconds(10)), jitter: .none)

    @Test func connectionCloseAlwaysSendsEveryRequestOnAFreshConnection() async throws {
        let server = try FlakyServer(scripts: [
            "/c": [.reset, .closeBeforeResponse, .status(200)], "/warm": [.status(200)],
        ])
        defer { server.stop() }
        let session = Runner.session()
        var rules = HTTPRetryRules.default
        rules.connectionClose = .always
        for _ in 0..<3 {
            _ = try await session.retryOutcome(
                for: URLRequest(url: server.url("/warm")), retry: HTTPRetryOptions(Self.policy, rules: rules))
        }
        let outcome = try await session.retryOutcome(
            for: URLRequest(url: server.url("/c")), retry: HTTPRetryOptions(Self.policy, rules: rules))
        #expect(outcome.succeeded)
        let seen = server.requests
        #expect(seen.allSatisfy { $0.header("Connection")?.lowercased() == "close" }, "\(seen.map { $0.headers })")
        #expect(Set(seen.map(\.connection)).count == seen.count, "one connection per request: \(seen)")
        #expect(server.requests(to: "/c").count == outcome.attempts.count, "no request behind the trace's back")
    }

    @Test func connectionCloseNonIdempotentLeavesGETsPooled() async throws {
        let server = try FlakyServer(scripts: ["/p": [.status(201)], "/g": [.status(200)]])
        defer { server.stop() }
        var rules = HTTPRetryRules.default
        rules.connectionClose = .nonIdempotent
        var post = URLRequest(url: server.url("/p"))
        post.httpMethod = "POST"
        post.httpBody = Data("{}".utf8)
        #expect(rules.prepared(post).value(forHTTPHeaderField: "Connection") == "close")
        #expect(rules.prepared(URLRequest(url: server.url("/g"))).value(forHTTPHeaderField: "Connection") == nil)
        post.setValue("order-1", forHTTPHeaderField: "Idempotency-Key")
        #expect(rules.prepared(post).value(forHTTPHeaderField: "Connection") == nil, "safe to repeat: pooled")
        var own = URLRequest(url: server.url("/g"))
        own.setValue("keep-alive", forHTTPHeaderField: "Connection")
        rules.connectionClose = .always
        #expect(rules.prepared(own).value(forHTTPHeaderField: "Connection") == "keep-alive", "the caller's header wins")
        #expect(HTTPRetryRules.default.connectionClose == .never, "off by default")
    }

    /// No per-attempt timeout in the policy: the rules' default ends a hung attempt, and the
    /// attempt's error (in the trace too) says which timeout that was.
    @Test func defaultAttemptTimeoutEndsAHangAndSaysSo() async throws {
        let server = try FlakyServer(scripts: ["/h": [.hang, .status(200)]])
        defer { server.stop() }
        var rules = HTTPRetryRules.default
        rules.defaultAttemptTimeout = .seconds(2)
        let outcome = try await Runner.session().retryOutcome(
            for: URLRequest(url: server.url("/h")), retry: HTTPRetryOptions(Self.policy, rules: rules))
        #expect(outcome.succeeded)
        #expect(server.requests(to: "/h").count >= 2)
        let first = outcome.attempts[0].errorDescription ?? ""
        #expect(first.contains("attempt timed out after 2 s"), "\(first)")
        #expect(first.contains("HTTPRetryRules.defaultAttemptTimeout"), "\(first)")
        #expect(outcome.trace.steps.contains { $0.detail?.contains("defaultAttemptTimeout") == true })
        #expect(HTTPRetryRules.default.defaultAttemptTimeout == .seconds(30))
    }

    /// The policy's own timeout wins over the default, and its error names no default.
    @Test func policyTimeoutIsNotReportedAsTheDefault() async throws {
        let server = try FlakyServer(scripts: ["/h": [.hang, .status(200)]])
        defer { server.stop() }
        var policy = Self.policy
        policy.perAttemptTimeout = .milliseconds(400)
        let outcome = try await Runner.session().retryOutcome(
            for: URLRequest(url: server.url("/h")), retry: .policy(policy))
        let first = outcome.attempts.first?.errorDescription ?? ""
        #expect(first == "attempt timed out after 400 ms", "\(first)")
    }

    /// The POST hang: a pooled connection that the server resets after the POST went out. Without
    /// an engine timeout it sat until URLSession's request timeout (60 s by default, spinning);
    /// now the run ends by the default per-attempt timeout at the latest, and a POST is not retried.
    @Test func postOnAResetPooledConnectionDoesNotHang() async throws {
        let server = try FlakyServer(scripts: ["/warm": [.status(200)], "/post": [.reset, .status(200)]])
        defer { server.stop() }
        let session = Runner.session()
        _ = try await session.data(for: URLRequest(url: server.url("/warm"))) // pools a connection
        var rules = HTTPRetryRules.default
        rules.defaultAttemptTimeout = .seconds(2)
        var post = URLRequest(url: server.url("/post"))
        post.httpMethod = "POST"
        post.httpBody = Data("hello".utf8)
        let outcome = try await session.retryOutcome(for: post, retry: HTTPRetryOptions(Self.policy, rules: rules))
        #expect(
            outcome.duration < TimingAndCancellationTests.farBelowTimeouts,
            "the session's 30 s timeout did not decide: \(outcome.duration)")
        #expect(outcome.attempts.count == 1, "a POST is not sent again: \(outcome.attempts)")
        #expect(outcome.finalState == .failure)
        expectConsistent(outcome.trace)
    }
}
