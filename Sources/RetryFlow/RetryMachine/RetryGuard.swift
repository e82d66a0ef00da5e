/// The questions the retry machine asks after a failed attempt. The raw values are drawn on the
/// charts as `[retryable]` or, negated, by ``negatedLabel`` (`[no attempts left]`).
public enum RetryGuard: TableSymbol {
    /// The classifier's verdict makes the result the caller's answer (``RetryDecision/finalAnswer``).
    case finalAnswer
    /// The policy's classifier did not say `fail` (or `final answer`) for this error or result.
    case retryable
    /// Fewer attempts have started than the policy's `maxAttempts`, counted from the last attempt
    /// that made progress (`reset backoff`), or from the first.
    case attemptsLeft
    /// Any Retry-After the server asked for is within the policy's `maxRetryAfter`.
    case retryAfterWithinCap
    /// The next attempt would start before the overall deadline (always true without a deadline).
    case withinDeadline
    /// The delay before the next attempt is zero, so there is nothing to wait for.
    case retryImmediately
    /// The retry budget granted a token (always true without a budget).
    case retryBudgetLeft
    /// The run waits out an open circuit's break, like a Retry-After, rather than failing at once.
    case waitsOutBreak
    /// The run waits for the token the adaptive rate limiter reserved, rather than failing at once
    /// (``FleetGuards/whenRateLimited``).
    case waitsForToken
    /// Fewer tries have been refused by the breaker (`count refusal`) than the policy's
    /// `maxAttempts`: a refused try uses up no attempt, and this bounds the waits for the break.
    case refusalsLeft
    /// The failure goes to this user step (``RetryStep/Entry``) and the step has visits left
    /// (``RetryStep/maxVisits``): drawn `[to refresh credentials]`. It bounds loops through the step,
    /// as `attempts left` bounds the retry loop.
    case enters(RetryStep.ID)

    /// The built-in guards (a table's steps add ``enters(_:)`` guards of their own).
    public static let allCases: [RetryGuard] = [
        .finalAnswer, .retryable, .attemptsLeft, .retryAfterWithinCap, .withinDeadline, .retryImmediately,
        .retryBudgetLeft, .waitsOutBreak, .waitsForToken, .refusalsLeft,
    ]

    /// The label drawn in brackets.
    public var rawValue: String {
        switch self {
        case .finalAnswer: "final answer"
        case .retryable: "retryable"
        case .attemptsLeft: "attempts left"
        case .retryAfterWithinCap: "Retry-After within cap"
        case .withinDeadline: "within deadline"
        case .retryImmediately: "retry immediately"
        case .retryBudgetLeft: "retry budget left"
        case .waitsOutBreak: "waits out break"
        case .waitsForToken: "waits for token"
        case .refusalsLeft: "refusals left"
        case .enters(let step): "to \(step.name)"
        }
    }

    /// The guard of that label (`to NAME` is the step's).
    public init?(rawValue: String) {
        if let known = Self.allCases.first(where: { $0.rawValue == rawValue }) {
            self = known
        } else if rawValue.hasPrefix("to "), rawValue.count > 3 {
            self = .enters(RetryStep.ID(String(rawValue.dropFirst(3))))
        } else {
            return nil
        }
    }

    /// How a failing guard reads on the chart and in messages.
    public var negatedLabel: String {
        switch self {
        case .finalAnswer: "not a final answer"
        case .retryable: "not retryable"
        case .attemptsLeft: "no attempts left"
        case .retryAfterWithinCap: "Retry-After beyond cap"
        case .withinDeadline: "next wait would cross deadline"
        case .retryImmediately: "not immediately"
        case .retryBudgetLeft: "retry budget exhausted"
        case .waitsOutBreak: "fails fast"
        case .waitsForToken: "fails when rate limited"
        case .refusalsLeft: "no refusals left"
        case .enters(let step): "not to \(step.name)"
        }
    }

    /// `attempts left`, `refusals left` and a step's `to NAME` count something that only grows along a
    /// loop (attempts started, tries refused, the step's visits): a loop through a row they guard ends. ``TransitionTable/validate()``
    /// refuses a loop that passes no such row.
    public var boundsLoops: Bool {
        switch self {
        case .attemptsLeft, .refusalsLeft, .enters: true
        case .finalAnswer, .retryable, .retryAfterWithinCap, .withinDeadline, .retryImmediately, .retryBudgetLeft,
            .waitsOutBreak, .waitsForToken:
            false
        }
    }
}

extension RetryGuard: CountedBound {
    /// What grows the count: `start attempt` for the attempts, `count refusal` for the refused tries,
    /// `run step` for a step's visits.
    package var countingEffect: String? {
        switch self {
        case .attemptsLeft: RetryEffect.startAttempt.label
        case .refusalsLeft: RetryEffect.countRefusal.label
        case .enters: RetryEffect.runStep.label
        case .finalAnswer, .retryable, .retryAfterWithinCap, .withinDeadline, .retryImmediately, .retryBudgetLeft,
            .waitsOutBreak, .waitsForToken:
            nil
        }
    }
}

extension RetryGuard {
    /// Equal when the labels are: `.step("wait")` is `.wait` (validation refuses such a step), so a
    /// label always names one symbol, in sets and comparisons alike.
    public static func == (lhs: RetryGuard, rhs: RetryGuard) -> Bool { lhs.rawValue == rhs.rawValue }

    /// Hashes the label, as equality compares it.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}
