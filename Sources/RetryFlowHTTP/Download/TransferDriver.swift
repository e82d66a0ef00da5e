import Foundation
import RetryFlow

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Drives one download's transfer machine: delivers what URLSession reports (answers, chunks, ends)
/// as inputs and performs the actions the table's rows ask for (requests, writes, install), keeping
/// the trace, the file and the attempt in flight. It decides nothing itself: what an attempt asks
/// for, whether a window follows, whether the file is complete and whether a cut made progress are
/// all rows' actions. URLSession's delegate queue, the engine's task and cancellation handlers all
/// come through here; one lock serialises them, so once an attempt is closed (cut, rejected,
/// stalled, cancelled) no late callback of its data task can write a byte.
final class TransferDriver: @unchecked Sendable {
    // @unchecked: every mutable field is behind `lock`.
    private struct Attempt {
        let id: Int
        /// The attempt's request before `Range`/`If-Range`: each window of the attempt starts from it.
        let request: URLRequest
        /// The data task of the window in flight; `nil` before the first starts and between windows.
        var task: URLSessionDataTask?
        var continuation: CheckedContinuation<HTTPResponse, any Error>?
        /// Set when the attempt ended before its data task started (cancelled at once).
        var early: (any Error)?
        var response: HTTPURLResponse?
        /// A non-file answer's body (a 503's words), kept up to `bodyLimit`.
        var body = Data()
        var writes = false
        var startedAt: Duration
        var received = 0
        var wroteFrom = 0
        /// How the transfer ended, from a `finish` action taken while this attempt was in flight.
        var finished: TransferState?
    }

    private static let bodyLimit = 64 * 1024
    private let lock = Locked(())
    private var machine: TransferMachine
    private var trace = TransferTrace()
    private var ranges: [DownloadAttemptRange] = []
    private let file: PartialFile
    private let progress: AsyncStream<DownloadProgress>.Continuation?
    private let now: @Sendable () -> Duration
    private var current: Attempt?
    private var lastAttemptID = 0
    /// Whether the last attempt to end was credited with progress (a `credit progress` action).
    private var progressCredited = false
    /// How the transfer ended, once a `finish` action said so.
    private var finishedState: TransferState?
    private var mismatch: (expected: String, actual: String)?
    /// HTTPRetryRules.maxBodyBytes: a larger body fails the download, not retried.
    private let maxBytes: Int?
    /// The session's delegate queue: data tasks are cancelled there (see `cancelOnDelegateQueue`).
    private let delegateQueue: OperationQueue
    /// Data tasks of ended attempts whose cancel is queued and whose completion has not run.
    private var abandoned: Set<ObjectIdentifier> = []
    /// The session that makes each window's data task (weak: the session owns its delegate, which
    /// owns this driver).
    private weak var session: URLSession?
    /// Set by `close()` once the run is over.
    private var closed = false
    /// Picks each window's size from the backlog the last one left; `nil` without windows.
    private var sizer: WindowSizer?
    /// Measures the delegate queue's backlog in bytes, given the size of the chunk in hand.
    private let backlog: @Sendable (_ chunk: Int) -> Int

    init(
        file: PartialFile, expectedSHA256: String?, window: Int? = nil, maxBytes: Int? = nil,
        progressRule: ProgressRule? = nil, progress: AsyncStream<DownloadProgress>.Continuation?,
        delegateQueue: OperationQueue,
        now: @escaping @Sendable () -> Duration,
        backlog: (@Sendable (_ chunk: Int) -> Int)? = nil
    ) {
        self.file = file
        self.delegateQueue = delegateQueue
        let sizer = window.flatMap { $0 > 0 ? WindowSizer(largest: $0) : nil }
        self.sizer = sizer
        // The operations queued behind the chunk in hand are (nearly all) chunks of the same size:
        // URLSession queues one per libcurl write (at most CURL_MAX_WRITE_SIZE, 16 KiB).
        self.backlog = backlog ?? { [delegateQueue] chunk in max(0, delegateQueue.operationCount - 1) * chunk }
        self.maxBytes = maxBytes
        self.progress = progress
        self.now = now
        machine = TransferMachine(
            rules: TransferRules(
                bytesOnDisk: file.size, expectedSHA256: expectedSHA256, window: sizer?.size,
                validator: file.meta?.validator, total: file.meta?.total, progressRule: progressRule))
    }

