import Dispatch
import Foundation
import RetryFlow

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A scripted HTTP/1.1 server on 127.0.0.1 for tests: each path plays a script of answers in
/// order (the last one repeats), including the faults real servers produce: resets, early closes,
/// truncated bodies, hangs, slow answers, 503 with Retry-After. It records every request.
///
/// Plain POSIX sockets and Dispatch sources (no outside package), keep-alive, an ephemeral port,
/// loopback only. It stops when ``stop()`` is called or when it is released.
///
/// ```swift
/// let server = try FlakyServer(scripts: ["/flaky": [.reset, .status(503), .status(200, body: "ok")]])
/// defer { server.stop() }
/// let (data, _) = try await URLSession.shared.data(for: URLRequest(url: server.url("/flaky")), retry: .default)
/// #expect(server.requests(to: "/flaky").count == 3)
/// ```
public final class FlakyServer: @unchecked Sendable {
    /// The port it listens on (127.0.0.1 only).
    public let port: Int
    /// `http://127.0.0.1:<port>`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    private let queue = DispatchQueue(label: "RetryFlow.FlakyServer")
    private let started = ContinuousClock.now
    private let listener: Int32
    private var acceptSource: DispatchSourceRead?
    // Everything below is touched only on `queue`, except what `state` guards.
    private var connections: [Int: Connection] = [:]
    private var nextConnection = 1
    private var stopped = false
    private let state = StateLock()

