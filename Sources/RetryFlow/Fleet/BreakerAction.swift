/// What a breaker's step tells the run that asked: the answer to `call asked`, made by the `admit`,
/// `admit probe` and `reject` effects of the row taken. Other inputs answer nothing.
package enum BreakerAction: Hashable, Sendable {
    /// The call may go.
    case admit
    /// The call may go as the half-open probe with this number, whose outcome decides the breaker
    /// (a stale probe's outcome is told apart by it).
    case admitProbe(UInt64)
    /// The call is refused (open, isolated, or half-open with the probe in flight).
    case reject
}
