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
