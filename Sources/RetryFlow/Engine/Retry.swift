/// The async engine: runs any operation under a ``RetryPolicy`` by driving a ``RetryMachine``.
///
/// The engine is the only place effects are performed: it starts attempts, sleeps on the injected
/// clock (never blocking a thread), calls hooks and reports. It decides nothing: every transition is
/// a row of ``TransitionTable/retry``.
///
/// ```swift
/// let data = try await Retry(.default).run { attempt in
///     try await fetchSomething()
/// }
/// ```
public struct Retry<C: Clock>: Sendable where C.Duration == Duration {
    /// The policy for every run of this engine.
    public var policy: RetryPolicy
    /// The clock all waits, timeouts and trace times use.
    public var clock: C
    /// Draws jitter; a ``SeededRandom`` makes delays replayable.
    public var random: any RandomNumberGenerator & Sendable
    /// Called before each retry with the failed attempt, its error and the coming delay.
    public var onRetry: (@Sendable (RetryNotice) -> Void)?
    /// Turns an attempt's error into the words kept in the trace (drivers redact secrets here).
    public var describeError: @Sendable (any Error) -> String
    /// Called with every transition as it is taken (the state of a task object, a live display).
    public var onTransition: (@Sendable (RetryTrace.Step) -> Void)?

    /// An engine for `policy` on `clock`.
    public init(
        _ policy: RetryPolicy = .default, clock: C,
        random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
        onRetry: (@Sendable (RetryNotice) -> Void)? = nil
    ) {
        self.policy = policy
        self.clock = clock
        self.random = random
        self.onRetry = onRetry
        self.describeError = { String(describing: $0) }
    }

    /// Runs `operation` until it succeeds or the policy gives up, and returns its value.
    ///
    /// - Parameter classifyResult: returns `nil` to accept a value, or a ``RetryVerdict`` to retry it (or fail).
    /// - Throws: ``RetryPolicyError`` for an invalid policy; `CancellationError` when cancelled;
    ///   otherwise a ``RetryError`` carrying every attempt.
    public func run<Value: Sendable>(
        classifyResult: (@Sendable (Value) -> RetryVerdict?)? = nil,
        _ operation: @escaping @Sendable (RetryAttempt) async throws -> Value
    ) async throws -> Value {
        let outcome = try await self.outcome(classifyResult: classifyResult, operation)
        if outcome.finalState == .cancelled { throw CancellationError() }
        return try outcome.get()
    }

    /// Runs `operation` and returns the whole ``RetryOutcome``: state, reason, value, attempts, trace.
    ///
    /// - Parameter transitions: receives every transition as it is taken, then is finished.
    /// - Throws: only ``RetryPolicyError``, before any attempt, for an invalid policy.
    public func outcome<Value: Sendable>(
        classifyResult: (@Sendable (Value) -> RetryVerdict?)? = nil,
        transitions: AsyncStream<RetryTrace.Step>.Continuation? = nil,
        _ operation: @escaping @Sendable (RetryAttempt) async throws -> Value
    ) async throws(RetryPolicyError) -> RetryOutcome<Value> {
        defer { transitions?.finish() }
        try policy.validate()
        let run = Run<C, Value>(engine: self, transitions: transitions, classifyResult: classifyResult, operation: operation)
        return await run.drive()
    }
}

extension Retry where C == ContinuousClock {
    /// An engine for `policy` on the real clock.
    public init(
        _ policy: RetryPolicy = .default,
        random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
        onRetry: (@Sendable (RetryNotice) -> Void)? = nil
    ) {
        self.init(policy, clock: ContinuousClock(), random: random, onRetry: onRetry)
    }
}

/// One run's mutable bookkeeping: the machine, the trace and the attempt records.
private struct Run<C: Clock<Duration>, Value: Sendable> {
    let engine: Retry<C>
    let transitions: AsyncStream<RetryTrace.Step>.Continuation?
    let classifyResult: (@Sendable (Value) -> RetryVerdict?)?
    let operation: @Sendable (RetryAttempt) async throws -> Value

    init(
        engine: Retry<C>, transitions: AsyncStream<RetryTrace.Step>.Continuation?,
        classifyResult: (@Sendable (Value) -> RetryVerdict?)?,
        operation: @escaping @Sendable (RetryAttempt) async throws -> Value
    ) {
        self.engine = engine
        self.transitions = transitions
        self.classifyResult = classifyResult
        self.operation = operation
    }

