import Foundation
import RetryFlow
import RetryFlowHTTP
import RetryFlowTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A user's table with an extra step runs through URLSession like the shipped one: the step's
/// request change reaches the wire, and the trace is rows of the user's table, step by name.
@Suite(.timeLimit(.minutes(1))) struct UserStepHTTPTests {
    /// The docs' "refresh credentials on 401" (docs/policies.md), run for real.
    @Test func aRefreshStepOn401SendsTheNewTokenAndIsTraced() async throws {
        let server = try FlakyServer(scripts: ["/me": [.status(401), .status(200, body: "me")]])
        defer { server.stop() }
        var policy = RetryPolicy.default
        let refresh = RetryStep("refresh credentials") { _ in
            let token = "t2" // a real step awaits its token service here
            return .change(RequestChange { $0.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") })
        }
        policy.add(refresh)
        var rules = HTTPRetryRules.default
        rules.statusSteps[401] = refresh.id
        var request = URLRequest(url: server.url("/me"))
        request.setValue("Bearer t1", forHTTPHeaderField: "Authorization")
        let outcome = try await Runner.session().retryOutcome(
            for: request, retry: HTTPRetryOptions(policy, rules: rules))
        #expect(outcome.succeeded && outcome.value.map { String(decoding: $0.data, as: UTF8.self) } == "me")
        #expect(server.requests(to: "/me").map { $0.header("Authorization") } == ["Bearer t1", "Bearer t2"])
        #expect(outcome.trace.isConsistent(with: policy.table))
        let steps = outcome.trace.steps
        #expect(
            steps.map { "\($0.from.label) → \($0.to.label)" } == [
                "idle → limiter", "limiter → breaker", "breaker → request", "request → retry",
                "retry → refresh credentials", "refresh credentials → limiter", "limiter → breaker",
                "breaker → request", "request → success",
            ])
        #expect(
            steps[3].detail?.contains("HTTP 401") == true && steps[3].detail?.contains("refresh credentials") == true)
        #expect(!steps.contains { $0.detail?.contains("t2") == true }, "the token is never traced")
    }

    @Test func aMirrorAfterTwoFailuresOfThePrimary() async throws {
        let primary = try FlakyServer(scripts: ["/file": [.status(503), .status(503), .status(503)]])
        let mirror = try FlakyServer(scripts: ["/file": [.status(200, body: "from the mirror")]])
        defer {
            primary.stop()
            mirror.stop()
        }
        var policy = RetryPolicy(maxAttempts: 4, backoff: .constant(.zero), jitter: .none)
        let mirrorPort = mirror.port
        policy.add(
            RetryStep("use mirror", entry: .afterFailures(2)) { _ in
                .change(
                    RequestChange { request in
                        var parts = URLComponents(url: request.url!, resolvingAgainstBaseURL: false)!
                        parts.port = mirrorPort
                        request.url = parts.url
                    })
            })
        let (data, _) = try await Runner.session().data(
            for: URLRequest(url: primary.url("/file")), retry: .policy(policy))
        #expect(String(decoding: data, as: UTF8.self) == "from the mirror")
        #expect(primary.requests(to: "/file").count == 2)
        #expect(mirror.requests(to: "/file").count == 1)
    }

    @Test func aTableThatCannotRunIsRefusedBeforeAnyRequest() async throws {
        let server = try FlakyServer(scripts: ["/x": [.status(200)]])
        defer { server.stop() }
        var policy = RetryPolicy.default
        policy.table = RetryTable.retry.adding(RetryStep("ghost") { _ in .done }) // rows without the action
        await #expect(throws: RetryPolicyError.self) {
            _ = try await Runner.session().data(for: URLRequest(url: server.url("/x")), retry: .policy(policy))
        }
        #expect(server.requests(to: "/x").isEmpty)
    }

    // MARK: typed joints (issue 36 item 5)

    /// A status rule that names a step the policy does not have (a typo, a step never added) is
    /// refused by name before any request: it made every 401 end `not retryable`, with no error.
    @Test func aStatusRuleNamingAStepThePolicyLacksIsRefusedByName() async throws {
        let server = try FlakyServer(scripts: ["/me": [.status(401), .status(200, body: "me")]])
        defer { server.stop() }
        var policy = RetryPolicy.default
        policy.add(RetryStep("refresh credentials", entry: .afterFailures(1)) { _ in .done })
        let typo = RetryStep("refresh credential") { _ in .done } // made, never added
        var rules = HTTPRetryRules.default
        rules.statusSteps[401] = typo.id
        let options = HTTPRetryOptions(policy, rules: rules)
        for surface in [Surface.async, .completionHandler, .synchronous] {
            let error = await Self.refusal(surface, URLRequest(url: server.url("/me")), options)
            #expect(
                error?.description
                    == "invalid retry policy: steps has no step 'refresh credential', which statusSteps[401] sends "
                    + "failures to", "\(surface)")
        }
        #expect(throws: RetryPolicyError.self) { try options.validate() }
        #expect(server.requests(to: "/me").isEmpty, "refused before any request")
    }

    /// A step entered on a verdict that no status rule or classifier sends failures to is refused by
    /// name: forgotten, the 401 came back as the run's answer, silently.
    @Test func aStepNothingSendsFailuresToIsRefusedByName() async throws {
        let server = try FlakyServer(scripts: ["/me": [.status(401), .status(200, body: "me")]])
        defer { server.stop() }
        var policy = RetryPolicy.default
        policy.add(RetryStep("refresh credentials") { _ in .done }) // no rules.statusSteps[401]
        let options = HTTPRetryOptions(policy)
        for surface in [Surface.async, .completionHandler, .synchronous] {
            let error = await Self.refusal(surface, URLRequest(url: server.url("/me")), options)
            #expect(
                error?.description.contains("has the step 'refresh credentials', entered on a verdict, but no rule")
                    == true, "\(error.map(String.init(describing:)) ?? "accepted")")
        }
        #expect(server.requests(to: "/me").isEmpty, "refused before any request")
        // The classifier that says it sends failures there makes it reachable.
        var reached = options
        reached.policy.retryIf = RetryClassifier(sendingTo: [policy.steps[0].id]) { _ in .retry }
        try reached.validate()
    }

    /// Each step keeps its own request change, an output of its own kind: two steps' changes both
    /// reach the wire, and a step's later visit replaces its own earlier change. Before, a change was
    /// a value under a string key of the step's choosing: two steps that chose the same key (both
    /// `"request"`) lost the first one's change when the second ran, and the 4th request went out
    /// without its token.
    @Test func eachStepsRequestChangeAppliesAndALaterVisitReplacesItsOwn() async throws {
        let server = try FlakyServer(
            scripts: ["/me": [.status(401), .status(401), .status(503), .status(200, body: "me")]])
        defer { server.stop() }
        let visits = Locked(0)
        let refresh = RetryStep("refresh credentials", maxVisits: 2) { _ in
            let visit = visits.withLock { count in
                count += 1
                return count
            }
            let token = "t\(visit + 1)"
            return .change(RequestChange { $0.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") })
        }
        let tag = RetryStep("tag retries", entry: .afterFailures(3)) { _ in
            .change(RequestChange { $0.setValue("retry", forHTTPHeaderField: "X-Tag") })
        }
        var policy = RetryPolicy(maxAttempts: 5, backoff: .constant(.zero), jitter: .none)
        policy.add(refresh)
        policy.add(tag)
        var rules = HTTPRetryRules.default
        rules.statusSteps[401] = refresh.id
        let outcome = try await Runner.session().retryOutcome(
            for: URLRequest(url: server.url("/me")), retry: HTTPRetryOptions(policy, rules: rules))
        #expect(outcome.succeeded)
        let sent = server.requests(to: "/me").map { [$0.header("Authorization"), $0.header("X-Tag")] }
        #expect(sent == [[nil, nil], ["Bearer t2", nil], ["Bearer t3", nil], ["Bearer t3", "retry"]])
        #expect(outcome.steps.map(\.name) == ["refresh credentials", "refresh credentials", "tag retries"])
        #expect(outcome.trace.isConsistent(with: policy.table))
    }

    /// What `surface` throws before running `options` (the original shapes take no options).
    static func refusal(_ surface: Surface, _ request: URLRequest, _ options: HTTPRetryOptions) async
        -> RetryPolicyError?
    {
        let session = Runner.session()
        let thrown: (any Error)?
        switch surface {
        case .async:
            do {
                _ = try await session.retryOutcome(for: request, retry: options)
                thrown = nil
            } catch {
                thrown = error
            }
        case .completionHandler:
            do {
                _ = try session.retryDataTask(with: request, retry: options) { _ in }
                thrown = nil
            } catch {
                thrown = error
            }
        case .synchronous:
            thrown = await withCheckedContinuation { continuation in
                Thread.detachNewThread {
                    do {
                        _ = try session.synchronousRetryOutcome(for: request, retry: options)
                        continuation.resume(returning: nil)
                    } catch {
                        continuation.resume(returning: error)
                    }
                }
            }
        case .originalShape:
            Issue.record("the original shapes take no options")
            thrown = nil
        }
        if let thrown, !(thrown is RetryPolicyError) { Issue.record("unexpected \(thrown)") }
        return thrown as? RetryPolicyError
    }
}
