import Foundation
import RetryFlow
import RetryFlowHTTP
import RetryFlowTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct HTTPRulesTests {
    let rules = HTTPRetryRules.default
    let url = URL(string: "http://127.0.0.1:9/x")!

    func request(_ method: String, headers: [String: String] = [:]) -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }

    func response(_ status: Int, headers: [String: String] = [:]) -> HTTPURLResponse {
        HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!
    }

    /// A run that ends on a response the rules refuse to retry returns it; a run whose last attempt
    /// threw gives up with the core's RetryError, even if an earlier attempt had a response.
    @Test func finalAnswersAreReturnedOnlyWhenTheLastAttemptAnswered() async throws {
        let url = URL(string: "http://simulated.invalid/")!
        @Sendable func response(_ status: Int) -> HTTPResponse {
            HTTPResponse(
                data: Data(),
                response: HTTPURLResponse(url: url, statusCode: status, httpVersion: nil, headerFields: nil)!)
        }
        let policy = RetryPolicy(maxAttempts: 3, backoff: .constant(.zero), jitter: .none)
        var post = URLRequest(url: url)
        post.httpMethod = "POST"
        let answered = try await HTTPRetryRun.outcome(for: post, retry: .policy(policy), clock: ContinuousClock()) {
            _ in
            response(503)
        }
        #expect(answered.reason == .finalAnswer)
        #expect(answered.finalState == .answered && answered.finalState.delivery == .value)
        #expect((try? answered.result.get())?.statusCode == 503, "a POST's 503 is the server's answer")

        let calls = Locked(0)
        let threwLast = try await HTTPRetryRun.outcome(
            for: URLRequest(url: url), retry: .policy(policy), clock: ContinuousClock()
        ) { _ in
            if calls.withLock({
                $0 += 1
                return $0
            }) == 1 {
                return response(503)
            }
            throw URLError(.unsupportedURL)
        }
        #expect(threwLast.reason == .notRetryable)
        #expect(threwLast.attempts.map(\.returnedValue) == [true, false])
        switch threwLast.result {
        case .success: Issue.record("the last attempt threw: nothing to return")
        case .failure(let error):
            #expect(error.lastResponse?.statusCode == 503)
            #expect((error.lastError as? URLError)?.code == .unsupportedURL)
        }
    }

    /// The documented order (docs/http.md, "Your `retryIf` and the rules"), on the one options value:
    /// the rules judge a thrown error first; only an error they would retry is asked of the policy's
    /// `retryIf`, whose fail or step stands and whose retry keeps the rules' own decision.
    @Test func theUsersRetryIfNarrowsTheRulesNeverWidens() async throws {
        let url = URL(string: "http://simulated.invalid/")!
        struct Mine: Error {}
        var post = URLRequest(url: url)
        post.httpMethod = "POST"
        let get = URLRequest(url: url)
        let mirror = RetryStep("use mirror") { _ in .done }
        @Sendable func run(
            _ request: URLRequest, _ retryIf: RetryClassifier, step: Bool = false, throwing error: any Error
        ) async throws -> RetryOutcome<HTTPResponse> {
            var options = HTTPRetryOptions(RetryPolicy(maxAttempts: 3, backoff: .constant(.zero), jitter: .none))
            options.policy.retryIf = retryIf
            if step { options.policy.add(mirror) }
            return try await HTTPRetryRun.outcome(for: request, retry: options, clock: ManualClock()) { _ in
                throw error
            }
        }
        let reset = URLError(.networkConnectionLost)
        let always = RetryClassifier { _ in .retry }
        // Never wider: the rules refuse a POST's reset and an error that is not a URLError.
        for (request, error) in [(post, reset as any Error), (get, Mine())] {
            let widened = try await run(request, always, throwing: error)
            #expect(widened.attempts.count == 1)
            #expect(widened.reason == .notRetryable)
        }
        // Narrower: the user's fail stands on an error the rules would retry.
        let narrowed = try await run(get, .never, throwing: reset)
        #expect(narrowed.attempts.count == 1)
        #expect(narrowed.reason == .notRetryable)
        // A retry with a delay of its own keeps the rules' decision: with the user's 1,000 s (past
        // maxRetryAfter) the run would end at once; with the rules' the zero backoff runs all three.
        let delayed = try await run(get, RetryClassifier { _ in .retryAfter(.seconds(1000)) }, throwing: reset)
        #expect(delayed.attempts.count == 3)
        #expect(delayed.reason == .attemptsExhausted)
        // A step named by the user is entered only for an error the rules would retry.
        let toStep = RetryClassifier(sendingTo: [mirror.id]) { _ in .step(mirror.id) }
        let stepped = try await run(get, toStep, step: true, throwing: reset)
        #expect(stepped.steps.map(\.name) == ["use mirror"])
        let refused = try await run(post, toStep, step: true, throwing: reset)
        #expect(refused.steps.isEmpty)
        #expect(refused.attempts.count == 1)
    }

    @Test func transportErrorsOnIdempotentRequests() {
        for code: URLError.Code in [
            .timedOut, .cannotFindHost, .cannotConnectToHost, .networkConnectionLost, .dnsLookupFailed,
            .notConnectedToInternet, .badServerResponse, .unknown,
        ] {
            #expect(rules.decision(for: URLError(code), request: request("GET")) == .retry, "\(code)")
        }
        for code: URLError.Code in [
            .cancelled, .secureConnectionFailed, .serverCertificateUntrusted, .unsupportedURL, .badURL,
            .userAuthenticationRequired,
        ] {
            #expect(rules.decision(for: URLError(code), request: request("GET")) == .fail, "\(code)")
        }
        #expect(rules.decision(for: AttemptTimeout(timeout: .seconds(1)), request: request("GET")) == .retry)
        #expect(rules.decision(for: CocoaError(.fileNoSuchFile), request: request("GET")) == .fail)
    }

    @Test func postIsRetriedOnlyWhenSafe() {
        #expect(rules.decision(for: URLError(.networkConnectionLost), request: request("POST")) == .fail)
        #expect(rules.decision(for: URLError(.networkConnectionLost), request: request("PATCH")) == .fail)
        // Never sent: safe whatever the method.
        #expect(rules.decision(for: URLError(.cannotConnectToHost), request: request("POST")) == .retry)
        #expect(rules.decision(for: URLError(.dnsLookupFailed), request: request("POST")) == .retry)
        // An idempotency key, or the opt-in.
        #expect(
            rules.decision(
                for: URLError(.networkConnectionLost), request: request("POST", headers: ["Idempotency-Key": "k"]))
                == .retry)
        var optIn = rules
        optIn.retryNonIdempotent = true
        #expect(optIn.decision(for: URLError(.networkConnectionLost), request: request("POST")) == .retry)
        for method in ["PUT", "DELETE", "HEAD", "OPTIONS", "TRACE", "get"] {
            #expect(
                rules.decision(for: URLError(.networkConnectionLost), request: request(method)) == .retry, "\(method)")
        }
    }

    @Test func statuses() {
        let now = Date()
        for status in [408, 429, 500, 502, 503, 504] {
            #expect(
                rules.verdict(for: response(status), request: request("GET"), now: now)?.decision == .retry, "\(status)"
            )
        }
        for status in [200, 201, 204] {
            #expect(rules.verdict(for: response(status), request: request("GET"), now: now) == nil, "\(status)")
        }
        // Only a 2xx is a success: any other status neither retried nor failing is the final answer.
        for status in [301, 400, 401, 403, 404, 409, 501, 505] {
            let verdict = rules.verdict(for: response(status), request: request("GET"), now: now)
            #expect(verdict?.decision == .finalAnswer, "\(status)")
            #expect(verdict?.description.hasSuffix(" is the final answer") == true, "\(status)")
        }
        let post = rules.verdict(for: response(503), request: request("POST"), now: now)
        #expect(post?.decision == .finalAnswer, "a POST's 503 is the server's final answer, not a failure")
        #expect(post?.description.contains("POST is not idempotent") == true)
    }

    @Test func failingStatusesEndTheRunInFailureAfterRetryableOnesAreTried() {
        let now = Date()
        var failing = rules
        failing.failingStatuses = Set(400...599)
        let gone = failing.verdict(for: response(404), request: request("GET"), now: now)
        #expect(gone?.decision == .fail)
        let words = gone?.description ?? ""
        #expect(words.hasPrefix("HTTP 404 ") && words.hasSuffix(" is a failure (failing status)"), "\(words)")
        #expect(
            failing.verdict(for: response(503), request: request("GET"), now: now)?.decision == .retry, "retried first")
        #expect(failing.verdict(for: response(200), request: request("GET"), now: now) == nil)
        #expect(failing.verdict(for: response(302), request: request("GET"), now: now)?.decision == .finalAnswer)
        #expect(
            rules.verdict(for: response(404), request: request("GET"), now: now)?.decision == .finalAnswer,
            "none by default: a 404 is an answer")
        // A failing status is a failure even where it may not be retried: a POST's 503 under -f.
        #expect(failing.verdict(for: response(503), request: request("POST"), now: now)?.decision == .fail)
    }

    @Test func aBodyOverTheLimitEndsTheRunInFailure() {
        var limited = rules
        limited.maxBodyBytes = 3
        let big = HTTPResponse(data: Data("four".utf8), response: response(200))
        let verdict = limited.verdict(for: big, request: request("GET"), now: Date())
        #expect(verdict?.decision == .fail)
        #expect(verdict?.description == "the body has 4 bytes, more than the 3 allowed")
        let small = HTTPResponse(data: Data("abc".utf8), response: response(200))
        #expect(limited.verdict(for: small, request: request("GET"), now: Date()) == nil)
        #expect(rules.verdict(for: big, request: request("GET"), now: Date()) == nil, "no limit by default")
    }

    @Test func retryAfterIsHonouredOn429And503Only() {
        let now = Date()
        let asked = rules.verdict(for: response(503, headers: ["Retry-After": "2"]), request: request("GET"), now: now)
        #expect(asked?.decision == .retryAfter(.seconds(2)))
        #expect(asked?.description.hasSuffix("; Retry-After 2 asks for 2 s") == true)
        #expect(
            rules.verdict(for: response(429, headers: ["Retry-After": "1"]), request: request("GET"), now: now)?
                .decision == .retryAfter(.seconds(1)))
        #expect(
            rules.verdict(for: response(500, headers: ["Retry-After": "1"]), request: request("GET"), now: now)?
                .decision == .retry)
        let malformed = rules.verdict(
            for: response(503, headers: ["Retry-After": "soon"]), request: request("GET"), now: now)
        #expect(malformed?.decision == .retry)
        #expect(malformed?.description.contains("Retry-After \"soon\" ignored (malformed)") == true)
        var off = rules
        off.honorRetryAfter = false
        #expect(
            off.verdict(for: response(503, headers: ["Retry-After": "2"]), request: request("GET"), now: now)?.decision
                == .retry)
    }

    @Test func rulesRoundTripThroughJSON() throws {
        var custom = rules
        custom.retryableStatuses = [503]
        custom.retryNonIdempotent = true
        custom.statusSteps[401] = RetryStep("refresh credentials") { _ in .done }.id
        let json = try JSONEncoder().encode(custom)
        let back = try JSONDecoder().decode(HTTPRetryRules.self, from: json)
        #expect(back == custom)
        // A step is written as its name, as before the rules named it by its identity.
        let object = try JSONSerialization.jsonObject(with: json) as? [String: Any]
        #expect(object?["statusSteps"] as? [String: String] == ["401": "refresh credentials"])
    }
}

@Suite struct RedactionTests {
    @Test func urlsLoseCredentials() {
        let url = URL(string: "https://alice:s3cret@example.test/a/b?api_key=K123&page=2&Token=abc")!
        let text = Redaction.redact(url)
        #expect(!text.contains("alice") && !text.contains("s3cret") && !text.contains("K123") && !text.contains("abc"))
        #expect(text.contains("page=2"))
        #expect(text.contains("example.test/a/b"))
    }

    @Test func urlErrorsAreDescribedWithoutSecrets() {
        let url = URL(string: "http://bob:hunter2@127.0.0.1:1/x?token=t0k")!
        let error = URLError(
            .cannotConnectToHost,
            userInfo: [
                NSURLErrorFailingURLErrorKey: url,
                NSLocalizedDescriptionKey: "Could not connect to bob:hunter2@127.0.0.1",
            ])
        let text = Redaction.describe(error)
        #expect(text.hasPrefix("URLError -1004 cannotConnectToHost"))
        #expect(!text.contains("hunter2") && !text.contains("t0k") && !text.contains("bob"))
    }
}
