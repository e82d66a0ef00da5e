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
///
/// Everything an engine can be told is an argument of its initialiser (one place to read), and a
/// property of the same name: it is a value, so copy it and change a field like a ``RetryPolicy``.
public struct Retry<C: Clock>: Sendable where C.Duration == Duration {
    /// The policy for every run of this engine.
    public var policy: RetryPolicy {
        get { settings.policy }
        set { unique().policy = newValue }
    }
    /// The clock all waits, timeouts and trace times use.
    public var clock: C {
        get { settings.clock }
        set { unique().clock = newValue }
    }
    /// Seeds each run's jitter: run k draws from a generator seeded with this generator's k-th number,
    /// so concurrent runs differ and a ``SeededRandom`` replays every run.
    public var random: any RandomNumberGenerator & Sendable {
        get { settings.random }
        set {
            let settings = unique()
            settings.random = newValue
            settings.randomness = RunRandomness.drawing(from: newValue)
        }
    }
    /// Hands each run its own generator; shared by copies of this engine (one run counter).
    var randomness: RunRandomness { settings.randomness }
    /// Called before each retry with the failed attempt, its error and the coming delay.
    public var onRetry: (@Sendable (RetryNotice) -> Void)? {
        get { settings.onRetry }
        set { unique().onRetry = newValue }
    }
    /// Turns an attempt's error into the words kept in the trace (drivers redact secrets here).
    public var describeError: @Sendable (any Error) -> String {
        get { settings.describeError }
        set { unique().describeError = newValue }
    }
    /// Called with every transition as it is taken (the state of a task object, a live display).
    public var onTransition: (@Sendable (RetryTrace.Step) -> Void)? {
        get { settings.onTransition }
        set { unique().onTransition = newValue }
    }
    /// Set when the operation ends at once on cancellation (throwing `CancellationError`): attempts
    /// with no timer (no per-attempt timeout, no deadline) then run in the engine's own task,
    /// saving a task and two thread hops per attempt. Otherwise each attempt runs in a child task
    /// raced against its timer and the caller's cancellation, so a slow-to-cancel operation (URLSession
    /// on Linux takes ~200 ms) never delays the caller. Default `false`.
    public var runsAttemptsInline: Bool {
        get { settings.runsAttemptsInline }
        set { unique().runsAttemptsInline = newValue }
    }
    /// Set (with `runsAttemptsInline`) when the operation also ends at once when
    /// ``AttemptInterrupt/current`` fires: then timed attempts run inline too, their timer ending
    /// them through it (the HTTP transport; see ``AttemptInterrupt`` for why).
    package var interruptsInlineAttempts: Bool {
        get { settings.interruptsInlineAttempts }
        set { unique().interruptsInlineAttempts = newValue }
    }
    /// Asked about each error an attempt throws: whether the attempt made progress first (the
    /// download driver's transfer table decides, by its `made progress` guard). Then the machine
    /// hears `failed after progress`, whose row starts the attempt count and the backoff over.
    /// `nil` (the default): no attempt makes progress.
    package var madeProgress: (@Sendable (any Error) -> Bool)? {
        get { settings.madeProgress }
        set { unique().madeProgress = newValue }
    }
    /// The fleet's shared guards every run of this engine answers to (retry budget, circuit breaker);
    /// none by default.
    public var guards: FleetGuards {
        get { settings.guards }
        set { unique().guards = newValue }
    }

    /// Every setting, in one reference: callers hold an engine across `await engine.run { … }`, and a
    /// parked run's task keeps the task-allocator slabs its deepest async frames took, so the engine
    /// is 8 bytes in those frames instead of ~300 (docs/benchmarks.md, waiting-memory). A value all
    /// the same: copied on write, like an array.
    private var settings: Settings

    /// The settings, not shared with another engine, to change one.
    private mutating func unique() -> Settings {
        if !isKnownUniquelyReferenced(&settings) { settings = settings.copy() }
        return settings
    }

