/// What can happen to a retry run. The raw values are the edge labels on the charts.
public enum RetryEvent: String, TableSymbol {
    /// The driver was told to begin (`resume()`, `run`).
    case start
    /// The attempt produced a result the policy accepts.
    case succeeded
    /// The attempt threw, or produced a result the policy wants retried.
    case failed
    /// The attempt ran past the policy's per-attempt timeout and was cancelled.
    case attemptTimedOut = "attempt timed out"
    /// The backoff delay is over.
    case delayElapsed = "delay elapsed"
    /// The caller cancelled the run.
    case cancelled
    /// The overall deadline passed while an attempt was in flight.
    case deadlineExceeded = "deadline exceeded"
}
