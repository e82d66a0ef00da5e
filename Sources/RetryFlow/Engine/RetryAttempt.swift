/// What the operation is told about the attempt it is running.
public struct RetryAttempt: Sendable {
    /// This attempt's number, from 1.
    public let number: Int
    /// The policy's total attempts.
    public let maxAttempts: Int
    /// The error of the attempt before this one, if it failed with one.
    public let previousError: (any Error)?

    /// Whether no attempt will follow this one (if it fails, the run ends).
    public var isLast: Bool { number >= maxAttempts }
}
