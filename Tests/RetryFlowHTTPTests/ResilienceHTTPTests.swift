import Foundation
import RetryFlow
import RetryFlowHTTP
import RetryFlowTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Every HTTP surface takes the fleet's guards in its options: the breaker and the budget decide, on the
/// wire (counted by the loopback server), not just in the trace.
@Suite struct ResilienceHTTPTests {
    static let policy = RetryPolicy(maxAttempts: 3, backoff: .constant(.milliseconds(10)), jitter: .none)

    /// One 503 trips the breaker; the retry is refused without being sent, and the run fails fast.
    @Test(arguments: [Surface.async, .completionHandler, .synchronous])
    func openBreakerKeepsTheRetryOffTheWire(surface: Surface) async throws {
        let server = try FlakyServer(scripts: ["/down": [.status(503)]])
        defer { server.stop() }
        let breaker = try CircuitBreaker(
            .init(trip: .consecutiveFailures(1), breakDuration: .seconds(60)), tracing: true)
        let options = HTTPRetryOptions(Self.policy, guards: FleetGuards(breaker: breaker, whenCircuitOpen: .fail))
        let outcome = try await Self.run(surface, URLRequest(url: server.url("/down")), options: options)
        #expect(outcome.reason == .circuitOpen)
        #expect(outcome.attempts.count == 2)
        #expect(server.requests(to: "/down").count == 1, "the refused retry was never sent")
        #expect(breaker.state == .open)
        expectConsistent(outcome.trace)
        #expect(breaker.trace?.inconsistencies(with: .breaker) == [])
    }

    /// An empty budget refuses every retry, on every surface: one request per run reaches the server.
    @Test(arguments: [Surface.async, .completionHandler, .synchronous])
    func exhaustedBudgetSendsFirstAttemptsOnly(surface: Surface) async throws {
        let server = try FlakyServer(scripts: ["/busy": [.status(503)]])
        defer { server.stop() }
        let budget = try RetryBudget(.grpc(maxTokens: 2, tokenRatio: 0.1), tracing: true)
        let options = HTTPRetryOptions(Self.policy, guards: FleetGuards(budget: budget))
        for _ in 1...2 {
            let outcome = try await Self.run(surface, URLRequest(url: server.url("/busy")), options: options)
            #expect(outcome.reason == .budgetExhausted)
            expectConsistent(outcome.trace)
        }
        #expect(server.requests(to: "/busy").count == 2)
        #expect(budget.tokens == 0)
        #expect(budget.trace?.inconsistencies(with: .budget) == [])
    }

    /// The registry gives every request to one host the same breaker: once tripped, the next run
    /// through the same context sends nothing.
    @Test func registrySharesOneBreakerPerHost() async throws {
        let server = try FlakyServer(scripts: ["/a": [.status(503)], "/b": [.status(200)]])
        defer { server.stop() }
        let registry = try ResilienceRegistry(
            budget: nil, breaker: .init(trip: .consecutiveFailures(1), breakDuration: .seconds(60)))
        let options = HTTPRetryOptions(Self.policy, guards: FleetGuards(whenCircuitOpen: .fail), registry: registry)
        let session = Runner.session()
        let first = try await session.retryOutcome(
            for: URLRequest(url: server.url("/a")), retry: options)
        let second = try await session.retryOutcome(
            for: URLRequest(url: server.url("/b")), retry: options)
        #expect(first.reason == .circuitOpen)
        #expect(second.reason == .circuitOpen)
        #expect(server.requests(to: "/b").isEmpty)
        #expect(registry.keys == ["127.0.0.1"])
    }

    static func run(_ surface: Surface, _ request: URLRequest, options: HTTPRetryOptions) async throws -> RetryOutcome<
        HTTPResponse
    > {
        let session = Runner.session()
        switch surface {
        case .completionHandler:
            return try await withCheckedThrowingContinuation { continuation in
                do {
                    try session.retryDataTask(with: request, retry: options) {
                        continuation.resume(returning: $0)
                    }.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        case .synchronous:
            return try await withCheckedThrowingContinuation { continuation in
                Thread.detachNewThread {
                    do {
                        continuation.resume(
                            returning: try session.synchronousRetryOutcome(
                                for: request, retry: options))
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            }
        case .async, .originalShape:
            return try await session.retryOutcome(for: request, retry: options)
        }
    }
}
