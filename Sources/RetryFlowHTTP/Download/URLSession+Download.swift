import Foundation
import RetryFlow

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLSession {
    /// Downloads `request` into the file at `destination`, streaming the body to disk (no body held
    /// in memory) and retrying under `options` (by default ``RetryPolicy/download`` under the default
    /// rules). An attempt cut
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
    ///     for: URLRequest(url: url), to: URL(fileURLWithPath: "big.iso"), retry: .policy(.download))
    /// print(response.statusCode, outcome.ranges)   // each attempt's byte range
    /// ```
    /// - Parameter progress: receives a ``DownloadProgress`` as bytes arrive, then is finished;
    ///   make its stream with `.bufferingNewest(1)` to see only the latest.
    /// - Throws: ``DownloadError`` (every attempt, both traces, where the partial file is) when the
    ///   download does not complete; `CancellationError` when cancelled (the partial file is kept);
    ///   `RetryPolicyError` or ``DownloadProblem`` (the file cannot be opened) before any request.
    public func download(
        for request: URLRequest, to destination: URL, retry options: HTTPRetryOptions = .policy(.download),
        options download: DownloadOptions = DownloadOptions(),
        progress: AsyncStream<DownloadProgress>.Continuation? = nil
    ) async throws -> (HTTPURLResponse, DownloadOutcome) {
        let outcome = try await downloadOutcome(
            for: request, to: destination, retry: options, options: download, progress: progress)
        if outcome.retry.finalState.delivery == .cancellation { throw CancellationError() }
        guard outcome.succeeded, let response = outcome.response else { throw DownloadError(outcome: outcome) }
        return (response, outcome)
    }

    /// Downloads like ``download(for:to:retry:options:progress:)`` and returns the whole
    /// ``DownloadOutcome`` whatever happened, on `clock` (the real one by default; a `ManualClock`
    /// in tests, for backoff waits, timeouts and stall windows).
    /// - Throws: only before any request: `RetryPolicyError`, or ``DownloadProblem`` when the
    ///   partial file cannot be opened.
    public func downloadOutcome<C: Clock<Duration>>(
        for request: URLRequest, to destination: URL, retry options: HTTPRetryOptions = .policy(.download),
        options download: DownloadOptions = DownloadOptions(), clock: C = ContinuousClock(),
        progress: AsyncStream<DownloadProgress>.Continuation? = nil
    ) async throws -> DownloadOutcome {
        let run = DownloadRun(
            configuration: configuration, request: request, destination: destination, retry: options,
            options: download, clock: clock, progress: progress)
        return try await run.outcome()
    }

    /// The completion-handler form of ``download(for:to:retry:options:progress:)``:
    /// `completion` runs exactly once, on this session's delegate queue, with the whole outcome
    /// (or the error thrown before any request). Cancel the returned task to stop the download
    /// (the outcome is then `cancelled` and the partial file kept).
    ///
    /// ```swift
    /// URLSession.shared.downloadTask(with: URLRequest(url: url), to: file) { result in
    ///     if case .success(let outcome) = result { print(outcome.succeeded, outcome.file.path) }
    /// }
    /// ```
    @discardableResult
    public func downloadTask(
        with request: URLRequest, to destination: URL, retry options: HTTPRetryOptions = .policy(.download),
        options download: DownloadOptions = DownloadOptions(),
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
                        for: request, to: destination, retry: options, options: download, progress: continuation))
            } catch {
                continuation?.finish()
                result = .failure(error)
            }
            await watcher?.value
            queue.addOperation { completion(result) }
        }
    }
}
