/// What an exploration must find before it may stop early: the findings of an over-approximation,
/// each to be confirmed on a concrete run (``TableExplorer/explore(until:)``). What the
/// over-approximation did not find, no concrete run can: it covers every concrete run.
struct ExplorationGoals: Sendable {
    /// Rows to take (by index).
    var rows: Set<Int>
    /// States to rest in (an input arriving later than the one that entered them), by label.
    var rested: Set<String>
    /// Invariants to break.
    var invariants: Set<String>
    /// Whether the exploration must go to the end all the same: a loop, or a run longer than the
    /// bound, is found only by an exploration that saw every transition.
    var exhaustive: Bool
}
