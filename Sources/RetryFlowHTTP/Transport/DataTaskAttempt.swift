import Foundation
import RetryFlow

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLSession {
    /// One attempt, insisting on an HTTP response. Unlike `data(for:)` on Linux, which reports a
    /// cancellation ~200 ms later, it throws `CancellationError` the moment its task is cancelled
    /// (and then cancels the data task), so the engine can run it without a racing child task.
    ///
    /// With an `attemptTimeout`, URLSession's own (idle) timeout is set a second after it, in whole
    /// seconds as libcurl takes it, and never above the session's: the engine ends the attempt
    /// first, and a data task abandoned rather than cancelled (see below) ends soon after.
    package func send(_ request: URLRequest, attemptTimeout: Duration? = nil) async throws -> HTTPResponse {
        var request = request
        if let attemptTimeout {
            request.timeoutInterval = min(
                request.timeoutInterval, configuration.timeoutIntervalForRequest,
                max(1, attemptTimeout.inSeconds.rounded(.up)) + 1)
        }
        let attempt = DataTaskAttempt(session: self, request: request)
        // Run inline by the engine, a timed attempt is ended by its timer this way (not by
        // cancelling the run's task); the end is the same as a cancellation's.
        let interrupt = AttemptInterrupt.current
        interrupt?.onInterrupt { attempt.cancel() }
        attempt.interrupt = interrupt
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { attempt.start($0) }
        } onCancel: {
            attempt.cancel()
        }
    }
}

/// One data task driven safely on swift-corelibs-foundation, whose `URLSession` has two sharp
/// edges this type exists to keep away from RetryFlow's users:
///
/// - **Blocking calls.** `dataTask(with:)`, `resume()` and `cancel()` each wait (`sync`) on one
///   serial queue shared by every `URLSession` in the process. On the threads Swift's tasks run on
///   (two on two cores) a few such waits behind a busy session stall every task: timers,
///   cancellations, other requests. They are made here on `CallThreads` instead: two threads of
///   our own (not a Dispatch queue, which on Linux shares Swift's threads), each session's in its order.
/// - **The registry crash** (swift-corelibs-foundation #3296, #3292: "Trying to access a behaviour
///   for a task that in not in the registry"). `cancel()` marks a running task `canceling` and
///   queues a failure that looks the task up in the session's registry; a completion handler
///   running at the same time on the delegate queue marks it `completed` and queues its removal.
///   If the removal is queued first, the failure traps. Cancelling *on the delegate queue*, and
///   only while the completion handler has not run, orders the two: the failure is always queued
///   before any removal.
///
///   Except when the session has a `URLCache`: then the task's protocol is made only once a cache
///   lookup on a background queue returns, and a cancel arriving before that queues its failure
///   from that background thread, after the transfer may have completed and the task left the
///   registry. Full stress runs: the old inline cancel crashed 3 of 5 with a cache and 0 of 5
///   without; the delegate-queue cancel 1 of 6 with a cache and 0 of 15 without
///   (docs/reliability.md). Nothing outside Foundation can tell when that lookup is over, so for
///   such a session the data task is never cancelled: the attempt still ends at once, and the
///   abandoned task ends by itself (its answer, or the request timeout `send` sets from the
///   per-attempt timeout). Give the session no `URLCache` to free connections at once.
final class DataTaskAttempt: @unchecked Sendable {
    private let session: URLSession
    private let request: URLRequest
    /// Whether cancelling the data task is safe (see above): only without a `URLCache`.
    private let cancelsDataTask: Bool
    private let state = Locked(State())
    /// The engine's timer for an inline attempt, told the moment the answer arrives.
    var interrupt: AttemptInterrupt? {
        get { state.withLock { $0.interrupt } }
        set { state.withLock { $0.interrupt = newValue } }
    }

    private struct State {
        var continuation: CheckedContinuation<HTTPResponse, any Error>?
        var task: URLSessionDataTask?
        var cancelled = false
        /// The data task's completion handler has run: cancelling it now could only race its removal.
        var answered = false
        var interrupt: AttemptInterrupt?
    }

    init(session: URLSession, request: URLRequest) {
        self.session = session
        self.request = request
        self.cancelsDataTask = session.configuration.urlCache == nil
    }

    func start(_ continuation: CheckedContinuation<HTTPResponse, any Error>) {
        let cancelled = state.withLock { state in
            if !state.cancelled { state.continuation = continuation }
            return state.cancelled
        }
        guard !cancelled else {
            continuation.resume(throwing: CancellationError()) // nothing was sent
            return
        }
        CallThreads.shared.submit(lane: session) { [self] in
            // Cancelled before the task exists: send nothing (`cancel()` already resumed).
            guard !state.withLock({ $0.cancelled }) else { return }
            let task = session.dataTask(with: request) { [self] data, response, error in
                if let error {
                    answer(.failure(error))
                } else if let http = response as? HTTPURLResponse {
                    answer(.success(HTTPResponse(data: data ?? Data(), response: http)))
                } else {
                    answer(.failure(URLError(.badServerResponse)))
                }
            }
            // Before resume(): a redirect to another origin drops the credentials (RedirectGuard).
            task.guardCredentialsOnRedirect()
            let cancelledMeanwhile = state.withLock { state in
                state.task = task
                return state.cancelled
            }
            guard !cancelledMeanwhile else {
                // Never resumed, so never sent and never completing: cancelling it is safe with or
                // without a cache (nothing can leave the registry first), and releases it.
                task.cancel()
                return
            }
            task.resume()
        }
    }

    /// Ends the attempt at once with `CancellationError`, then stops the data task (a task not
    /// stored yet is cancelled by `start`, before it is ever resumed).
    func cancel() {
        typealias Pending = (CheckedContinuation<HTTPResponse, any Error>?, URLSessionDataTask?)
        let (continuation, task) = state.withLock { state -> Pending in
            guard !state.cancelled else { return (nil, nil) }
            state.cancelled = true
            defer { state.continuation = nil }
            return (state.continuation, state.task)
        }
        continuation?.resume(throwing: CancellationError())
        if let task { cancelOnDelegateQueue(task) }
    }

    /// Runs on the delegate queue (the completion handler's), never inside a cancellation handler.
    private func cancelOnDelegateQueue(_ task: URLSessionDataTask) {
        guard cancelsDataTask else { return } // abandoned: it ends by itself
        session.delegateQueue.addOperation { [self] in
            guard !state.withLock({ $0.answered }) else { return }
            task.cancel()
        }
    }

    /// The completion handler, on the delegate queue.
    private func answer(_ result: Result<HTTPResponse, any Error>) {
        let (continuation, interrupt) = state.withLock { state in
            state.answered = true
            defer { state.continuation = nil }
            return (state.continuation, state.interrupt)
        }
        if continuation != nil { interrupt?.answered() } // decided here, not when the engine runs again
        continuation?.resume(with: result)
    }
}
