import RetryFlow

/// What `check-chart` makes of a drawing: its disagreements under a correspondence (given with
/// `--map`, or proposed, then also returned to be shown), or that no correspondence is plausible.
package enum ChartCheckOutcome: Hashable, Sendable {
    /// Checked under `--map` (`correspondence` is `nil`) or under the proposed correspondence.
    case checked(ChartCheckResult, correspondence: ChartCorrespondence?)
    /// No mapping of the drawing's nodes to states makes sense of it: the best one, and how many
    /// disagreements remain under it.
    case implausible(ChartCorrespondence, disagreements: Int)
}

extension ChartCheck {
    /// `drawing` checked against `table` under `map` (`--map`'s text) or, without one, under the
    /// correspondence found from its structure. When nodes had to be matched by structure and that
    /// matching is implausible (fewer than half the drawn links agree, or the table's rows are fewer
    /// than the disagreements), the outcome says so instead of listing every state.
    package static func check<V>(
        _ drawing: DrawnChart, with table: TransitionTable<V>, map: String?
    ) throws(ChartMapError) -> ChartCheckOutcome {
        if let map {
            let mapping = try mapping(map, drawing: drawing, table: table)
            return .checked(compare(drawing, with: table, mapping: mapping), correspondence: nil)
        }
        let (correspondence, mapping) = propose(drawing, for: table)
        let result = compare(drawing, with: table, mapping: mapping)
        if correspondence.guessed && (!correspondence.plausible || result.findings.count >= table.rows.count) {
            return .implausible(correspondence, disagreements: result.findings.count)
        }
        return .checked(result, correspondence: correspondence)
    }
}
