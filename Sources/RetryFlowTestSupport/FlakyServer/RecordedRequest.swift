import Foundation

extension FlakyServer {
    /// A request as the server saw it, so tests assert what really crossed the wire.
    public struct RecordedRequest: Sendable, CustomStringConvertible {
        /// `GET`, `POST` …
        public let method: String
        /// The path, without the query.
        public let path: String
        /// The query, without `?`, if any.
        public let query: String?
        /// Header fields in arrival order.
        package let headers: [Header]
        /// The body.
        public let body: Data
        /// When it arrived, since the server started.
        public let arrival: Duration
        /// When it arrived, by the wall clock (to compare with HTTP dates such as Retry-After).
        package let arrivalDate: Date
        /// Which connection it came on (1, 2, …): a new number means a new connection.
        public let connection: Int
        /// Which scripted step answered it (0-based), or `nil` for an unscripted path.
        package let step: Int?
        /// When the server sent its answer (or reset, or closed), since it started; `nil` while it
        /// is still pending, or for a hang. Set before the bytes leave, so it is never after the
        /// client could have seen them.
        package internal(set) var answered: Duration?

        /// The first value of header `name` (case-insensitive).
        public func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }

        /// `GET /flaky at 12 ms on #2`.
        public var description: String { "\(method) \(path) at \(arrival.shortDescription) on #\(connection)" }
    }
}
