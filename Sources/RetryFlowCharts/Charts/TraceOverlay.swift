import RetryFlow

/// A run drawn over its chart: how often each row was taken, where the run ended, and a caption
/// with its attempts and delays. Works for any trace of the table: a test, a fetch, a simulation.
public struct TraceOverlay: Hashable, Sendable {
    /// How many times each table row was taken, by row index.
    package let rowCounts: [Int]
    /// The state the run ended in.
    package let finalState: String?
    /// States the run visited.
    package let visitedStates: Set<String>
    /// One line: attempts, waits, end state and time (a driver may say more, e.g. where a
    /// download resumed).
    package var caption: String

    /// Counts `trace`'s steps against `table`'s rows. Steps that match no row are not counted
    /// (`TransitionTrace.inconsistencies(with:)` names them).
    public init<V>(trace: TransitionTrace<V>, table: TransitionTable<V>) {
        var counts = Array(repeating: 0, count: table.rows.count)
        var visited = Set<String>()
        for step in trace.steps {
            visited.insert(step.from.rawValue)
            visited.insert(step.to.rawValue)
            if let index = table.index(from: step.from, event: step.event, condition: step.condition, to: step.to) {
                counts[index] += 1
            }
        }
        rowCounts = counts
        finalState = trace.finalState?.rawValue
        visitedStates = visited
        let attempts = trace.steps.map(\.attempt).max() ?? 0
        let waits = trace.steps.compactMap(\.delay).map(\.shortDescription)
        var parts: [String] = []
        if attempts > 0 || !waits.isEmpty {
            parts.append("attempts: \(attempts)")
            parts.append("waits: " + (waits.isEmpty ? "none" : waits.joined(separator: ", ")))
        } else {
            // A budget's or a breaker's trace counts no attempts: say how many steps it took.
            parts.append("steps: \(trace.steps.count)")
        }
        if let last = trace.steps.last {
            parts.append("ended: \(last.to.label) at \(last.at.shortDescription)")
        }
        caption = parts.joined(separator: " · ")
    }

    /// How many times the run used `edge` (the sum over the rows it is entered by: a policy's edge
    /// through a state passed in no time counts once per pass, not once per row on it).
    package func count(of edge: ChartGraph.Edge) -> Int {
        edge.enteredBy.reduce(0) { $0 + ($1 < rowCounts.count ? rowCounts[$1] : 0) }
    }
}