    /// Never changed while shared (``unique()`` copies first), so sending it between tasks is safe.
    private final class Settings: @unchecked Sendable {
        var policy: RetryPolicy
        var clock: C
        var random: any RandomNumberGenerator & Sendable
        var randomness: RunRandomness
        var onRetry: (@Sendable (RetryNotice) -> Void)?
        var describeError: @Sendable (any Error) -> String
        var onTransition: (@Sendable (RetryTrace.Step) -> Void)?
        var runsAttemptsInline: Bool
        var interruptsInlineAttempts = false
        var madeProgress: (@Sendable (any Error) -> Bool)?
        var guards: FleetGuards

        init(
            policy: RetryPolicy, clock: C, random: any RandomNumberGenerator & Sendable, randomness: RunRandomness,
            onRetry: (@Sendable (RetryNotice) -> Void)?, describeError: @escaping @Sendable (any Error) -> String,
            onTransition: (@Sendable (RetryTrace.Step) -> Void)?, runsAttemptsInline: Bool, guards: FleetGuards
        ) {
            self.policy = policy
            self.clock = clock
            self.random = random
            self.randomness = randomness
            self.onRetry = onRetry
            self.describeError = describeError
            self.onTransition = onTransition
            self.runsAttemptsInline = runsAttemptsInline
            self.guards = guards
        }

        func copy() -> Settings {
            let copy = Settings(
                policy: policy, clock: clock, random: random, randomness: randomness, onRetry: onRetry,
                describeError: describeError, onTransition: onTransition, runsAttemptsInline: runsAttemptsInline,
                guards: guards)
            copy.interruptsInlineAttempts = interruptsInlineAttempts
            copy.madeProgress = madeProgress
            return copy
        }
    }

    /// An engine for `policy` on `clock`, with every option (each documented on its property).
    public init(
        _ policy: RetryPolicy = .default, clock: C,
        random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
        onRetry: (@Sendable (RetryNotice) -> Void)? = nil,
        onTransition: (@Sendable (RetryTrace.Step) -> Void)? = nil,
        describeError: @escaping @Sendable (any Error) -> String = { String(describing: $0) },
        runsAttemptsInline: Bool = false, guards: FleetGuards = FleetGuards()
    ) {
        self.settings = Settings(
            policy: policy, clock: clock, random: random, randomness: RunRandomness.drawing(from: random),
            onRetry: onRetry,
            describeError: describeError, onTransition: onTransition, runsAttemptsInline: runsAttemptsInline,
            guards: guards)
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
        try await self.outcome(classifyResult: classifyResult, operation).get()
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
        return try await driver(transitions: transitions, classifyResult: classifyResult, operation: operation).run()
    }

    /// A run's driver, made synchronously: what it copies from this engine (the policy, the hooks) is
    /// copied on the thread's stack, not into the awaiting async frame, which a parked run keeps.
    @inline(never)
    private func driver<Value: Sendable>(
        transitions: AsyncStream<RetryTrace.Step>.Continuation?, classifyResult: (@Sendable (Value) -> RetryVerdict?)?,
        operation: @escaping @Sendable (RetryAttempt) async throws -> Value
    ) throws(RetryPolicyError) -> RunDriver<Value> {
        try policy.validate()
        // Without a result classifier, `retryIf` is all that can name a step; a caller that passes one
        // (the HTTP surfaces, with their status rules) checks what it names itself.
        if classifyResult == nil { try policy.validateSteps(named: policy.stepsNamedByClassifier) }
        return RunDriver<Value>(
            engine: self, time: ClockTime(clock: clock, start: clock.now), transitions: transitions,
            classifyResult: classifyResult, operation: operation, cancelled: Task.isCancelled)
    }
}

extension Retry {
    /// An engine for a policy with its fleet's shared budget and breaker, on `clock`.
    public init(
        _ resilience: Resilience, clock: C,
        random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
        onRetry: (@Sendable (RetryNotice) -> Void)? = nil
    ) {
        self.init(resilience.policy, clock: clock, random: random, onRetry: onRetry, guards: resilience.guards)
    }
}

