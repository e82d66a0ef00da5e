/// What an adaptive limiter's step tells the run that asked: the answer to `send asked`, made by the
/// `grant` and `plan wait` effects of the rows taken. Other inputs answer nothing.
package enum AdaptiveAction: Hashable, Sendable {
    /// Send now: the bucket held the token (or the limiter is disabled and keeps no bucket).
    case grant
    /// Send after `seconds` at the present fill rate: the token is reserved, and due when the bucket
    /// has been credited `dueAtCredit` tokens in all (``AdaptiveRules/credited``), however fast it
    /// fills meanwhile.
    case wait(Double, dueAtCredit: Double)
}
