import Foundation
import RetryFlow

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One download: the retry engine decides whether another attempt comes; the transfer machine
/// decides what each attempt asks for and what happens to the file; URLSession's data delegate
/// streams the body into the file and keeps no chunk. URLSession on Linux queues every chunk for
/// the delegate and cannot pause libcurl (its `suspend()` removes the transfer from libcurl and
/// starts the request again on `resume()`), so memory is bounded by asking for one window of
/// bytes per request (``DownloadOptions/bytesPerRequest``): docs/benchmarks.md.
struct DownloadRun<C: Clock<Duration>>: Sendable {
    let configuration: URLSessionConfiguration
    let request: URLRequest
    let destination: URL
    /// The policy, rules, guards and hooks, as on every HTTP surface.
    let retry: HTTPRetryOptions
    let options: DownloadOptions
    let clock: C
    var progress: AsyncStream<DownloadProgress>.Continuation?

    /// - Throws: `RetryPolicyError` for an invalid policy or for hedging,
    ///   ``DownloadProblem/file(_:_:)`` when the partial file cannot be opened: all before any request.
    func outcome() async throws -> DownloadOutcome {
        defer { progress?.finish() }
        try retry.policy.validate()
        try Self.refuseHedging(retry.hedging)
        try retry.rules.validateSteps(of: retry.policy)
        let clock = self.clock
        let start = clock.now
        let file = try PartialFile(destination: destination, resume: options.resumeExisting)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        var reported: (@Sendable (Int) -> Int)?
        if let bytes = options.reportedBacklog { reported = { _ in bytes } }
        let driver = TransferDriver(
            file: file, expectedSHA256: options.expectedSHA256, window: options.bytesPerRequest,
            maxBytes: retry.rules.maxBodyBytes, progressRule: options.progressRule, progress: progress,
            delegateQueue: queue,
            now: { start.duration(to: clock.now) }, backlog: reported)
        let delegate = DownloadDelegate(driver: driver)
        // No URLCache: a file streamed to disk is not cached, and with a cache a cancelled data task
        // can trap however it is cancelled (docs/reliability.md window 2); without one, an ended
        // attempt's task is cancelled safely and frees its connection at once.
        let uncached = (configuration.copy() as? URLSessionConfiguration) ?? configuration
        uncached.urlCache = nil
        let session = URLSession(configuration: uncached, delegate: delegate, delegateQueue: queue)
        driver.attach(session)
        defer {
            driver.close()
            session.finishTasksAndInvalidate()
        }

        let rules = retry.rules
        let request = self.request
        let wire = rules.prepared(request)
        // No HTTPRetryRules.defaultAttemptTimeout here: that total per attempt is for answers held in
        // memory; a large file legitimately takes longer. An attempt ends when the connection goes
        // idle (the session's timeoutIntervalForRequest), on options.speedLimit, or on the policy's
        // own perAttemptTimeout if it sets one; the next attempt resumes either way.
        // The rules (and the download's own problems) first, then the policy's retryIf narrows them,
        // as on every HTTP surface (docs/http.md).
        var policy = retry.policy
        policy.retryIf = .http(
            { error in
                if let problem = error as? DownloadProblem { return problem.isRetryable ? .retry : .fail }
                return rules.decision(for: error, request: request)
            }, narrowedBy: policy.retryIf)
        var engine = Retry(
            policy, clock: clock, onRetry: retry.onRetry, onTransition: retry.onTransition,
            describeError: { Redaction.describe($0) }, runsAttemptsInline: true, guards: retry.guards(for: request))
        // The transfer table's `checking progress` rows decide; the retry table's
        // `failed after progress` row then starts the count and the backoff over.
        engine.madeProgress = { _ in driver.madeProgress() }
        let speedLimit = options.speedLimit
        let ran = try await engine.outcome(classifyResult: { (answer: HTTPResponse) -> RetryVerdict? in
            if driver.isComplete { return nil }
            // An answer that is not the file (a 503, a 404) is judged as on every HTTP surface: retried,
            // failed (a failing status), or accepted as the final answer, ending the retry run in
            // success while the transfer, with nothing to install, ends `failed`.
            return rules.verdict(for: answer, request: request, now: Date())
        }) { attempt in
            var numbered = wire
            if let header = rules.attemptHeader, let value = header.value(forAttempt: attempt.number) {
                numbered.setValue(value, forHTTPHeaderField: header.name)
            }
            let (id, attemptRequest) = try driver.begin(numbered)
            let watchdog = speedLimit.map { limit in Task { await driver.watch(id, limit: limit, clock: clock) } }
            defer { watchdog?.cancel() }
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    // dataTask(with:) and resume() block on a queue all sessions share: on threads of
                    // our own, not the delegate queue's (Swift's own threads on Linux).
                    CallThreads.shared.submit(lane: driver) {
                        driver.start(id, task: session.dataTask(with: attemptRequest), continuation: continuation)
                    }
                }
            } onCancel: {
                driver.end(id, with: CancellationError())
            }
        }
        return driver.finish(ran)
    }

    /// Throws unless `hedging` sends one copy at a time: a download is not hedged (a hedge would
    /// repeat the whole transfer into the same partial file), and a setting it would ignore is
    /// refused rather than dropped.
    static func refuseHedging(_ hedging: HedgingPolicy?) throws(RetryPolicyError) {
        guard let hedging else { return }
        try hedging.validate()
        guard hedging.maxAttempts > 1 else { return }
        throw RetryPolicyError(
            field: "hedging",
            problem: "does not apply to a download to a file (a hedge would repeat the whole transfer): set it to nil")
    }
}

/// The URLSession delegate of one download: forwards each callback to the driver.
private final class DownloadDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    let driver: TransferDriver
    init(driver: TransferDriver) { self.driver = driver }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        completionHandler(driver.received(response, from: dataTask))
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        driver.received(data, from: dataTask)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(RedirectCredentials.redirect(request, from: task.originalRequest?.url))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        driver.completed(task, error: error)
    }
}
