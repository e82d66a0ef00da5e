/// What happened in one attempt. A run's outcome keeps one for every attempt, errors included.
public struct AttemptRecord: Sendable, CustomStringConvertible {
    /// The attempt's number, from 1.
    public let number: Int
    /// When it started, since the run started.
    public let start: Duration
    /// How long it ran until its result, error, timeout or cancellation.
    public let duration: Duration
    /// The wait that preceded it (zero for the first).
    public let delayBefore: Duration
    /// Its error (or ``RejectedResult`` for a result the policy retried); `nil` when it succeeded.
    public let error: (any Error)?
    /// The classifier's verdict on its failure; `nil` when it succeeded or was cut off.
    public let decision: RetryDecision?
    /// The error in words, as the trace shows it (redacted by the driver).
    public let errorDescription: String?
    /// Whether the attempt produced a value (accepted, or rejected by the result classifier)
    /// rather than throwing or being cut short.
    public let returnedValue: Bool

    /// `#2 at 0.5 s, took 12 ms: <error>` (or `ok`).
    public var description: String {
        "#\(number) at \(start.shortDescription), took \(duration.shortDescription): \(errorDescription ?? "ok")"
    }
}

/// Stands for an attempt that returned a value the policy's result classifier wants retried
/// (an HTTP 503, say); the value itself is kept in ``RetryOutcome/value``.
public struct RejectedResult: Error, CustomStringConvertible {
    /// The rejected value, in words.
    public let description: String

    /// Makes one.
    package init(_ description: String) { self.description = description }
}

/// Stands for an attempt cut off by the policy's per-attempt timeout.
public struct AttemptTimeout: Error, CustomStringConvertible {
    /// The timeout that was exceeded.
    public let timeout: Duration

    /// Makes one.
    package init(timeout: Duration) { self.timeout = timeout }
    /// `attempt timed out after 2 s`.
    public var description: String { "attempt timed out after \(timeout.shortDescription)" }
}

/// Stands for an attempt cut off because the run's deadline passed.
public struct DeadlineExceeded: Error, CustomStringConvertible {
    /// The policy's deadline.
    public let deadline: Duration

    /// Makes one.
    package init(deadline: Duration) { self.deadline = deadline }
    /// `deadline of 10 s exceeded`.
    public var description: String { "deadline of \(deadline.shortDescription) exceeded" }
}
