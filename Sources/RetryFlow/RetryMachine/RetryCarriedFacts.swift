/// The retry rules' facts that outlive an input and that no counter shows (``RetryRules/carriedFacts``):
/// the part of an explored position's key that is neither its state, its counters nor its time.
/// The explorer (RetryFlowCharts' `RetryLiveFacts`) clears each one a row can no longer read from
/// where the position stands, so positions that differ only in what nothing reads again are one.
package struct RetryCarriedFacts: Hashable, Sendable {
    /// The attempts before the current series (`reset backoff` moves it): `attempts left` and the
    /// backoff count from it.
    package var seriesStart: Int
    /// What the next backoff delay grows from (read only by the decorrelated jitters).
    package var backoffMemory: BackoffMemory
    /// The memory as the planned delay left it; `sleep` makes it the backoff's.
    package var plannedMemory: BackoffMemory
    /// The last input's verdict.
    package var decision: RetryDecision
    /// The wait `plan delay` (or the limiter's `rate limited`) worked out.
    package var plannedDelay: Duration
    /// The retry budget's last answer.
    package var budgetGranted: Bool
}
