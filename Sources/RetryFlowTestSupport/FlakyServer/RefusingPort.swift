import Foundation
import RetryFlow

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A port on 127.0.0.1 where every connection is refused, for as long as this value lives:
/// how a test gets "connection refused" (`URLError.cannotConnectToHost`, curl's exit 7).
///
/// It holds a socket bound to the port and never listens on it, so the kernel answers each
/// connection with a reset and no other socket can take the port meanwhile. (Stopping a
/// `FlakyServer` and reusing its port is not the same: under parallel tests another server can
/// be given that port a moment later, and the "refused" request then succeeds.)
///
/// ```swift
/// let refusing = try RefusingPort()
/// defer { refusing.stop() }
/// let outcome = try await session.data(for: URLRequest(url: refusing.url("/x")), retry: .default)
/// ```
package final class RefusingPort: Sendable {
    /// The port that refuses connections.
    package let port: Int
    private let socket: Locked<Int32?>

    /// Reserves an ephemeral port on 127.0.0.1 that refuses every connection.
    package init() throws(FlakyServerError) {
        // No SO_REUSEADDR: a socket that asks for it may not share the port with this one.
        let bound: (Int32, Int)
        do { bound = try LoopbackSocket.bound() } catch { throw FlakyServerError(error.description) }
        let (fd, port) = bound
        self.port = port
        socket = Locked(fd)
    }

    /// The URL of `path` on this port.
    package func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// Gives the port back, like ``FlakyServer/stop()``. Safe to call more than once; runs on release too.
    package func stop() {
        let held = socket.withLock { fd -> Int32? in
            defer { fd = nil }
            return fd
        }
        guard let held else { return }
        close(held)
    }

    /// Whether the port's socket is still open (until ``stop()``).
    package var holdsPort: Bool { socket.withLock { $0 != nil } }

    deinit { stop() }
}
