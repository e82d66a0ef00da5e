import Foundation
import RetryFlow
import RetryFlowFigures
import RetryFlowTesting
import Testing

/// The fleet simulation: replayable, its counts add up, and the protections do what they claim.
@Suite struct FleetSimulationTests {
    static let small = FleetScenario(
        clients: 20, duration: .seconds(20), outage: Duration.seconds(5)..<Duration.seconds(12),
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

    /// The docs' scenario under both protections, four copies at once: the copies (and the rest of a
    /// parallel `swift test`) crowd the cooperative pool, which is when a driver that moves the clock
    /// under a request still in flight shows it. Every copy must report the same, byte for byte.
    @Test func concurrentCopiesReportTheSame() async throws {
        let scenario = FleetScenario(
            clients: 50, duration: .seconds(20), outage: Duration.seconds(5)..<Duration.seconds(12),
            policy: RetryPolicy(maxAttempts: 4), budget: .awsStandard,
            breaker: CircuitBreakerOptions(trip: .consecutiveFailures(20), breakDuration: .seconds(2)))
        let reports = try await withThrowingTaskGroup(of: FleetReport.self) { group in
            for _ in 0..<4 { group.addTask { try await FleetSimulation.run(scenario) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for report in reports.dropFirst() {
            #expect(report.text == reports[0].text)
        }
        for report in reports {
            // A healthy server answers at once: a run started in a healthy second ends in it. A success
            // counted a second late means the clock moved while the request was in flight.
            for second in report.seconds where second.time < 5 {
                #expect(second.successes == second.offered, "second \(second.time)")
            }
            // Nothing runs past the last first attempt by more than the policy's waits and breaks: a row
            // 30 s later would be HTTP's default attempt timeout firing on the virtual clock.
            #expect(report.seconds.count <= 25)
        }
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

    /// 32 clients sharing the adaptive limiter against 100 requests/s recover from the cold start:
    /// over the last 10 s of 20, at least 95 % of the server's rate succeeds, and at most 10 % of
    /// what is sent is throttled (issue 36's goals, here on the virtual clock; the `adaptive-throttle`
    /// benchmark measures the same against nginx). Before the token waits looked again, sends reserved
    /// at the cold start's 0.5/s waited out that rate: 1 % of the rate got through.
    @Test func theAdaptiveLimiterRecoversFromTheColdStart() throws {
        let report = try AdaptiveSimulation.run(.init(clients: 32, serverRate: 100, adaptive: true))
        let late = report.seconds.suffix(10)
        let goodput = Double(late.reduce(0) { $0 + $1.succeeded }) / 10
        let sent = report.seconds.reduce(0) { $0 + $1.sent }
        let throttled = report.seconds.reduce(0) { $0 + $1.throttled }
        #expect(goodput >= 95, "\(report.text)")
        #expect(Double(throttled) <= 0.10 * Double(sent), "\(report.text)")
    }
}
