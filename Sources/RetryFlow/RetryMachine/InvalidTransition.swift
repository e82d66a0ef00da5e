/// An event delivered in a state that has no row for it. The machine stays where it was, the
/// trace records it, and the driver ends the run with ``StopReason/invalidTransition``.
package typealias InvalidTransition = RetryTrace.Rejection

extension TransitionTrace.Rejection: Error, CustomStringConvertible {
    /// `no row for event 'failed' in state 'wait'`.
    public var description: String { "no row for event '\(event.label)' in state '\(state.label)'" }
}