extension Retry where C == ContinuousClock {
    /// An engine for `policy` on the real clock, with every option.
    public init(
        _ policy: RetryPolicy = .default,
        random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
        onRetry: (@Sendable (RetryNotice) -> Void)? = nil,
        onTransition: (@Sendable (RetryTrace.Step) -> Void)? = nil,
        describeError: @escaping @Sendable (any Error) -> String = { String(describing: $0) },
        runsAttemptsInline: Bool = false, guards: FleetGuards = FleetGuards()
    ) {
        self.init(
            policy, clock: ContinuousClock(), random: random, onRetry: onRetry, onTransition: onTransition,
            describeError: describeError, runsAttemptsInline: runsAttemptsInline, guards: guards)
    }
}

/// What the driver awaits next, as ``RunDriver/advance(now:)`` says.
private enum RunNext {
    /// Run this attempt.
    case attempt(Int)
    /// Sleep until this instant after the run's start.
    case sleep(until: Duration)
    /// Run the user's step.
    case step(RetryStep.ID)
    /// The run is over.
    case finished(RetryState, StopReason, at: Duration)
}

/// One run's driver: the machine, the trace, the attempt records and the next event. Used by
/// one task only (the run's), never shared.
private final class RunDriver<Value: Sendable> {
    let engine: EngineHooks
    /// The engine's clock as this run sees it: time since the start, waits, timers.
    let time: any RunTime
    /// The policy, read from the machine (no second copy of its 176 bytes in every parked run).
    var policy: RetryPolicy { machine.policy }
    let transitions: AsyncStream<RetryTrace.Step>.Continuation?
    var machine: RetryMachine
    var trace = RetryTrace()
    var attempts: [AttemptRecord] = []
    /// Every visit of a user step, in order.
    var steps: [StepRecord] = []
    /// What the user's steps produced, merged: each attempt after them receives it.
    var values = RetryStep.Values()
    var lastValue: Value?
    var lastError: (any Error)?
    var delayBefore: Duration = .zero
    var inFlight: AttemptRace<Value>?
    /// The next input to deliver (the driver holds no other copy of the machine's state).
    var pending: RetryInput
    /// The actions of the last step, performed in order from `nextAction`.
    private var actions = RetryActions()
    private var nextAction = 0
    /// When the last step was decided: its waits are anchored there.
    private var decidedAt: Duration = .zero
    let operation: @Sendable (RetryAttempt) async throws -> Value
    let classifyResult: (@Sendable (Value) -> RetryVerdict?)?
    let runsAttemptsInline: Bool
    let interruptsInlineAttempts: Bool
    let madeProgress: (@Sendable (any Error) -> Bool)?
    // The fleet's guards, and what this run holds from them: the breaker's ticket for the attempt in
    // flight, the tokens its last retry took (AWS gives them back on success).
    let guards: FleetGuards
    var ticket: CircuitTicket?
    var lastRetryTicket: RetryBudgetTicket?
    /// The limiter's refusal of the try it is pacing: the attempt's error if the token goes back.
    var pacedBy: RateLimitRefusal?
    /// The token reserved for the try being paced, until its wait (`token wait`) is over.
    var reservation: TokenReservation?

    init<C: Clock<Duration>>(
        engine: Retry<C>, time: any RunTime, transitions: AsyncStream<RetryTrace.Step>.Continuation?,
        classifyResult: (@Sendable (Value) -> RetryVerdict?)?,
        operation: @escaping @Sendable (RetryAttempt) async throws -> Value, cancelled: Bool
    ) {
        self.engine = EngineHooks(
            onRetry: engine.onRetry, onTransition: engine.onTransition, describeError: engine.describeError)
        self.time = time
        self.transitions = transitions
        self.operation = operation
        self.classifyResult = classifyResult
        self.runsAttemptsInline = engine.runsAttemptsInline
        self.interruptsInlineAttempts = engine.interruptsInlineAttempts
        self.madeProgress = engine.madeProgress
        let policy = engine.policy // one copy of the policy (each read of `engine.policy` is one)
        self.machine = RetryMachine(
            policy: policy, waitsOutBreak: engine.guards.whenCircuitOpen == .waitOutBreak,
            waitsForToken: engine.guards.whenRateLimited == .waitForToken, table: policy.table,
            random: engine.randomness.nextRun())
        self.guards = engine.guards
        self.pending = cancelled ? .cancelled(detail: nil) : .start
        // No reserve: the trace grows by whole steps as they come (`deliver`), so a parked run holds about
        // the steps it took (10,000 parked runs add up).
    }

