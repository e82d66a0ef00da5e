import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One client connection of a ``FlakyServer``. Lives on the server's queue: reads requests one at
/// a time (the next is parsed only once the current one is answered), writes without blocking.
final class Connection: @unchecked Sendable { // confined to the server's queue
    let id: Int
    private let fd: Int32
    private let queue: DispatchQueue
    private var readSource: DispatchSourceRead?
    private var writeSource: DispatchSourceWrite?
    private var input: [UInt8] = []
    private var output: [UInt8] = []
    private var afterWrite: (() -> Void)?
    private var answering = false
    private var sentContinue = false
    private(set) var isClosed = false
    private var openSources = 0
    private var writeSuspended = true

    var onRequest: ((Connection, ParsedRequest) -> Void)?
    var onClose: ((Connection) -> Void)?

    init(id: Int, fd: Int32, queue: DispatchQueue) {
        self.id = id
        self.fd = fd
        self.queue = queue
    }

    func start() {
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler { [weak self] in self?.readAvailable() }
        // Strong: the descriptor must be closed even after the server forgot us.
        source.setCancelHandler { [fd] in self.sourceCancelled(fd) }
        openSources += 1
        readSource = source
        source.resume()
    }

    private func readAvailable() {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while !isClosed {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                input.append(contentsOf: chunk[0..<count])
                continue
            }
            if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                close(reset: false) // the client closed (or reset) the connection
                return
            }
            if errno != EINTR { break }
        }
        handleInput()
    }

    private func handleInput() {
        guard !answering, !isClosed, !input.isEmpty else { return }
        switch ParsedRequest.parse(input) {
        case .incomplete:
            return
        case .expectsContinue:
            // libcurl (URLSession on Linux) asks before sending a POST body and waits up to 1 s.
            guard !sentContinue else { return }
            sentContinue = true
            send(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) {}
        case .malformed(let reason):
            answering = true
            send(
                FlakyServer.head(status: 400, headers: [], contentLength: reason.utf8.count, keepAlive: false)
                    + Array(reason.utf8)
            ) {
                [weak self] in self?.close(reset: false)
            }
        case .request(let request, let consumed):
            input.removeFirst(consumed)
            sentContinue = false
            answering = true
            onRequest?(self, request)
        }
    }

    /// The current answer is complete; read the next request.
    func finishedAnswer() {
        answering = false
        handleInput()
    }

    func send(_ bytes: [UInt8], then: @escaping () -> Void) {
        output.append(contentsOf: bytes)
        afterWrite = then
        flush()
    }

    private func flush() {
        while !output.isEmpty, !isClosed {
            let count = output.withUnsafeBytes { buffer -> Int in
                #if canImport(Darwin)
                    return write(fd, buffer.baseAddress, buffer.count)
                #else
                    return Glibc.send(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL))
                #endif
            }
            if count > 0 {
                output.removeFirst(count)
            } else if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                waitForWritable()
                return
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                close(reset: false)
                return
            }
        }
        if output.isEmpty, let done = afterWrite {
            afterWrite = nil
            done()
        }
    }

    /// One write source per connection, made on the first short write and then resumed and
    /// suspended, never cancelled and made again: libdispatch on Linux mishandles a new source on a
    /// descriptor whose previous source is still being cancelled (swift-corelibs-libdispatch#833),
    /// which crashed its event loop (`_dispatch_event_loop_drain`) under large downloads.
    private func waitForWritable() {
        if writeSource == nil {
            let source = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: queue)
            source.setEventHandler { [weak self] in
                guard let self else { return }
                self.pauseWriting()
                self.flush()
            }
            // Strong: the descriptor must be closed even after the server forgot us.
            source.setCancelHandler { [fd] in self.sourceCancelled(fd) }
            openSources += 1
            writeSource = source // made suspended, as every source is
        }
        if writeSuspended {
            writeSuspended = false
            writeSource?.resume()
        }
    }

    private func pauseWriting() {
        guard !writeSuspended else { return }
        writeSuspended = true
        writeSource?.suspend()
    }

    /// Closes the connection; with `reset`, the peer sees a TCP reset (RST) instead of a close.
    func close(reset: Bool) {
        guard !isClosed else { return }
        isClosed = true
        if reset {
            var option = linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        }
        if let writeSource {
            writeSource.cancel()
            // A suspended source runs its cancel handler (which closes the descriptor) only once resumed.
            if writeSuspended {
                writeSuspended = false
                writeSource.resume()
            }
        }
        readSource?.cancel()
        onClose?(self)
    }

    /// Dispatch forbids closing a descriptor while a source still watches it: the last source's
    /// cancel handler closes it.
    private func sourceCancelled(_ fd: Int32) {
        openSources -= 1
        if openSources == 0 { _ = LoopbackSocket.close(fd) }
    }
}
