/// Why a run ended, named from the table row that ended it (its event, or the guard that failed).
public enum StopReason: String, Hashable, Sendable, Codable, CaseIterable {
    /// An attempt's result was accepted.
    case succeeded
    /// The caller cancelled.
    case cancelled
    /// The classifier said the error or result is not worth retrying.
    case notRetryable = "not retryable"
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

    /// The reason a run ends by taking `row` into a terminal state.
    ///
    /// This names the row; it decides nothing (the table already did).
    public init(endingRow row: RetryTable.Row) {
        switch (row.event, row.condition.guardSymbol) {
        case (.succeeded?, _): self = .succeeded
        case (.cancelled?, _): self = .cancelled
        case (.deadlineExceeded?, _): self = .deadlineExceeded
        case (.circuitOpen?, _): self = .circuitOpen
        case (_, .retryBudgetLeft?): self = .budgetExhausted
        case (_, .retryable?): self = .notRetryable
        case (_, .attemptsLeft?): self = .attemptsExhausted
        case (_, .retryAfterWithinCap?): self = .retryAfterBeyondCap
        case (_, .withinDeadline?): self = .deadlineExceeded
        default: self = row.to == .success ? .succeeded : .notRetryable
        }
    }
}
