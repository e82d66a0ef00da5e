/// The retry rules' facts that outlive an input and that no counter shows (``RetryRules/carriedFacts``):
/// the part of an explored position's key that is neither its state, its counters nor its time.
/// ``RetryLiveFacts`` clears each one a row can no longer read from where the position stands, so
/// positions that differ only in what nothing reads again are one.
struct RetryCarriedFacts: Hashable {
    /// The attempts before the current series (`reset backoff` moves it): `attempts left` and the
    /// backoff count from it.
    var seriesStart: Int
    /// What the next backoff delay grows from (read only by the decorrelated jitters).
    var backoffMemory: BackoffMemory
    /// The memory as the planned delay left it; `sleep` makes it the backoff's.
    var plannedMemory: BackoffMemory
    /// The last input's verdict.
    var decision: RetryDecision
    /// The wait `plan delay` (or the limiter's `rate limited`) worked out.
    var plannedDelay: Duration
    /// The retry budget's last answer.
    var budgetGranted: Bool
}
