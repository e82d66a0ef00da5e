/// Where a retry run stands. The raw values are the node labels on the charts.
///
/// The built-in states are the shipped table's; ``step(_:)`` is a state of your own, the step that
/// runs in it (``RetryStep``): `refresh.state`, or `RetryState.step(refresh.id)`.
public enum RetryState: TableSymbol {
    /// Not started yet. Honest because a task object can exist before `resume()` starts it.
    case idle
    /// Waiting for the adaptive rate limiter's answer: every try asks it for a token before the
    /// breaker (the driver answers `token granted` at once when no limiter is configured).
    case limiter
    /// The limiter reserved a token due later; the machine reads the wait. A decision: never rested in.
    case pacing
    /// Waiting for the token the limiter reserved: the try is paced, then put to the breaker.
    case tokenWait
    /// Waiting for the circuit breaker's answer: every try asks it before it is sent (the driver
    /// answers `admitted` at once when no breaker is configured).
    case breaker
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
    /// Terminal: the run ended on an answer the caller receives as a value though it is not a
    /// success: a status the rules neither accept nor retry (a 404), or one they would retry but may
    /// not (a POST's 503).
    case answered
    /// Terminal: the run gave up (not retryable, attempts exhausted, Retry-After beyond the cap, deadline,
    /// retry budget exhausted, circuit open, rate limited), or a driver delivered an event with no row.
    case failure
    /// Terminal: the caller cancelled the run. Kept apart from `failure` because nothing failed
    /// and cancellation is never retried.
    case cancelled
    /// A user's step: its async action (``RetryStep``) runs here, between attempts. The step's name
    /// is the node's label on the charts; it may not be a built-in state's.
    case step(RetryStep.ID)

    /// The built-in states, in chart order (a table adds its steps: ``TransitionTable/states``).
    public static let allCases: [RetryState] = [
        .idle, .limiter, .pacing, .tokenWait, .breaker, .request, .retry, .budget, .admission, .wait, .success,
        .answered, .failure, .cancelled,
    ]

    /// The label: the built-in state's name, or the step's.
    public var rawValue: String {
        switch self {
        case .idle: "idle"
        case .limiter: "limiter"
        case .pacing: "pacing"
        case .tokenWait: "token wait"
        case .breaker: "breaker"
        case .request: "request"
        case .retry: "retry"
        case .budget: "budget"
        case .admission: "admission"
        case .wait: "wait"
        case .success: "success"
        case .answered: "answered"
        case .failure: "failure"
        case .cancelled: "cancelled"
        case .step(let id): id.name
        }
    }

    /// The built-in state of that name, else the step of that name (so a trace file reads back).
    public init?(rawValue: String) {
        guard !rawValue.isEmpty else { return nil }
        self = Self.allCases.first { $0.rawValue == rawValue } ?? .step(RetryStep.ID(rawValue))
    }
}

extension RetryState {
    /// Equal when the labels are: `.step("wait")` is `.wait` (validation refuses such a step), so a
    /// label always names one symbol, in sets and comparisons alike.
    public static func == (lhs: RetryState, rhs: RetryState) -> Bool { lhs.rawValue == rhs.rawValue }

    /// Hashes the label, as equality compares it.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}
