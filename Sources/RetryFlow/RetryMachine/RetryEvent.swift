/// What can happen to a retry run. The raw values are the edge labels on the charts.
///
/// The built-in events are the shipped table's; ``stepExit(_:)`` is how a user's step ended, labelled
/// with its exit's name (`step done` for ``RetryStep/Exit/done``).
public enum RetryEvent: TableSymbol {
    /// The driver was told to begin (`resume()`, `run`).
    case start
    /// The attempt produced a result the policy accepts.
    case succeeded
    /// The attempt threw, or produced a result the policy wants retried.
    case failed
    /// The attempt failed after it made progress the driver vouches for (a download cut after it
    /// wrote new bytes): the count of attempts and the backoff start over from it.
    case failedAfterProgress
    /// The attempt ran past the policy's per-attempt timeout and was cancelled.
    case attemptTimedOut
    /// The adaptive rate limiter has a token for the try now (the `ask limiter` effect's answer,
    /// given at once without a limiter): it goes on to the breaker.
    case tokenGranted
    /// The adaptive rate limiter reserved a token for the try that is due only after a wait (the
    /// `ask limiter` effect's other answer): the run waits for it, or gives it back and fails.
    case rateLimited
    /// The circuit breaker admitted the try (the `ask breaker` effect's answer, given at once without
    /// a breaker): it is sent as the next attempt.
    case admitted
    /// The circuit breaker refused the try (the `ask breaker` effect's other answer): it was not
    /// sent, and is no attempt.
    case circuitOpen
    /// The retry budget answered the `ask retry budget` effect (granted or refused).
    case budgetAnswered
    /// The backoff delay is over.
    case delayElapsed
    /// The caller cancelled the run.
    case cancelled
    /// The overall deadline passed while an attempt was in flight.
    case deadlineExceeded
    /// A user's step (``RetryStep``) finished its action in this exit: the rows from its state route
    /// each exit (`step done` for a step with one way on).
    case stepExit(RetryStep.Exit)
    /// A user's step threw: the run ends with the step's reason.
    case stepFailed

    /// The built-in events, in chart order, with `step done` (a step's named exits are its own).
    public static let allCases: [RetryEvent] = [
        .start, .succeeded, .failed, .failedAfterProgress, .attemptTimedOut, .tokenGranted, .rateLimited,
        .admitted, .circuitOpen, .budgetAnswered, .delayElapsed, .cancelled, .deadlineExceeded, .stepExit(.done),
        .stepFailed,
    ]

    /// The label: the built-in event's, or the exit's name.
    public var rawValue: String {
        switch self {
        case .start: "start"
        case .succeeded: "succeeded"
        case .failed: "failed"
        case .failedAfterProgress: "failed after progress"
        case .attemptTimedOut: "attempt timed out"
        case .tokenGranted: "token granted"
        case .rateLimited: "rate limited"
        case .admitted: "admitted"
        case .circuitOpen: "circuit open"
        case .budgetAnswered: "budget answered"
        case .delayElapsed: "delay elapsed"
        case .cancelled: "cancelled"
        case .deadlineExceeded: "deadline exceeded"
        case .stepExit(let exit): exit.name
        case .stepFailed: "step failed"
        }
    }

    /// The built-in event of that label, else the step exit of that name (so a trace file reads back).
    public init?(rawValue: String) {
        guard !rawValue.isEmpty else { return nil }
        self = Self.allCases.first { $0.rawValue == rawValue } ?? .stepExit(RetryStep.Exit(rawValue))
    }

    /// Whether the label is a built-in event's (a step's exit may not take one).
    static func isBuiltIn(_ label: String) -> Bool { allCases.contains { $0.rawValue == label } }
}
