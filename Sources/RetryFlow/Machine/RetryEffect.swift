/// The kinds of work a row of the retry table asks the driver to do. The machine turns each into a
/// ``RetryAction`` carrying its values (attempt number, delay, why the run ended).
public enum RetryEffect: String, TableSymbol {
    /// Begin the next attempt.
    case startAttempt = "start attempt"
    /// Abandon the attempt in flight (it timed out, or the deadline passed).
    case cancelAttempt = "cancel attempt"
    /// Tell observers a retry is coming (the `onRetry` hook).
    case notifyRetry = "notify retry"
    /// Ask the shared retry budget for a token; the driver delivers its answer (`budget answered`).
    case askRetryBudget = "ask retry budget"
    /// Sleep the backoff delay on the injected clock.
    case sleep
    /// The run is over: report the outcome.
    case finish
}