    /// Starts a server playing `scripts` (path → steps). Throws ``FlakyServerError`` for a bad
    /// script, or when the socket cannot be opened.
    public init(scripts: [String: [Step]] = [:]) throws(FlakyServerError) {
        for (path, steps) in scripts { try Self.validate(steps, for: path) }
        var yes: Int32 = 1
        let bound: (Int32, Int)
        do {
            bound = try LoopbackSocket.bound {
                setsockopt($0, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
            }
        } catch { throw FlakyServerError(error.description) }
        let (fd, boundPort) = bound
        guard listen(fd, 4096) == 0 else {
            let text = LoopbackSocket.errorText()
            close(fd)
            throw FlakyServerError("cannot listen on 127.0.0.1: \(text)")
        }
        port = boundPort
        listener = fd
        Self.setNonBlocking(fd)
        state.withLock { $0.scripts = scripts }

        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler { [weak self] in self?.acceptAll() }
        source.setCancelHandler { close(fd) }
        acceptSource = source
        source.resume()
    }

    /// The URL of `path` on this server.
    public func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// Replaces the script of `path` and restarts it from its first step.
    public func setScript(_ steps: [Step], for path: String) throws(FlakyServerError) {
        try Self.validate(steps, for: path)
        state.withLock {
            $0.scripts[path] = steps
            $0.played[path] = 0
            $0.downloads[path] = nil
        }
    }

    /// Guards `path` with a credential: a request whose `Authorization` is not `value` is answered
    /// `401` (with `WWW-Authenticate: Bearer`) without playing the script; one that carries it plays
    /// the script. `nil` removes the guard. Call it again to rotate the accepted credential.
    ///
    /// With `holdingRefusals` N, the first N refusals are held back until the N-th arrives, then
    /// sent together: N concurrent clients are all refused before any of them hears of it.
    public func requireAuthorization(_ value: String?, for path: String, holdingRefusals: Int = 0) {
        state.withLock { $0.authorization[path] = value.map { ($0, holdingRefusals) } }
    }

    /// Every request so far, in arrival order.
    public var requests: [RecordedRequest] { state.withLock { $0.requests } }

    /// The requests to `path`, in arrival order.
    public func requests(to path: String) -> [RecordedRequest] { requests.filter { $0.path == path } }

    /// Suspends until the server has received `count` requests to `path` (to any path when `nil`):
    /// how a test knows a request is in flight without sleeping.
    public func waitForRequests(to path: String? = nil, count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                state.waiters.append((path, count, continuation))
                return !state.satisfiedWaiters().isEmpty
            }
            if ready { continuation.resume() }
        }
    }

    /// How many connections are open now. It waits for the server's queue: from async code, read
    /// it inside ``runOnOwnThread(_:)``, not on one of Swift's threads.
    package var openConnections: Int { queue.sync { connections.count } }

    /// Closes the listening socket and every connection; once it returns, new connections are
    /// refused. Safe to call more than once, from any thread, and it never blocks: async tests call
    /// it, and a thread of Swift's cooperative pool waiting on the server's queue starves every
    /// other task (on two cores, the pool has two threads).
    public func stop() {
        guard
            state.withLock({ state in
                defer { state.stopping = true }
                return !state.stopping
            })
        else { return }
        // Syscalls, safe from any thread: the port refuses connections from here on; the
        // listener's descriptor is closed by the accept source's cancel handler.
        Self.refuseConnections(on: listener)
        queue.async { [self] in closeEverything() }
    }

    deinit {
        // Nothing else holds the server now; the queue may still run a closure that found it gone.
        if state.withLock({ !$0.stopping }) { Self.refuseConnections(on: listener) }
        acceptSource?.cancel() // thread-safe; its cancel handler closes the listener
        let open = Array(connections.values)
        queue.async {
            for connection in open { connection.close(reset: false) }
        }
    }

    /// On `queue`.
    private func closeEverything() {
        guard !stopped else { return }
        stopped = true
        acceptSource?.cancel()
        for connection in connections.values { connection.close(reset: false) }
        connections.removeAll()
    }

    // MARK: scripts

    static func validate(_ steps: [Step], for path: String) throws(FlakyServerError) {
        guard path.hasPrefix("/"), !path.contains("?"), !path.contains(" ") else {
            throw FlakyServerError("script path \"\(path)\" must start with / and have no query or spaces")
        }
        guard !steps.isEmpty else { throw FlakyServerError("script for \(path) is empty") }
        for (index, step) in steps.enumerated() { try step.validate(path: path, index: index) }
    }

    // MARK: connections (on `queue`)

    private func acceptAll() {
        while !stopped {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { return } // EAGAIN: nothing more to accept
            Self.setNonBlocking(fd)
            #if canImport(Darwin)
                var yes: Int32 = 1
                setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
            #endif
            let id = nextConnection
            nextConnection += 1
            let connection = Connection(id: id, fd: fd, queue: queue)
            connection.onRequest = { [weak self] connection, request in self?.answer(request, on: connection) }
            connection.onClose = { [weak self] connection in self?.connections[connection.id] = nil }
            connections[id] = connection
            connection.start()
        }
    }

    private func answer(_ request: ParsedRequest, on connection: Connection) {
        if let played = state.withLock({ $0.playDownload(request.path) }) {
            let record = record(request, on: connection, step: played.index)
            answerDownload(request, played: played, record: record, on: connection)
            return
        }
        let (step, index, held): (Step, Int?, Bool) = state.withLock { state in
            if let accepted = state.authorization[request.path],
                request.headers.first(where: { $0.name.caseInsensitiveCompare("Authorization") == .orderedSame })?
                    .value != accepted.value
            {
                let refusal = Step.status(401, headers: ["WWW-Authenticate": "Bearer"], body: "unauthorized\n")
                return (refusal, nil, accepted.holding > 0)
            }
            guard let steps = state.scripts[request.path] else {
                return (Step.status(404, body: "FlakyServer: no script for \(request.path)\n"), nil, false)
            }
            let index = min(state.played[request.path, default: 0], steps.count - 1)
            state.played[request.path] = index + 1
            return (steps[index], index, false)
        }
        let record = record(request, on: connection, step: index)
        let perform: @Sendable () -> Void = { [weak self, weak connection] in
            guard let self, let connection, !connection.isClosed else { return }
            let markAnswered = { [weak self] in self?.markAnswered(record) }
            switch step.action {
            case .respond(let status, let headers, let body):
                let keepAlive = !request.wantsClose
                // Recorded before the bytes go out, so a client that has the answer always finds it recorded.
                markAnswered()
                connection.send(
                    Self.head(status: status, headers: headers, contentLength: body.count, keepAlive: keepAlive)
                        + (request.method == "HEAD" ? [] : body)
                ) {
                    if keepAlive { connection.finishedAnswer() } else { connection.close(reset: false) }
                }
            case .reset:
                markAnswered()
                connection.close(reset: true)
            case .closeBeforeResponse:
                markAnswered()
                connection.close(reset: false)
            case .truncatedBody(let status, let declared, let sent):
                markAnswered()
                connection.send(Self.head(status: status, headers: [], contentLength: declared, keepAlive: true) + sent)
                {
                    connection.close(reset: false)
                }
            case .hang:
                break
            }
        }
        if held {
            let release = state.withLock { state -> [@Sendable () -> Void] in
                state.heldRefusals[request.path, default: []].append(perform)
                guard let guarded = state.authorization[request.path],
                    state.heldRefusals[request.path, default: []].count >= guarded.holding
                else { return [] }
                state.authorization[request.path]?.holding = 0
                return state.heldRefusals.removeValue(forKey: request.path) ?? []
            }
            for answer in release { answer() }
        } else if step.delay > .zero {
            // Capped at a year: nanoseconds overflow an Int64 after ~292 years, and no test waits that long.
            let delay = min(step.delay, .seconds(31_536_000))
            let nanoseconds = delay.components.seconds * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000
            queue.asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds)), execute: perform)
        } else {
            perform()
        }
    }

    /// Records `request` (answered by script step `step`) and wakes the tests waiting for it;
    /// returns its index in ``requests``.
    private func record(_ request: ParsedRequest, on connection: Connection, step: Int?) -> Int {
        let arrival = started.duration(to: .now)
        let arrivalDate = Date()
        let (record, ready) = state.withLock { state -> (Int, [CheckedContinuation<Void, Never>]) in
            state.requests.append(
                RecordedRequest(
                    method: request.method, path: request.path, query: request.query, headers: request.headers,
                    body: Data(request.body), arrival: arrival, arrivalDate: arrivalDate, connection: connection.id,
                    step: step))
            return (state.requests.count - 1, state.satisfiedWaiters())
        }
        for waiter in ready { waiter.resume() }
        return record
    }

    /// Notes when request `record` was answered: before the bytes leave, so a client that has the
    /// answer always finds it recorded.
    func markAnswered(_ record: Int) {
        let now = started.duration(to: .now)
        state.withLock { $0.requests[record].answered = now }
    }

    /// The server's shared state, under its lock (for the download extension).
    func withState<R>(_ body: (inout StateLock.State) -> R) -> R { state.withLock(body) }

    /// Runs `work` on the server's queue later (a download's next chunk, without deep recursion).
    func later(_ work: @escaping @Sendable () -> Void) { queue.async(execute: work) }

    static func head(status: Int, headers: [Header], contentLength: Int, keepAlive: Bool) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(reasonPhrase(status))\r\n"
        var hasLength = false
        for header in headers {
            if header.name.caseInsensitiveCompare("Content-Length") == .orderedSame { hasLength = true }
            text += "\(header.name): \(header.value)\r\n"
        }
        if !hasLength { text += "Content-Length: \(contentLength)\r\n" }
        text += keepAlive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n"
        return Array(text.utf8)
    }

    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 404: "Not Found"
        case 408: "Request Timeout"
        case 416: "Range Not Satisfiable"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "Status \(status)"
        }
    }

    // MARK: platform

    /// Closes the listening socket at once while its descriptor stays valid for the accept source.
    /// On Linux a fresh unbound socket takes the descriptor's number (`dup2`), which releases the
    /// listener without an event: `shutdown` would raise EPOLLHUP on the live source, and libdispatch
    /// acknowledges a hang-up off its manager thread, racing the event loop (a crash in
    /// `_dispatch_event_loop_drain`, docs/reliability.md). kqueue has no such path: `shutdown` there.
    static func refuseConnections(on listener: Int32) {
        #if os(Linux)
            let placeholder = socket(AF_INET, LoopbackSocket.streamType, 0)
            if placeholder >= 0 {
                _ = dup2(placeholder, listener)
                _ = LoopbackSocket.close(placeholder)
                return
            }
        #endif
        shutdown(listener, Int32(SHUT_RDWR))
    }

    static func setNonBlocking(_ fd: Int32) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL, 0) | O_NONBLOCK)
    }

}

