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
    var onRetry: (@Sendable (RetryNotice) -> Void)? = nil
    var onTransition: (@Sendable (RetryTrace.Step) -> Void)? = nil
    /// Seeds the run's jitter; `nil`: the engine's default (`SystemRandomNumberGenerator`).
    var random: (any RandomNumberGenerator & Sendable)? = nil
    /// Whether `transport` throws at once when cancelled or interrupted by the engine's timer
    /// (``AttemptInterrupt``; ours does, a caller's may not).
    var transportEndsOnCancel = false
    /// The fleet's shared budget and breaker for this request's host (none by default).
    var guards = FleetGuards()
    /// Each attempt a hedged race (``HTTPRetryOptions/hedging``); `nil`: one copy at a time.
    var hedging: HedgingPolicy? = nil

    /// Throws what no attempt could get past: an invalid policy, invalid hedging, or hedging a
    /// request whose body is a stream. The completion-handler and synchronous surfaces call it when
    /// the call is made, so their run cannot fail to start (and leave a completion unrun); an async
    /// run throws it too.
    func validate() throws(RetryPolicyError) {
        try policy.validate()
        try hedging?.validate()
        if let refusal = stepsRefusal ?? hedgingRefusal { throw refusal }
    }

    /// Why the rules and the policy's steps do not fit (a status sent to a step the policy lacks, a
    /// step nothing sends failures to), if so: what an async run throws before its first request.
    var stepsRefusal: RetryPolicyError? {
        do {
            try rules.validateSteps(of: policy)
            return nil
        } catch {
            return error
        }
    }

    /// Why this request cannot be hedged though the options hedge it: a body stream, which can be
    /// sent only once.
    var hedgingRefusal: RetryPolicyError? {
        guard let hedging, hedging.maxAttempts > 1, rules.isSafeToRepeat(request),
            request.httpBodyStream != nil
        else { return nil }
        return RetryPolicyError(
            field: "hedging",
            problem:
                "cannot send a request whose body is a stream more than once: give it httpBody data, or do not hedge it"
        )
    }

    /// Runs the request to its end: the engine configured with the HTTP rules, its result classifier
    /// and the attempt (a hedged race when the options hedge the request).
    func outcome(
        transitions: AsyncStream<RetryTrace.Step>.Continuation? = nil
    ) async throws(RetryPolicyError) -> RetryOutcome<HTTPResponse> {
        var policy = self.policy
        let rules = self.rules
        let request = self.request
        let wire = rules.prepared(request)
        let transport = self.transport
        // The HTTP rules first; an error they would retry is then the policy's own retryIf's to
        // refuse (docs/http.md): a user's classifier narrows the rules, never widens them.
        policy.retryIf = .http({ rules.decision(for: $0, request: request) }, narrowedBy: policy.retryIf)
        // No per-attempt timeout from the caller: the rules' default bounds a dead connection,
        // and the attempt's error says which timeout it was.
        let defaulted = policy.perAttemptTimeout == nil ? rules.defaultAttemptTimeout : nil
        if let defaulted { policy.perAttemptTimeout = defaulted }
        var engine = Retry(
            policy, clock: clock, onRetry: onRetry, onTransition: onTransition,
            describeError: { error in
                if defaulted != nil, let timeout = error as? AttemptTimeout {
                    return "\(timeout) (HTTPRetryRules.defaultAttemptTimeout: the policy sets no perAttemptTimeout)"
                }
                return Redaction.describe(error)
            },
            runsAttemptsInline: transportEndsOnCancel, guards: guards)
        engine.interruptsInlineAttempts = transportEndsOnCancel // `send` listens to AttemptInterrupt
        // An existential here: set as a property, and only when given (setting it makes the engine's
        // run seeds anew, a second generator and lock for every request).
        if let random { engine.random = random }
        let send: @Sendable (RetryAttempt) async throws -> HTTPResponse = { attempt in
            let header = rules.attemptHeader.flatMap { header in
                header.value(forAttempt: attempt.number).map { (header.name, $0) }
            }
            guard header != nil || !attempt.values.isEmpty else { return try await transport(wire) }
            var changed = wire
            if let (name, value) = header { changed.setValue(value, forHTTPHeaderField: name) }
            RequestChange.apply(attempt.values, to: &changed)
            return try await transport(changed)
        }
        let classify: @Sendable (HTTPResponse) -> RetryVerdict? = {
            rules.verdict(for: $0, request: request, now: Date())
        }
        if let refusal = stepsRefusal { throw refusal }
        // Hedging's settings are checked as the policy is, before anything is sent, even for a
        // request that will not be hedged: the policy first, so its errors come out as unhedged.
        if hedging != nil { try validate() }
        // Only a request safe to repeat is hedged (a POST without an idempotency key never is),
        // and only one whose body can be sent again (`validate` refused a stream).
        guard let hedging, hedging.maxAttempts > 1, rules.isSafeToRepeat(request) else {
            return try await engine.outcome(classifyResult: classify, transitions: transitions, send)
        }
        // Each attempt of the retry machine becomes a hedged race; its copies run as child tasks,
        // so the engine's per-attempt timer ends them by cancelling, not by interrupting inline.
        engine.runsAttemptsInline = false
        engine.interruptsInlineAttempts = false
        let hedged = HedgedRaces()
        let race = HedgedRun(hedging, clock: clock, budget: guards.budget, deadline: nil)
        let retryIf = policy.retryIf // the rules narrowed by the user's classifier, as the engine decides
        let maxRetryAfter = policy.maxRetryAfter
        var outcome = try await engine.outcome(classifyResult: classify, transitions: transitions) { attempt in
            hedged.begin()
            let outcome = await race.outcome(
                classify: {
                    HTTPRetry.hedgeVerdict($0, classify: classify, retryIf: retryIf, maxRetryAfter: maxRetryAfter)
                },
                describe: { result in
                    switch result {
                    case .success(let answer): "HTTP \(answer.statusCode)"
                    case .failure(let error): Redaction.describe(error)
                    }
                }
            ) { _ in try await send(attempt) }
            hedged.end(attempt: attempt.number, outcome.record)
            guard let result = outcome.result else { throw CancellationError() }
            return try result.get()
        }
        outcome.hedging = await hedged.records()
        return outcome
    }

    /// How a hedged copy's result is judged, by the same classifiers the engine uses: what the retry
    /// machine would accept wins; what it would retry is non-fatal (its Retry-After delays the next
    /// hedge); anything else, a Retry-After past `maxRetryAfter` included, is final and goes to the
    /// retry machine as it is, which decides it as an unhedged run would.
    static func hedgeVerdict(
        _ result: Result<HTTPResponse, any Error>, classify: (HTTPResponse) -> RetryVerdict?,
        retryIf: RetryClassifier, maxRetryAfter: Duration
    ) -> HedgeVerdict {
        let decision: RetryDecision
        switch result {
        case .success(let answer):
            guard let verdict = classify(answer) else { return .accept }
            decision = verdict.decision
        case .failure(let error):
            decision = retryIf.decision(for: error)
        }
        switch decision {
        case .retry: return .nonFatal(.none)
        case .retryAfter(let delay) where delay <= maxRetryAfter: return .nonFatal(.delay(delay))
        case .retryAfter, .fail, .finalAnswer, .step: return .final
        }
    }
}

