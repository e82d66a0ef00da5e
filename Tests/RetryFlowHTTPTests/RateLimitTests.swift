import Foundation
import RetryFlow
import RetryFlowHTTP
import RetryFlowTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Server pushback beyond Retry-After: the reset headers (seconds or Unix time) and the IETF fields.
@Suite struct RateLimitTests {
    let url = URL(string: "http://127.0.0.1:9/x")!
    let now = Date(timeIntervalSince1970: 1_790_000_000)

    func verdict(_ status: Int, _ headers: [String: String], rules: HTTPRetryRules = .default) -> RetryVerdict? {
        let response = HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!
        return rules.verdict(for: response, request: URLRequest(url: url), now: now)
    }

    @Test func resetIsSecondsOrATimestampToldApartBySize() {
        #expect(RateLimitHeaders.parseReset("30", now: now) == .delay(.seconds(30), timestamp: false))
        #expect(RateLimitHeaders.parseReset(" 0 ", now: now) == .delay(.zero, timestamp: false))
        #expect(RateLimitHeaders.parseReset("1.5", now: now) == .delay(.milliseconds(1500), timestamp: false))
        // Just under ten years is still a (capped) delay; ten years or more is a Unix time.
        #expect(RateLimitHeaders.parseReset("315359999", now: now) == .delay(.seconds(315_359_999), timestamp: false))
        #expect(RateLimitHeaders.parseReset("1790000012", now: now) == .delay(.seconds(12), timestamp: true))
        #expect(RateLimitHeaders.parseReset("1790000000.25", now: now) == .delay(.milliseconds(250), timestamp: true))
        // A timestamp in the past means now.
        #expect(RateLimitHeaders.parseReset("1700000000", now: now) == .delay(.zero, timestamp: true))
        #expect(RateLimitHeaders.parseReset("315360000", now: now) == .delay(.zero, timestamp: true))
        for bad in ["", "soon", "-5", "1e3", "12.", ".5", "0x10", "1 2", "1.2.3"] {
            #expect(RateLimitHeaders.parseReset(bad, now: now) == .malformed, "\(bad)")
        }
    }

