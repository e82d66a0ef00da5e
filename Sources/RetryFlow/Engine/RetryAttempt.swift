/// What the operation is told about the attempt it is running.
public struct RetryAttempt: Sendable {
    /// This attempt's number, from 1.
    public let number: Int
    /// The policy's total attempts.
    public let maxAttempts: Int
    /// The error of the attempt before this one, if it failed with one.
    public let previousError: (any Error)?
    /// What the run's user steps produced so far (``RetryStep``), by typed key: a new token, another
    /// base URL. Never traced: it may hold credentials.
    public let values: RetryStep.Values

    /// What an attempt is told; `values` are what earlier steps produced.
    package init(number: Int, maxAttempts: Int, previousError: (any Error)?, values: RetryStep.Values = .init()) {
        self.number = number
        self.maxAttempts = maxAttempts
        self.previousError = previousError
        self.values = values
    }

    /// Whether no attempt will follow this one (if it fails, the run ends).
    public var isLast: Bool { number >= maxAttempts }
}
