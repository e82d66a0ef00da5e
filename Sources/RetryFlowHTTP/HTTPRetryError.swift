import Foundation
import RetryFlow

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An HTTP run that gave up is the core's `RetryError`: one "gave up" error for every surface.
@available(*, deprecated, renamed: "RetryError", message: "one gave-up error for core and HTTP: catch RetryError")
public typealias HTTPRetryError = RetryError

extension RetryError {
    /// The last response received, if any (e.g. the last 503).
    public var lastResponse: HTTPResponse? { lastValue as? HTTPResponse }
}

/// Calling the blocking API where it would deadlock.
public struct SynchronousCallError: Error, CustomStringConvertible {
    /// Why the call was refused.
    public let description: String
}
