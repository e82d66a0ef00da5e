import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One HTTP answer: its body and its response head.
public struct HTTPResponse: @unchecked Sendable, CustomStringConvertible {
    // @unchecked: HTTPURLResponse is immutable once received but not marked Sendable on every platform.

    /// The body.
    public let data: Data
    /// The status line and headers.
    public let response: HTTPURLResponse

    /// Makes one.
    public init(data: Data, response: HTTPURLResponse) {
        self.data = data
        self.response = response
    }

    /// The status code.
    public var statusCode: Int { response.statusCode }

    /// `HTTP 200, 2 bytes`.
    public var description: String { "HTTP \(response.statusCode), \(data.count) bytes" }
}
