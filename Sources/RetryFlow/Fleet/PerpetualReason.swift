/// The stop-reason type of a table that never ends (a retry budget, a circuit breaker): it has no
/// terminal state, so no row names a reason.
public enum PerpetualReason: String, TableSymbol {
    /// Never used: no row of a perpetual table ends anything.
    case none
}
