import Foundation
import RetryFlow
import RetryFlowCharts
import RetryFlowGraphviz
import Testing

/// `verify`'s counterexample is a trace like any run's: written as JSON, read back, drawn over the
/// chart and turned into a report page, as `render --trace` and `--report` do.
@Suite struct CounterexampleTests {
    enum Place: String, TableSymbol { case idle, asking, deciding, done }
    enum Signal: String, TableSymbol, MachineInput {
        case go, no, yes
        var event: Signal { self }
    }
    enum Question: String, TableSymbol { case patient }
    enum Work: String, TableSymbol {
        case ask, finish
        var endsRun: Bool { self == .finish }
    }
    enum End: String, TableSymbol { case answered }

    typealias Words = TableWords<Place, Signal, Question, Work, End>

    /// Asks again after every "no", forever: a loop without a bound (its guard is never false).
    static let table = TransitionTable<Words>(
        name: "nagging", initial: .idle, terminals: [.done],
        rows: [
            .init(from: .idle, event: .go, to: .asking, effects: [.ask]),
            .init(from: .asking, event: .yes, to: .done, effects: [.finish], reason: .answered),
            .init(from: .asking, event: .no, to: .deciding),
            .init(from: .deciding, event: nil, condition: .when(.patient), to: .asking, effects: [.ask]),
            .init(from: .deciding, event: nil, to: .done, effects: [.finish], reason: .answered),
        ])

    struct Rules: MachineRules, Hashable {
        typealias Vocabulary = Words
        mutating func receive(_ input: Signal, at time: Duration) {}
        func holds(_ guardSymbol: Question) -> Bool { true }
        mutating func perform(_ effect: Work, of row: Row) -> Work? { effect }
    }

    struct Model: ExplorationModel {
        typealias Rules = CounterexampleTests.Rules
        var inputLimit: Int { 10 }
        var boundDescription: String { "10 inputs" }
        func choices(at position: ExplorationPosition<Rules>) -> [ExplorationChoice<Signal>] {
            [.init(.go, at: position.at), .init(.yes, at: position.at), .init(.no, at: position.at)]
        }
    }

    @Test func theCounterexampleIsATraceThatRenders() throws {
        let result = TableExplorer(table: Self.table, rules: Rules(), model: Model()).explore()
        let violation = try #require(result.violations.first { $0.invariant == "every run ends" }, "\(result.text)")
        // go, then no: back in `asking` with nothing changed, forever.
        #expect(violation.trace.steps.map(\.to) == [.asking, .deciding, .asking])
        #expect(violation.message.contains("a loop without a bound"))
        let json = try TraceJSON.encode(violation.trace)
        let trace = try TraceJSON<Words>.decode(json)
        #expect(trace.isConsistent(with: Self.table))
        let svg = try Graphviz.render(
            dot: DOTChart.render(Self.table, style: .flowchart, overlay: TraceOverlay(trace: trace, table: Self.table)),
            format: "svg")
        #expect(String(decoding: svg, as: UTF8.self).contains("<svg"))
        let page = try RunReport(table: Self.table, trace: trace, title: "counterexample").html
        #expect(page.contains("counterexample"))
        // The row never taken by a run that ends is listed unreachable? No: `deciding [else]` is never taken.
        #expect(!result.reachableRows.contains(4))
    }
}