/// The server's shared bookkeeping, read by tests from any thread.
final class StateLock: Sendable {
    struct State {
        var scripts: [String: [FlakyServer.Step]] = [:]
        var played: [String: Int] = [:]
        var requests: [FlakyServer.RecordedRequest] = []
        var waiters: [(path: String?, count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        /// ``FlakyServer/stop()`` was called (its work then runs on the server's queue).
        var stopping = false
        var downloads: [String: DownloadScript] = [:]
        /// The `Authorization` each guarded path accepts, and how many refusals it holds back
        /// (``FlakyServer/requireAuthorization(_:for:holdingRefusals:)``).
        var authorization: [String: (value: String, holding: Int)] = [:]
        /// Refusals held back, by path, until as many as asked are waiting.
        var heldRefusals: [String: [@Sendable () -> Void]] = [:]

        /// Removes and returns the waiters now satisfied.
        mutating func satisfiedWaiters() -> [CheckedContinuation<Void, Never>] {
            var ready: [CheckedContinuation<Void, Never>] = []
            waiters.removeAll { waiter in
                let seen = waiter.path.map { path in requests.filter { $0.path == path }.count } ?? requests.count
                if seen >= waiter.count { ready.append(waiter.continuation) }
                return seen >= waiter.count
            }
            return ready
        }
    }
    private let state = Locked(State())
    func withLock<R>(_ body: (inout State) -> R) -> R { state.withLock(body) }
}
