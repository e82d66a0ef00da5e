import RetryFlow

/// Which explorer runs: the one `verify` uses, or the one it replaced (``ReferenceExplorer``), to
/// check the two against each other and to measure them (`verify-scale`). Set for a task, so a
/// test can run any exploration (a shipped machine's, a policy's) both ways.
///
/// ```swift
/// let old = ExplorationEngine.$reference.withValue(true) { FleetExploration.budget() }
/// ```
package enum ExplorationEngine {
    /// Whether explorations run by the reference explorer, with the retry machine's old key.
    @TaskLocal package static var reference = false
    /// Whether the retry machine under a deadline is explored exactly from the start, without first
    /// over-approximating its time (``DeadlineOverApproximation``): to check the two agree.
    @TaskLocal package static var exactOnly = false
}
