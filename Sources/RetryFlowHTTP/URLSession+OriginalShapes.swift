import Foundation
import RetryFlow

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLSession {
    /// The original Swift snippet's call, kept for people migrating.
    ///
    /// **The original** re-issued itself from its own completion handler: on an error, while
    /// `times > 0`, it called `errorHandler(times, error)`, then `usleep(wait)` *on the session's
    /// delegate queue* (stalling every other request's handler), then retried with `times - 1`.
    /// HTTP statuses were never retried; any error was, cancellation and POSTs included.
    ///
    /// **What changed**: the same defaults (50 retries, 200 ms), transport errors only, and
    /// `errorHandler(remainingTimes, error)` before each wait; but the wait blocks no thread (it
    /// runs on the retry machine), cancellation is never retried, a non-idempotent request is
    /// retried only when the error proves it was never sent (or it has an `Idempotency-Key`),
    /// and the returned ``RetryDataTask`` (already resumed) exposes the state and the trace.
    /// `completionHandler` runs exactly once on the delegate queue: the final answer, or
    /// `(nil, nil, lastError)`.
    @discardableResult
    public func retryDataTask(
        withRequest request: URLRequest, times: Int = 50, wait: useconds_t = 200_000,
        errorHandler: (@Sendable (Int, any Error) -> Void)? = nil,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> RetryDataTask {
        let policy = RetryPolicy.originalSnippet(times: max(0, times), wait: .microseconds(Int64(wait)))
        var onRetry: (@Sendable (RetryNotice) -> Void)?
        if let errorHandler {
            onRetry = { notice in errorHandler(notice.remainingAttempts, notice.error) }
        }
        let run = HTTPRetry(
            session: self, request: request, policy: policy, rules: .transportErrorsOnly, clock: ContinuousClock(),
            onRetry: onRetry)
        let task = RetryDataTask(run: run, queue: delegateQueue) { outcome in
            switch outcome.result {
            case .success(let answer): completionHandler(answer.data, answer.response, nil)
            case .failure(let error): completionHandler(nil, error.lastResponse?.response, error.lastError ?? error)
            }
        }
        task.resume()
        return task
    }

    /// ``retryDataTask(withRequest:times:wait:errorHandler:completionHandler:)`` for a URL.
    @discardableResult
    public func retryDataTask(
        withURL url: URL, times: Int = 50, wait: useconds_t = 200_000,
        errorHandler: (@Sendable (Int, any Error) -> Void)? = nil,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> RetryDataTask {
        retryDataTask(
            withRequest: URLRequest(url: url), times: times, wait: wait, errorHandler: errorHandler,
            completionHandler: completionHandler)
    }

    /// The Objective-C snippet's `downloadAndRetryWithURL:retryCount:completion:failure:`.
    ///
    /// **The original** loaded `url` ignoring the cache with a 5 s timeout and, on failure, called
    /// itself at once with `retryCount - 1` (no wait: a retry storm), then `failure()` with no
    /// word of why. Its flowchart showed a wait it did not have.
    ///
    /// **What changed**: the same request (reload ignoring cache, 5 s per attempt, enforced by
    /// the engine since Linux ignores a request's timeout) and `retryCount` retries, but with the
    /// default policy's exponential backoff and jitter between them, RetryFlow's HTTP rules (503
    /// and friends are retried too, honouring Retry-After), and a chart that is the code.
    /// `completion(response, data)` gets the final answer; `failure()` runs when the run gives up.
    @discardableResult
    public func downloadAndRetry(
        with url: URL, retryCount: Int,
        completion: @escaping @Sendable (URLResponse, Data) -> Void,
        failure: @escaping @Sendable () -> Void
    ) -> RetryDataTask {
        downloadAndRetry(with: url, retryCount: retryCount, completion: completion) { _, _ in failure() }
    }

    /// ``downloadAndRetry(with:retryCount:completion:failure:)`` under a policy of your own (`retry:`,
    /// default: the default policy), whose `failure` receives the last
    /// error and every attempt (each with its own error), so nothing is lost.
    @discardableResult
    public func downloadAndRetry(
        with url: URL, retryCount: Int, retry policy: RetryPolicy? = nil,
        completion: @escaping @Sendable (URLResponse, Data) -> Void,
        failure: @escaping @Sendable (any Error, [AttemptRecord]) -> Void
    ) -> RetryDataTask {
        let request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: 5)
        var chosen = policy ?? .default
        chosen.maxAttempts = RetryPolicy.attempts(retrying: retryCount)
        if chosen.perAttemptTimeout == nil { chosen.perAttemptTimeout = .seconds(5) }
        let run = HTTPRetry(session: self, request: request, policy: chosen, rules: .default, clock: ContinuousClock())
        do {
            try chosen.validate()
        } catch {
            // Nothing can be sent, but a caller waits for one of its handlers: `failure` runs, once,
            // on the delegate queue like every answer, and the returned task stays idle.
            delegateQueue.addOperation { failure(error, []) }
            return RetryDataTask(run: run, queue: delegateQueue) { _ in }
        }
        let task = RetryDataTask(run: run, queue: delegateQueue) { outcome in
            switch outcome.result {
            case .success(let answer): completion(answer.response, answer.data)
            case .failure(let error): failure(error.lastError ?? error, error.attempts)
            }
        }
        task.resume()
        return task
    }

    /// ``downloadAndRetry(with:retryCount:retry:completion:failure:)`` under its old label.
    @available(*, deprecated, renamed: "downloadAndRetry(with:retryCount:retry:completion:failure:)")
    @discardableResult
    public func downloadAndRetry(
        with url: URL, retryCount: Int, policy: RetryPolicy?,
        completion: @escaping @Sendable (URLResponse, Data) -> Void,
        failure: @escaping @Sendable (any Error, [AttemptRecord]) -> Void
    ) -> RetryDataTask {
        downloadAndRetry(with: url, retryCount: retryCount, retry: policy, completion: completion, failure: failure)
    }
}
