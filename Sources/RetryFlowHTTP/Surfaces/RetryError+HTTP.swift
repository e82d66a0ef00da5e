import Foundation
import RetryFlow

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension RetryError {
    /// The last response received, if any (e.g. the last 503).
    public var lastResponse: HTTPResponse? { outcome.value as? HTTPResponse }
}
