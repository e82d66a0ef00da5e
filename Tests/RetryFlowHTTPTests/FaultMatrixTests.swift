import Foundation
import RetryFlow
import RetryFlowHTTP
import RetryFlowTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Each fault against FlakyServer, through every API surface it applies to: what the server saw,
/// the outcome, the attempts, completion exactly once, and the trace against the table.
@Suite(.timeLimit(.minutes(2))) struct FaultMatrixTests {
    /// Three attempts, 20 ms apart, 3 s per attempt (a margin a loaded 2-core machine holds).
    static let policy = RetryPolicy(
        maxAttempts: 3, backoff: .constant(.milliseconds(20)), jitter: .none, perAttemptTimeout: .seconds(3))

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var script: [FlakyServer.Step]
        var method = "GET"
        var headers: [String: String] = [:]
        var requests: Int
        var state: RetryState
        var reason: StopReason
        var status: Int?
        var errors: [String?]
        var surfaces: [Surface] = Surface.allCases
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "reset, reset, 200", script: [.reset, .reset, .status(200, body: "ok")], requests: 3, state: .success,
            reason: .succeeded, status: 200, errors: ["networkConnectionLost", "networkConnectionLost", nil]),
        Case(
            name: "close before response, 200", script: [.closeBeforeResponse, .status(200)], requests: 2,
            state: .success,
            reason: .succeeded, status: 200, errors: ["badServerResponse", nil]),
        Case(
            name: "truncated body, 200", script: [.truncatedBody(), .status(200)], requests: 2, state: .success,
            reason: .succeeded, status: 200, errors: ["URLError", nil]),
        Case(
            name: "hang, 200 (per-attempt timeout)", script: [.hang, .status(200)], requests: 2, state: .success,
            reason: .succeeded, status: 200, errors: ["attempt timed out after 3 s", nil],
            // The original shape takes no policy: only the rules' 30 s default per-attempt timeout ends a hang.
            surfaces: [.async, .completionHandler, .synchronous]),
        Case(
            name: "503 x3", script: [.status(503)], requests: 3, state: .failure, reason: .attemptsExhausted,
            status: 503,
            errors: ["HTTP 503", "HTTP 503", "HTTP 503"], surfaces: [.async, .completionHandler, .synchronous]),
        Case(
            name: "429, 200", script: [.status(429), .status(200)], requests: 2, state: .success, reason: .succeeded,
            status: 200, errors: ["HTTP 429", nil], surfaces: [.async, .completionHandler, .synchronous]),
        Case(
            name: "500, 200", script: [.status(500), .status(200)], requests: 2, state: .success, reason: .succeeded,
            status: 200, errors: ["HTTP 500", nil], surfaces: [.async, .completionHandler, .synchronous]),
        Case(
            name: "404 is an answer", script: [.status(404)], requests: 1, state: .answered, reason: .finalAnswer,
            status: 404, errors: ["HTTP 404 Not Found is the final answer"]),
        Case(
            name: "POST 503 is not retried", script: [.status(503), .status(200)], method: "POST", requests: 1,
            state: .answered, reason: .finalAnswer, status: 503, errors: ["POST is not idempotent"],
            surfaces: [.async, .completionHandler, .synchronous]),
        Case(
            name: "POST reset is not retried", script: [.reset, .status(200)], method: "POST", requests: 1,
            state: .failure, reason: .notRetryable, status: nil, errors: ["networkConnectionLost"]),
        Case(
            name: "POST with Idempotency-Key 503, 201", script: [.status(503), .status(201)], method: "POST",
            headers: ["Idempotency-Key": "order-42"], requests: 2, state: .success, reason: .succeeded, status: 201,
            errors: ["HTTP 503", nil], surfaces: [.async, .completionHandler, .synchronous]),
    ]

    /// Only the pairs that apply: a pair that returned early would pass while checking nothing.
    static let pairs: [(Case, Surface)] = cases.flatMap { testCase in testCase.surfaces.map { (testCase, $0) } }

    @Test(arguments: pairs)
    func fault(_ testCase: Case, surface: Surface) async throws {
        let server = try FlakyServer(scripts: ["/f": testCase.script])
        defer { server.stop() }
        var request = URLRequest(url: server.url("/f"))
        request.httpMethod = testCase.method
        if testCase.method == "POST" { request.httpBody = Data("{}".utf8) }
        for (name, value) in testCase.headers { request.setValue(value, forHTTPHeaderField: name) }

        let run = try await Runner.run(surface, request, policy: Self.policy)
        let outcome = run.outcome
        #expect(server.requests(to: "/f").count == testCase.requests, "requests the server saw")
        #expect(server.requests(to: "/f").allSatisfy { $0.method == testCase.method })
        #expect(outcome.finalState == testCase.state)
        #expect(outcome.reason == testCase.reason)
        #expect(outcome.attempts.count == testCase.errors.count)
        for (attempt, expected) in zip(outcome.attempts, testCase.errors) {
            if let expected {
                #expect(attempt.errorDescription?.contains(expected) == true, "\(attempt)")
                #expect(attempt.error != nil)
            } else {
                #expect(attempt.error == nil, "\(attempt)")
            }
        }
        #expect(outcome.value?.statusCode == testCase.status)
        #expect(run.completions == 1, "completion ran exactly once")
        #expect(outcome.trace.steps.filter { RetryTable.retry.isTerminal($0.to) }.count == 1, "the run finished once")
        expectConsistent(outcome.trace)

        // What the caller receives is the final state's: `success` and `answered` deliver the value.
        let delivered = testCase.state.delivery == .value
        switch outcome.result {
        case .success(let answer):
            #expect(testCase.status == answer.statusCode, "a final answer is returned, not thrown")
            #expect(delivered)
        case .failure(let error):
            #expect(error.attempts.count == testCase.errors.count, "the error carries every attempt")
            #expect(testCase.state == .failure)
        }
        if let original = run.original {
            #expect((original.response as? HTTPURLResponse)?.statusCode == (delivered ? testCase.status : nil))
            #expect((original.error == nil) == delivered)
        }
    }

    @Test(arguments: Surface.allCases)
    func refusedPortIsRetriedThenGivesUp(surface: Surface) async throws {
        let refusing = try RefusingPort()
        defer { refusing.stop() }
        let url = refusing.url("/gone")
        let run = try await Runner.run(surface, URLRequest(url: url), policy: Self.policy)
        #expect(run.outcome.finalState == .failure)
        #expect(run.outcome.reason == .attemptsExhausted)
        #expect(run.outcome.attempts.count == 3)
        #expect(run.outcome.attempts.allSatisfy { ($0.error as? URLError)?.code == .cannotConnectToHost })
        #expect(run.completions == 1)
        expectConsistent(run.outcome.trace)
    }

    @Test func asyncAPIReturnsFinalAnswersAndThrowsWhenItGivesUp() async throws {
        let server = try FlakyServer(scripts: ["/ok": [.reset, .status(200, body: "fine")], "/down": [.status(503)]])
        defer { server.stop() }
        let session = Runner.session()
        let (data, response) = try await session.data(
            for: URLRequest(url: server.url("/ok")), retry: .policy(Self.policy))
        #expect(response.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == "fine")
        do {
            _ = try await session.data(for: URLRequest(url: server.url("/down")), retry: .policy(Self.policy))
            Issue.record("should throw")
        } catch let error as RetryError {
            #expect(error.reason == .attemptsExhausted)
            #expect(error.attempts.count == 3)
            #expect(error.lastResponse?.statusCode == 503)
            #expect(error.description.contains("gave up (attempts exhausted) after 3 attempts"))
        }
    }
}