extension HTTPRetry {
    /// A run of `request` under `options`, each attempt sent by `transport`.
    init(
        transport: @escaping @Sendable (URLRequest) async throws -> HTTPResponse, request: URLRequest,
        options: HTTPRetryOptions, clock: C
    ) {
        self.init(
            transport: transport, request: request, policy: options.policy, rules: options.rules, clock: clock,
            onRetry: options.onRetry, onTransition: options.onTransition)
        guards = options.guards(for: request)
        hedging = options.hedging
    }

    /// A run of `request` under `options`, each attempt sent by `session`.
    init(session: URLSession, request: URLRequest, options: HTTPRetryOptions, clock: C) {
        let attemptTimeout = options.policy.perAttemptTimeout ?? options.rules.defaultAttemptTimeout
        self.init(
            transport: { request in try await session.send(request, attemptTimeout: attemptTimeout) }, request: request,
            options: options, clock: clock)
        transportEndsOnCancel = true
    }
}

/// Runs `request` under `options` with a transport of your own instead of `URLSession`: a fake
/// in unit tests, a scripted server in simulations. Same machine, same rules, same options.
///
/// ```swift
/// let outcome = try await HTTPRetryRun.outcome(for: request, retry: .default, clock: ManualClock()) { _ in
///     HTTPResponse(data: Data(), response: HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: nil)!)
/// }
/// ```
public enum HTTPRetryRun {
    /// The outcome of `request` sent through `transport` under `options`, on `clock`, with jitter
    /// drawn from `random` (a `SeededRandom` replays a run).
    public static func outcome<C: Clock<Duration>>(
        for request: URLRequest, retry options: HTTPRetryOptions = .default, clock: C = ContinuousClock(),
        random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
        transport: @escaping @Sendable (URLRequest) async throws -> HTTPResponse
    ) async throws(RetryPolicyError) -> RetryOutcome<HTTPResponse> {
        var run = HTTPRetry(transport: transport, request: request, options: options, clock: clock)
        run.random = random
        return try await run.outcome()
    }
}
