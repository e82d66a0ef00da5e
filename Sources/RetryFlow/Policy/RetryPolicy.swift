/// When to retry, how long to wait, and when to give up. A value: copy it, change a field, pass it on.
///
/// ```swift
/// var policy = RetryPolicy.default          // 3 attempts, 0.5 s × 2, full jitter, cap 20 s
/// policy.maxAttempts = 5
/// policy.deadline = .seconds(10)
/// ```
///
/// The engine validates the policy before the first attempt and throws ``RetryPolicyError`` naming
/// the bad field. In JSON (its `Codable` form) durations are seconds; the classifier is code and is
/// not encoded (a decoded policy retries every error but cancellation, as ``RetryClassifier/retryAll``).
public struct RetryPolicy: Sendable {
    /// Total attempts, the first included (Alamofire's "2 retries" is `maxAttempts = 3`).
    public var maxAttempts: Int
    /// How delays grow.
    public var backoff: Backoff
    /// The cap on any backoff delay (not on Retry-After, which has ``maxRetryAfter``). A cap below
    /// the backoff's first delay makes every delay the cap (Polly accepts it too). No delay is ever
    /// planned past 1e9 s (about 31 years): a larger cap, or a formula that overflows,
    /// saturates there, as tenacity and Polly saturate.
    public var maxDelay: Duration
    /// The floor under every backoff delay, after the cap and jitter (tenacity's `min=`).
    public var minDelay: Duration
    /// Randomness added to delays.
    public var jitter: Jitter
    /// Whether the first retry's delay is jittered too (`true`); `false` waits exactly the backoff's
    /// first delay, as gRPC's connection backoff does. Later delays are jittered either way.
    public var jittersFirstDelay: Bool
    /// Whether a jitter band around the delay (``Jitter/symmetric(_:)``, ``Jitter/additive(_:)``)
    /// may pass ``maxDelay``: gRPC jitters its capped 120 s by ±20 %, so up to 144 s. `false` (the
    /// default) keeps the cap hard. The decorrelated jitters stay under the cap either way.
    public var jitterMayPassCap: Bool
    /// Time allowed for the whole run, attempts and waits together, from its start; `nil` for none.
    /// The engine never sleeps past it: a wait that would cross it ends the run at once.
    public var deadline: Duration?
    /// Time allowed for one attempt; a slower attempt is cancelled and counts as a retryable timeout.
    public var perAttemptTimeout: Duration?
    /// The longest Retry-After honoured; a server asking for more ends the run at once.
    public var maxRetryAfter: Duration
    /// Which errors are retried.
    public var retryIf: RetryClassifier
    /// The table the engine runs: ``TransitionTable/retry`` unless you reorder its rows, drop the
    /// budget or breaker rows, or add states. Validated with the policy, before the first attempt.
    /// Code, like ``retryIf``: not encoded.
    public var table: RetryTable = .retry
    /// The actions of the table's user steps (``RetryStep``), by name. Not encoded.
    public var steps: [RetryStep] = []

    /// Adds `step`: its action to ``steps`` and its rows to ``table`` (its entry before the other rows
    /// of `retry`, its exits at the end).
    public mutating func add(_ step: RetryStep) {
        steps.append(step)
        table = table.adding(step)
    }

    /// Makes a policy; every argument has the ``default`` policy's value.
    public init(
        maxAttempts: Int = 3,
        backoff: Backoff = .exponential(base: .milliseconds(500), multiplier: 2),
        maxDelay: Duration = .seconds(20),
        jitter: Jitter = .full,
        jittersFirstDelay: Bool = true,
        jitterMayPassCap: Bool = false,
        minDelay: Duration = .zero,
        deadline: Duration? = nil,
        perAttemptTimeout: Duration? = nil,
        maxRetryAfter: Duration = .seconds(300),
        retryIf: RetryClassifier = .retryAll
    ) {
        self.maxAttempts = maxAttempts
        self.backoff = backoff
        self.maxDelay = maxDelay
        self.jitter = jitter
        self.jittersFirstDelay = jittersFirstDelay
        self.jitterMayPassCap = jitterMayPassCap
        self.minDelay = minDelay
        self.deadline = deadline
        self.perAttemptTimeout = perAttemptTimeout
        self.maxRetryAfter = maxRetryAfter
        self.retryIf = retryIf
    }

    /// 3 attempts; exponential 0.5 s × 2, capped at 20 s, full jitter; Retry-After up to 300 s.
    public static let `default` = RetryPolicy()

    /// One attempt, no retry: the machine still runs, so the run has a trace and a chart.
    public static let none = RetryPolicy(maxAttempts: 1, backoff: .constant(.zero), jitter: .none)

