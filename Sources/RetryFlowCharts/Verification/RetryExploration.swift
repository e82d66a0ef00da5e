import RetryFlow

/// What can happen around a retry run, beyond its policy: whether a shared budget, a circuit
/// breaker or an adaptive rate limiter can refuse or pace, whether servers send Retry-After, whether the classifier can refuse an error,
/// and whether the caller can cancel. ``RetryExploration`` explores every combination it allows.
package struct RetryWorld: Hashable, Sendable {
    /// A shared retry budget can refuse a retry (without one, every retry is granted at once).
    package var budget: Bool
    /// A circuit breaker can refuse an attempt (`circuit open`).
    package var breaker: Bool
    /// What a run refused by the breaker does: wait out the break, or fail.
    package var waitsOutBreak: Bool
    /// An adaptive rate limiter can pace a try (`rate limited`: its token is due later).
    package var limiter: Bool
    /// What a run the limiter paces does: wait for its token, or fail.
    package var waitsForToken: Bool
    /// Servers can ask for a wait with Retry-After (the HTTP rules honour it), within the cap and beyond.
    package var retryAfter: Bool
    /// An answer can be final (the HTTP rules' verdict on a 503 to a request that is not safe to repeat).
    package var finalAnswers: Bool
    /// The classifier can call an error not worth retrying.
    package var refusals: Bool
    /// The caller can cancel in any state it can wait in.
    package var cancellation: Bool

    /// A world; by default no budget, no breaker, no limiter, no Retry-After, no final answers, and
    /// refusals and cancellation possible.
    package init(
        budget: Bool = false, breaker: Bool = false, waitsOutBreak: Bool = true, limiter: Bool = false,
        waitsForToken: Bool = true, retryAfter: Bool = false, finalAnswers: Bool = false, refusals: Bool = true,
        cancellation: Bool = true
    ) {
        self.limiter = limiter
        self.waitsForToken = waitsForToken
        self.finalAnswers = finalAnswers
        self.budget = budget
        self.breaker = breaker
        self.waitsOutBreak = waitsOutBreak
        self.retryAfter = retryAfter
        self.refusals = refusals
        self.cancellation = cancellation
    }

    /// The words of the report's bound line.
    var description: String {
        var parts: [String] = []
        parts.append(budget ? "a budget" : "no budget")
        parts.append(breaker ? "a breaker (\(waitsOutBreak ? "waits out breaks" : "fails fast"))" : "no breaker")
        if limiter { parts.append("a limiter (\(waitsForToken ? "waits for tokens" : "fails when rate limited"))") }
        if retryAfter { parts.append("Retry-After") }
        if finalAnswers { parts.append("final answers") }
        if !refusals { parts.append("every error retryable") }
        if !cancellation { parts.append("no cancellation") }
        return parts.joined(separator: ", ")
    }
}

