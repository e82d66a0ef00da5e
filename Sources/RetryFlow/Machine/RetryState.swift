/// Where a retry run stands. The raw values are the node labels on the charts.
public enum RetryState: String, TableSymbol {
    /// Not started yet. Honest because a task object can exist before `resume()` starts it.
    case idle
    /// An attempt is in flight.
    case request
    /// An attempt failed; the policy decides what happens next. A decision: the machine never rests here.
    case retry
    /// Waiting for the retry budget's answer: a retry the policy allows still needs a token.
    case budget
    /// The budget answered; the machine reads the answer. A decision: never rested in.
    case admission
    /// Sleeping the backoff delay before the next attempt.
    case wait
    /// Terminal: an attempt's result was accepted.
    case success
    /// Terminal: the run gave up (not retryable, attempts exhausted, Retry-After beyond the cap, deadline,
    /// retry budget exhausted, circuit open).
    case failure
    /// Terminal: the caller cancelled the run. Kept apart from `failure` because nothing failed
    /// and cancellation is never retried.
    case cancelled
}