    /// The session whose data tasks carry this download (set once, before the first attempt).
    func attach(_ session: URLSession) { withLock { self.session = session } }

    private func withLock<R>(_ body: () throws -> R) rethrows -> R {
        try lock.whileLocked { try body() }
    }

    /// Whether the transfer reached `complete`.
    var isComplete: Bool { withLock { finishedState == .complete } }

    /// Whether the attempt that just ended made progress, as the transfer table's
    /// `checking progress` rows decided: what the retry engine asks (``Retry/madeProgress``).
    func madeProgress() -> Bool { withLock { progressCredited } }

    // MARK: attempts (the engine's task)

    /// Starts attempt bookkeeping; returns its id and the request the table asks for.
    func begin(_ base: URLRequest) throws -> (Int, URLRequest) {
        try withLock {
            guard let actions = deliver(.attempt) else { throw DownloadProblem.rejected("no attempt possible now") }
            var base = base
            // Byte ranges count the bytes as sent: a gzip-encoded body decoded by libcurl would make
            // every offset on disk disagree with the server's (URLSession asks for gzip by default).
            if base.value(forHTTPHeaderField: "Accept-Encoding") == nil {
                base.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
            }
            let (request, from, ifRange) = Self.request(base, asking: actions)
            progressCredited = false
            lastAttemptID += 1
            current = Attempt(id: lastAttemptID, request: base, startedAt: now())
            ranges.append(
                DownloadAttemptRange(
                    attempt: machine.rules.attempt, requestedFrom: from, sentIfRange: ifRange, status: nil,
                    wroteFrom: nil,
                    endedAt: file.size))
            return (lastAttemptID, request)
        }
    }

    /// `base` with the `Range`/`If-Range` the table's actions ask for; the first byte asked and
    /// whether `If-Range` was sent.
    private static func request(_ base: URLRequest, asking actions: [TransferAction]) -> (URLRequest, Int, Bool) {
        var request = base
        var from = 0
        var validator: String?
        for action in actions {
            switch action {
            case .askRest(let start, let ifRange):
                (from, validator) = (start, ifRange)
                request.setValue("bytes=\(start)-", forHTTPHeaderField: "Range")
            case .askWindow(let start, let through, let ifRange):
                (from, validator) = (start, ifRange)
                request.setValue("bytes=\(start)-\(through)", forHTTPHeaderField: "Range")
            case .askWhole, .truncate, .append, .reject, .discard, .install, .creditProgress, .finish:
                break
            }
        }
        if let validator { request.setValue(validator, forHTTPHeaderField: "If-Range") }
        return (request, from, validator != nil)
    }

    /// Starts `task` for attempt `id`, unless the attempt already ended (then fails at once).
    /// Called on ``CallThreads``: `dataTask(with:)`, `resume()` and `cancel()` block on a queue
    /// every URLSession shares, so they are never made on a thread Swift's tasks run on (the
    /// delegate queue's OperationQueue runs on those too, docs/reliability.md).
    func start(_ id: Int, task: URLSessionDataTask, continuation: CheckedContinuation<HTTPResponse, any Error>) {
        let early: (any Error)? = withLock {
            guard var attempt = current, attempt.id == id else { return CancellationError() }
            if let early = attempt.early {
                current = nil
                return early
            }
            attempt.task = task
            attempt.continuation = continuation
            current = attempt
            return nil
        }
        guard let early else { return task.resume() }
        task.cancel() // never resumed, so never completing: releases it without the registry race
        continuation.resume(throwing: early)
    }