/// The retry machine explored: every run a policy allows in a ``RetryWorld``, up to its
/// `maxAttempts`, with the invariants "attempts ≤ maxAttempts" and "no planned wait crosses the
/// deadline" besides the shared ones. Jitter is drawn at the middle of its range (the draw never
/// decides a row except `retry immediately`, which a zero backoff reaches).
///
/// ```swift
/// let result = RetryExploration.explore(policy: .default)
/// print(result.text)             // bound, states explored, invariants, coverage
/// ```
package enum RetryExploration {
    /// Explores `table` (the policy's own, `RetryPolicy.table`, with its user steps, by default)
    /// under `policy` in `world`.
    package static func explore(
        _ table: RetryTable? = nil, policy: RetryPolicy, world: RetryWorld = RetryWorld()
    ) -> ExplorationResult<RetryVocabulary> {
        if ExplorationEngine.reference { return exploreReference(table, policy: policy, world: world) }
        let table = table ?? policy.table
        let rules = RetryRules(
            policy: policy, random: AnyRandom(MidRangeRandom()), waitsOutBreak: world.waitsOutBreak,
            waitsForToken: world.waitsForToken)
        let model = RetryModel(policy: policy, world: world, table: table)
        let exact = TableExplorer(table: table, rules: rules, model: model)
        // Under a deadline, nearly every run's time is its own: first the positions without it (each
        // at the earliest time it is reached, every attempt free to take longer), then the concrete
        // runs only until each of their findings is found on one.
        guard let approximate = model.overApproximating(), !ExplorationEngine.exactOnly else { return exact.explore() }
        let over = TableExplorer(table: table, rules: rules, model: approximate).overApproximate { $0.at }
        var result = exact.explore(confirming: over)
        result.statesExplored += over.states
        result.transitionsExplored += over.transitions
        result.storedBytes = max(result.storedBytes, over.storedBytes)
        result.overApproximatedStates = over.states
        result.overApproximatedTransitions = over.transitions
        return result
    }

    /// The same exploration by the explorer as it was before positions were keyed by what the guards
    /// can tell apart (``ReferenceExplorer`` with ``RetryModel/ReferenceKey``): what the tests check
    /// the explorer against, and what `verify-scale` measures it against.
    package static func exploreReference(
        _ table: RetryTable? = nil, policy: RetryPolicy, world: RetryWorld = RetryWorld()
    ) -> ExplorationResult<RetryVocabulary> {
        let table = table ?? policy.table
        let rules = RetryRules(
            policy: policy, random: AnyRandom(MidRangeRandom()), waitsOutBreak: world.waitsOutBreak,
            waitsForToken: world.waitsForToken)
        let model = RetryModel(policy: policy, world: world, table: table)
        return ReferenceExplorer(table: table, rules: rules, model: model) { model.referenceKey($0) }.explore()
    }

    /// The rows of `table` some run under `policy` in `world` takes.
    package static func reachableRows(
        _ table: RetryTable? = nil, policy: RetryPolicy, world: RetryWorld = RetryWorld()
    ) -> Set<Int> {
        explore(table, policy: policy, world: world).reachableRows
    }
}

/// A generator whose every draw is the middle of the range: jitter then gives a typical delay, and
/// a run is a function of its inputs alone, so positions can be deduplicated.
struct MidRangeRandom: RandomNumberGenerator, Sendable {
    mutating func next() -> UInt64 { UInt64.max / 2 }
}

/// The retry machine's world, as inputs.
struct RetryModel: ExplorationModel {
    typealias Rules = RetryRules

    let policy: RetryPolicy
    let world: RetryWorld
    let table: RetryTable
    /// Which carried facts a row can still read from each state.
    let live: RetryLiveFacts
    /// The index in `table.states` of the state the machine stands in at each lookup slot (slot 0
    /// the initial state, `1 + i` the state row `i` enters): a key reads it without comparing labels.
    let slotState: [Int32]
    /// Whether the state at each index is terminal.
    let terminal: [Bool]
    /// Whether the step that brought the machine to each lookup slot may have slept (a row with
    /// `sleep` on the way there): only there does a position's last step say how long it waits.
    let afterSleep: [Bool]
    /// Whether time decides anything: only a deadline compares it (`within deadline`, the attempt
    /// ending half-way to it, "no planned wait crosses the deadline"); without one, the times of the
    /// inputs only stamp the trace.
    let timeMatters: Bool
    /// How this world may be over-approximated under its deadline, if it may
    /// (``DeadlineOverApproximation``).
    let deadlineApproximation: DeadlineOverApproximation?
    /// Whether this is the over-approximating world: positions told apart without the time, each
    /// attempt's outcome at once (the explorer keeps the earliest time of each position) and, where
    /// `within deadline` may be asked, at the deadline too.
    private(set) var overApproximates = false

