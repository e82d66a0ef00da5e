import RetryFlow

/// How a transition table is drawn. Both styles are derived from the same rows.
public enum ChartStyle: String, CaseIterable, Sendable, Codable {
    /// UML state diagram: one node per state, one edge per row labelled `event [guard] / effect`.
    case state
    /// Flowchart: start and end ovals, states as boxes, each guard of a decision as a diamond with
    /// yes/no branches.
    case flowchart
}
