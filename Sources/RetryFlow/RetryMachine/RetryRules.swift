/// The retry machine's specialisation of ``TableMachine``: the facts its guards read and what its
/// effects mean. The table decides every transition; this only answers its questions.
@usableFromInline
package struct RetryRules: MachineRules {
    @usableFromInline package typealias Vocabulary = RetryVocabulary

    let policy: RetryPolicy
    var random: AnyRandom
    /// How many attempts have started.
    package private(set) var attempt = 0
    /// The attempts before the current series: `reset backoff` moves it up to the attempt that made
    /// progress, so `attempts left` and the backoff count from there.
    private(set) var seriesStart = 0
    /// The attempt's number in its series (1 for the first, and for one that made progress).
    var attemptInSeries: Int { attempt - seriesStart }
    /// What the delays of the series grew from (the last delay actually waited, Polly's formula).
    private var backoffMemory = BackoffMemory()
    /// The memory as the planned delay left it; it becomes ``backoffMemory`` when that delay is waited.
    private var plannedMemory = BackoffMemory()
    /// The last delay actually waited (decorrelated jitter grows from it).
    package var previousDelay: Duration? { backoffMemory.previous }
    /// The verdict of the last input (received as its row is taken).
    private var decision: RetryDecision = .retry
    /// When the last input happened: the instant delays are planned from.
    private var now: Duration = .zero
    /// The wait the `plan delay` effect worked out.
    private var plannedDelay: Duration = .zero
    /// Whether a refused attempt waits out an open circuit's break (configuration, not an input).
    let waitsOutBreak: Bool
    /// Whether a try the limiter paces waits for its token (configuration, not an input).
    let waitsForToken: Bool
    /// Whether the last input was an answer the verdict called a throttle (`report health` says so).
    private var throttled = false
    /// How many tries the breaker refused (`count refusal`): `refusals left` reads it.
    package private(set) var refusals = 0
    /// The retry budget's last answer (received with `budget answered`; granted until asked).
    private var budgetGranted = true
    /// Whether the failure being retried was a timeout (AWS charges such a retry more).
    private var failureTimedOut = false
    /// Whether the last input was the attempt's success (what `report health` tells the guards).
    private var attemptSucceeded = false
    /// Whether the latest attempt belongs to the step being taken: its input ended it, or one of its
    /// rows started it. `reset backoff` then makes that attempt the first of the new series (it made
    /// progress, or the reset follows its start); between attempts (after a step, before the resend
    /// is put to the breaker) it makes the attempt to come the first.
    private var attemptInStep = false
    /// How often each of the policy's steps ran, by its position in `policy.steps` (empty until one does).
    package private(set) var visits: [Int] = []

    package init(policy: RetryPolicy, random: AnyRandom, waitsOutBreak: Bool = true, waitsForToken: Bool = true) {
        self.policy = policy
        self.random = random
        self.waitsOutBreak = waitsOutBreak
        self.waitsForToken = waitsForToken
    }

    @usableFromInline package mutating func receive(_ input: RetryInput, at time: Duration) {
        now = time
        attemptSucceeded = input == .succeeded
        throttled = input.isThrottle
        switch input {
        case .budgetAnswered(let granted, _):
            // The budget's answer keeps the failure's verdict: the wait it planned is still to come.
            budgetGranted = granted
            attemptInStep = false
        case .attemptTimedOut:
            decision = input.decision
            failureTimedOut = true
            attemptInStep = true
        case .rateLimited(let wait, _):
            // The limiter's answer plans the pacing wait, as `plan delay` plans a backoff: the
            // `pacing` decision's `within deadline` and `sleep` read it. The backoff's memory is not touched.
            decision = input.decision
            plannedDelay = max(.zero, wait)
            attemptInStep = false
        case .succeeded, .failed, .failedAfterProgress, .deadlineExceeded:
            decision = input.decision
            failureTimedOut = false
            attemptInStep = true
        // `cancelled` may come between attempts too; a run it ends starts no series either way.
        case .start, .tokenGranted, .admitted, .circuitOpen, .delayElapsed, .cancelled, .stepExit, .stepFailed:
            decision = input.decision
            failureTimedOut = false
            attemptInStep = false
        }
    }

    @usableFromInline package func holds(_ guardSymbol: RetryGuard) -> Bool {
        switch guardSymbol {
        case .finalAnswer: return decision == .finalAnswer
        case .retryable: return decision.isRetryable
        case .attemptsLeft: return attemptInSeries < policy.maxAttempts
        case .retryAfterWithinCap:
            if case .retryAfter(let asked) = decision { return asked <= policy.maxRetryAfter }
            return true
        case .withinDeadline: return policy.deadline.map { now + plannedDelay < $0 } ?? true
        case .retryImmediately: return plannedDelay == .zero
        case .retryBudgetLeft: return budgetGranted
        case .waitsOutBreak: return waitsOutBreak
        case .waitsForToken: return waitsForToken
        case .refusalsLeft: return refusals < policy.maxAttempts
        case .enters(let id):
            guard let index = policy.steps.firstIndex(where: { $0.id == id }) else { return false }
            let step = policy.steps[index]
            guard visits(of: index) < step.maxVisits else { return false }
            switch step.entry {
            case .onVerdict: return decision == .step(id)
            case .afterFailures(let count): return decision.isRetryable && attempt >= count
            }
        }
    }

    /// How often the step at `index` of `policy.steps` ran.
    func visits(of index: Int) -> Int { index < visits.count ? visits[index] : 0 }

    /// Counts a visit of the step `state` names; its identity (validation makes `run step` enter a step).
    private mutating func visit(_ state: RetryState) -> RetryStep.ID {
        guard case .step(let id) = state, let index = policy.steps.firstIndex(where: { $0.id == id }) else {
            preconditionFailure("'run step' on a row entering \(state), which is not a step: validate() the policy")
        }
        if visits.count < policy.steps.count { visits += Array(repeating: 0, count: policy.steps.count - visits.count) }
        visits[index] += 1
        return id
    }

    @usableFromInline package mutating func perform(_ effect: RetryEffect, of row: Row) -> RetryAction? {
        switch effect {
        case .startAttempt:
            attempt += 1
            attemptInStep = true
            return .startAttempt(attempt)
        case .cancelAttempt:
            return .cancelAttempt
        case .askBreaker:
            return .askBreaker(attempt: attempt + 1)
        case .askLimiter:
            return .askLimiter
        case .returnToken:
            return .returnToken
        case .countRefusal:
            refusals += 1
            return nil
        case .planDelay:
            plannedMemory = backoffMemory
            switch decision {
            case .retryAfter(let asked): plannedDelay = max(.zero, asked)
            case .retry:
                plannedDelay = policy.delay(beforeRetry: attemptInSeries, memory: &plannedMemory, using: &random)
            case .fail, .finalAnswer, .step:
                plannedDelay = .zero
                plannedMemory.previous = .zero
            }
            return nil
        case .resetBackoff:
            // On the row of an attempt's end (it made progress) or after its start, that attempt is
            // the series' first; between attempts (a resend after a credential refresh), the next one is.
            seriesStart = attemptInStep ? attempt - 1 : attempt
            backoffMemory = BackoffMemory()
            return nil
        case .reportHealth:
            // Only a retryable failure speaks of the server's health (a 503, a reset, a timeout).
            return .reportHealth(
                attemptSucceeded ? .success : (decision.isRetryable ? .failure : .abandoned), throttled: throttled)
        case .askRetryBudget:
            return .askRetryBudget(afterTimeout: failureTimedOut)
        case .notifyRetry:
            return .notifyRetry(attempt: attempt, delay: plannedDelay)
        case .sleep:
            // A server's Retry-After is not the policy's own delay: decorrelated jitter ignores it.
            if case .retryAfter = decision {} else { backoffMemory = plannedMemory }
            return .sleep(plannedDelay)
        case .runStep:
            return .runStep(visit(row.to))
        case .finish:
            // validate() allows `finish` only on rows entering a terminal, and makes those name a reason.
            guard let reason = row.reason else {
                preconditionFailure("'finish' on a row that does not end the run: \(row)")
            }
            return .finish(state: row.to, reason: reason)
        }
    }

    /// A trace step carries the attempt current after its row, and the planned delay on the rows
    /// that announce or sleep it (`notify retry`, `sleep`: neither changes it).
    @usableFromInline package func traced(_ row: Row) -> (attempt: Int, delay: Duration?) {
        (attempt, row.effects.contains { $0 == .sleep || $0 == .notifyRetry } ? plannedDelay : nil)
    }
}

/// A random generator stored without generics, so the machine stays one concrete type.
package struct AnyRandom: RandomNumberGenerator, Sendable {
    private var base: any RandomNumberGenerator & Sendable
    package init(_ base: some RandomNumberGenerator & Sendable) { self.base = base }
    package mutating func next() -> UInt64 { base.next() }
}

extension RetryRules {
    /// The facts a later row may still read that no counter shows: what the explorer keys a
    /// position by, besides its state, its counters and its time (RetryFlowCharts' `RetryLiveFacts`
    /// says which of them a row can read from each state). Kept here, beside the facts, so a fact
    /// added above is added to the keys too. The ones left out are written by each input before a row
    /// reads them (`now`, the attempt's outcome), or only shape an action's values.
    package var carriedFacts: RetryCarriedFacts {
        RetryCarriedFacts(
            seriesStart: seriesStart, backoffMemory: backoffMemory, plannedMemory: plannedMemory, decision: decision,
            plannedDelay: plannedDelay, budgetGranted: budgetGranted)
    }
}
