import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The socket helpers that NginxServer.swift and CuttingProxy.swift (linked here from ../Sources)
/// call as `FlakyServer.loopbackSocket()` and friends. In RetryFlow's package they are FlakyServer's
/// own, internal to its test support, so a package outside it cannot call them: this namespace,
/// internal to this module, stands in under the same name, and the public FlakyServer that the
/// benchmarks import is untouched. Plumbing only; no rule of a machine is copied here.
enum FlakyServer {
    #if canImport(Darwin)
        static let streamType = SOCK_STREAM
    #else
        static let streamType = Int32(SOCK_STREAM.rawValue)
    #endif

    /// A TCP socket bound to 127.0.0.1 on an ephemeral port, and that port.
    static func loopbackSocket() throws(FlakyServerError) -> (Int32, Int) {
        let fd = socket(AF_INET, streamType, 0)
        guard fd >= 0 else { throw FlakyServerError("socket() failed: \(errorText())") }
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
            _ = closeSocket(fd)
            throw FlakyServerError("cannot bind 127.0.0.1: \(text)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// `close(2)`, callable where a type's own `close` method hides the C function.
    static func closeSocket(_ fd: Int32) -> Int32 {
        #if canImport(Glibc)
            return Glibc.close(fd)
        #elseif canImport(Musl)
            return Musl.close(fd)
        #else
            return Darwin.close(fd)
        #endif
    }

    static func errorText() -> String { String(cString: strerror(errno)) }
}

/// What the linked servers throw when a socket cannot be set up (the public FlakyServerError's
/// initialiser is internal to RetryFlow's test support).
struct FlakyServerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