    func drive() async -> RetryOutcome<Value> {
        let clock = engine.clock
        let policy = engine.policy
        var machine = RetryMachine(policy: policy, random: AnyRandom(engine.random))
        let start = clock.now
        func elapsed() -> Duration { start.duration(to: clock.now) }

        var trace = RetryTrace()
        trace.steps.reserveCapacity(min(policy.maxAttempts, 8) * 3 + 1)
        var attempts: [AttemptRecord] = []
        var lastValue: Value?
        var lastError: (any Error)?
        var delayBefore: Duration = .zero
        var inFlight: AttemptRace<Value>?

        // The next event to deliver, with the classifier's verdict and words for the trace.
        var event: RetryEvent = Task.isCancelled ? .cancelled : .start
        var decision: RetryDecision = .retry
        var detail: String?

        while true {
            let step: RetryMachine.Step
            do {
                step = try machine.handle(event, at: elapsed(), decision: decision, detail: detail)
            } catch {
                trace.rejections.append(error)
                return RetryOutcome(
                    finalState: machine.state, reason: .invalidTransition, value: lastValue, attempts: attempts,
                    trace: trace, duration: elapsed())
            }
            record(step.transition, in: &trace)
            if let completion = step.completion { record(completion, in: &trace) }

            for action in step.actions {
                switch action {
                case .startAttempt(let number):
                    let info = RetryAttempt(number: number, maxAttempts: policy.maxAttempts, previousError: lastError)
                    let attemptStart = elapsed()
                    let (timerAt, timerEvent, timerError) = timer(start: start, clock: clock, policy: policy)
                    let (end, race) = await AttemptRace.run(
                        clock: clock, timerAt: timerAt, attempt: info, operation: operation)
                    inFlight = race
                    let error: (any Error)?
                    switch end {
                    case .returned(let value):
                        lastValue = value
                        if let verdict = classifyResult?(value) {
                            event = .failed
                            decision = verdict.decision
                            error = RejectedResult(verdict.description)
                        } else {
                            event = .succeeded
                            decision = .retry
                            error = nil
                        }
                    case .threw(let thrown):
                        if RetryClassifier.isCancellation(thrown) && Task.isCancelled {
                            event = .cancelled
                            decision = .fail
                        } else {
                            event = .failed
                            decision = policy.retryIf.decision(for: thrown)
                        }
                        error = thrown
                    case .timerFired:
                        event = timerEvent
                        error = timerError
                        decision = timerEvent == .attemptTimedOut ? policy.retryIf.decision(for: timerError) : .fail
                    case .cancelled:
                        event = .cancelled
                        decision = .fail
                        error = CancellationError()
                    }
                    detail = error.map(engine.describeError)
                    lastError = error
                    attempts.append(
                        AttemptRecord(
                            number: number, start: attemptStart, duration: elapsed() - attemptStart,
                            delayBefore: delayBefore, error: error, decision: error == nil ? nil : decision,
                            errorDescription: detail))
                case .cancelAttempt:
                    inFlight?.operationTask?.cancel()
                    inFlight = nil
                case .notifyRetry(let attempt, let delay):
                    if let onRetry = engine.onRetry, let lastError {
                        onRetry(
                            RetryNotice(
                                attempt: attempt, error: lastError, delay: delay,
                                remainingAttempts: policy.maxAttempts - attempt))
                    }
                    delayBefore = delay
                case .sleep(let delay):
                    inFlight = nil  // a finished attempt's task is not kept through the wait
                    detail = nil
                    decision = .retry
                    do {
                        try await clock.sleep(for: delay)
                        event = .delayElapsed
                    } catch {
                        event = .cancelled
                    }
                case .finish(let state, let reason):
                    return RetryOutcome(
                        finalState: state, reason: reason, value: lastValue, attempts: attempts, trace: trace,
                        duration: elapsed())
                }
            }
        }
    }

    private func record(_ step: RetryTrace.Step, in trace: inout RetryTrace) {
        trace.steps.append(step)
        engine.onTransition?(step)
        transitions?.yield(step)
    }

    /// When the attempt's timer fires and what it means: the per-attempt timeout or the deadline,
    /// whichever comes first.
    private func timer(
        start: C.Instant, clock: C, policy: RetryPolicy
    ) -> (C.Instant?, RetryEvent, any Error) {
        var at: C.Instant?
        var event = RetryEvent.attemptTimedOut
        var error: any Error = AttemptTimeout(timeout: policy.perAttemptTimeout ?? .zero)
        if let timeout = policy.perAttemptTimeout { at = clock.now.advanced(by: timeout) }
        if let deadline = policy.deadline {
            let deadlineAt = start.advanced(by: deadline)
            if at.map({ deadlineAt < $0 }) ?? true {
                at = deadlineAt
                event = .deadlineExceeded
                error = DeadlineExceeded(deadline: deadline)
            }
        }
        return (at, event, error)
    }
}