    /// The original `retryDataTask(times:wait:)` snippet's behaviour: `times` retries (so `times + 1`
    /// attempts), a constant `wait` with no jitter, every thrown (transport) error retried.
    /// Unlike the snippet, the wait blocks no thread.
    public static func originalSnippet(times: Int = 50, wait: Duration = .milliseconds(200)) -> RetryPolicy {
        RetryPolicy(
            maxAttempts: attempts(retrying: times), backoff: .constant(wait), maxDelay: max(wait, .seconds(20)),
            jitter: .none)
    }

    /// Attempts for `retries` retries: one more, at least 1, and `Int.max` rather than overflowing.
    package static func attempts(retrying retries: Int) -> Int {
        retries < Int.max ? max(0, retries) + 1 : Int.max
    }

    /// Throws ``RetryPolicyError`` naming the first field that cannot work.
    public func validate() throws(RetryPolicyError) {
        guard maxAttempts >= 1 else {
            throw RetryPolicyError(field: "maxAttempts", problem: "must be at least 1 (got \(maxAttempts))")
        }
        try backoff.validate()
        try Self.checkDelay(maxDelay, field: "maxDelay")
        try Self.checkDelay(minDelay, field: "minDelay")
        // A floor over the cap would put every delay past the cap (the policy-json fuzzer found
        // `{"minDelay": 60}` under the 20 s default cap): refused rather than guessed at.
        guard min(minDelay, .policyLimit) <= min(maxDelay, .policyLimit) else {
            throw RetryPolicyError(
                field: "minDelay",
                problem: "must not exceed maxDelay (got \(minDelay.inSeconds) s over a cap of \(maxDelay.inSeconds) s)")
        }
        try jitter.validate()
        if let deadline {
            try Self.check(deadline, field: "deadline")
            guard deadline > .zero else { throw RetryPolicyError(field: "deadline", problem: "must be more than 0 s") }
        }
        if let perAttemptTimeout {
            try Self.check(perAttemptTimeout, field: "perAttemptTimeout")
            guard perAttemptTimeout > .zero else {
                throw RetryPolicyError(field: "perAttemptTimeout", problem: "must be more than 0 s")
            }
        }
        try Self.check(maxRetryAfter, field: "maxRetryAfter")
        try validateTable()
    }

    /// Throws unless `d` is from zero to the policy limit: the one check of every policy duration
    /// (the backoff's too).
    package static func check(_ d: Duration, field: String) throws(RetryPolicyError) {
        guard d >= .zero else {
            throw RetryPolicyError(field: field, problem: "must not be negative (got \(d.inSeconds) s)")
        }
        guard d <= Duration.policyLimit else {
            throw RetryPolicyError(field: field, problem: "is too large (got \(d.inSeconds) s)")
        }
    }

    /// Throws unless the delay `d` is not negative; a delay beyond the policy limit is allowed, as
    /// it saturates there when planned.
    static func checkDelay(_ d: Duration, field: String) throws(RetryPolicyError) {
        guard d >= .zero else {
            throw RetryPolicyError(field: field, problem: "must not be negative (got \(d.inSeconds) s)")
        }
    }

    /// The backoff delay before retry `n` (1-based) with the cap, jitter and floor applied.
    /// `previous` is the last delay actually waited (for decorrelated jitter), `nil` before the first.
    /// ``Jitter/pollyDecorrelated`` also needs its formula's last value: use
    /// `delay(beforeRetry:memory:using:)` for it, with one memory for the run.
    package func delay<R: RandomNumberGenerator>(beforeRetry n: Int, previous: Duration?, using random: inout R)
        -> Duration
    {
        var memory = BackoffMemory(previous: previous)
        return delay(beforeRetry: n, memory: &memory, using: &random)
    }

    /// The backoff delay before retry `n` (1-based) with the cap, jitter and floor applied, read
    /// from and recorded in `memory` (start a run with an empty `BackoffMemory`). Never more than
    /// 1e9 s: a cap or formula beyond saturates there.
    package func delay<R: RandomNumberGenerator>(
        beforeRetry n: Int, memory: inout BackoffMemory, using random: inout R
    ) -> Duration {
        let limit = Duration.policyLimit
        let cap = min(maxDelay, limit).inSeconds
        let capped = min(cap, backoff.seconds(beforeRetry: n))
        let seconds: Double
        if n <= 1 && !jittersFirstDelay {
            seconds = capped
        } else {
            let first = backoff.base.inSeconds
            seconds = jitter.apply(
                capped: capped, base: min(cap, first), firstDelay: first, cap: cap,
                bandCap: jitterMayPassCap ? .infinity : cap, retry: n, memory: &memory, using: &random)
        }
        let planned = Duration.checkedSeconds(min(max(0, seconds), limit.inSeconds)) ?? min(maxDelay, limit)
        let delay = max(min(minDelay, limit), planned)
        memory.previous = delay
        return delay
    }
}