    /// Ends attempt `id` with `error` (cancellation, a stall), keeping the bytes on disk, and
    /// stops its data task. Does nothing if the attempt is already over.
    func end(_ id: Int, with error: any Error) {
        let ended: (CheckedContinuation<HTTPResponse, any Error>?, URLSessionDataTask?)? = withLock {
            guard var attempt = current, attempt.id == id else { return nil }
            guard attempt.continuation != nil else {
                attempt.early = error // not started yet: `start` fails it
                current = attempt
                _ = deliver(.interrupted(bytesOnDisk: file.size))
                return nil
            }
            current = nil
            _ = deliver(.interrupted(bytesOnDisk: file.size))
            closeRange()
            return (attempt.continuation, attempt.task)
        }
        guard let (continuation, task) = ended else { return }
        continuation?.resume(throwing: error)
        if let task { cancelOnDelegateQueue(task) }
    }

    /// Stops an ended attempt's data task on the delegate queue, and only if its completion has not
    /// run there first. `end` runs on any thread (a cancellation handler, the stall watchdog): a
    /// `cancel()` made there while the transfer completes can trap in swift-corelibs-foundation
    /// ("a task that in not in the registry", docs/reliability.md window 1), and it blocks.
    private func cancelOnDelegateQueue(_ task: URLSessionDataTask) {
        let id = ObjectIdentifier(task)
        withLock { _ = abandoned.insert(id) }
        delegateQueue.addOperation { [self] in
            guard withLock({ abandoned.remove(id) != nil }) else { return }
            task.cancel()
        }
    }

    /// How many bytes attempt `id` has received, or `nil` once it is over.
    func received(attempt id: Int) -> Int? { withLock { current?.id == id ? current?.received : nil } }

    /// Ends attempt `id` as a stall when fewer than `limit` bytes per second arrive over a window,
    /// measured on `clock`.
    func watch<C: Clock<Duration>>(_ id: Int, limit: DownloadOptions.SpeedLimit, clock: C) async {
        // A zero or negative window or floor detects nothing (and a zero window would spin here).
        guard limit.window > .zero, limit.bytesPerSecond > 0 else { return }
        var windowStart = clock.now
        var before = 0
        // Bytes a window must bring, saturated: Int(_:) traps on a product beyond Int.max.
        let bytes = (Double(limit.bytesPerSecond) * limit.window.inSeconds).rounded(.up)
        let floor = bytes < Double(Int.max) ? Int(bytes) : Int.max
        while !Task.isCancelled {
            do { try await clock.sleep(until: windowStart.advanced(by: limit.window), tolerance: nil) } catch { return }
            guard let received = received(attempt: id) else { return }
            if received - before < floor {
                end(id, with: DownloadProblem.stalled(bytesPerSecond: limit.bytesPerSecond, window: limit.window))
                return
            }
            windowStart = windowStart.advanced(by: limit.window)
            before = received
        }
    }

    // MARK: URLSession callbacks (the delegate queue)