    @Test func absurdValuesNeverOverflow() {
        let huge = String(repeating: "9", count: 40)
        guard case .delay(let delay, _) = RateLimitHeaders.parseReset(huge, now: now) else {
            Issue.record("a huge number is still an ask")
            return
        }
        #expect(delay > .seconds(1_000_000_000), "beyond any cap, so the policy ends the run")
        #expect(RateLimitHeaders.parseReset("999999999999999", now: now) != .malformed)
        #expect(RateLimitHeaders.parseField("\"q\";r=0;t=999999999999999", policy: nil)! > .seconds(1_000_000_000))
        #expect(
            RateLimitHeaders.parseField("\"q\";r=0;t=9999999999999999999999", policy: nil) == nil, "not an sf-integer")
    }

    /// Hostile values: each is ignored or capped, and the words quoting it stay one short,
    /// printable line (they reach terminals, traces and charts).
    static let hostile: [(header: String, value: String, decision: RetryDecision)] = [
        ("X-RateLimit-Reset", String(repeating: "x", count: 10_240), RetryDecision.retry),
        ("X-RateLimit-Reset", String(repeating: "9", count: 10_240), .retryAfter(.seconds(999_999_999_999))),
        ("RateLimit-Reset", "-5", .retry),
        ("RateLimit-Reset", "-1790000000", .retry),
        ("RateLimit-Reset", "99999999999999999999", .retryAfter(.seconds(999_999_999_999))),
        ("RateLimit-Reset", "NaN", .retry),
        ("RateLimit-Reset", "\u{1B}[31mRED\u{1B}[0m", .retry),
        ("Retry-After", "\u{1B}]0;owned\u{07}" + String(repeating: "y", count: 10_240), .retry),
        ("Retry-After", String(repeating: "9", count: 10_240), .retryAfter(.seconds(999_999_999_999))),
        ("RateLimit", "\"q\";r=0;t=" + String(repeating: "9", count: 10_000), .retry),
        ("RateLimit", "\"q\";r=0;t=-5", .retry),
        ("RateLimit", "\"q\u{202E}\";r=0;t=3" + String(repeating: ",x", count: 5_000), .retryAfter(.seconds(3))),
    ]

    @Test(arguments: hostile.indices)
    func hostileValuesAreIgnoredOrCappedAndQuotedShort(index: Int) {
        let (header, value, decision) = Self.hostile[index]
        let verdict = verdict(429, [header: value])
        #expect(verdict?.decision == decision, "\(header): \(value.prefix(40))")
        let words = verdict?.description ?? ""
        #expect(words.count < 200, "\(header): \(words.count) characters")
        #expect(
            !words.unicodeScalars.contains { [.control, .format].contains($0.properties.generalCategory) },
            "\(header): \(words.debugDescription)")
    }

    @Test func ietfFields() {
        #expect(RateLimitHeaders.parseField("\"default\";r=0;t=12", policy: nil) == .seconds(12))
        #expect(RateLimitHeaders.parseField("\"default\";r=5;t=12", policy: nil) == nil, "quota left: no wait")
        #expect(
            RateLimitHeaders.parseField("\"a\";r=0;t=5, \"b\";r=0;t=40, \"c\";r=3;t=90", policy: nil) == .seconds(40))
        // The older draft's dictionary form.
        #expect(RateLimitHeaders.parseField("limit=100, remaining=0, reset=30", policy: nil) == .seconds(30))
        #expect(RateLimitHeaders.parseField("limit=100, remaining=7, reset=30", policy: nil) == nil)
        // Spent, no reset: the policy's window bounds the wait.
        #expect(
            RateLimitHeaders.parseField("\"hour\";r=0", policy: "\"minute\";q=10;w=60, \"hour\";q=100;w=3600")
                == .seconds(3600))
        #expect(RateLimitHeaders.parseField("garbage;;;", policy: "also garbage") == nil)
    }

    @Test func theLongestAskDecidesAndTheTraceSaysWhich() {
        let both = verdict(429, ["Retry-After": "2", "X-RateLimit-Reset": "1790000030"])
        #expect(both?.decision == .retryAfter(.seconds(30)))
        #expect(
            both?.description.hasSuffix(
                "; Retry-After 2 asks for 2 s; X-RateLimit-Reset 1790000030 (a Unix time) asks for 30 s; "
                    + "the longest decides: X-RateLimit-Reset") == true, "\(both?.description ?? "")")
        let alone = verdict(503, ["RateLimit-Reset": "7"])
        #expect(alone?.decision == .retryAfter(.seconds(7)))
        #expect(alone?.description.hasSuffix("; RateLimit-Reset 7 asks for 7 s") == true)
        let ietf = verdict(429, ["RateLimit": "\"default\";r=0;t=9", "Retry-After": "3"])
        #expect(ietf?.decision == .retryAfter(.seconds(9)))
        #expect(ietf?.description.hasSuffix("the longest decides: RateLimit") == true)
        // A malformed one is named and ignored; the good one still counts.
        let mixed = verdict(429, ["Retry-After": "soon", "X-RateLimit-Reset": "4"])
        #expect(mixed?.decision == .retryAfter(.seconds(4)))
        #expect(mixed?.description.contains("Retry-After \"soon\" ignored (malformed)") == true)
        let junk = verdict(429, ["X-RateLimit-Reset": "later"])
        #expect(junk?.decision == .retry)
        #expect(junk?.description.hasSuffix("X-RateLimit-Reset \"later\" ignored (malformed), backoff applies") == true)
    }

    @Test func onlyOnPushbackStatusesAndOnlyWhenHonoured() {
        #expect(verdict(500, ["X-RateLimit-Reset": "5"])?.decision == .retry)
        var off = HTTPRetryRules.default
        off.honorRateLimit = false
        #expect(verdict(429, ["X-RateLimit-Reset": "5"], rules: off)?.decision == .retry)
        #expect(
            verdict(429, ["Retry-After": "1", "X-RateLimit-Reset": "5"], rules: off)?.decision
                == .retryAfter(.seconds(1)))
        var custom = HTTPRetryRules.default
        custom.rateLimitResetHeaders = ["X-Quota-Reset"]
        #expect(
            verdict(429, ["X-Quota-Reset": "6", "X-RateLimit-Reset": "60"], rules: custom)?.decision
                == .retryAfter(.seconds(6)))
    }

    @Test func aResetBeyondTheCapEndsTheRunLikeRetryAfter() async throws {
        var policy = RetryPolicy.default
        policy.maxRetryAfter = .seconds(10)
        let calls = CallCounter()
        let outcome = try await HTTPRetryRun.outcome(
            for: URLRequest(url: url), retry: .policy(policy), clock: ContinuousClock()
        ) { request in
            calls.hit()
            return HTTPResponse(
                data: Data(),
                response: HTTPURLResponse(
                    url: request.url!, statusCode: 429, httpVersion: nil, headerFields: ["X-RateLimit-Reset": "3600"])!)
        }
        #expect(outcome.finalState == .failure)
        #expect(outcome.reason == .retryAfterBeyondCap)
        #expect(calls.count == 1)
        #expect(outcome.trace.steps.contains { $0.detail?.contains("X-RateLimit-Reset 3600 asks for") == true })
    }

    @Test func oldRulesJSONStillDecodes() throws {
        var object =
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(HTTPRetryRules.default)) as! [String: Any]
        for key in ["honorRateLimit", "rateLimitResetHeaders", "attemptHeader"] { object.removeValue(forKey: key) }
        let back = try JSONDecoder().decode(HTTPRetryRules.self, from: JSONSerialization.data(withJSONObject: object))
        #expect(back == .default)
        var custom = HTTPRetryRules.default
        custom.attemptHeader = .grpcPreviousAttempts
        custom.rateLimitResetHeaders = ["X-Reset"]
        #expect(try JSONDecoder().decode(HTTPRetryRules.self, from: JSONEncoder().encode(custom)) == custom)
    }
}

/// The opt-in attempt header and the OpenTelemetry resend count.
@Suite struct AttemptHeaderTests {
    let url = URL(string: "http://127.0.0.1:9/x")!

