import Dispatch
import Foundation
import RetryFlow

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLSession {
    /// Sends `request` and blocks the calling thread until the answer, in the original snippet's
    /// shape: `let (data, response, error) = session.synchronousDataTask(with: request)`.
    ///
    /// Without `retry:`, as the snippet did: one request, no retry, URLSession's own answer. With
    /// it, the run goes through the machine under those options (waits between attempts block no
    /// other thread), and the tuple is the run's: the delivered answer, or `(nil, last response,
    /// RetryError)` when it gives up. A redirect to another origin drops `Authorization`, `Cookie`
    /// and `Proxy-Authorization`, as on every RetryFlow surface (docs/http.md).
    ///
    /// It refuses to run where it would deadlock: on this session's delegate queue (the completion
    /// it waits for runs there) it returns a ``SynchronousCallError`` at once. It is unavailable
    /// from async code, where blocking would starve Swift's thread pool.
    ///
    /// ```swift
    /// let (data, response, error) = URLSession.shared.synchronousDataTask(with: URLRequest(url: url))
    /// let (body, head, failure) = URLSession.shared.synchronousDataTask(with: request, retry: .default)
    /// ```
    @available(*, noasync, message: "blocks a thread; use data(for:retry:) in async code")
    public func synchronousDataTask(with request: URLRequest, retry options: HTTPRetryOptions? = nil) -> (
        data: Data?, response: URLResponse?, error: (any Error)?
    ) {
        if let options {
            do {
                switch try synchronousRetryOutcome(for: request, retry: options).result {
                case .success(let answer): return (answer.data, answer.response, nil)
                case .failure(let error): return (nil, error.lastResponse?.response, error)
                }
            } catch {
                return (nil, nil, error)
            }
        }
        if let refusal = deadlockRefusal() { return (nil, nil, refusal) }
        let done = DispatchSemaphore(value: 0)
        let result = SyncBox<(Data?, URLResponse?, (any Error)?)>()
        let task = dataTask(with: request) { data, response, error in
            result.value = (data, response, error)
            done.signal()
        }
        task.guardCredentialsOnRedirect() // a redirect to another origin drops the credentials
        task.resume()
        done.wait()
        let (data, response, error) = result.value ?? (nil, nil, URLError(.unknown))
        return (data, response, error)
    }

    /// The original snippet's blocking call exactly as it was written, with a `URL`:
    /// `let (data, response, error) = URLSession.shared.synchronousDataTask(with: url)`.
    ///
    /// It is ``synchronousDataTask(with:retry:)`` for `URLRequest(url: url)` without `retry:`: one
    /// request, no retry, URLSession's own answer, refused on this session's delegate queue. Kept
    /// so a migrating caller changes nothing at the call site; a `URL` argument picks this
    /// overload, a `URLRequest` the other, so neither call is ambiguous.
    @available(*, noasync, message: "blocks a thread; use data(for:retry:) in async code")
    public func synchronousDataTask(with url: URL) -> (data: Data?, response: URLResponse?, error: (any Error)?) {
        synchronousDataTask(with: URLRequest(url: url))
    }

    /// The retrying synchronous call: blocks until the run under `options` is over and returns its
    /// whole `RetryOutcome`. Waits between attempts do not block any other thread. On this
    /// session's delegate queue it throws at once instead of deadlocking.
    ///
    /// ```swift
    /// let outcome = try URLSession.shared.synchronousRetryOutcome(for: request, retry: .default)
    /// ```
    /// - Throws: ``SynchronousCallError`` where it would deadlock; `RetryPolicyError` for an invalid policy.
    @available(*, noasync, message: "blocks a thread; use retryOutcome(for:retry:) in async code")
    public func synchronousRetryOutcome(
        for request: URLRequest, retry options: HTTPRetryOptions = .default
    ) throws -> RetryOutcome<HTTPResponse> {
        let run = HTTPRetry(session: self, request: request, options: options, clock: ContinuousClock())
        if let refusal = deadlockRefusal() { throw refusal }
        try run.validate()
        let done = DispatchSemaphore(value: 0)
        let result = SyncBox<RetryOutcome<HTTPResponse>>()
        Task {
            result.value = try? await run.outcome()
            done.signal()
        }
        done.wait()
        guard let outcome = result.value else { throw SynchronousCallError(description: "the run produced no outcome") }
        return outcome
    }

    /// A reason not to block here, if there is one.
    private func deadlockRefusal() -> SynchronousCallError? {
        guard OperationQueue.current === delegateQueue else { return nil }
        return SynchronousCallError(
            description: "synchronousDataTask called on its session's delegate queue: it would wait forever for a "
                + "completion handler that runs on that same queue; call it from another thread, or use the async API")
    }
}

/// Carries a value from a completion handler to the thread waiting on a semaphore; the semaphore
/// orders the write before the read.
private final class SyncBox<Value>: @unchecked Sendable {
    var value: Value?
}