    func received(_ response: URLResponse, from task: URLSessionDataTask) -> URLSession.ResponseDisposition {
        let rejected: (CheckedContinuation<HTTPResponse, any Error>?, any Error)? = withLock {
            guard var attempt = current, attempt.task === task else { return (nil, CancellationError()) }
            guard let http = response as? HTTPURLResponse else {
                current = nil
                _ = deliver(.interrupted(bytesOnDisk: file.size))
                closeRange()
                return (attempt.continuation, URLError(.badServerResponse))
            }
            attempt.response = http
            ranges[ranges.count - 1].status = http.statusCode
            var answer = Self.answer(http)
            // A file announced larger than the rules allow fails before a byte is written.
            let announced = answer.rangeTotal ?? (answer.status == 200 ? answer.contentLength : nil)
            if let maxBytes, let announced, announced > maxBytes, (200..<300).contains(answer.status) {
                return fail(attempt, DownloadProblem.tooLarge(bytes: announced, limit: maxBytes))
            }
            if answer.status == 416, let total = answer.rangeTotal, total == file.size,
                machine.rules.expectedSHA256 != nil
            {
                do { answer.fileSHA256 = try file.sha256() } catch { return fail(attempt, error) }
            }
            guard let actions = deliver(.answered(answer)) else {
                return fail(attempt, DownloadProblem.rejected("answer \(answer.status) has no row"))
            }
            do {
                for action in actions {
                    switch action {
                    case .truncate:
                        try file.truncate(to: 0)
                        attempt.writes = true
                        attempt.wroteFrom = 0
                        ranges[ranges.count - 1].wroteFrom = 0
                    case .append(let at):
                        try file.truncate(to: at)
                        // A later window of the same attempt continues what its first one began.
                        if ranges[ranges.count - 1].wroteFrom == nil {
                            attempt.wroteFrom = at
                            ranges[ranges.count - 1].wroteFrom = at
                        }
                        attempt.writes = true
                    case .discard:
                        try file.truncate(to: 0)
                    case .install:
                        try file.install()
                    case .reject(let reason):
                        return fail(attempt, DownloadProblem.rejected(reason))
                    case .finish(let state):
                        attempt.finished = state
                    case .askWhole, .askRest, .askWindow, .creditProgress:
                        break
                    }
                }
            } catch {
                return fail(attempt, error)
            }
            recordMeta()
            current = attempt
            return nil
        }
        guard let (continuation, error) = rejected else { return .allow }
        continuation?.resume(throwing: error)
        return .cancel // the transfer stops; its completion callback finds no attempt and is ignored
    }

    func received(_ data: Data, from task: URLSessionDataTask) {
        var sample = false
        let failed: (CheckedContinuation<HTTPResponse, any Error>?, any Error)? = withLock {
            guard var attempt = current, attempt.task === task else { return nil }
            attempt.received += data.count
            // The backlog is sampled once per 256 KiB received (counting the queue walks its list),
            // often enough to see a window's peak.
            sample = sizer != nil && attempt.received >> 18 != (attempt.received - data.count) >> 18
            if attempt.writes {
                if let maxBytes, file.size + data.count > maxBytes {
                    return fail(attempt, DownloadProblem.tooLarge(bytes: file.size + data.count, limit: maxBytes))
                }
                do { try file.append(data) } catch { return fail(attempt, error) }
                ranges[ranges.count - 1].endedAt = file.size
                let seconds = (now() - attempt.startedAt).inSeconds
                progress?.yield(
                    DownloadProgress(
                        bytesOnDisk: file.size, expectedTotal: machine.rules.total,
                        bytesPerSecond: seconds > 0 ? Double(file.size - attempt.wroteFrom) / seconds : 0,
                        attempt: machine.rules.attempt, resumedAt: attempt.wroteFrom))
            } else if attempt.body.count < Self.bodyLimit {
                attempt.body.append(data.prefix(Self.bodyLimit - attempt.body.count))
            }
            current = attempt
            return nil
        }
        if let (continuation, error) = failed {
            task.cancel()
            continuation?.resume(throwing: error)
        } else if sample {
            let bytes = backlog(data.count) // outside the lock: it takes the queue's own
            withLock { sizer?.observe(backlog: bytes) }
        }
    }

