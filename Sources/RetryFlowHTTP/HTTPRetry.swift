import Foundation
import RetryFlow

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One retried HTTP request: the engine configured with the HTTP rules, driving `URLSession`.
/// Every public surface (async, completion handler, synchronous, the original shapes) runs this.
struct HTTPRetry<C: Clock<Duration>>: Sendable {
    /// Sends one attempt: `URLSession`, or a scripted stand-in (simulations, users' unit tests).
    let transport: @Sendable (URLRequest) async throws -> HTTPResponse
    let request: URLRequest
    let policy: RetryPolicy
    let rules: HTTPRetryRules
    let clock: C
    var onRetry: (@Sendable (RetryNotice) -> Void)?
    var onTransition: (@Sendable (RetryTrace.Step) -> Void)?
    var random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()
    /// Whether `transport` throws at once when cancelled (ours does; a caller's may not).
    var transportEndsOnCancel = false

    func outcome(
        transitions: AsyncStream<RetryTrace.Step>.Continuation? = nil
    ) async throws(RetryPolicyError) -> RetryOutcome<HTTPResponse> {
        var policy = self.policy
        let rules = self.rules
        let request = self.request
        let transport = self.transport
        policy.retryIf = RetryClassifier { rules.decision(for: $0, request: request) }
        var engine = Retry(
            policy, clock: clock, onRetry: onRetry, onTransition: onTransition, describeError: { Redaction.describe($0) },
            runsAttemptsInline: transportEndsOnCancel)
        engine.random = random  // an existential here: set as a property
        return try await engine.outcome(
            classifyResult: { rules.verdict(for: $0.response, request: request, now: Date()) },
            transitions: transitions
        ) { _ in
            try await transport(request)
        }
    }
}

extension HTTPRetry {
    init(
        session: URLSession, request: URLRequest, policy: RetryPolicy, rules: HTTPRetryRules, clock: C,
        onRetry: (@Sendable (RetryNotice) -> Void)? = nil
    ) {
        self.init(
            transport: { request in try await session.send(request) }, request: request, policy: policy, rules: rules,
            clock: clock, onRetry: onRetry)
        transportEndsOnCancel = true
    }
}

extension URLSession {
    /// One attempt, insisting on an HTTP response. Unlike `data(for:)` on Linux, which reports a
    /// cancellation ~200 ms later, it throws `CancellationError` the moment its task is cancelled
    /// (and cancels the data task), so the engine can run it without a racing child task.
    func send(_ request: URLRequest) async throws -> HTTPResponse {
        let answer = OneShot<HTTPResponse>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponse, any Error>) in
                let task = dataTask(with: request) { data, response, error in
                    if let error {
                        answer.finish(.failure(error))
                    } else if let http = response as? HTTPURLResponse {
                        answer.finish(.success(HTTPResponse(data: data ?? Data(), response: http)))
                    } else {
                        answer.finish(.failure(URLError(.badServerResponse)))
                    }
                }
                answer.start(continuation, task: task)
            }
        } onCancel: {
            answer.finish(.failure(CancellationError()))
        }
    }
}

/// Resumes a continuation exactly once, with whichever comes first: the data task's answer or
/// the cancellation (which also cancels the data task).
private final class OneShot<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Value, any Error>?
    private var task: URLSessionDataTask?
    private var early: Result<Value, any Error>?
    private var done = false

    func start(_ continuation: CheckedContinuation<Value, any Error>, task: URLSessionDataTask) {
        lock.lock()
        if let early {
            done = true
            lock.unlock()
            task.cancel()
            continuation.resume(with: early)
            return
        }
        self.continuation = continuation
        self.task = task
        lock.unlock()
        task.resume()
    }

    func finish(_ result: Result<Value, any Error>) {
        lock.lock()
        guard !done else {
            lock.unlock()
            return
        }
        guard let continuation else {
            if early == nil { early = result }  // cancelled before the task started
            lock.unlock()
            return
        }
        done = true
        self.continuation = nil
        let task = self.task
        self.task = nil
        lock.unlock()
        if case .failure(let error) = result, error is CancellationError { task?.cancel() }
        continuation.resume(with: result)
    }
}

/// Runs `request` under `policy` and the HTTP `rules` with a transport of your own instead of
/// `URLSession`: a fake in unit tests, a scripted server in simulations. Same machine, same rules.
///
/// ```swift
/// let outcome = try await HTTPRetryRun.outcome(for: request, retry: .default, clock: ManualClock()) { _ in
///     HTTPResponse(data: Data(), response: HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: nil)!)
/// }
/// ```
public enum HTTPRetryRun {
    /// The outcome of `request` sent through `transport`.
    public static func outcome<C: Clock<Duration>>(
        for request: URLRequest, retry policy: RetryPolicy = .default, rules: HTTPRetryRules = .default, clock: C,
        random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
        onRetry: (@Sendable (RetryNotice) -> Void)? = nil,
        onTransition: (@Sendable (RetryTrace.Step) -> Void)? = nil,
        transport: @escaping @Sendable (URLRequest) async throws -> HTTPResponse
    ) async throws(RetryPolicyError) -> RetryOutcome<HTTPResponse> {
        var run = HTTPRetry(
            transport: transport, request: request, policy: policy, rules: rules, clock: clock, onRetry: onRetry)
        run.onTransition = onTransition
        run.random = random
        return try await run.outcome()
    }

    /// The outcome of `request` sent through `transport` (the policy now has the `retry:` label).
    @available(*, deprecated, renamed: "outcome(for:retry:rules:clock:random:onRetry:onTransition:transport:)")
    public static func outcome<C: Clock<Duration>>(
        for request: URLRequest, policy: RetryPolicy, rules: HTTPRetryRules = .default, clock: C,
        random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
        onRetry: (@Sendable (RetryNotice) -> Void)? = nil,
        onTransition: (@Sendable (RetryTrace.Step) -> Void)? = nil,
        transport: @escaping @Sendable (URLRequest) async throws -> HTTPResponse
    ) async throws(RetryPolicyError) -> RetryOutcome<HTTPResponse> {
        try await outcome(
            for: request, retry: policy, rules: rules, clock: clock, random: random, onRetry: onRetry,
            onTransition: onTransition, transport: transport)
    }
}

extension RetryOutcome where Value == HTTPResponse {
    /// What the callers of the HTTP API get: the response when the run succeeded, and also when it
    /// ended, for one of ``HTTPRetryRules/finalAnswerReasons``, on a response (a POST's 503 is still
    /// the server's answer); otherwise the `RetryError` with every attempt.
    public var httpResult: Result<HTTPResponse, RetryError> {
        let endedOnAnswer = HTTPRetryRules.finalAnswerReasons.contains(reason) && attempts.last?.returnedValue == true
        if let value, succeeded || endedOnAnswer { return .success(value) }
        return .failure(
            RetryError(
                reason: reason, finalState: finalState, attempts: attempts, trace: trace, duration: duration,
                lastValue: value))
    }
}
