import Foundation
import RetryFlow
import RetryFlowCharts
import RetryFlowGraphviz
import Testing

/// Inputs the fuzzers (Fuzz/, `make fuzz`) turned up, kept as regression tests.
@Suite struct FuzzFindingsTests {
    /// chart-labels: an `&` followed by a combining mark. Escaped, it becomes `&amp;` + the mark,
    /// whose last Character is `;` + mark, so a Character-wise search no longer finds `&amp;`
    /// (the fuzzer's own decoder fell for it). The label must reach cgraph scalar for scalar.
    @Test(arguments: ["&\u{0731}", "r&&\u{0731}\u{FFFD}\u{FFFD}N&&\u{01}\u{01}&&e\u{85}\u{2028}z\u{2029}\u{85}b"])
    func combiningMarkAfterAnAmpersandRoundTripsThroughCgraph(text: String) throws {
        let quoted = ChartEscaping.dotQuoted(text)
        let structure = try Graphviz.structure(of: "digraph fuzz {\n  a -> b [label=\(quoted)];\n}\n")
        let label = try #require(structure.edges.first?.label)
        #expect(
            Array(label.unicodeScalars) == Array(quoted.dropFirst().dropLast().unicodeScalars),
            "\(label.debugDescription)")
        #expect(label.unicodeScalars.contains("\u{0731}"))
        #expect(!label.unicodeScalars.contains("\u{01}"), "control characters become spaces")
    }
}
