/// Why a run ended: named by the table row that ended it (``Transition/reason``), never worked out
/// beside the table.
public enum StopReason: TableSymbol {
    /// An attempt's result was accepted.
    case succeeded
    /// The caller cancelled.
    case cancelled
    /// The classifier said the error or result is a failure, not worth retrying.
    case notRetryable
    /// The classifier said the result is the caller's answer, though not a success, and is not
    /// retried (a 404, a POST's 503): the run ends in `answered` and the caller receives the value.
    case finalAnswer
    /// Every attempt the policy allows was used.
    case attemptsExhausted
    /// The server asked to wait longer than the policy's `maxRetryAfter`.
    case retryAfterBeyondCap
    /// The deadline passed during an attempt, or the next wait would have crossed it.
    case deadlineExceeded
    /// The shared retry budget refused the retry (too many retries across the fleet).
    case budgetExhausted
    /// The circuit breaker refused the attempt and the run does not wait out the break.
    case circuitOpen
    /// The adaptive rate limiter had no token for the try now, and the run does not wait for one
    /// (``RateLimitedBehavior/fail``).
    case rateLimited
    /// The driver delivered an event the table has no row for (a bug in a driver or a table, recorded
    /// in the trace): the run ends in `failure`.
    case invalidTransition
    /// A user's step ended the run (its action threw, or it took an exit its rows end the run on):
    /// the words are the row's (``RetryStep/failureReason`` for a throw), drawn on the row like any other.
    case step(String)

    /// The built-in reasons (a table's steps add reasons of their own).
    public static let allCases: [StopReason] = [
        .succeeded, .cancelled, .notRetryable, .finalAnswer, .attemptsExhausted, .retryAfterBeyondCap,
        .deadlineExceeded, .budgetExhausted, .circuitOpen, .rateLimited, .invalidTransition,
    ]

    /// The words drawn on the row and printed in summaries.
    public var rawValue: String {
        switch self {
        case .succeeded: "succeeded"
        case .cancelled: "cancelled"
        case .notRetryable: "not retryable"
        case .finalAnswer: "final answer"
        case .attemptsExhausted: "attempts exhausted"
        case .retryAfterBeyondCap: "Retry-After beyond cap"
        case .deadlineExceeded: "deadline exceeded"
        case .budgetExhausted: "retry budget exhausted"
        case .circuitOpen: "circuit open"
        case .rateLimited: "rate limited"
        case .invalidTransition: "invalid transition"
        case .step(let words): words
        }
    }

    /// The built-in reason of those words, else a step's.
    public init?(rawValue: String) {
        guard !rawValue.isEmpty else { return nil }
        self = Self.allCases.first { $0.rawValue == rawValue } ?? .step(rawValue)
    }
}

extension StopReason {
    /// Equal when the labels are: `.step("wait")` is `.wait` (validation refuses such a step), so a
    /// label always names one symbol, in sets and comparisons alike.
    public static func == (lhs: StopReason, rhs: StopReason) -> Bool { lhs.rawValue == rhs.rawValue }

    /// Hashes the label, as equality compares it.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}
