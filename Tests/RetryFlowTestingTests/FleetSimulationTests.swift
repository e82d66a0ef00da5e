import Foundation
import RetryFlow
import RetryFlowTesting
import Testing

/// The fleet simulation: replayable, its counts add up, and the protections do what they claim.
@Suite struct FleetSimulationTests {
    static let small = FleetScenario(
        clients: 20, duration: .seconds(20), outage: Duration.seconds(5) ..< Duration.seconds(12),
        policy: RetryPolicy(maxAttempts: 4, backoff: .exponential(base: .milliseconds(500), multiplier: 2)))

    @Test func aSeedReplaysItExactly() async throws {
        var scenario = Self.small
        scenario.budget = .awsStandard(capacity: 50, retryCost: 5, timeoutRetryCost: 10, successIncrement: 1)
        scenario.breaker = CircuitBreakerOptions(trip: .consecutiveFailures(5), breakDuration: .seconds(2))
        let first = try await FleetSimulation.run(scenario)
        let again = try await FleetSimulation.run(scenario)
        #expect(first.seconds == again.seconds)
        #expect(first.text == again.text)
    }

    @Test func countsAddUp() async throws {
        let report = try await FleetSimulation.run(Self.small)
        let totals = report.totals
        #expect(totals.offered == 20 * 20)
        #expect(totals.successes + totals.failures == totals.offered, "every run ends once")
        #expect(totals.serverLoad == totals.offered + totals.retries, "no protection: every attempt is sent")
        // Healthy seconds: one request per client, no retries.
        #expect(report.seconds[0].serverLoad == 20 && report.seconds[0].retries == 0)
        // A full outage without protection: close to maxAttempts requests per first attempt.
        #expect(report.amplificationDuringOutage > 3)
    }

    @Test func aBudgetCapsAmplificationAndABreakerKeepsLoadOffTheServer() async throws {
        var budgeted = Self.small
        budgeted.budget = .grpc(maxTokens: 10, tokenRatio: 0.1)
        let budget = try await FleetSimulation.run(budgeted)
        #expect(budget.amplificationDuringOutage <= 1.2)
        #expect(budget.totals.refusedByBudget > 0)

        var broken = Self.small
        broken.breaker = CircuitBreakerOptions(trip: .consecutiveFailures(5), breakDuration: .seconds(2))
        broken.whenCircuitOpen = .fail
        let breaker = try await FleetSimulation.run(broken)
        let unprotected = try await FleetSimulation.run(Self.small)
        let during = { (report: FleetReport) in report.seconds[6..<12].reduce(0) { $0 + $1.serverLoad } }
        #expect(Double(during(breaker)) <= 0.2 * Double(during(unprotected)))
        #expect(breaker.timeToRecover <= .seconds(2), "recovers within one break after healing")
    }

    @Test func badScenariosAreRefusedByName() async {
        var scenario = Self.small
        scenario.clients = 0
        await #expect(throws: RetryPolicyError.self) { try await FleetSimulation.run(scenario) }
    }

    @Test func theChartIsAnSVGWithEverySecond() async throws {
        let report = try await FleetSimulation.run(Self.small)
        let svg = FleetChart.svg(report, title: "20 clients <no protection>")
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.contains("20 clients &lt;no protection&gt;"))
        #expect(svg.components(separatedBy: "<polyline").count == 4)
        #expect(svg.contains(">outage</text>"))
    }
}