    func run(_ header: AttemptHeader?) async throws -> [String?] {
        var rules = HTTPRetryRules.default
        rules.attemptHeader = header
        let seen = Shared<[String?]>([])
        let policy = RetryPolicy(maxAttempts: 3, backoff: .constant(.zero), jitter: .none)
        let outcome = try await HTTPRetryRun.outcome(
            for: URLRequest(url: url), retry: HTTPRetryOptions(policy, rules: rules), clock: ContinuousClock()
        ) { request in
            seen.update { $0.append(request.value(forHTTPHeaderField: header?.name ?? "RetryFlow-Attempt")) }
            return HTTPResponse(
                data: Data(),
                response: HTTPURLResponse(url: request.url!, statusCode: 503, httpVersion: nil, headerFields: nil)!)
        }
        #expect(outcome.attempts.count == 3)
        return seen.current
    }

    @Test func numbersEachAttemptWhenAskedOnly() async throws {
        #expect(try await run(nil) == [nil, nil, nil])
        #expect(try await run(.retryFlow) == ["1", "2", "3"])
        #expect(try await run(.grpcPreviousAttempts) == [nil, "1", "2"])
    }

    @Test func traceJSONCarriesTheResendCount() throws {
        var trace = RetryTrace()
        trace.steps = [
            .init(from: .idle, event: .start, condition: .always, to: .request, at: .zero, attempt: 1),
            .init(from: .request, event: .failed, condition: .always, to: .retry, at: .milliseconds(1), attempt: 1),
            .init(
                from: .wait, event: .delayElapsed, condition: .always, to: .request, at: .milliseconds(2), attempt: 2),
        ]
        let steps = try #require(
            (try JSONSerialization.jsonObject(with: HTTPTraceJSON.encode(trace)) as? [String: Any])?["steps"]
                as? [[String: Any]])
        #expect(steps.count == 3)
        #expect(steps[0][HTTPTraceJSON.resendCountKey] == nil)
        #expect(steps[1][HTTPTraceJSON.resendCountKey] == nil)
        #expect(steps[2][HTTPTraceJSON.resendCountKey] as? Int == 1)
        #expect(steps[2]["attempt"] as? Int == 2, "the trace's own keys are kept")
        // It still reads back as a trace.
        #expect(try TraceJSON<RetryVocabulary>.decode(HTTPTraceJSON.encode(trace)) == trace)
    }
}

/// Simulations script the rate-limit headers too (`retryflow simulate --outcomes 429:x-ratelimit-reset=5`).
@Suite struct ScriptedRateLimitTests {
    @Test func outcomesCarryTheHeadersAndPrintThemBack() throws {
        let outcome = try ScriptedOutcome.parse("429:x-ratelimit-reset=5:ratelimit=\"q\";r=0;t=7")
        #expect(outcome.result == .status(429, retryAfter: nil))
        #expect(outcome.headers == ["X-RateLimit-Reset": "5", "RateLimit": "\"q\";r=0;t=7"])
        #expect(try ScriptedOutcome.parse(outcome.description) == outcome)
        #expect(throws: ScriptedOutcomeError.self) { try ScriptedOutcome.parse("reset:ratelimit-reset=5") }
    }

    @Test func aSimulationWaitsForTheLongestAsk() async throws {
        let outcome = try await Simulation.run(
            outcomes: ScriptedOutcome.parseList("429:retry-after=1:ratelimit-reset=3,200"),
            retry: .policy(RetryPolicy(maxAttempts: 3, backoff: .constant(.milliseconds(10)), jitter: .none)))
        #expect(outcome.finalState == .success)
        #expect(outcome.trace.steps.contains { $0.delay == .seconds(3) })
        #expect(outcome.trace.steps.contains { $0.detail?.hasSuffix("the longest decides: RateLimit-Reset") == true })
    }
}

/// Every HTTP surface that retries statuses goes through the same rules, so every one waits for
/// the reset (the original shapes keep the original snippets' rule: transport errors only).
@Suite(.timeLimit(.minutes(1))) struct RateLimitSurfaceTests {
    @Test(arguments: Surface.allCases.filter { $0 != .originalShape })
    func everySurfaceWaitsForTheReset(surface: Surface) async throws {
        let server = try FlakyServer(scripts: [
            "/limited": [.status(429, headers: ["RateLimit": "\"default\";r=0;t=1"]), .status(200, body: "ok")]
        ])
        defer { server.stop() }
        let policy = RetryPolicy(maxAttempts: 3, backoff: .constant(.milliseconds(10)), jitter: .none)
        let run = try await Runner.run(surface, URLRequest(url: server.url("/limited")), policy: policy)
        #expect(run.outcome.finalState == .success)
        let seen = server.requests(to: "/limited")
        try #require(seen.count == 2)
        #expect(seen[1].arrival - (seen[0].answered ?? seen[0].arrival) >= .seconds(1), "never early")
        #expect(run.outcome.trace.steps.contains { $0.delay == .seconds(1) })
        expectConsistent(run.outcome.trace)
    }
}
