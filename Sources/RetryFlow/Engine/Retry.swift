/// The async engine: runs any operation under a ``RetryPolicy`` by driving the retry machine (the
/// table with its rules).
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
    public var policy: RetryPolicy
    /// The clock all waits, timeouts and trace times use.
    public var clock: C
    /// Seeds each run's jitter: run k draws from a generator seeded with this generator's k-th number,
    /// so concurrent runs differ and a ``SeededRandom`` replays every run.
    public var random: any RandomNumberGenerator & Sendable {
        didSet { randomness = RunRandomness.drawing(from: random) }
    }
    /// Hands each run its own generator; shared by copies of this engine (one run counter).
    var randomness: RunRandomness
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
    public var runsAttemptsInline: Bool
    /// Set (with `runsAttemptsInline`) when the operation also ends at once when
    /// ``AttemptInterrupt/current`` fires: then timed attempts run inline too, their timer ending
    /// them through it (the HTTP transport; see ``AttemptInterrupt`` for why).
    package var interruptsInlineAttempts = false
    /// Asked about each error an attempt throws: whether the attempt made progress first (the
    /// download driver's transfer table decides, by its `made progress` guard). Then the machine
    /// hears `failed after progress`, whose row starts the attempt count and the backoff over.
    /// `nil` (the default): no attempt makes progress.
    package var madeProgress: (@Sendable (any Error) -> Bool)?
    /// The fleet's shared guards every run of this engine answers to (retry budget, circuit breaker);
    /// none by default.
    public var guards: FleetGuards

    /// An engine for `policy` on `clock`, with every option (each documented on its property).
    public init(
        _ policy: RetryPolicy = .default, clock: C,
        random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
        onRetry: (@Sendable (RetryNotice) -> Void)? = nil,
        onTransition: (@Sendable (RetryTrace.Step) -> Void)? = nil,
        describeError: @escaping @Sendable (any Error) -> String = { String(describing: $0) },
        runsAttemptsInline: Bool = false, guards: FleetGuards = FleetGuards()
    ) {
        self.policy = policy
        self.clock = clock
        self.random = random
        self.randomness = RunRandomness.drawing(from: random)
        self.onRetry = onRetry
        self.describeError = describeError
        self.onTransition = onTransition
        self.runsAttemptsInline = runsAttemptsInline
        self.guards = guards
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
        try policy.validate()
        // Without a result classifier, `retryIf` is all that can name a step; a caller that passes one
        // (the HTTP surfaces, with their status rules) checks what it names itself.
        if classifyResult == nil { try policy.validateSteps(named: policy.stepsNamedByClassifier) }
        let driver = RunDriver(
            engine: self, transitions: transitions, classifyResult: classifyResult, operation: operation,
            cancelled: Task.isCancelled)
        return await driver.run()
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
