/// The retry machine: pure, a value, driven by events. It finds each transition in
/// ``TransitionTable/retry`` (or another table of the same vocabulary) and returns the actions to
/// perform; it performs no I/O and reads no clock (times come in with the events).
///
/// ```swift
/// var machine = RetryMachine(policy: .default, random: SeededRandom(seed: 1))
/// let step = try machine.handle(.start, at: .zero)   // actions: [.startAttempt(1)]
/// ```
public struct RetryMachine: Sendable {
    /// What one call to ``handle(_:at:decision:detail:)`` did: the transitions taken (the event's
    /// row, then the completion row of a decision state, if entered) and the actions to perform.
    public struct Step: Hashable, Sendable {
        /// The row triggered by the event.
        public var transition: RetryTrace.Step
        /// The completion row taken after it, when the event entered a decision state.
        public var completion: RetryTrace.Step?
        /// What the driver must do, in order.
        public var actions: RetryActions
    }

    /// The table this machine executes.
    public let table: RetryTable
    /// The policy its guards and delays consult.
    public let policy: RetryPolicy
    /// The current state.
    public private(set) var state: RetryState
    /// How many attempts have started.
    public private(set) var attempt = 0
    /// The last delay actually waited (decorrelated jitter grows from it).
    public private(set) var previousDelay: Duration?
    /// Whether a refused attempt waits out an open circuit's break (the `waits out break` guard).
    public var waitsOutBreak = true

    private var random: AnyRandom
    private var decision: RetryDecision = .retry
    private var pendingDelay: Duration = .zero
    private var now: Duration = .zero
    private var budgetGranted = true
    private var lastFailureTimedOut = false

    /// A machine in the table's initial state. `random` drives jitter; pass a ``SeededRandom`` to replay.
    public init(
        policy: RetryPolicy, table: RetryTable = .retry,
        random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()
    ) {
        self.policy = policy
        self.table = table
        self.state = table.initial
        self.random = AnyRandom(random)
    }

    /// Whether the run is over.
    public var isFinished: Bool { table.isTerminal(state) }

    /// Delivers `event`, which happened `at` (time since the run started), and moves by the table.
    ///
    /// - Parameters:
    ///   - event: what happened.
    ///   - time: when, since the run started (the machine reads no clock).
    ///   - decision: for `failed` and `attemptTimedOut`, the classifier's verdict on the failure.
    ///   - detail: words for the trace (e.g. the error), already redacted.
    ///   - granted: for `budgetAnswered`, whether the retry budget granted the retry.
    /// - Throws: ``InvalidTransition`` when the table has no row for `event` in the current state;
    ///   the machine is left unchanged.
    public mutating func handle(
        _ event: RetryEvent, at time: Duration, decision: RetryDecision = .retry, detail: String? = nil,
        granted: Bool = true
    ) throws(InvalidTransition) -> Step {
        now = time
        // The budget's answer keeps the failure's verdict: the wait it decided is still to come.
        if event == .budgetAnswered {
            budgetGranted = granted
        } else {
            self.decision = decision
            lastFailureTimedOut = event == .attemptTimedOut
        }
        let before = facts
        guard let index = table.rowIndex(from: state, on: event, evaluate: { before.holds($0) }) else {
            throw InvalidTransition(state: state, event: event, at: time)
        }
        var actions = RetryActions()
        let taken = take(table.rows[index], actions: &actions, detail: detail)
        var completion: RetryTrace.Step?
        // A decision state is left at once by its first completion row whose guard holds.
        if !table.completionRows[index].isEmpty {
            computePendingDelay()
            let decided = facts
            if let next = table.completionRowIndex(after: index, evaluate: { decided.holds($0) }) {
                completion = take(table.rows[next], actions: &actions, detail: nil)
            }
        }
        return Step(transition: taken, completion: completion, actions: actions)
    }

    private mutating func take(_ row: RetryTable.Row, actions: inout RetryActions, detail: String?) -> RetryTrace.Step {
        let from = state
        state = row.to
        var stepDelay: Duration?
        for effect in row.effects {
            switch effect {
            case .startAttempt:
                attempt += 1
                actions.append(.startAttempt(attempt))
            case .cancelAttempt:
                actions.append(.cancelAttempt)
            case .notifyRetry:
                stepDelay = pendingDelay
                actions.append(.notifyRetry(attempt: attempt, delay: pendingDelay))
            case .askRetryBudget:
                actions.append(.askRetryBudget(afterTimeout: lastFailureTimedOut))
            case .sleep:
                stepDelay = pendingDelay
                if case .retryAfter = decision {} else { previousDelay = pendingDelay }
                actions.append(.sleep(pendingDelay))
            case .finish:
                actions.append(.finish(state: row.to, reason: StopReason(endingRow: row)))
            }
        }
        return RetryTrace.Step(
            from: from, event: row.event, condition: row.condition, to: row.to, at: now, attempt: attempt,
            delay: stepDelay, detail: detail)
    }

    /// The delay the next wait would last: the server's Retry-After, or the policy's backoff.
    private mutating func computePendingDelay() {
        switch decision {
        case .retryAfter(let asked): pendingDelay = max(.zero, asked)
        case .retry: pendingDelay = policy.delay(beforeRetry: attempt, previous: previousDelay, using: &random)
        case .fail: pendingDelay = .zero
        }
    }

    /// The answers to every guard, from the machine's current knowledge: a small value, so the
    /// lookup's guard closure captures no copy of the machine.
    private var facts: GuardFacts {
        var deadlineHolds = true
        if let deadline = policy.deadline { deadlineHolds = now + pendingDelay < deadline }
        var capHolds = true
        if case .retryAfter(let asked) = decision { capHolds = asked <= policy.maxRetryAfter }
        return GuardFacts(
            retryable: decision.isRetryable, attemptsLeft: attempt < policy.maxAttempts, retryAfterWithinCap: capHolds,
            withinDeadline: deadlineHolds, retryImmediately: pendingDelay == .zero, retryBudgetLeft: budgetGranted,
            waitsOutBreak: waitsOutBreak)
    }
}

/// Whether each ``RetryGuard`` holds, at one moment of a run.
struct GuardFacts {
    let retryable: Bool
    let attemptsLeft: Bool
    let retryAfterWithinCap: Bool
    let withinDeadline: Bool
    let retryImmediately: Bool
    let retryBudgetLeft: Bool
    let waitsOutBreak: Bool

    func holds(_ guardSymbol: RetryGuard) -> Bool {
        switch guardSymbol {
        case .retryable: retryable
        case .attemptsLeft: attemptsLeft
        case .retryAfterWithinCap: retryAfterWithinCap
        case .withinDeadline: withinDeadline
        case .retryImmediately: retryImmediately
        case .retryBudgetLeft: retryBudgetLeft
        case .waitsOutBreak: waitsOutBreak
        }
    }
}

/// A random generator stored without generics, so the machine stays one concrete type.
struct AnyRandom: RandomNumberGenerator, Sendable {
    private var base: any RandomNumberGenerator & Sendable
    init(_ base: some RandomNumberGenerator & Sendable) { self.base = base }
    mutating func next() -> UInt64 { base.next() }
}
