import Foundation
import RetryFlow
import RetryFlowTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TCP proxy on 127.0.0.1 and an ephemeral port that forwards to a server on 127.0.0.1 (nginx)
/// and misbehaves per connection, as a real network does: it ends a connection (FIN or RST) after
/// its first N bytes towards the client, or slows it to a trickle. nginx itself has no "cut after N
/// bytes"; a proxy in front of it puts a real server's answers on a cut connection.
///
/// Connections follow ``Plan`` in the order they are accepted; the last one repeats. Each
/// connection gets two threads of its own (the proxy serves tests and benchmarks, a few
/// connections at a time). It stops on ``stop()`` and on release.
///
/// ```swift
/// let nginx = try await NginxServer.start(files: ["big.bin": data])
/// let proxy = try CuttingProxy.start(to: nginx.port, plan: [.cut(after: 7_000_000)])
/// defer { proxy.stop(); nginx.stop() }
/// _ = try await URLSession.shared.download(for: URLRequest(url: proxy.url("/big.bin")), to: file)
/// print(proxy.bytesSent)   // every byte sent towards the client, headers included
/// ```
package final class CuttingProxy: Sendable {
    /// What the proxy does to one connection.
    package enum Plan: Hashable, Sendable {
        /// Forwards both ways untouched.
        case pass
        /// Ends the connection once `bytes` bytes went towards the client: closed (FIN: the client
        /// reads every byte sent, then sees the body end short), or reset (RST: the client's kernel
        /// drops what it had received and not yet read, so fewer bytes arrive than were sent).
        case cut(after: Int, reset: Bool = false)
        /// After `bytes` bytes, sends the rest one byte at a time at `bytesPerSecond` (a stall a
        /// speed limit must catch: the connection never goes idle).
        case trickle(after: Int, bytesPerSecond: Int)
    }

    /// The port the proxy listens on (127.0.0.1 only).
    package let port: Int
    private let upstream: Int
    private let listener: Int32
    private let state: Locked<State>

    private struct State {
        var plan: [Plan]
        var accepted = 0
        var sent = 0
        var open: Set<Int32> = []
        var stopped = false
    }

    private init(port: Int, upstream: Int, listener: Int32, plan: [Plan]) {
        self.port = port
        self.upstream = upstream
        self.listener = listener
        state = Locked(State(plan: plan.isEmpty ? [.pass] : plan))
    }

    /// Starts a proxy to `upstreamPort` on 127.0.0.1 whose connections follow `plan` (the last
    /// entry repeats; empty: every connection passes).
    /// - Throws: `LoopbackSocketError` when no socket can be bound or listened on.
    package static func start(to upstreamPort: Int, plan: [Plan]) throws -> CuttingProxy {
        let (fd, port) = try LoopbackSocket.bound()
        guard listen(fd, 64) == 0 else {
            let text = LoopbackSocket.errorText()
            _ = LoopbackSocket.close(fd)
            throw LoopbackSocketError("listen() failed: \(text)")
        }
        let proxy = CuttingProxy(port: port, upstream: upstreamPort, listener: fd, plan: plan)
        let thread = Thread { [proxy] in proxy.acceptLoop() }
        thread.name = "CuttingProxy.accept"
        thread.start()
        return proxy
    }

    /// The URL of `path` through the proxy.
    package func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// Bytes sent towards clients so far (status lines and headers included).
    package var bytesSent: Int { state.withLock { $0.sent } }

    /// Connections accepted so far.
    package var connections: Int { state.withLock { $0.accepted } }

    /// Replaces the plan for the connections still to come (the last entry repeats).
    package func replan(_ plan: [Plan]) {
        state.withLock { state in
            state.plan = Array(repeating: .pass, count: state.accepted) + (plan.isEmpty ? [.pass] : plan)
        }
    }

    /// Stops accepting and ends every open connection. Returns at once; safe to call twice.
    package func stop() {
        let open: Set<Int32>? = state.withLock { state in
            guard !state.stopped else { return nil }
            state.stopped = true
            return state.open
        }
        guard let open else { return }
        _ = shutdown(listener, Int32(SHUT_RDWR))
        for fd in open { _ = shutdown(fd, Int32(SHUT_RDWR)) }
    }

    deinit { stop() }

    private func acceptLoop() {
        defer { _ = LoopbackSocket.close(listener) }
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            let plan: Plan? = state.withLock { state in
                guard !state.stopped else { return nil }
                let plan = state.plan[min(state.accepted, state.plan.count - 1)]
                state.accepted += 1
                state.open.insert(client)
                return plan
            }
            guard let plan else {
                _ = LoopbackSocket.close(client)
                return
            }
            let thread = Thread { [self] in serve(client, plan) }
            thread.name = "CuttingProxy.connection"
            thread.start()
        }
    }

    /// One connection: the request goes up on a second thread; the answer comes down here,
    /// counted, cut or slowed per `plan`.
    private func serve(_ client: Int32, _ plan: Plan) {
        guard let server = connectUpstream() else {
            state.withLock { _ = $0.open.remove(client) }
            _ = LoopbackSocket.close(client)
            return
        }
        state.withLock { _ = $0.open.insert(server) }
        let upDone = DispatchSemaphore(value: 0)
        let up = Thread {
            Self.pump(from: client, to: server)
            _ = shutdown(server, Int32(SHUT_RDWR))
            _ = shutdown(client, Int32(SHUT_RDWR))
            upDone.signal()
        }
        up.name = "CuttingProxy.up"
        up.start()

        let limit: Int
        var trickle: Int?
        var reset = false
        switch plan {
        case .pass: limit = .max
        case .cut(let bytes, let resets):
            limit = bytes
            reset = resets
        case .trickle(let bytes, let rate):
            limit = bytes
            trickle = max(1, rate)
        }
        var abort = false
        var forwarded = 0
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        downstream: while true {
            let count = buffer.withUnsafeMutableBytes { read(server, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            var offset = 0
            while offset < count {
                if forwarded >= limit {
                    guard let rate = trickle else {
                        abort = reset
                        break downstream
                    }
                    guard forward(client, buffer, offset, 1) else { break downstream }
                    forwarded += 1
                    offset += 1
                    usleep(UInt32(1_000_000 / rate))
                    continue
                }
                let chunk = min(count - offset, limit - forwarded)
                guard forward(client, buffer, offset, chunk) else { break downstream }
                forwarded += chunk
                offset += chunk
            }
        }
        if abort {
            // SO_LINGER 0: close sends RST, as a dropped link or a killed middlebox does.
            var linger = linger(l_onoff: 1, l_linger: 0)
            _ = setsockopt(client, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
        }
        _ = shutdown(server, Int32(SHUT_RDWR))
        // SHUT_RD wakes the thread reading the client without sending anything (a FIN would turn
        // the abort into a clean close); the RST goes with close below.
        _ = shutdown(client, Int32(abort ? SHUT_RD : SHUT_RDWR))
        upDone.wait()
        state.withLock { state in
            state.open.remove(client)
            state.open.remove(server)
        }
        _ = LoopbackSocket.close(client)
        _ = LoopbackSocket.close(server)
    }

    /// Sends `count` bytes of `buffer` from `offset`, counting them; false once the client is gone.
    private func forward(_ fd: Int32, _ buffer: [UInt8], _ offset: Int, _ count: Int) -> Bool {
        var done = 0
        while done < count {
            let sent = buffer.withUnsafeBytes {
                send(fd, $0.baseAddress! + offset + done, count - done, Self.noSignal)
            }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { return false }
            done += sent
            state.withLock { $0.sent += sent }
        }
        return true
    }

    /// Copies `from` to `to` until either side ends.
    /// `send`'s flag that keeps a write to a closed socket from raising SIGPIPE (Darwin has none:
    /// there the signal is off per socket).
    #if canImport(Darwin)
        private static let noSignal: Int32 = 0
    #else
        private static let noSignal = Int32(MSG_NOSIGNAL)
    #endif

    private static func pump(from: Int32, to: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(from, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            var done = 0
            while done < count {
                let sent = buffer.withUnsafeBytes {
                    send(to, $0.baseAddress! + done, count - done, Self.noSignal)
                }
                if sent < 0 && errno == EINTR { continue }
                guard sent > 0 else { return }
                done += sent
            }
        }
    }

    private func connectUpstream() -> Int32? {
        let fd = socket(AF_INET, LoopbackSocket.streamType, 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(upstream).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            _ = LoopbackSocket.close(fd)
            return nil
        }
        return fd
    }
}
