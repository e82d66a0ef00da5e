/// The questions the retry machine asks after a failed attempt. The raw values are drawn on the
/// charts as `[retryable]` or, negated, by ``negatedLabel`` (`[no attempts left]`).
public enum RetryGuard: String, TableSymbol {
    /// The policy's classifier did not say `fail` for this error or result.
    case retryable
    /// Fewer attempts have started than the policy's `maxAttempts`, counted from the last attempt
    /// that made progress (`reset backoff`), or from the first.
    case attemptsLeft = "attempts left"
    /// Any Retry-After the server asked for is within the policy's `maxRetryAfter`.
    case retryAfterWithinCap = "Retry-After within cap"
    /// The next attempt would start before the overall deadline (always true without a deadline).
    case withinDeadline = "within deadline"
    /// The delay before the next attempt is zero, so there is nothing to wait for.
    case retryImmediately = "retry immediately"
    /// The retry budget granted a token (always true without a budget).
    case retryBudgetLeft = "retry budget left"
    /// The run waits out an open circuit's break, like a Retry-After, rather than failing at once.
    case waitsOutBreak = "waits out break"

    /// How a failing guard reads on the chart and in messages.
    public var negatedLabel: String {
        switch self {
        case .retryable: "not retryable"
        case .attemptsLeft: "no attempts left"
        case .retryAfterWithinCap: "Retry-After beyond cap"
        case .withinDeadline: "next wait would cross deadline"
        case .retryImmediately: "not immediately"
        case .retryBudgetLeft: "retry budget exhausted"
        case .waitsOutBreak: "fails fast"
        }
    }
}
