import Foundation
import RetryFlow
import RetryFlowHTTP
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Which answers are throttles (data: ThrottleRules), and how the HTTP verdict marks them.
@Suite struct ThrottleRulesTests {
    let url = URL(string: "http://127.0.0.1:9/x")!

    func answer(_ status: Int, headers: [String: String] = [:], body: String = "") -> HTTPResponse {
        HTTPResponse(
            data: Data(body.utf8),
            response: HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!)
    }

    func judged(_ answer: HTTPResponse, rules: HTTPRetryRules = .default, method: String = "GET") -> RetryVerdict? {
        var request = URLRequest(url: url)
        request.httpMethod = method
        return rules.verdict(for: answer, request: request, now: Date())
    }

    /// botocore#2635: a bare 429 (no AWS error code) is a throttle here.
    @Test func aBare429IsAThrottle() throws {
        let verdict = try #require(judged(answer(429)))
        #expect(verdict.throttled)
        #expect(verdict.decision == .retry)
        #expect(ThrottleRules.default.throttle(in: answer(429)) == "a throttle (HTTP 429)")
    }

    @Test func a503IsAThrottleOnlyWithRetryAfter() throws {
        let outage = try #require(judged(answer(503)))
        #expect(!outage.throttled)
        let asked = try #require(judged(answer(503, headers: ["Retry-After": "2"])))
        #expect(asked.throttled)
        #expect(asked.decision == .retryAfter(.seconds(2)))
    }

    @Test func awsErrorCodesInHeaderJSONAndXMLBodiesAreThrottles() throws {
        let json = answer(
            400, body: #"{"__type":"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException"}"#)
        let xml = answer(503, body: "<Error><Code>SlowDown</Code><Message>Reduce your request rate.</Message></Error>")
        let header = answer(400, headers: ["x-amzn-ErrorType": "ThrottlingException:http://internal.amazon.com/"])
        for throttle in [json, xml, header] {
            let verdict = try #require(judged(throttle), "\(throttle)")
            #expect(verdict.throttled, "\(throttle)")
            #expect(verdict.decision.isRetryable, "a throttle is retried even on a 400")
        }
        // A 400 naming another code stays a final answer.
        #expect(judged(answer(400, body: #"{"__type":"ValidationException"}"#))?.decision == .finalAnswer)
    }

    @Test func userSuppliedStatusesAndCodes() throws {
        var rules = HTTPRetryRules.default
        rules.throttling.statuses.insert(420)
        rules.throttling.errorCodes.insert("QuotaExceeded")
        #expect(try #require(judged(answer(420), rules: rules)).throttled)
        #expect(try #require(judged(answer(403, body: #"{"code":"QuotaExceeded"}"#), rules: rules)).throttled)
        rules.throttling = .none
        #expect(try #require(judged(answer(429), rules: rules)).throttled == false)
    }

    @Test func aSuccessIsNeverAThrottleAndAPostIsStillNotRepeated() throws {
        #expect(judged(answer(200, body: #"{"__type":"ThrottlingException"}"#)) == nil)
        let post = try #require(judged(answer(429), method: "POST"))
        #expect(post.throttled)
        #expect(post.decision == .finalAnswer, "a POST's 429 is the server's final answer, not sent again")
    }

    @Test func rulesWithoutTheFieldStillDecode() throws {
        var object =
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(HTTPRetryRules.default)) as! [String: Any]
        object["throttling"] = nil
        let decoded = try JSONDecoder().decode(
            HTTPRetryRules.self, from: JSONSerialization.data(withJSONObject: object))
        #expect(decoded.throttling == .default)
    }
}
