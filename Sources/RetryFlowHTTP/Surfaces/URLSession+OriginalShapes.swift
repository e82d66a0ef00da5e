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
        var options = HTTPRetryOptions(policy, rules: .transportErrorsOnly)
        if let errorHandler {
            options.onRetry = { notice in errorHandler(notice.remainingAttempts, notice.error) }
        }
        let run = HTTPRetry(session: self, request: request, options: options, clock: ContinuousClock())
        let task = RetryDataTask(run: run, queue: delegateQueue) { outcome in
            switch outcome.result {
            case .success(let answer): completionHandler(answer.data, answer.response, nil)
            case .failure(let error): completionHandler(nil, error.lastResponse?.response, error.lastError ?? error)
            }
        }
        task.resume()
        return task
    }

    /// The original Swift snippet's call exactly as it was written, with a `URL`:
    /// `URLSession.shared.retryDataTask(withURL: url, times: n, errorHandler: h) { data, response, error in … }`.
    ///
    /// It is ``retryDataTask(withRequest:times:wait:errorHandler:completionHandler:)`` for
    /// `URLRequest(url: url)`, with the same defaults (50 retries, 200 ms) and the same behaviour:
    /// kept so a migrating caller changes nothing at the call site.
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
    /// word of why. Its author said the code had drifted far from the flowchart published with it
    /// (not available to us, so what it showed is not known).
    ///
    /// **What changed**: the same request (reload ignoring cache, 5 s per attempt, enforced by
    /// the engine since Linux ignores a request's timeout) and `retryCount` retries, but with the
    /// default policy's exponential backoff and jitter between them, RetryFlow's HTTP rules (503
    /// and friends are retried too, honouring Retry-After), and a chart that is the code.
    /// `completion(response, data)` gets the final answer; `failure()` runs when the run gives up,
    /// and nothing is lost: the returned task's `outcome` then holds every attempt with its error,
    /// and the trace. Each runs once, on the delegate queue. For a policy or rules of your own, use
    /// ``retryDataTask(with:retry:completionHandler:)``.
    ///
    /// ```swift
    /// let task = URLSession.shared.downloadAndRetry(with: url, retryCount: 3, completion: { response, data in
    ///     print(data.count)
    /// }, failure: {
    ///     print("gave up")
    /// })
    /// ```
    @discardableResult
    public func downloadAndRetry(
        with url: URL, retryCount: Int,
        completion: @escaping @Sendable (URLResponse, Data) -> Void,
        failure: @escaping @Sendable () -> Void
    ) -> RetryDataTask {
        let request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: 5)
        var policy = RetryPolicy.default // valid whatever retryCount is: nothing to refuse
        policy.maxAttempts = RetryPolicy.attempts(retrying: retryCount)
        policy.perAttemptTimeout = .seconds(5)
        let run = HTTPRetry(session: self, request: request, options: .policy(policy), clock: ContinuousClock())
        let task = RetryDataTask(run: run, queue: delegateQueue) { outcome in
            switch outcome.result {
            case .success(let answer): completion(answer.response, answer.data)
            case .failure: failure()
            }
        }
        task.resume()
        return task
    }
}