    /// The loop: perform what the machine asks, one await at a time. Everything a run keeps lives
    /// here on the heap (machine, trace, records, the step's actions, the operation, the clock),
    /// so the async frame kept through a wait holds only this driver. A parked run also keeps the
    /// task-allocator slabs its deepest chain of async frames ever took: so each way of running an
    /// attempt is a function of its own called from here, and no frame holds the clock's generic
    /// instants (``RunTime``).
    func run() async -> RetryOutcome<Value> {
        while true {
            switch advance(now: time.elapsed()) {
            case .attempt(let number):
                if beginAttempt(number, at: time.elapsed()) {
                    await inlineAttempt()
                } else {
                    await racedAttempt()
                }
            case .sleep(let until):
                // Anchored at the decision, not started after the hooks: a wait the machine
                // planned to end before the deadline ends before it, whatever the hooks cost.
                do {
                    try await sleep(until: until)
                    pending = .delayElapsed
                } catch {
                    pending = .cancelled(detail: nil)
                }
            case .step(let id):
                await runStep(id)
            case .finished(let state, let reason, let at):
                return outcome(state: state, reason: reason, at: at)
            }
        }
    }

    /// Sleeps until `until`; the wait for a reserved token (`token wait`) ends sooner when the
    /// limiter's rate grew enough meanwhile (``AdaptiveRateLimiter/nextWake(for:now:until:)``).
    private func sleep(until: Duration) async throws {
        guard let reservation, let limiter = guards.limiter else { return try await time.sleep(until: until) }
        self.reservation = nil
        while let wake = limiter.nextWake(for: reservation, now: time.elapsed(), until: until) {
            try await time.sleep(until: wake)
        }
    }

    /// Runs the action of the user's step `id` in this task, keeps what it produced for the attempts
    /// after it, and makes the next input the exit it ended in, `step failed`, or `cancelled`.
    @inline(never)
    private func runStep(_ id: RetryStep.ID) async {
        guard let step = policy.steps.first(where: { $0.id == id }) else {
            // validate() gives every step state an action; a table changed since cannot reach here.
            preconditionFailure("no action for the step '\(id.name)': validate() the policy")
        }
        let visit = 1 + steps.filter { $0.name == id.name }.count
        let context = RetryStep.Context(attempt: attempt.number, error: lastError, values: values, visit: visit)
        let started = time.elapsed()
        var error: (any Error)?
        var exit: RetryStep.Exit?
        do {
            let output = try await step.action(context)
            if step.exits.contains(output.exit) {
                values.merge(output.values, from: id)
                exit = output.exit
                error = output.error
                pending = .stepExit(output.exit, detail: output.error.map(engine.describeError))
            } else {
                // An exit no row routes: the step failed, and what it produced is not kept.
                let wrong = UnknownStepExit(step: id, exit: output.exit, exits: step.exits)
                error = wrong
                pending = .stepFailed(detail: wrong.description)
            }
        } catch let thrown {
            error = thrown
            if RetryClassifier.isCancellation(thrown) || Task.isCancelled {
                pending = .cancelled(detail: engine.describeError(thrown))
            } else {
                pending = .stepFailed(detail: engine.describeError(thrown))
            }
        }
        steps.append(
            StepRecord(name: id.name, start: started, duration: time.elapsed() - started, exit: exit, error: error))
    }

