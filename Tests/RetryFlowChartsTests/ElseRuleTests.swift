import RetryFlow
import RetryFlowCharts
import Testing

/// One rule for `[else]`: a step reads in the timeline as the chart labels the row it took, whether
/// the row has an event (`circuit open [else]`) or not (`[else]` into `wait`).
@Suite struct ElseRuleTests {
    static func step(
        _ from: RetryState, _ event: RetryEvent?, _ condition: GuardCondition<RetryGuard>, _ to: RetryState
    )
        -> RetryTrace.Step
    {
        .init(from: from, event: event, condition: condition, to: to, at: .zero, attempt: 1)
    }

    @Test func stepsReadAsTheirRowsDo() {
        let table = RetryTable.retry
        let cases: [(RetryTrace.Step, String)] = [
            (Self.step(.breaker, .circuitOpen, .always, .retry), "circuit open [else]"),
            (Self.step(.breaker, .circuitOpen, .unless(.refusalsLeft), .failure), "circuit open [no refusals left]"),
            (Self.step(.admission, nil, .always, .wait), "[else]"),
            (Self.step(.retry, nil, .unless(.attemptsLeft), .failure), "[no attempts left]"),
            (Self.step(.request, .failed, .always, .retry), "failed"),
        ]
        for (step, words) in cases {
            #expect(table.label(of: step) == words)
            // The chart's label of the same row starts with the same words.
            let row = table.index(from: step.from, event: step.event, condition: step.condition, to: step.to)!
            #expect(table.label(ofRow: row).hasPrefix(words))
            #expect(Timeline.render(RetryTrace(steps: [step])).contains(words + "  "))
        }
    }
}
