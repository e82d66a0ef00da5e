import RetryFlow
import RetryFlowTestSupport

/// Brooker's "Fixing retries with token buckets and circuit breakers" (2022): the load a fleet puts
/// on a server, and the share of its requests that succeed, as the server fails a growing share of
/// requests. Each point is one ``FleetSimulation``: the real engine, retry table, ``RetryBudget``
/// and ``CircuitBreaker``, on a virtual clock.
package enum FailureRateLoad {
    /// What protects the server.
    package enum Strategy: String, CaseIterable, Sendable {
        /// One attempt a request.
        case noRetry = "no-retry"
        /// Up to 3 retries (4 attempts), exponential backoff from 100 ms with full jitter.
        case retries = "3-retries"
        /// The same retries, under one shared gRPC retry budget (10 tokens, 0.1 back a success).
        case budget
        /// The same retries, behind one shared breaker with Polly's defaults, failing fast while open.
        case breaker
    }

    /// One point of the figure.
    package struct Point: Hashable, Sendable {
        /// The share of requests the server fails, 0 to 1.
        package var failureRate: Double
        /// What protected the server.
        package var strategy: Strategy
        /// Requests that reached the server ÷ requests the clients made.
        package var load: Double
        /// Requests that ended in success ÷ requests the clients made.
        package var success: Double

        /// A point (the tests read them back from a CSV).
        package init(failureRate: Double, strategy: Strategy, load: Double, success: Double) {
            self.failureRate = failureRate
            self.strategy = strategy
            self.load = load
            self.success = success
        }
    }

    /// The failure rates plotted: 0 to 100 % in steps of 10.
    package static let failureRates = (0...10).map { Double($0) / 10 }

    /// The fleet: 50 clients sending one request a second each for 30 s to a server that fails
    /// `failureRate` of what it receives, all along.
    package static func scenario(_ strategy: Strategy, failureRate: Double, seed: UInt64) -> FleetScenario {
        let retrying = RetryPolicy(maxAttempts: 4, backoff: .exponential(base: .milliseconds(100), multiplier: 2))
        var scenario = FleetScenario(
            clients: 50, duration: .seconds(30), outage: Duration.zero..<Duration.seconds(3600),
            policy: retrying, whenCircuitOpen: .fail, seed: seed, failureRate: failureRate)
        switch strategy {
        case .noRetry: scenario.policy = RetryPolicy(maxAttempts: 1)
        case .retries: break
        case .budget: scenario.budget = .grpc()
        case .breaker: scenario.breaker = .polly
        }
        return scenario
    }

    /// Runs one point.
    package static func point(_ strategy: Strategy, failureRate: Double, seed: UInt64) async throws -> Point {
        let report = try await FleetSimulation.run(scenario(strategy, failureRate: failureRate, seed: seed))
        let totals = report.totals
        let offered = Double(max(totals.offered, 1))
        return Point(
            failureRate: failureRate, strategy: strategy, load: Double(totals.serverLoad) / offered,
            success: Double(totals.successes) / offered)
    }
}
