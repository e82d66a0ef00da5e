import Foundation
import RetryFlow
import RetryFlowHTTP
import RetryFlowTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Headers a hostile or broken server can send, through the real HTTP path (FlakyServer,
/// URLSession, the rules, the engine): none may crash the client or bloat what it stores.
@Suite(.timeLimit(.minutes(2))) struct HostileServerTests {
    static let policy = RetryPolicy(
        maxAttempts: 3, backoff: .constant(.milliseconds(10)), jitter: .none, perAttemptTimeout: .seconds(5))

    /// Used to kill the process (SIGILL on a Double → Int64 conversion) before the run could end.
    @Test(arguments: ["Fri, 31 Dec 9999 23:59:59 GMT", "Sat, 01 Jan 2320 00:00:00 GMT", "99999999999999999999"])
    func farFutureRetryAfterEndsTheRunBeyondTheCap(value: String) async throws {
        let server = try FlakyServer(scripts: ["/f": [.status(503, headers: ["Retry-After": value]), .status(200)]])
        defer { server.stop() }
        let outcome = try await Runner.session().retryOutcome(
            for: URLRequest(url: server.url("/f")), retry: .policy(Self.policy))
        #expect(outcome.finalState == .failure)
        #expect(outcome.reason == .retryAfterBeyondCap)
        #expect(server.requests(to: "/f").count == 1)
        #expect(outcome.attempts.count == 1)
        expectConsistent(outcome.trace)
    }

    @Test func hugeHeaderValueIsNotCopiedWhole() async throws {
        let value = String(repeating: "x", count: 10_000)
        let server = try FlakyServer(scripts: ["/f": [.status(503, headers: ["Retry-After": value]), .status(200)]])
        defer { server.stop() }
        let outcome = try await Runner.session().retryOutcome(
            for: URLRequest(url: server.url("/f")), retry: .policy(Self.policy))
        #expect(outcome.succeeded)
        let text = outcome.attempts[0].errorDescription ?? ""
        #expect(text.contains("ignored (malformed)"), "\(text)")
        #expect(text.contains("(10000 bytes)"), "\(text)")
        #expect(text.utf8.count < 300, "\(text.utf8.count) bytes of error text")
        let details = outcome.trace.steps.compactMap(\.detail).map(\.utf8.count)
        #expect(details.allSatisfy { $0 < 300 }, "\(details)")
    }

    @Test func leadingZerosAreNotAnAbsurdWait() async throws {
        let server = try FlakyServer(scripts: [
            "/f": [.status(503, headers: ["Retry-After": "0000000000000"]), .status(200)]
        ])
        defer { server.stop() }
        let outcome = try await Runner.session().retryOutcome(
            for: URLRequest(url: server.url("/f")), retry: .policy(Self.policy))
        #expect(outcome.succeeded)
        #expect(server.requests(to: "/f").count == 2)
    }

    /// FlakyServer's own conversion: a step delayed by ~292 years or more overflowed its
    /// nanoseconds. Now it is a hang that the attempt's timeout ends.
    @Test func absurdStepDelayIsAHangNotATrap() async throws {
        let server = try FlakyServer(scripts: ["/f": [.status(200).delayed(by: .seconds(Int64.max)), .status(200)]])
        defer { server.stop() }
        var policy = Self.policy
        // 3 s, not less: the second attempt's answer must beat it in a loaded, parallel run too (at
        // 300 ms the whole suite under two CPU hogs ended it 1 of 5 runs).
        policy.perAttemptTimeout = .seconds(3)
        let outcome = try await Runner.session().retryOutcome(
            for: URLRequest(url: server.url("/f")), retry: .policy(policy))
        #expect(outcome.succeeded)
        #expect(outcome.attempts.first?.error is AttemptTimeout)
    }
}
