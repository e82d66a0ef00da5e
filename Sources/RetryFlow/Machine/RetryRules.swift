/// The retry machine's specialisation of ``TableMachine``: the facts its guards read and what its
/// effects mean. The table decides every transition; this only answers its questions.
@usableFromInline
struct RetryRules: MachineRules {
    @usableFromInline typealias State = RetryState
    @usableFromInline typealias Event = RetryEvent
    @usableFromInline typealias Guard = RetryGuard
    @usableFromInline typealias Effect = RetryEffect
    @usableFromInline typealias Reason = StopReason
    @usableFromInline typealias Input = RetryInput
    @usableFromInline typealias Action = RetryAction

    let policy: RetryPolicy
    var random: AnyRandom
    /// How many attempts have started.
    private(set) var attempt = 0
    /// The attempts before the current series: `reset backoff` moves it up to the attempt that made
    /// progress, so `attempts left` and the backoff count from there.
    private(set) var seriesStart = 0
    /// The attempt's number in its series (1 for the first, and for one that made progress).
    var attemptInSeries: Int { attempt - seriesStart }
    /// The last delay actually waited (decorrelated jitter grows from it).
    private(set) var previousDelay: Duration?
    /// The verdict of the last input (received as its row is taken).
    private var decision: RetryDecision = .retry
    /// When the last input happened: the instant delays are planned from.
    private var now: Duration = .zero
    /// The wait the `plan delay` effect worked out.
    private var plannedDelay: Duration = .zero
    /// Whether a refused attempt waits out an open circuit's break (configuration, not an input).
    let waitsOutBreak: Bool
    /// The retry budget's last answer (received with `budget answered`; granted until asked).
    private var budgetGranted = true
    /// Whether the failure being retried was a timeout (AWS charges such a retry more).
    private var failureTimedOut = false

    init(policy: RetryPolicy, random: AnyRandom, waitsOutBreak: Bool = true) {
        self.policy = policy
        self.random = random
        self.waitsOutBreak = waitsOutBreak
    }

    @usableFromInline mutating func receive(_ input: RetryInput, at time: Duration) {
        now = time
        switch input {
        case .budgetAnswered(let granted, _):
            // The budget's answer keeps the failure's verdict: the wait it planned is still to come.
            budgetGranted = granted
        case .attemptTimedOut:
            decision = input.decision
            failureTimedOut = true
        default:
            decision = input.decision
            failureTimedOut = false
        }
    }

    @usableFromInline func holds(_ guardSymbol: RetryGuard) -> Bool {
        switch guardSymbol {
        case .retryable: return decision.isRetryable
        case .attemptsLeft: return attemptInSeries < policy.maxAttempts
        case .retryAfterWithinCap:
            if case .retryAfter(let asked) = decision { return asked <= policy.maxRetryAfter }
            return true
        case .withinDeadline: return policy.deadline.map { now + plannedDelay < $0 } ?? true
        case .retryImmediately: return plannedDelay == .zero
        case .retryBudgetLeft: return budgetGranted
        case .waitsOutBreak: return waitsOutBreak
        }
    }

    @usableFromInline mutating func perform(_ effect: RetryEffect, of row: Row, notes: inout StepNotes) -> RetryAction?
    {
        switch effect {
        case .startAttempt:
            attempt += 1
            return .startAttempt(attempt)
        case .cancelAttempt:
            return .cancelAttempt
        case .planDelay:
            switch decision {
            case .retryAfter(let asked): plannedDelay = max(.zero, asked)
            case .retry:
                plannedDelay = policy.delay(beforeRetry: attemptInSeries, previous: previousDelay, using: &random)
            case .fail: plannedDelay = .zero
            }
            return nil
        case .resetBackoff:
            seriesStart = attempt - 1
            previousDelay = nil
            return nil
        case .askRetryBudget:
            return .askRetryBudget(afterTimeout: failureTimedOut)
        case .notifyRetry:
            notes.delay = plannedDelay
            return .notifyRetry(attempt: attempt, delay: plannedDelay)
        case .sleep:
            notes.delay = plannedDelay
            // A server's Retry-After is not the policy's own delay: decorrelated jitter ignores it.
            if case .retryAfter = decision {} else { previousDelay = plannedDelay }
            return .sleep(plannedDelay)
        case .finish:
            // validate() allows `finish` only on rows entering a terminal, and makes those name a reason.
            guard let reason = row.reason else {
                preconditionFailure("'finish' on a row that does not end the run: \(row)")
            }
            return .finish(state: row.to, reason: reason)
        }
    }

    @usableFromInline func annotate(_ notes: inout StepNotes) {
        notes.attempt = attempt
    }
}

/// A random generator stored without generics, so the machine stays one concrete type.
struct AnyRandom: RandomNumberGenerator, Sendable {
    private var base: any RandomNumberGenerator & Sendable
    init(_ base: some RandomNumberGenerator & Sendable) { self.base = base }
    mutating func next() -> UInt64 { base.next() }
}
