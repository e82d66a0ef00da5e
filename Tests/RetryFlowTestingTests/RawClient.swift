import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A blocking loopback client, to hold many connections open at once in a test.
final class RawClient {
    let fd: Int32

    init(port: Int) throws {
        fd = Self.tcpSocket()
        let result = Self.withLoopback(port: port) { connect(fd, $0, $1) }
        guard result == 0 else { throw POSIXError(.ECONNREFUSED) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    /// A TCP socket (the type's spelling differs between Glibc and Darwin).
    static func tcpSocket() -> Int32 {
        #if canImport(Darwin)
            return socket(AF_INET, SOCK_STREAM, 0)
        #else
            return socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
    }

    /// Calls `body` with the address 127.0.0.1:`port` and its length.
    static func withLoopback<R>(port: Int, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        guard write(fd, bytes, bytes.count) == bytes.count else { throw POSIXError(.EIO) }
    }

    /// Reads one response head (up to the blank line), for interim responses such as 100 Continue.
    func receiveHead() throws -> String {
        var data: [UInt8] = []
        var byte: UInt8 = 0
        while !(data.count >= 4 && data.suffix(4) == [13, 10, 13, 10]) {
            guard read(fd, &byte, 1) == 1 else { throw POSIXError(.EIO) }
            data.append(byte)
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Reads until the headers and a Content-Length body have arrived.
    func receive() throws -> String {
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(fd, &chunk, chunk.count)
            guard count > 0 else { throw POSIXError(.EIO) }
            data += chunk[0..<count]
            let text = String(decoding: data, as: UTF8.self)
            if let end = text.range(of: "\r\n\r\n"),
                let lengthLine = text[..<end.lowerBound].split(separator: "\r\n").first(where: {
                    $0.lowercased().hasPrefix("content-length:")
                }),
                let length = Int(lengthLine.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)),
                text.utf8.count - text.utf8.distance(from: text.startIndex, to: end.upperBound) >= length
            {
                return text
            }
        }
    }
}

extension FlakyServerTests {
    /// Whether a server socket (with SO_REUSEADDR, as servers ask) can bind and listen on `port`
    /// of 127.0.0.1 now. It closes the socket again before returning.
    static func canListen(on port: Int) -> Bool {
        let fd = RawClient.tcpSocket()
        defer { close(fd) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        let bound = RawClient.withLoopback(port: port) { bind(fd, $0, $1) }
        return bound == 0 && listen(fd, 1) == 0
    }
}
