import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The loopback TCP plumbing every test server here shares: FlakyServer, RefusingPort, the nginx
/// harness and the cutting proxy. It needs nothing but the C library, so the Benchmarks package,
/// which sees only products, compiles this same file through a link (Benchmarks/Sources/BenchSupport)
/// instead of keeping a copy.
package enum LoopbackSocket {
    #if canImport(Darwin)
        package static let streamType = SOCK_STREAM
    #else
        package static let streamType = Int32(SOCK_STREAM.rawValue)
    #endif

    /// A TCP socket bound to 127.0.0.1 on an ephemeral port, and that port. `configure` runs
    /// before `bind` (socket options). The one place a test socket gets its address.
    package static func bound(configure: (Int32) -> Void = { _ in }) throws(LoopbackSocketError) -> (Int32, Int) {
        let fd = socket(AF_INET, streamType, 0)
        guard fd >= 0 else { throw LoopbackSocketError("socket() failed: \(errorText())") }
        configure(fd)
        var address = sockaddr_in()
        #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            let text = errorText()
            _ = close(fd)
            throw LoopbackSocketError("cannot bind 127.0.0.1: \(text)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// `close(2)`, callable where a type's own `close` method hides the C function.
    package static func close(_ fd: Int32) -> Int32 {
        #if canImport(Glibc)
            return Glibc.close(fd)
        #elseif canImport(Musl)
            return Musl.close(fd)
        #else
            return Darwin.close(fd)
        #endif
    }

    /// The C library's words for the last error.
    package static func errorText() -> String { String(cString: strerror(errno)) }
}

/// A socket that could not be set up, in the C library's words.
package struct LoopbackSocketError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
