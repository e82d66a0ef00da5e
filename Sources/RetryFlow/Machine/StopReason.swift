/// Why a run ended: named by the table row that ended it (``Transition/reason``), never worked out
/// beside the table.
public enum StopReason: String, TableSymbol {
    /// An attempt's result was accepted.
    case succeeded
    /// The caller cancelled.
    case cancelled
    /// The classifier said the error or result is a failure, not worth retrying.
    case notRetryable = "not retryable"
    /// The classifier said the result is the caller's answer, though not a success, and is not
    /// retried (a POST's 503): the caller receives the value.
    case finalAnswer = "final answer"
    /// Every attempt the policy allows was used.
    case attemptsExhausted = "attempts exhausted"
    /// The server asked to wait longer than the policy's `maxRetryAfter`.
    case retryAfterBeyondCap = "Retry-After beyond cap"
    /// The deadline passed during an attempt, or the next wait would have crossed it.
    case deadlineExceeded = "deadline exceeded"
    /// The shared retry budget refused the retry (too many retries across the fleet).
    case budgetExhausted = "retry budget exhausted"
    /// The circuit breaker refused the attempt and the run does not wait out the break.
    case circuitOpen = "circuit open"
    /// The driver delivered an event the table has no row for (a bug in a driver, recorded in the trace).
    case invalidTransition = "invalid transition"

    /// Whether a run that ends for this reason hands the caller its last value (a success, or a final
    /// answer) rather than a ``RetryError``: the one rule every surface follows.
    public var deliversValue: Bool { self == .succeeded || self == .finalAnswer }

    /// The reason a run ends by taking `row`: the reason the row names.
    @available(*, deprecated, message: "read row.reason: every finishing row names its reason")
    public init(endingRow row: RetryTable.Row) {
        self = row.reason ?? .invalidTransition
    }
}
