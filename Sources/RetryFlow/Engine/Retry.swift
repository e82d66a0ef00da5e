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
    /// Set when the operation ends at once on cancellation (throwing `CancellationError`): attempts
    /// with no timer (no per-attempt timeout, no deadline) then run in the engine's own task,
    /// saving a task and two thread hops per attempt. Otherwise each attempt runs in a child task
    /// raced against its timer and the caller's cancellation, so a slow-to-cancel operation (URLSession
    /// on Linux takes ~200 ms) never delays the caller. Default `false`.
    public var runsAttemptsInline = false
    /// The fleet's shared guards every run of this engine answers to (retry budget, circuit breaker).
    public var guards = FleetGuards()

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
    /// - Parameters:
    ///   - classifyResult: returns `nil` to accept a value, or a ``RetryVerdict`` to retry it (or fail).
    ///   - operation: one attempt; it is called again for each retry.
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
    /// - Parameters:
    ///   - classifyResult: returns `nil` to accept a value, or a ``RetryVerdict`` to retry it (or fail).
    ///   - transitions: receives every transition as it is taken, then is finished.
    ///   - operation: one attempt; it is called again for each retry.
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

extension Retry {
    /// An engine for a policy with its fleet's shared budget and breaker, on `clock`.
    public init(
        _ resilience: Resilience, clock: C,
        random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
        onRetry: (@Sendable (RetryNotice) -> Void)? = nil
    ) {
        self.init(resilience.policy, clock: clock, random: random, onRetry: onRetry)
        self.guards = resilience.guards
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

    /// The loop: deliver the next event, perform the actions the machine returns. The bookkeeping
    /// lives in a ``RunBook`` on the heap, so the async frame kept through every wait stays small
    /// (10,000 parked retries are 10,000 such frames).
    func drive() async -> RetryOutcome<Value> {
        let clock = engine.clock
        let start = clock.now
        let book = RunBook<Value>(engine: engine, transitions: transitions, cancelled: Task.isCancelled)
        while true {
            guard let actions = book.deliver(at: start.duration(to: clock.now)) else {
                return book.outcome(state: book.machine.state, reason: .invalidTransition, at: start.duration(to: clock.now))
            }
            for action in actions {
                switch action {
                case .startAttempt(let number):
                    // The breaker may refuse: then nothing is sent and the machine hears `circuit open`.
                    if book.refusedByBreaker(number, now: start.duration(to: clock.now)) { continue }
                    let attemptStart = start.duration(to: clock.now)
                    let (timerAt, timerEvent, timerError) = timer(start: start, clock: clock, policy: engine.policy)
                    let end: AttemptEnd<Value>
                    if engine.runsAttemptsInline && timerAt == nil {
                        do { end = .returned(try await operation(book.attemptInfo(number))) } catch { end = .threw(error) }
                    } else {
                        let race: AttemptRace<Value>
                        (end, race) = await AttemptRace.run(
                            clock: clock, timerAt: timerAt, attempt: book.attemptInfo(number), operation: operation)
                        book.inFlight = race
                    }
                    book.attemptEnded(
                        number, end: end, timerEvent: timerEvent, timerError: timerError, classifyResult: classifyResult,
                        started: attemptStart, now: start.duration(to: clock.now), cancelled: Task.isCancelled)
                case .cancelAttempt:
                    book.inFlight?.operationTask?.cancel()
                    book.inFlight = nil
                case .askRetryBudget(let afterTimeout):
                    book.askBudget(afterTimeout: afterTimeout)
                case .notifyRetry(let attempt, let delay):
                    book.notifyRetry(attempt: attempt, delay: delay)
                case .sleep(let delay):
                    book.willSleep()
                    do {
                        try await clock.sleep(for: delay)
                        book.event = .delayElapsed
                    } catch {
                        book.event = .cancelled
                    }
                case .finish(let state, let reason):
                    return book.outcome(state: state, reason: reason, at: start.duration(to: clock.now))
                }
            }
        }
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

/// One run's bookkeeping: the machine, the trace, the attempt records and the next event. Used by
/// one task only (the run's), never shared.
private final class RunBook<Value: Sendable> {
    let engine: EngineHooks
    let policy: RetryPolicy
    let transitions: AsyncStream<RetryTrace.Step>.Continuation?
    var machine: RetryMachine
    var trace = RetryTrace()
    var attempts: [AttemptRecord] = []
    var lastValue: Value?
    var lastError: (any Error)?
    var delayBefore: Duration = .zero
    var inFlight: AttemptRace<Value>?
    // The next event to deliver, with the classifier's verdict and words for the trace.
    var event: RetryEvent
    var decision: RetryDecision = .retry
    var detail: String?
    var granted = true
    // The fleet's guards, and what this run holds from them: the breaker's ticket for the attempt in
    // flight, the tokens its last retry took (AWS gives them back on success).
    let guards: FleetGuards
    var ticket: CircuitTicket?
    var lastRetryCost: Int?

    init<C: Clock<Duration>>(engine: Retry<C>, transitions: AsyncStream<RetryTrace.Step>.Continuation?, cancelled: Bool) {
        self.engine = EngineHooks(
            onRetry: engine.onRetry, onTransition: engine.onTransition, describeError: engine.describeError)
        self.policy = engine.policy
        self.transitions = transitions
        self.machine = RetryMachine(policy: engine.policy, random: AnyRandom(engine.random))
        self.machine.waitsOutBreak = engine.guards.whenCircuitOpen == .waitOutBreak
        self.guards = engine.guards
        self.event = cancelled ? .cancelled : .start
        // No reserve: a parked run should hold only the steps it took (10,000 parked runs add up).
    }

    /// Delivers the pending event; the actions to perform, or `nil` for an event with no row.
    func deliver(at now: Duration) -> RetryActions? {
        do {
            let step = try machine.handle(event, at: now, decision: decision, detail: detail, granted: granted)
            record(step.transition)
            if let completion = step.completion { record(completion) }
            return step.actions
        } catch {
            trace.rejections.append(error)
            return nil
        }
    }

    private func record(_ step: RetryTrace.Step) {
        trace.steps.append(step)
        engine.onTransition?(step)
        transitions?.yield(step)
    }

    func attemptInfo(_ number: Int) -> RetryAttempt {
        RetryAttempt(number: number, maxAttempts: policy.maxAttempts, previousError: lastError)
    }

    /// Turns how the attempt ended into the next event, its verdict and the attempt's record.
    func attemptEnded(
        _ number: Int, end: AttemptEnd<Value>, timerEvent: RetryEvent, timerError: any Error,
        classifyResult: (@Sendable (Value) -> RetryVerdict?)?, started: Duration, now: Duration, cancelled: Bool
    ) {
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
            if RetryClassifier.isCancellation(thrown) && cancelled {
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
        detail = error.map { engine.describeError($0) }
        lastError = error
        reportToGuards()
        attempts.append(
            AttemptRecord(
                number: number, start: started, duration: now - started, delayBefore: delayBefore, error: error,
                decision: error == nil ? nil : decision, errorDescription: detail))
    }

    /// Asks the breaker to admit attempt `number`; when it refuses, records the attempt that was not
    /// sent and sets the next event to `circuit open` (the break's rest is waited like a Retry-After).
    func refusedByBreaker(_ number: Int, now: Duration) -> Bool {
        ticket = nil
        guard let breaker = guards.breaker else { return false }
        switch breaker.ask() {
        case .admitted(let admitted):
            ticket = admitted
            return false
        case .rejected(let rejection):
            event = .circuitOpen
            decision = rejection.remainingBreak.map { .retryAfter($0) } ?? .retry
            detail = rejection.description
            lastError = rejection
            attempts.append(
                AttemptRecord(
                    number: number, start: now, duration: .zero, delayBefore: delayBefore, error: rejection,
                    decision: decision, errorDescription: detail))
            return true
        }
    }

    /// Performs `ask retry budget`: takes a token (granted at once without a budget).
    func askBudget(afterTimeout: Bool) {
        event = .budgetAnswered
        detail = nil
        guard let budget = guards.budget else {
            granted = true
            return
        }
        let cost = budget.acquireRetry(timeout: afterTimeout)
        granted = cost != nil
        if let cost { lastRetryCost = cost }
        detail = granted ? nil : "retry budget exhausted (\(budget.mode.name): \(budget.tokens) tokens left)"
    }

    /// Tells the breaker and the budget how the attempt just made ended. Only retryable failures
    /// speak of the server's health; a definite answer or a cancellation does not.
    private func reportToGuards() {
        let healthFailure = (event == .failed || event == .attemptTimedOut) && decision.isRetryable
        if let breaker = guards.breaker, let ticket {
            breaker.record(ticket, event == .succeeded ? .success : (healthFailure ? .failure : .abandoned))
        }
        ticket = nil
        if let budget = guards.budget {
            if event == .succeeded {
                budget.recordSuccess(refund: lastRetryCost)
            } else if healthFailure {
                budget.recordFailure()
            }
        }
    }

    func notifyRetry(attempt: Int, delay: Duration) {
        if let onRetry = engine.onRetry, let lastError {
            onRetry(RetryNotice(attempt: attempt, error: lastError, delay: delay, remainingAttempts: policy.maxAttempts - attempt))
        }
        delayBefore = delay
    }

    func willSleep() {
        inFlight = nil  // a finished attempt's task is not kept through the wait
        detail = nil
        decision = .retry
    }

    func outcome(state: RetryState, reason: StopReason, at now: Duration) -> RetryOutcome<Value> {
        RetryOutcome(finalState: state, reason: reason, value: lastValue, attempts: attempts, trace: trace, duration: now)
    }
}

/// The engine's hooks, without its clock type.
private struct EngineHooks {
    let onRetry: (@Sendable (RetryNotice) -> Void)?
    let onTransition: (@Sendable (RetryTrace.Step) -> Void)?
    let describeError: @Sendable (any Error) -> String
}
