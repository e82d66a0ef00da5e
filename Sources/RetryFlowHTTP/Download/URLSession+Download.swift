import Foundation
import RetryFlow

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLSession {
    /// Downloads `request` into the file at `destination`, streaming the body to disk (no body held
    /// in memory) and retrying under `policy` and the HTTP `rules`. An attempt cut
    /// after N bytes is resumed with `Range: bytes=N-` (and `If-Range` with the strong ETag or
    /// Last-Modified); a 206 is appended only when it continues the file exactly, a 200 restarts it.
    /// The bytes go to `destination.part`, renamed over `destination` once every byte is there;
    /// on failure the partial file stays beside it so a later call with
    /// ``DownloadOptions/resumeExisting`` continues it. ``HTTPRetryRules/defaultAttemptTimeout`` is
    /// not applied (a large file takes longer): an attempt ends when the connection goes idle, on
    /// ``DownloadOptions/speedLimit``, or on the policy's own `perAttemptTimeout`.
    ///
    /// ```swift
    /// let (response, outcome) = try await URLSession.shared.download(
    ///     for: URLRequest(url: url), to: URL(fileURLWithPath: "big.iso"), retry: .download)
    /// print(response.statusCode, outcome.ranges)   // each attempt's byte range
    /// ```
    /// - Parameter progress: receives a ``DownloadProgress`` as bytes arrive, then is finished;
    ///   make its stream with `.bufferingNewest(1)` to see only the latest.
    /// - Throws: ``DownloadError`` (every attempt, both traces, where the partial file is) when the
    ///   download does not complete; `CancellationError` when cancelled (the partial file is kept);
    ///   ``RetryPolicyError`` or ``DownloadProblem`` (the file cannot be opened) before any request.
    public func download(
        for request: URLRequest, to destination: URL, retry policy: RetryPolicy = .download,
        options: DownloadOptions = DownloadOptions(), rules: HTTPRetryRules = .default,
        progress: AsyncStream<DownloadProgress>.Continuation? = nil
    ) async throws -> (HTTPURLResponse, DownloadOutcome) {
        let outcome = try await downloadOutcome(
            for: request, to: destination, retry: policy, options: options, rules: rules, clock: ContinuousClock(),
            progress: progress)
        if outcome.retry.finalState == .cancelled { throw CancellationError() }
        guard outcome.succeeded, let response = outcome.response else { throw DownloadError(outcome: outcome) }
        return (response, outcome)
    }

    /// Downloads like ``download(for:to:retry:options:rules:progress:)`` and returns the whole
    /// ``DownloadOutcome`` whatever happened, on an injected clock (a `ManualClock` in tests, for
    /// backoff waits, timeouts and stall windows), with hooks that see each retry and transition.
    /// - Throws: only before any request: ``RetryPolicyError``, or ``DownloadProblem`` when the
    ///   partial file cannot be opened.
    public func downloadOutcome<C: Clock<Duration>>(
        for request: URLRequest, to destination: URL, retry policy: RetryPolicy = .download,
        options: DownloadOptions = DownloadOptions(), rules: HTTPRetryRules = .default, clock: C,
        onRetry: (@Sendable (RetryNotice) -> Void)? = nil,
        onTransition: (@Sendable (RetryTrace.Step) -> Void)? = nil,
        progress: AsyncStream<DownloadProgress>.Continuation? = nil
    ) async throws -> DownloadOutcome {
        let run = DownloadRun(
            configuration: configuration, request: request, destination: destination, policy: policy, rules: rules,
            options: options, clock: clock, onRetry: onRetry, onTransition: onTransition, progress: progress)
        return try await run.outcome()
    }

    /// The completion-handler form of ``download(for:to:retry:options:rules:progress:)``:
    /// `completion` runs exactly once, on this session's delegate queue, with the whole outcome
    /// (or the error thrown before any request). Cancel the returned task to stop the download
    /// (the outcome is then `cancelled` and the partial file kept).
    @discardableResult
    public func downloadTask(
        with request: URLRequest, to destination: URL, retry policy: RetryPolicy = .download,
        options: DownloadOptions = DownloadOptions(), rules: HTTPRetryRules = .default,
        progress: (@Sendable (DownloadProgress) -> Void)? = nil,
        completion: @escaping @Sendable (Result<DownloadOutcome, any Error>) -> Void
    ) -> Task<Void, Never> {
        let queue = delegateQueue
        return Task {
            var continuation: AsyncStream<DownloadProgress>.Continuation?
            var watcher: Task<Void, Never>?
            if let progress {
                let (stream, input) = AsyncStream<DownloadProgress>.makeStream(bufferingPolicy: .bufferingNewest(1))
                continuation = input
                watcher = Task { for await update in stream { progress(update) } }
            }
            let result: Result<DownloadOutcome, any Error>
            do {
                result = .success(
                    try await downloadOutcome(
                        for: request, to: destination, retry: policy, options: options, rules: rules,
                        clock: ContinuousClock(), progress: continuation))
            } catch {
                continuation?.finish()
                result = .failure(error)
            }
            await watcher?.value
            queue.addOperation { completion(result) }
        }
    }

    /// A file-based form of the Objective-C snippet's `downloadAndRetryWithURL:…`: downloads `url`
    /// into `destination` with `retryCount` retries, resuming each cut transfer where it stopped.
    /// `completion(response, destination)` runs when every byte is in place; `failure` gets the
    /// last error and every attempt. Each runs once, on the delegate queue.
    @discardableResult
    public func downloadAndRetry(
        with url: URL, to destination: URL, retryCount: Int, policy: RetryPolicy? = nil,
        completion: @escaping @Sendable (URLResponse, URL) -> Void,
        failure: @escaping @Sendable (any Error, [AttemptRecord]) -> Void
    ) -> Task<Void, Never> {
        let request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: 60)
        var chosen = policy ?? .download
        chosen.maxAttempts = RetryPolicy.attempts(retrying: retryCount) // Int.max retries: no overflow trap
        return downloadTask(with: request, to: destination, retry: chosen) { result in
            switch result {
            case .success(let outcome):
                if outcome.succeeded, let response = outcome.response {
                    completion(response, outcome.file)
                } else {
                    failure(
                        outcome.retry.attempts.last?.error ?? DownloadError(outcome: outcome), outcome.retry.attempts)
                }
            case .failure(let error):
                failure(error, [])
            }
        }
    }
}
