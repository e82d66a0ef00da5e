import Foundation
import RetryFlow

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An HTTP run that gave up: why, every attempt with its error, the last response if there was
/// one, and the trace.
public struct HTTPRetryError: Error, CustomStringConvertible {
    /// Everything the run produced.
    public let outcome: RetryOutcome<HTTPResponse>

    /// Why the run ended.
    public var reason: StopReason { outcome.reason }
    /// Every attempt, in order.
    public var attempts: [AttemptRecord] { outcome.attempts }
    /// The last response received, if any (e.g. the last 503).
    public var lastResponse: HTTPResponse? { outcome.value }
    /// The transitions taken.
    public var trace: RetryTrace { outcome.trace }
    /// The last attempt's error.
    public var lastError: (any Error)? { outcome.attempts.last?.error }

    /// One line for the run, then one per attempt.
    public var description: String {
        outcome.error?.description ?? "gave up (\(reason.rawValue))"
    }
}

/// Calling the blocking API where it would deadlock.
public struct SynchronousCallError: Error, CustomStringConvertible {
    /// Why the call was refused.
    public let description: String
}
