import Foundation
import RetryFlow

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A change a user step (`RetryStep`) makes to every request sent after it: return it among the
/// step's values, and each HTTP surface applies it before the next attempt goes out (a new token,
/// another base URL). Values are never traced, so a credential here stays out of traces and reports.
///
/// ```swift
/// let refresh = RetryStep("refresh credentials") { _ in
///     let token = try await tokens.refresh()
///     return ["auth": RequestChange { $0.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }]
/// }
/// ```
public struct RequestChange: Sendable {
    private let change: @Sendable (inout URLRequest) -> Void

    /// A change to apply to each later request.
    public init(_ change: @escaping @Sendable (inout URLRequest) -> Void) { self.change = change }

    /// Applies every change among `values` to `request`, in the order of their keys (so two steps'
    /// changes apply the same way every time; a later step's value under the same key replaced the earlier).
    static func apply(_ values: [String: any Sendable], to request: inout URLRequest) {
        for key in values.keys.sorted() {
            if let change = values[key] as? RequestChange { change.change(&request) }
        }
    }
}
