import RetryFlow

/// What a hedged run's driver tells its machine, with the payload.
package enum HedgingInput: Hashable, Sendable, MachineInput {
    /// The run starts.
    case start
    /// The hedge timer fired.
    case hedgeDue
    /// The budget's answer to `ask budget`.
    case budgetAnswered(granted: Bool)
    /// Attempt `attempt` answered acceptably.
    case answerAccepted(attempt: Int)
    /// Attempt `attempt` answered finally (or failed fatally); `detail` says why.
    case answerFinal(attempt: Int, detail: String?)
    /// Attempt `attempt` failed non-fatally, with the pushback it carried; `detail` says why.
    case attemptFailed(attempt: Int, pushback: HedgePushback, detail: String?)
    /// The deadline passed.
    case deadlinePassed
    /// The caller cancelled.
    case cancelled

    package var event: HedgingEvent {
        switch self {
        case .start: .start
        case .hedgeDue: .hedgeDue
        case .budgetAnswered: .budgetAnswered
        case .answerAccepted: .answerAccepted
        case .answerFinal: .answerFinal
        case .attemptFailed: .attemptFailed
        case .deadlinePassed: .deadlinePassed
        case .cancelled: .cancelled
        }
    }

    package var detail: String? {
        switch self {
        case .answerAccepted(let attempt): "attempt \(attempt) won"
        case .answerFinal(let attempt, let detail): "attempt \(attempt): " + (detail ?? "final answer")
        case .attemptFailed(let attempt, _, let detail): "attempt \(attempt): " + (detail ?? "failed")
        case .budgetAnswered(let granted): granted ? nil : "the retry budget refused the hedge"
        case .start, .hedgeDue, .deadlinePassed, .cancelled: nil
        }
    }
}

/// What a non-fatal failure says about the next hedge (gRPC A6's server pushback).
package enum HedgePushback: Hashable, Sendable {
    /// Nothing: the next hedge goes out at once.
    case none
    /// Wait this long before the next hedge (Retry-After, the rate-limit headers).
    case delay(Duration)
    /// Send no more hedges; the attempts in flight may still win.
    case stop
}

/// What the driver of a hedged run must do.
package enum HedgingAction: Hashable, Sendable {
    /// Send attempt `number` (1 for the first; a hedge after it).
    case send(number: Int)
    /// Arm the hedge timer to fire `after` from now, replacing any armed one.
    case armHedgeTimer(after: Duration)
    /// Drop the armed hedge timer.
    case disarmHedgeTimer
    /// Ask the retry budget for a hedge, and deliver its answer.
    case askBudget
    /// Cancel every attempt still in flight and every timer (they are awaited before returning).
    case cancelTheRest
}

/// The hedging machine's specialisation of `TableMachine`: counts of attempts sent and in flight,
/// and the facts the last input brought.
package struct HedgingRules: MachineRules, Hashable {
    package typealias Vocabulary = HedgingVocabulary

    /// Attempts allowed in total, the first included.
    package let maxAttempts: Int
    /// The wait between hedges.
    package let delay: Duration
    /// Attempts sent so far.
    package private(set) var sent = 0
    /// Attempts sent whose answer has not come.
    package private(set) var inFlight = 0
    /// Hedges the budget refused.
    package private(set) var denied = 0
    /// The last budget answer.
    private var granted = false
    /// The last failure's pushback.
    private var pushback = HedgePushback.none

    package init(policy: HedgingPolicy) {
        self.maxAttempts = policy.maxAttempts
        self.delay = policy.delay
    }

    package mutating func receive(_ input: HedgingInput, at time: Duration) {
        pushback = .none
        switch input {
        case .budgetAnswered(let granted): self.granted = granted
        case .attemptFailed(_, let pushback, _): self.pushback = pushback
        case .start, .hedgeDue, .answerAccepted, .answerFinal, .deadlinePassed, .cancelled: break
        }
    }

    package func holds(_ guardSymbol: HedgingGuard) -> Bool {
        switch guardSymbol {
        case .attemptsLeft: sent < maxAttempts
        case .hedgeAffordable: granted
        case .serverSaidStop: pushback == .stop
        case .pushedBack: if case .delay = pushback { true } else { false }
        case .attemptsInFlight: inFlight > 0
        }
    }

    package mutating func perform(_ effect: HedgingEffect, of row: Row) -> HedgingAction? {
        switch effect {
        case .sendAttempt:
            sent += 1
            inFlight += 1
            return .send(number: sent)
        case .armHedgeTimer:
            return .armHedgeTimer(after: hedgeWait)
        case .disarmHedgeTimer: return .disarmHedgeTimer
        case .askBudget: return .askBudget
        case .countFailure:
            inFlight -= 1
            return nil
        case .recordDenial:
            denied += 1
            return nil
        case .cancelTheRest: return .cancelTheRest
        }
    }

    /// The wait before the next copy: the server's pushback if it named one, else the policy's delay.
    private var hedgeWait: Duration {
        if case .delay(let pushed) = pushback { return pushed }
        return delay
    }

    /// A trace step's attempt is the number of attempts sent after it; the row arming the timer
    /// (its only effect) shows the wait.
    package func traced(_ row: Row) -> (attempt: Int, delay: Duration?) {
        (sent, row.effects.contains(.armHedgeTimer) ? hedgeWait : nil)
    }
}

/// The hedging machine: the one core running `TransitionTable.hedging` with the hedging rules.
package typealias HedgingMachine = TableMachine<HedgingRules>
