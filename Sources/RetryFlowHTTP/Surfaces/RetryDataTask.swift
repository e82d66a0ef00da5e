import Foundation
import RetryFlow

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A retried request driven by completion handler, like a `URLSessionDataTask`: made suspended,
/// started by ``resume()``, stopped by ``cancel()``. Its completion handler runs exactly once, on
/// the session's delegate queue, whatever happens (cancellation before `resume()` included).
public final class RetryDataTask: @unchecked Sendable {
    // @unchecked: every mutable field is behind `shared`'s lock.
    private struct Shared {
        var state: RetryState = .idle
        var trace = RetryTrace()
        var outcome: RetryOutcome<HTTPResponse>?
        var task: Task<Void, Never>?
        var started = false
    }

    private let shared = Locked(Shared())
    private let run: HTTPRetry<ContinuousClock>
    private let deliver: @Sendable (RetryOutcome<HTTPResponse>) -> Void

    init(
        run: HTTPRetry<ContinuousClock>, queue: OperationQueue,
        completion: @escaping @Sendable (RetryOutcome<HTTPResponse>) -> Void
    ) {
        self.deliver = { outcome in queue.addOperation { completion(outcome) } }
        self.run = run
    }

    private func withLock<R>(_ body: (inout Shared) -> R) -> R { shared.withLock(body) }

    /// The machine's current state: `idle` until resumed, then `request`, `wait` …, then terminal.
    public var state: RetryState { withLock { $0.state } }
    /// The transitions taken so far.
    public var trace: RetryTrace { withLock { $0.trace } }
    /// The outcome, once the run is over.
    public var outcome: RetryOutcome<HTTPResponse>? { withLock { $0.outcome } }

    /// Starts the run. Calling it again does nothing.
    public func resume() {
        start(cancelled: false)
    }

    /// Cancels the run: the attempt in flight is cancelled, a wait is cut short, and the completion
    /// handler receives a `cancelled` outcome. Before `resume()`, the run ends without any request.
    public func cancel() {
        let running: Task<Void, Never>? = withLock { shared in
            if shared.started { return shared.task }
            startLocked(&shared, cancelled: true)
            return nil
        }
        running?.cancel()
    }

    private func start(cancelled: Bool) {
        withLock { startLocked(&$0, cancelled: cancelled) }
    }

    /// Starts the run at most once; `started` and `task` change together, under the lock, so a
    /// concurrent `cancel()` always finds the task it must cancel.
    private func startLocked(_ shared: inout Shared, cancelled: Bool) {
        guard !shared.started else { return }
        shared.started = true
        var run = self.run
        let watcher = run.onTransition // the caller's own hook, from the options
        run.onTransition = { [weak self] step in
            self?.withLock { shared in
                shared.trace.steps.append(step)
                shared.state = step.to
            }
            watcher?(step)
        }
        shared.task = Task { [self, run] in
            // Cancelled before it started: the machine takes `idle --cancelled--> cancelled`.
            if cancelled { withUnsafeCurrentTask { $0?.cancel() } }
            // The run was validated when the task was made, so this cannot throw.
            guard let outcome = try? await run.outcome() else { return }
            withLock { $0.outcome = outcome }
            deliver(outcome)
        }
    }
}

extension URLSession {
    /// A retried request under `options` whose `completionHandler` runs exactly once, on this
    /// session's delegate queue, with the whole `RetryOutcome` (use `outcome.result` for the
    /// response or error). Call `resume()` to start it.
    ///
    /// ```swift
    /// let task = try URLSession.shared.retryDataTask(with: request, retry: .default) { outcome in
    ///     print(outcome.result)
    /// }
    /// task.resume()
    /// ```
    /// - Throws: `RetryPolicyError` for an invalid policy (or hedging a body stream), before anything is sent.
    public func retryDataTask(
        with request: URLRequest, retry options: HTTPRetryOptions = .default,
        completionHandler: @escaping @Sendable (RetryOutcome<HTTPResponse>) -> Void
    ) throws(RetryPolicyError) -> RetryDataTask {
        let run = HTTPRetry(session: self, request: request, options: options, clock: ContinuousClock())
        try run.validate()
        return RetryDataTask(run: run, queue: delegateQueue, completion: completionHandler)
    }
}
