/// The one timer an attempt runs against: the per-attempt timeout or the overall deadline,
/// whichever comes first. The engine arms it; `Simulation` reads it to know when a run is parked.
package struct AttemptTimer: Hashable, Sendable {
    /// Which limit the timer stands for.
    package enum Kind: Hashable, Sendable {
        /// The policy's `perAttemptTimeout`: the attempt is cancelled and counts as a timeout.
        case attemptTimeout
        /// The policy's `deadline`: the run ends.
        case deadline
    }

    /// When it fires, as time since the run started.
    package let at: Duration
    /// What its firing means.
    package let kind: Kind
}

extension RetryPolicy {
    /// The timer of an attempt that starts `start` after the run began, or `nil` when the policy has
    /// neither a per-attempt timeout nor a deadline. On a tie the timeout wins (it is retryable).
    package func attemptTimer(startingAt start: Duration) -> AttemptTimer? {
        var timer = perAttemptTimeout.map { AttemptTimer(at: start + $0, kind: .attemptTimeout) }
        if let deadline, timer.map({ deadline < $0.at }) ?? true {
            timer = AttemptTimer(at: deadline, kind: .deadline)
        }
        return timer
    }
}