    init(policy: RetryPolicy, world: RetryWorld, table: RetryTable) {
        self.policy = policy
        self.world = world
        self.table = table
        live = RetryLiveFacts(table: table, policy: policy)
        let states = table.states
        let index = Dictionary(states.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        slotState = ([table.initial] + table.rows.map(\.to)).map { Int32(index[$0] ?? 0) }
        terminal = states.map(table.isTerminal)
        timeMatters = policy.deadline != nil
        // A row is taken after a sleep in the same step when it sleeps, or when it leaves a decision
        // some such row entered (a step follows completion rows from the decision it entered).
        var slept = table.rows.map { $0.effects.contains(.sleep) }
        var changed = true
        while changed {
            changed = false
            for (index, row) in table.rows.enumerated() where !slept[index] && row.event == nil {
                if table.rows.indices.contains(where: { slept[$0] && table.rows[$0].to == row.from }) {
                    slept[index] = true
                    changed = true
                }
            }
        }
        afterSleep = [false] + slept
        deadlineApproximation = DeadlineOverApproximation(table: table, policy: policy)
    }

    /// This world over-approximated under its deadline (``overApproximates``), when it may be.
    func overApproximating() -> RetryModel? {
        guard deadlineApproximation != nil else { return nil }
        var model = self
        model.overApproximates = true
        return model
    }

    /// What tells two positions apart: the state, the counters, and the carried facts a row can
    /// still read from it (``RetryLiveFacts``); the time and the wait being slept only under a
    /// deadline. A finished run is its state alone: nothing follows it.
    struct Key: Hashable {
        var state: Int32
        var attempt: Int32 = 0
        var refusals: Int32 = 0
        var seriesStart: Int32 = 0
        var budgetGranted = true
        var time: Duration = .zero
        /// The wait being slept (`wait`, `token wait`); without a deadline only whether there is one.
        var sleeping: Duration = .zero
        var plannedDelay: Duration = .zero
        var decision: RetryDecision = .retry
        /// The backoff's memory and the planned one, when the jitter reads them (else empty).
        var memories: [BackoffMemory] = []
        /// How often each user step ran.
        var visits: [Int] = []
    }

    /// The key the explorer used before it knew which facts are live (``ReferenceExplorer``): every
    /// fact it thought relevant, the time always.
    struct ReferenceKey: Hashable {
        var state: RetryState
        var attempt: Int
        var previousDelay: Duration?
        var at: Duration
        /// What the guards after the budget's answer read: the failure's verdict (its planned delay).
        var pending: RetryInput?
        /// The wait being slept.
        var sleeping: Duration?
        /// How often each user step ran (a step's guard reads it).
        var visits: [Int]
        /// How many tries the breaker refused (`refusals left` reads it).
        var refusals: Int
    }

    var inputLimit: Int {
        // Each attempt takes at most six inputs (the limiter's answer, the token wait's end, the
        // breaker's answer, its outcome, the budget's answer, the wait's end), plus the start: a run
        // still going after that many is a loop the table does not bound. A user step's visit adds
        // its verdict, its result and the attempt it starts; a try the breaker refused (at most
        // maxAttempts) its pacing, its refusal, the budget's answer and the wait's end. A step whose
        // way out resets the series (`reset backoff`, as the credential step's does) gives the run
        // its maxAttempts again on each visit.
        let visits = policy.steps.reduce(0) { $0 + min($1.maxVisits, 1_000) }
        let resets = table.rows.contains { row in
            guard case .step = row.from else { return false }
            return row.effects.contains(.resetBackoff)
        }
        let attempts = min(policy.maxAttempts, 1_000) * (resets ? 1 + visits : 1) + visits
        let refusals = world.breaker ? min(policy.maxAttempts, 1_000) : 0
        return 6 * attempts + 5 * refusals + 2
    }

    var boundDescription: String {
        var words = "attempts ≤ \(policy.maxAttempts) (the policy's maxAttempts); "
        words += policy.deadline.map { "deadline \($0.shortDescription); " } ?? "no deadline; "
        words += policy.perAttemptTimeout.map { "attempt timeout \($0.shortDescription); " } ?? ""
        return words + world.description + "; jitter drawn mid-range"
    }

    var deliversCancellation: Bool { world.cancellation }

    var invariants: [String] { ["attempts ≤ maxAttempts", "no planned wait crosses the deadline"] }

    func key(_ position: ExplorationPosition<RetryRules>) -> Key {
        let machine = position.machine
        let state = Int(slotState[machine.slot])
        guard !terminal[state] else { return Key(state: Int32(state)) }
        let rules = machine.rules
        let facts = live.masked(rules.carriedFacts, stateIndex: state)
        var key = Key(
            state: Int32(state), attempt: Int32(clamping: rules.attempt), refusals: Int32(clamping: rules.refusals),
            seriesStart: Int32(clamping: facts.seriesStart), budgetGranted: facts.budgetGranted,
            plannedDelay: facts.plannedDelay, decision: facts.decision, visits: rules.visits)
        if live.memoryMatters { key.memories = [facts.backoffMemory, facts.plannedMemory] }
        let sleeping = afterSleep[machine.slot] ? Self.sleeping(position) : .zero
        if overApproximates {
            key.sleeping = sleeping // the time is left out: the explorer keeps each key's earliest
        } else if timeMatters {
            key.time = position.at
            key.sleeping = sleeping
        } else if sleeping > .zero {
            key.sleeping = .nanoseconds(1) // a wait still rests in its state: `render --policy` draws it so
        }
        return key
    }

    /// The old key (``ReferenceKey``).
    func referenceKey(_ position: ExplorationPosition<RetryRules>) -> ReferenceKey {
        let state = position.machine.state
        return ReferenceKey(
            state: state, attempt: position.machine.rules.attempt, previousDelay: position.machine.rules.previousDelay,
            at: position.at, pending: state == .budget ? position.lastInput : nil,
            sleeping: state == .wait || state == .tokenWait ? Self.sleeping(position) : nil,
            visits: position.machine.rules.visits, refusals: position.machine.rules.refusals)
    }

    /// The wait the step that entered `position` began (zero if it slept none).
    static func sleeping(_ position: ExplorationPosition<RetryRules>) -> Duration {
        guard let last = position.last else { return .zero }
        var slept = Duration.zero
        for action in last.produced { if case .sleep(let delay) = action { slept = delay } }
        return slept
    }

    func isCancellation(_ input: RetryInput) -> Bool { input.event == .cancelled }

    func choices(at position: ExplorationPosition<RetryRules>) -> [ExplorationChoice<RetryInput>] {
        let now = position.at
        var choices: [ExplorationChoice<RetryInput>] = []
        let cancel = ExplorationChoice(RetryInput.cancelled(detail: nil), at: now, required: true)
        switch position.machine.state {
        case .idle:
            choices.append(.init(.start, at: now, required: true))
            if world.cancellation { choices.append(cancel) }
        case .request:
            // An attempt's outcome, when it ends at once (time passes only in waits) or, with a deadline,
            // half-way to it: enough for the `within deadline` guard to answer both ways.
            // (Over-approximating, only at once: the outcome at the deadline below stands for every later one.)
            var ends = [now]
            if let deadline = policy.deadline, now < deadline, !overApproximates {
                ends.append(now + (deadline - now) / 2)
            }
            for end in ends {
                choices.append(.init(.succeeded, at: end))
                choices.append(.init(.failed(.retry, detail: nil), at: end))
                if world.refusals { choices.append(.init(.failed(.fail, detail: nil), at: end)) }
                if world.finalAnswers { choices.append(.init(.failed(.finalAnswer, detail: nil), at: end)) }
                // A verdict naming a step the policy enters on one (a classifier's, an HTTP rule's).
                for step in policy.steps where step.entry == .onVerdict {
                    choices.append(.init(.failed(.step(step.id), detail: nil), at: end))
                }
                if world.retryAfter {
                    choices.append(.init(.failed(.retryAfter(.seconds(1)), detail: nil), at: end))
                    if policy.maxRetryAfter < .seconds(1_000_000) {
                        choices.append(
                            .init(.failed(.retryAfter(policy.maxRetryAfter + .seconds(1)), detail: nil), at: end))
                    }
                }
            }
            if let timeout = policy.perAttemptTimeout {
                choices.append(.init(.attemptTimedOut(.retry, detail: nil), at: now + timeout))
            }
            if let deadline = policy.deadline, now < deadline {
                choices.append(.init(.deadlineExceeded(detail: nil), at: deadline))
            }
            if world.cancellation { choices.append(cancel) }
        case .limiter:
            // The driver answers at once: a token without a limiter.
            choices.append(.init(.tokenGranted, at: now, required: true))
            if world.limiter { choices.append(.init(.rateLimited(wait: .seconds(1), detail: nil), at: now)) }
        case .breaker:
            // The driver answers at once: admitted without a breaker.
            choices.append(.init(.admitted, at: now, required: true))
            if world.breaker { choices.append(.init(.circuitOpen(.retryAfter(.seconds(1)), detail: nil), at: now)) }
        case .budget:
            // The driver answers at once: granted without a budget.
            choices.append(.init(.budgetAnswered(granted: true, detail: nil), at: now, required: true))
            if world.budget { choices.append(.init(.budgetAnswered(granted: false, detail: nil), at: now)) }
        case .wait, .tokenWait:
            choices.append(.init(.delayElapsed, at: now + Self.sleeping(position), required: true))
            if world.cancellation { choices.append(cancel) }
        case .step(let id):
            // The step's action ends in one of its exits or an error; the caller can cancel meanwhile.
            let exits = policy.steps.first { $0.id == id }?.exits ?? [.done]
            choices += exits.map { .init(.stepExit($0, detail: nil), at: now) }
            choices.append(.init(.stepFailed(detail: nil), at: now))
            if world.cancellation { choices.append(cancel) }
        case .retry, .admission, .pacing, .success, .answered, .failure, .cancelled:
            break
        }
        if overApproximates, let approximation = deadlineApproximation {
            // Any later time: an input that may meet `within deadline` also comes at the deadline,
            // where it no longer holds (a time between behaves as the earliest or as this one).
            let events = approximation.meetsDeadline[Int(slotState[position.machine.slot])]
            for choice in choices where choice.at < approximation.deadline && events.contains(choice.input.event) {
                var late = ExplorationChoice(choice.input, at: approximation.deadline)
                late.standsForLater = true
                choices.append(late)
            }
        }
        return choices
    }

    func check(
        before: ExplorationPosition<RetryRules>, after: ExplorationPosition<RetryRules>, input: RetryInput, rows: [Int]
    ) -> [InvariantViolation] {
        var found: [InvariantViolation] = []
        if after.machine.rules.attempt > policy.maxAttempts {
            found.append(
                .init(
                    "attempts ≤ maxAttempts",
                    "attempt \(after.machine.rules.attempt) started, the policy allows \(policy.maxAttempts)"))
        }
        // Only a step that may have slept is looked at: reading a step copies it.
        if let deadline = policy.deadline, afterSleep[after.machine.slot],
            let step = after.last
        {
            for action in step.produced {
                if case .sleep(let delay) = action, after.at + delay >= deadline {
                    found.append(
                        .init(
                            "no planned wait crosses the deadline",
                            "a wait of \(delay.shortDescription) at \(after.at.shortDescription) ends at or after the "
                                + "deadline \(deadline.shortDescription)"))
                }
            }
        }
        return found
    }

    func detail(of input: RetryInput) -> String? {
        switch input {
        case .failed(let decision, _, _), .attemptTimedOut(let decision, _), .circuitOpen(let decision, _):
            switch decision {
            case .retry: "retryable"
            case .fail: "not retryable"
            case .finalAnswer: "final answer"
            case .step(let id): "step \(id.name)"
            case .retryAfter(let wait): "Retry-After \(wait.shortDescription)"
            }
        case .budgetAnswered(let granted, _): granted ? "granted" : "refused"
        case .rateLimited(let wait, _): "token in \(wait.shortDescription)"
        case .start, .succeeded, .failedAfterProgress, .deadlineExceeded, .admitted, .tokenGranted, .delayElapsed,
            .cancelled, .stepExit, .stepFailed:
            nil
        }
    }
}