    /// The attempt begun, in this task: untimed, or ended by its timer through ``AttemptInterrupt``.
    /// Not inlined: its locals live only while the attempt does.
    @inline(never)
    private func inlineAttempt() async {
        let end: AttemptEnd<Value>
        if let timer = attempt.timer {
            end = await interruptibleAttempt(timerAt: timer.at)
        } else {
            do {
                end = .returned(try await operation(attemptInfo()))
            } catch {
                end = .threw(error)
            }
        }
        attemptEnded(end, now: time.elapsed(), cancelled: Task.isCancelled)
    }

    /// The attempt begun, in a task of its own, raced against its timer and the run's cancellation.
    @inline(never)
    private func racedAttempt() async {
        let race = AttemptRace.start(
            timerAt: attempt.timer?.at, time: time, attempt: attemptInfo(), operation: operation)
        inFlight = race
        attemptEnded(await race.end(), now: time.elapsed(), cancelled: Task.isCancelled)
    }

    /// Runs a timed attempt in this task: its timer ends it through ``AttemptInterrupt``, a
    /// cancellation of this task through the operation's own cancellation handler. Whichever ends
    /// the operation first decides, at that moment (an answer that arrived first is kept).
    private func interruptibleAttempt(timerAt: Duration) async -> AttemptEnd<Value> {
        let time = self.time
        let interrupt = AttemptInterrupt(due: { time.elapsed() >= timerAt })
        let timer = time.arm(at: timerAt) { interrupt.fire() }
        defer { timer.disarm() }
        let operation = self.operation
        let attempt = attemptInfo()
        let result: Result<Value, any Error>
        do {
            result = .success(try await AttemptInterrupt.$current.withValue(interrupt) { try await operation(attempt) })
        } catch {
            result = .failure(error)
        }
        if Task.isCancelled, case .failure = result { return .cancelled }
        if interrupt.fired { return .timerFired }
        switch result {
        case .success(let value): return .returned(value)
        case .failure(let error): return .threw(error)
        }
    }

    /// Performs the step's actions that need no waiting, delivering the pending input when none is
    /// left, up to the first that does: an attempt, a wait, or the end. `now` is the run's clock.
    func advance(now: Duration) -> RunNext {
        while true {
            if nextAction == actions.count {
                // The instant the machine decides at: every wait it plans is anchored here.
                decidedAt = now
                // An event with no row ends the run in `failure`: a run always ends in a terminal state.
                guard let step = deliver(at: now) else { return .finished(.failure, .invalidTransition, at: now) }
                actions = step
                nextAction = 0
                continue
            }
            let action = actions[nextAction]
            nextAction += 1
            switch action {
            case .startAttempt(let number):
                return .attempt(number)
            case .askLimiter:
                askLimiter()
            case .returnToken:
                returnToken(now: now)
            case .askBreaker(let number):
                askBreaker(number, now: now)
            case .cancelAttempt:
                inFlight?.operationTask?.cancel()
                inFlight = nil
            case .reportHealth(let result, let throttled):
                reportHealth(result, throttled: throttled)
            case .askRetryBudget(let afterTimeout):
                askBudget(afterTimeout: afterTimeout)
            case .notifyRetry(let attempt, let delay):
                notifyRetry(attempt: attempt, delay: delay)
            case .sleep(let delay):
                inFlight = nil // a finished attempt's task is not kept through the wait
                return .sleep(until: decidedAt + delay)
            case .runStep(let id):
                inFlight = nil
                return .step(id)
            case .finish(let state, let reason):
                return .finished(state, reason, at: now)
            }
        }
    }