    func completed(_ task: URLSessionTask, error: (any Error)?) {
        var next: (id: Int, request: URLRequest)?
        let result: (CheckedContinuation<HTTPResponse, any Error>?, Result<HTTPResponse, any Error>)? = withLock {
            abandoned.remove(ObjectIdentifier(task)) // completed: a queued cancel must not run now
            guard var attempt = current, attempt.task === task else { return nil }
            current = nil
            defer { closeRange() }
            if let error {
                _ = deliver(.interrupted(bytesOnDisk: file.size))
                return (attempt.continuation, .failure(error))
            }
            guard let response = attempt.response else {
                _ = deliver(.interrupted(bytesOnDisk: file.size))
                return (attempt.continuation, .failure(URLError(.badServerResponse)))
            }
            let answer = HTTPResponse(data: attempt.body, response: response)
            // A file body (the answer's row truncated or appended) ends by the table's rows; any other
            // answer (a 416 already decided, a 503) goes to the classifier as it is.
            guard attempt.writes else {
                if attempt.finished == .failed {
                    let (expected, actual) = mismatch ?? (machine.rules.expectedSHA256 ?? "?", "?")
                    return (
                        attempt.continuation,
                        .failure(DownloadProblem.checksumMismatch(expected: expected, actual: actual))
                    )
                }
                return (attempt.continuation, .success(answer))
            }
            do {
                var sha: String?
                if let expected = machine.rules.expectedSHA256, machine.rules.total.map({ $0 == file.size }) ?? true {
                    sha = try file.sha256()
                    if sha != expected { mismatch = (expected, sha ?? "") }
                }
                // The window ended cleanly: the sizer picks the next one from its backlog.
                let nextWindow = sizer?.windowEnded()
                guard let actions = deliver(.bodyEnded(bytesOnDisk: file.size, sha256: sha, nextWindow: nextWindow))
                else {
                    return (attempt.continuation, .failure(DownloadProblem.rejected("body end has no row")))
                }
                var window: URLRequest?
                for action in actions {
                    switch action {
                    case .install: try file.install()
                    case .discard: try file.truncate(to: 0)
                    case .finish(let state): attempt.finished = state
                    case .askWindow, .askRest:
                        // A window ended short of the total: the attempt goes on with the next one.
                        window = Self.request(attempt.request, asking: [action]).0
                    case .askWhole, .truncate, .append, .reject, .creditProgress: break
                    }
                }
                recordMeta()
                if let window {
                    attempt.task = nil
                    attempt.response = nil
                    attempt.body = Data()
                    attempt.writes = false
                    current = attempt
                    next = (attempt.id, window)
                    return nil
                }
            } catch {
                return (attempt.continuation, .failure(error))
            }
            switch attempt.finished {
            case .complete?:
                return (attempt.continuation, .success(answer))
            case .failed?:
                let (expected, actual) = mismatch ?? ("?", "?")
                return (
                    attempt.continuation, .failure(DownloadProblem.checksumMismatch(expected: expected, actual: actual))
                )
            case nil, .cancelled?, .idle?, .requesting?, .streaming?, .appending?, .checkingRange?, .checkingLength?,
                .checkingProgress?, .cut?, .restarting?, .verifying?:
                // No row finished the transfer: bytes are missing, a cut the next attempt resumes. (A
                // `finish` names only a terminal state, and a cancelled run ends before this is asked.)
                return (
                    attempt.continuation,
                    .failure(DownloadProblem.incomplete(bytesOnDisk: file.size, total: machine.rules.total))
                )
            }
        }
        if let next { return startWindow(next.id, next.request) }
        guard let (continuation, outcome) = result else { return }
        continuation?.resume(with: outcome)
    }

    /// Starts the data task of attempt `id`'s next window, unless the attempt ended meanwhile.
    /// Called on the delegate queue, whose chunks of the window are all handled (its completion
    /// comes after them): the moment to give their pages back; the blocking calls go to
    /// ``CallThreads``.
    private func startWindow(_ id: Int, _ request: URLRequest) {
        HeapTrim.release()
        CallThreads.shared.submit(lane: self) { [self] in startWindowTask(id, request) }
    }

