import RetryFlow
import RetryFlowCharts
import Testing

/// `render --policy`: the chart of one policy draws only the rows verify finds reachable under it.
@Suite struct PolicyChartTests {
    @Test func theDefaultPolicyComesDownToTheTeachingLoop() {
        let dot = DOTChart.render(policy: .default, world: RetryWorld(cancellation: false), style: .state)
        // No budget, breaker, deadline, timeout or Retry-After: none of their states or rows are drawn.
        for absent in ["\"budget\"", "\"admission\"", "deadline", "timed out", "circuit", "Retry-After", "cancelled"] {
            #expect(!dot.contains(absent), "\(absent) in\n\(dot)")
        }
        for state in ["idle", "request", "retry", "wait", "success", "failure"] {
            #expect(dot.contains("\"\(state)\" [id="), "\(state) missing from\n\(dot)")
        }
        // The budget's answer, passed through in no time, is part of the edge from retry to wait.
        #expect(dot.contains("\"retry\" -> \"wait\" [id=\"rows_"), "\(dot)")
        #expect(dot.contains("label=\"[else] / ask retry budget, notify retry, sleep\""), "\(dot)")
    }

    @Test func aPolicyWithoutABudgetHasNoBudgetState() {
        let policy = RetryPolicy(maxAttempts: 5, jitter: .none, deadline: .seconds(10))
        for style in ChartStyle.allCases {
            let dot = DOTChart.render(policy: policy, style: style)
            #expect(!dot.contains("\"budget\""), "\(dot)")
            #expect(dot.contains("deadline"), "\(dot)")
        }
        let withBudget = DOTChart.render(policy: policy, world: RetryWorld(budget: true), style: .state)
        #expect(withBudget.contains("\"budget\" [id="))
        #expect(withBudget.contains("retry budget exhausted"))
    }
}