    /// Delivers the pending event; the actions to perform, or `nil` for an event with no row.
    private func deliver(at now: Duration) -> RetryActions? {
        do {
            let step = try machine.handle(pending, at: now)
            // Room for the whole step at once, doubling as `append` would, and 4 steps at first: a run
            // that succeeds at once takes 3 (growing from nothing took 3 allocations for them; this
            // takes 1), and a run parked at its first wait holds 6 (the breaker's `admitted` row is
            // one), a buffer of 8 either way.
            let needed = trace.steps.count + step.rows.count
            if trace.steps.capacity < needed {
                trace.steps.reserveCapacity(max(needed, 2 * trace.steps.capacity, 4))
            }
            for index in step.rows.indices {
                record(step.traceStep(index, detail: index == 0 ? pending.detail : nil))
            }
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

    /// The attempt in flight, as ``beginAttempt(_:at:)`` set it: its number, its timer, its start.
    private(set) var attempt = (number: 0, timer: AttemptTimer?.none, started: Duration.zero)

    /// Begins attempt `number` at `now` (time since the run started); whether it runs in the run's
    /// own task (inline: untimed, or interrupted by its timer) rather than in a task of its own.
    /// Synchronous, so the policy it reads for the timer is copied on the thread's stack, never into
    /// an async frame.
    @inline(never)
    func beginAttempt(_ number: Int, at now: Duration) -> Bool {
        let timer = policy.attemptTimer(startingAt: now)
        attempt = (number, timer, now)
        return runsAttemptsInline && (timer == nil || interruptsInlineAttempts)
    }

    /// What the operation is told of the attempt in flight.
    func attemptInfo() -> RetryAttempt {
        RetryAttempt(number: attempt.number, maxAttempts: policy.maxAttempts, previousError: lastError, values: values)
    }

    /// Turns how the attempt ended into the next input and the attempt's record.
    func attemptEnded(_ end: AttemptEnd<Value>, now: Duration, cancelled: Bool) {
        let (number, timer, started) = attempt
        let error: (any Error)?
        var decision = RetryDecision.fail
        var returned = false
        let describe = engine.describeError
        switch end {
        case .returned(let value):
            lastValue = value
            returned = true
            if let verdict = classifyResult?(value) {
                let rejected = RejectedResult(verdict.description)
                error = rejected
                decision = verdict.decision
                pending = .failed(decision, detail: describe(rejected), throttled: verdict.throttled)
            } else {
                error = nil
                pending = .succeeded
            }
        case .threw(let thrown):
            error = thrown
            if RetryClassifier.isCancellation(thrown) && cancelled {
                pending = .cancelled(detail: describe(thrown))
            } else {
                decision = policy.retryIf.decision(for: thrown)
                pending =
                    madeProgress?(thrown) == true
                    ? .failedAfterProgress(decision, detail: describe(thrown))
                    : .failed(decision, detail: describe(thrown))
            }
        case .timerFired where timer?.kind == .deadline:
            let passed = DeadlineExceeded(deadline: policy.deadline ?? .zero)
            error = passed
            pending = .deadlineExceeded(detail: describe(passed))
        case .timerFired:
            let timeout = AttemptTimeout(timeout: policy.perAttemptTimeout ?? .zero)
            error = timeout
            decision = policy.retryIf.decision(for: timeout)
            pending = .attemptTimedOut(decision, detail: describe(timeout))
        case .cancelled:
            error = CancellationError()
            pending = .cancelled(detail: describe(CancellationError()))
        }
        lastError = error
        attempts.append(
            AttemptRecord(
                number: number, start: started, duration: now - started, delayBefore: delayBefore, error: error,
                decision: error == nil ? nil : decision, errorDescription: pending.detail, returnedValue: returned))
    }

    /// Performs `ask breaker` for the try that would be attempt `number`: `admitted` at once without
    /// a breaker; else the breaker's answer. A refusal is kept with the attempts (its error is the
    /// run's to report, under the number the attempt would have had) and makes the next input
    /// `circuit open`, the break's rest as a Retry-After; the table's rows decide what follows.
    func askBreaker(_ number: Int, now: Duration) {
        // A table of the user's may leave an attempt unreported: its ticket is given back, never held.
        if let held = ticket { guards.breaker?.record(held, .abandoned) }
        ticket = nil
        guard let breaker = guards.breaker else {
            pending = .admitted
            return
        }
        switch breaker.ask() {
        case .admitted(let admitted):
            ticket = admitted
            pending = .admitted
        case .rejected(let rejection):
            let decision = rejection.remainingBreak.map { RetryDecision.retryAfter($0) } ?? .retry
            pending = .circuitOpen(decision, detail: rejection.description)
            lastError = rejection
            attempts.append(
                AttemptRecord(
                    number: number, start: now, duration: .zero, delayBefore: delayBefore, error: rejection,
                    decision: decision, errorDescription: rejection.description, returnedValue: false))
        }
    }

    /// Performs `ask limiter`: `token granted` at once without a limiter; else the limiter's answer,
    /// a token now or one reserved for later (`rate limited`, with the wait until it is due).
    func askLimiter() {
        pacedBy = nil
        reservation = nil
        guard let limiter = guards.limiter else {
            pending = .tokenGranted
            return
        }
        switch limiter.reserve() {
        case (.granted, _):
            pending = .tokenGranted
        case (.wait(let wait), let reserved):
            let refusal = RateLimitRefusal(wait: wait, fillRate: limiter.fillRate)
            pacedBy = refusal
            reservation = reserved
            pending = .rateLimited(wait: wait, detail: refusal.description)
        }
    }

    /// Performs `return token`: the try the limiter paced will not be sent. Its token goes back,
    /// and the refusal is kept with the attempts (under the number the attempt would have had).
    func returnToken(now: Duration) {
        guard let refusal = pacedBy else { return }
        pacedBy = nil
        reservation = nil
        guards.limiter?.withdraw()
        lastError = refusal
        attempts.append(
            AttemptRecord(
                number: machine.attempt + 1, start: now, duration: .zero, delayBefore: delayBefore, error: refusal,
                decision: .fail, errorDescription: refusal.description, returnedValue: false))
    }

    /// Performs `ask retry budget`: takes a token (granted at once without a budget).
    func askBudget(afterTimeout: Bool) {
        guard let budget = guards.budget else {
            pending = .budgetAnswered(granted: true, detail: nil)
            return
        }
        switch budget.ask(afterTimeout: afterTimeout) {
        case .granted(let ticket):
            lastRetryTicket = ticket
            pending = .budgetAnswered(granted: true, detail: nil)
        case .refused:
            let refusal = "retry budget exhausted (\(budget.mode.name): \(budget.tokens) tokens left)"
            pending = .budgetAnswered(granted: false, detail: refusal)
        }
    }

    /// Performs `report health`: the breaker records the attempt's ticket, the limiter measures the
    /// answer (slowing down for a throttle), the budget records its success (refunding the last
    /// retry's tokens, as AWS does) or its failure. The machine chose the result.
    private func reportHealth(_ result: CircuitResult, throttled: Bool) {
        if let breaker = guards.breaker, let ticket { breaker.record(ticket, result) }
        ticket = nil
        guards.limiter?.record(throttled: throttled)
        guard let budget = guards.budget else { return }
        switch result {
        case .success: budget.record(.success(refunding: lastRetryTicket))
        case .failure: budget.record(.failure)
        case .abandoned: break
        }
    }

    func notifyRetry(attempt: Int, delay: Duration) {
        if let onRetry = engine.onRetry, let lastError {
            onRetry(
                RetryNotice(
                    attempt: attempt, error: lastError, delay: delay,
                    remainingAttempts: policy.maxAttempts - machine.core.rules.attemptInSeries))
        }
        delayBefore = delay
    }

    func outcome(state: RetryState, reason: StopReason, at now: Duration) -> RetryOutcome<Value> {
        if let held = ticket { guards.breaker?.record(held, .abandoned) }
        // Debug builds (and so every test) check each run against the table it ran.
        assert(
            reason == .invalidTransition || trace.isConsistent(with: machine.table),
            "trace disagrees with the table: \(trace.inconsistencies(with: machine.table))")
        return RetryOutcome(
            finalState: state, reason: reason, value: lastValue, attempts: attempts, steps: steps, trace: trace,
            duration: now)
    }
}

/// The engine's hooks, without its clock type.
private struct EngineHooks {
    let onRetry: (@Sendable (RetryNotice) -> Void)?
    let onTransition: (@Sendable (RetryTrace.Step) -> Void)?
    let describeError: @Sendable (any Error) -> String
}