    private func startWindowTask(_ id: Int, _ request: URLRequest) {
        let task: URLSessionDataTask? = withLock {
            // Made under the lock: an attempt cancelled between windows lets the run end and close
            // the session, and a task made on an invalidated session traps.
            guard !closed, let session, var attempt = current, attempt.id == id, attempt.task == nil else {
                return nil
            }
            let task = session.dataTask(with: request)
            attempt.task = task
            current = attempt
            return task
        }
        guard let task else { return end(id, with: URLError(.cancelled)) } // a no-op if it already ended
        task.resume()
    }

    /// No window starts after this: the run is over and its session is about to be invalidated.
    func close() { withLock { closed = true } }

    // MARK: the end

    /// Tells the transfer machine how the retry run ended and gathers the outcome.
    func finish(_ retry: RetryOutcome<HTTPResponse>) -> DownloadOutcome {
        withLock {
            if finishedState == nil {
                _ = deliver(retry.finalState.delivery == .cancellation ? .cancelled : .gaveUp)
            }
            if finishedState != .complete { file.removeIfEmpty() }
            return DownloadOutcome(
                retry: retry, transferState: machine.state, transfer: trace, ranges: ranges,
                file: finishedState == .complete ? file.destination : file.url, bytesOnDisk: file.size,
                expectedTotal: machine.rules.total)
        }
    }

    // MARK: helpers (under the lock)

    /// Delivers `input` to the machine and records the steps; `nil` (and a rejection in the trace)
    /// when the table has no row for it.
    private func deliver(_ input: TransferInput) -> [TransferAction]? {
        let time = now()
        do {
            let step = try machine.handle(input, at: time)
            trace.steps += step.taken
            for action in step.actions {
                switch action {
                case .creditProgress: progressCredited = true
                case .finish(let state): finishedState = state
                case .askWhole, .askRest, .askWindow, .truncate, .append, .reject, .discard, .install: break
                }
            }
            return step.actions
        } catch {
            trace.rejections.append(error)
            return nil
        }
    }

    /// Ends the current attempt with `error` after a failure inside a callback.
    private func fail(
        _ attempt: Attempt, _ error: any Error
    ) -> (CheckedContinuation<HTTPResponse, any Error>?, any Error) {
        current = nil
        // Whether the attempt is still open is the table's to say: a row for `interrupted` here.
        if machine.hasRow(for: .interrupted) { _ = deliver(.interrupted(bytesOnDisk: file.size)) }
        closeRange()
        return (attempt.continuation, error)
    }

    /// Keeps the partial file's sidecar in step with the validator and total the machine holds
    /// (after the bytes changed, never before: see ``PartialFile/record(_:)``).
    private func recordMeta() {
        guard finishedState != .complete else { return } // installed: the sidecar is gone with the part
        file.record(PartialFile.Meta(validator: machine.rules.validator, total: machine.rules.total))
    }

    private func closeRange() {
        if !ranges.isEmpty { ranges[ranges.count - 1].endedAt = file.size }
    }

    /// The parts of a response head the transfer table reads.
    static func answer(_ response: HTTPURLResponse) -> TransferAnswer {
        func header(_ name: String) -> String? { response.value(forHTTPHeaderField: name) }
        var answer = TransferAnswer(
            status: response.statusCode, contentLength: header("Content-Length").flatMap { Int($0) },
            etag: header("ETag"), lastModified: header("Last-Modified"))
        // Content-Range: bytes 100-199/1000, bytes 100-199/*, or bytes */1000 (RFC 9110 §14.4).
        if let range = header("Content-Range"), range.hasPrefix("bytes ") {
            let parts = range.dropFirst(6).split(separator: "/", maxSplits: 1)
            if parts.count == 2 {
                answer.rangeTotal = Int(parts[1].trimmingCharacters(in: .whitespaces))
                if let dash = parts[0].firstIndex(of: "-") {
                    answer.rangeStart = Int(parts[0][..<dash])
                    answer.rangeEnd = Int(parts[0][parts[0].index(after: dash)...])
                }
            }
        }
        return answer
    }
}
