import RetryFlow

/// Which of the retry rules' carried facts (``RetryCarriedFacts``) a row can still read from each
/// state of a table, before an input or an effect writes it anew: what the explorer's positions
/// must keep apart. Worked out once per table from its rows (a live-variable analysis over the
/// table's graph): a fact is live in a state when some row leaving it, or a row of a decision it
/// passes through, reads the fact before anything on the way writes it.
///
/// The reads and writes are the retry rules' own (``RetryRules``): a guard reads when it is asked
/// (an event row's guard before its input is received), an input writes as its row is taken, and
/// an effect reads or writes in the row's order. Every guard, effect and event is listed, so a new
/// one must say what it touches before the explorer can use it.
struct RetryLiveFacts {
    /// The facts tracked (the counters, the state and the time are always kept).
    struct Facts: OptionSet, Hashable {
        let rawValue: UInt8
        static let decision = Facts(rawValue: 1)
        static let plannedDelay = Facts(rawValue: 2)
        static let plannedMemory = Facts(rawValue: 4)
        static let budgetGranted = Facts(rawValue: 8)
        static let all: Facts = [.decision, .plannedDelay, .plannedMemory, .budgetGranted]
    }

    /// The live facts of each state, by its index in the table's ``TransitionTable/states``.
    let live: [Facts]
    /// Whether the policy's jitter reads the backoff's memory (``Jitter/decorrelated`` and
    /// ``Jitter/pollyDecorrelated``): otherwise a delay depends on the attempt's number alone.
    let memoryMatters: Bool

    init(table: RetryTable, policy: RetryPolicy) {
        switch policy.jitter {
        case .decorrelated, .pollyDecorrelated: memoryMatters = true
        case .none, .full, .equal, .symmetric, .additive, .fullFrom: memoryMatters = false
        }
        let states = table.states
        let index = Dictionary(states.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        var live = [Facts](repeating: [], count: states.count)
        // What taking `row` reads before writing, and what it leaves unwritten for the state it enters.
        let memoryMatters = memoryMatters
        func flow(_ row: RetryTable.Row) -> (reads: Facts, passes: Facts) {
            var reads = row.condition.guardSymbol.map(Self.reads) ?? []
            var passes = Facts.all
            if let event = row.event { passes.subtract(Self.writes(event)) }
            for effect in row.effects {
                reads.formUnion(Self.reads(effect, memoryMatters: memoryMatters).intersection(passes))
                passes.subtract(Self.writes(effect))
            }
            return (reads, passes)
        }
        let flows = table.rows.map(flow)
        // A least fixed point: a state's live facts only grow as its successors' do.
        var changed = true
        while changed {
            changed = false
            for (position, state) in states.enumerated() where !table.isTerminal(state) {
                // A decision is left by its completion rows, a resting state by its event rows (a state
                // with both, which validate() refuses, by either): any of them may be taken, and every
                // guard asked before the one that holds is read too.
                var facts: Facts = []
                for (row, step) in zip(table.rows, flows) where row.from == state {
                    facts.formUnion(step.reads)
                    if let next = index[row.to] { facts.formUnion(step.passes.intersection(live[next])) }
                }
                if !facts.isSubset(of: live[position]) {
                    live[position].formUnion(facts)
                    changed = true
                }
            }
        }
        self.live = live
    }

    /// `facts` with every fact not live in the state at `stateIndex` set to one value (the backoff's
    /// memories cleared altogether when the jitter does not read them).
    func masked(_ facts: RetryCarriedFacts, stateIndex: Int) -> RetryCarriedFacts {
        let live = live[stateIndex]
        var out = facts
        if !live.contains(.decision) { out.decision = .retry }
        if !live.contains(.plannedDelay) { out.plannedDelay = .zero }
        if !memoryMatters || !live.contains(.plannedMemory) { out.plannedMemory = BackoffMemory() }
        if !memoryMatters { out.backoffMemory = BackoffMemory() }
        if !live.contains(.budgetGranted) { out.budgetGranted = true }
        return out
    }

    /// What asking `guardSymbol` reads (``RetryRules/holds(_:)``).
    static func reads(_ guardSymbol: RetryGuard) -> Facts {
        switch guardSymbol {
        case .finalAnswer, .retryable, .retryAfterWithinCap, .enters: .decision
        case .withinDeadline, .retryImmediately: .plannedDelay
        case .retryBudgetLeft: .budgetGranted
        // The counters (attempts, refusals, visits) are always kept; the others are configuration.
        case .attemptsLeft, .refusalsLeft, .waitsOutBreak, .waitsForToken: []
        }
    }

    /// What `effect` reads (``RetryRules/perform(_:of:notes:)``), when the jitter reads the backoff's
    /// memory or not.
    static func reads(_ effect: RetryEffect, memoryMatters: Bool) -> Facts {
        switch effect {
        case .planDelay: .decision
        // The wait's length, and whether it was the policy's own (then its memory becomes the
        // backoff's: which matters only when the jitter reads the memory).
        case .sleep: memoryMatters ? [.decision, .plannedDelay, .plannedMemory] : .plannedDelay
        case .notifyRetry: .plannedDelay
        case .reportHealth: .decision
        case .startAttempt, .cancelAttempt, .askBreaker, .askLimiter, .returnToken, .countRefusal, .resetBackoff,
            .askRetryBudget, .runStep, .finish:
            []
        }
    }

    /// What `effect` writes.
    static func writes(_ effect: RetryEffect) -> Facts {
        switch effect {
        case .planDelay: [.plannedDelay, .plannedMemory]
        case .startAttempt, .cancelAttempt, .askBreaker, .askLimiter, .returnToken, .countRefusal, .resetBackoff,
            .reportHealth, .askRetryBudget, .notifyRetry, .sleep, .runStep, .finish:
            []
        }
    }

    /// What receiving an input of `event` writes (``RetryRules/receive(_:at:)``).
    static func writes(_ event: RetryEvent) -> Facts {
        switch event {
        // The budget's answer keeps the failure's verdict: the wait it planned is still to come.
        case .budgetAnswered: .budgetGranted
        case .rateLimited: [.decision, .plannedDelay]
        case .start, .succeeded, .failed, .failedAfterProgress, .attemptTimedOut, .tokenGranted, .admitted,
            .circuitOpen, .delayElapsed, .cancelled, .deadlineExceeded, .stepExit, .stepFailed:
            .decision
        }
    }
}
