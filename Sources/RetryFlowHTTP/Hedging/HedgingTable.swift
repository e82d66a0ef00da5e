import RetryFlow

/// Where a hedged run stands. The raw values are the node labels on its chart.
package enum HedgingState: String, TableSymbol {
    /// Nothing sent yet.
    case idle
    /// Attempts in flight, and the timer for the next hedge armed.
    case racing
    /// A hedge is due; the retry budget is asked whether the fleet can afford it.
    case askingBudget = "asking budget"
    /// Attempts in flight, and no more hedges will be sent (all sent, refused, or the server said stop).
    case awaiting
    /// An attempt was just sent (or a hedge delayed): arm the next hedge, if any is left. A decision.
    case pacing
    /// A non-fatal failure arrived: stop, wait out a pushback, or send the next hedge now. A decision.
    case weighing
    /// The budget answered: send the hedge, or record the refusal. A decision (an event row's guard
    /// reads the facts before its input, so the answer is weighed here).
    case admitting = "admitting hedge"
    /// No more hedges: wait for those in flight, or end when none is. A decision.
    case windingDown = "winding down"
    /// An acceptable answer won; every other attempt was cancelled and awaited.
    case succeeded
    /// A final answer, a fatal failure, every attempt failed, or the deadline passed.
    case failed
    /// The caller cancelled the run.
    case cancelled
}

/// What happens to a hedged run. Each comes from the driver: an attempt's answer, a timer, the budget.
package enum HedgingEvent: String, TableSymbol {
    /// The run starts: the first attempt goes out at once.
    case start
    /// The hedge timer fired (`hedgingDelay` after the last attempt, or a pushback's delay).
    case hedgeDue = "hedge due"
    /// The retry budget answered the `ask budget` effect.
    case budgetAnswered = "budget answered"
    /// An attempt's answer is acceptable: it wins.
    case answerAccepted = "answer accepted"
    /// An attempt's answer is final (a 404, a non-retryable error): it is returned as it is.
    case answerFinal = "answer final"
    /// An attempt failed in a way another attempt may not (a 503, a reset): gRPC A6's non-fatal codes.
    case attemptFailed = "attempt failed"
    /// The run's deadline passed.
    case deadlinePassed = "deadline passed"
    /// The caller cancelled.
    case cancelled
}

/// The questions a hedged run asks.
package enum HedgingGuard: String, TableSymbol {
    /// Fewer attempts sent than `maxAttempts`.
    case attemptsLeft = "attempts left"
    /// The retry budget granted the hedge (gRPC: tokens above half; no budget: always).
    case hedgeAffordable = "hedge affordable"
    /// The failure's pushback said not to retry.
    case serverSaidStop = "server said stop"
    /// The failure's pushback asked for a delay (Retry-After, rate-limit headers).
    case pushedBack = "pushed back"
    /// Some attempt is still in flight.
    case attemptsInFlight = "attempts in flight"

    /// How the negation reads on the chart.
    package var negatedLabel: String {
        switch self {
        case .attemptsLeft: "all attempts sent"
        case .hedgeAffordable: "hedge refused by budget"
        case .serverSaidStop: "server did not say stop"
        case .pushedBack: "no pushback"
        case .attemptsInFlight: "none in flight"
        }
    }
}

/// What a hedged run's rows do.
package enum HedgingEffect: String, TableSymbol {
    /// Send the next attempt (the first, or a hedge) and count it in flight.
    case sendAttempt = "send attempt"
    /// Arm the hedge timer: `hedgingDelay` from now, or the pushback's delay.
    case armHedgeTimer = "arm hedge timer"
    /// No more hedges: the armed timer is dropped.
    case disarmHedgeTimer = "disarm hedge timer"
    /// Ask the retry budget for the hedge (the driver answers with `budget answered`).
    case askBudget = "ask budget"
    /// Count the failure; its attempt is no longer in flight.
    case countFailure = "count failure"
    /// Record a hedge the budget refused.
    case recordDenial = "record denial"
    /// Cancel every other attempt and the timers; the driver awaits them all before returning.
    case cancelTheRest = "cancel the rest"
}

/// Why a hedged run ended, named on every row entering a terminal.
package enum HedgingStopReason: String, TableSymbol {
    /// An acceptable answer won.
    case accepted
    /// A final answer (or a fatal failure) was returned as it is.
    case finalAnswer = "final answer"
    /// Every attempt sent failed, and no more could be sent.
    case everyAttemptFailed = "every attempt failed"
    /// The run's deadline passed.
    case deadline
    /// The caller cancelled.
    case cancelled
}

/// The words of a hedged run's table: its states, events, guards, effects and the reasons a run ends.
package typealias HedgingVocabulary = TableWords<
    HedgingState, HedgingEvent, HedgingGuard, HedgingEffect, HedgingStopReason
>

/// A hedged run's transition table.
package typealias HedgingTable = TransitionTable<HedgingVocabulary>

/// A hedged run's trace: every row taken, with the number of attempts sent after it.
package typealias HedgingTrace = TransitionTrace<HedgingVocabulary>

extension TransitionTable where Vocabulary == HedgingVocabulary {
    // The rows line up in columns like the chart; the formatter would close them up.
    // swift-format-ignore
    /// Hedging, as data (gRPC A6's `hedgingPolicy`): what a hedged HTTP attempt executes and
    /// `retryflow render --machine hedge` draws.
    ///
    /// The first attempt goes out at once, then one more every `hedgingDelay` while attempts are
    /// left and the budget allows; a non-fatal failure sends the next at once (or after its
    /// pushback); the first acceptable or final answer ends the run, and the rest are cancelled.
    package static let hedging = HedgingTable(
        name: "Hedging",
        initial: .idle,
        terminals: [.succeeded, .failed, .cancelled],
        rows: [
            // event             from                 guard                     to                 do (effects), ends (reason)
            .on(.start,          from: .idle,                                   to: .pacing,       do: .sendAttempt),
            .completion(         from: .pacing,       .when(.attemptsLeft),     to: .racing,       do: .armHedgeTimer),
            .completion(         from: .pacing,                                 to: .awaiting,     do: .disarmHedgeTimer),

            .on(.hedgeDue,       from: .racing,                                 to: .askingBudget, do: .askBudget),
            .on(.attemptFailed,  from: .racing,                                 to: .weighing,     do: .countFailure),
            .on(.answerAccepted, from: .racing,                                 to: .succeeded,    do: .cancelTheRest, ends: .accepted),
            .on(.answerFinal,    from: .racing,                                 to: .failed,       do: .cancelTheRest, ends: .finalAnswer),
            .on(.deadlinePassed, from: .racing,                                 to: .failed,       do: .cancelTheRest, ends: .deadline),
            .on(.cancelled,      from: .racing,                                 to: .cancelled,    do: .cancelTheRest, ends: .cancelled),

            .on(.budgetAnswered, from: .askingBudget,                           to: .admitting),
            .completion(         from: .admitting,    .when(.hedgeAffordable),  to: .pacing,       do: .sendAttempt),
            // A refused hedge is recorded; the run simply waits for the attempts already in flight.
            .completion(         from: .admitting,                              to: .windingDown,  do: .recordDenial),

            .completion(         from: .weighing,     .when(.serverSaidStop),   to: .windingDown),
            // Pushback re-arms the timer with its delay rather than sending at once.
            .completion(         from: .weighing,     .when(.pushedBack),       to: .pacing),
            // A non-fatal failure sends the next hedge at once (A6).
            .completion(         from: .weighing,                               to: .askingBudget, do: .askBudget),

            .completion(         from: .windingDown,  .when(.attemptsInFlight), to: .awaiting,     do: .disarmHedgeTimer),
            .completion(         from: .windingDown,                            to: .failed,       ends: .everyAttemptFailed),

            .on(.attemptFailed,  from: .awaiting,                               to: .windingDown,  do: .countFailure),
            .on(.answerAccepted, from: .awaiting,                               to: .succeeded,    do: .cancelTheRest, ends: .accepted),
            .on(.answerFinal,    from: .awaiting,                               to: .failed,       do: .cancelTheRest, ends: .finalAnswer),
            .on(.deadlinePassed, from: .awaiting,                               to: .failed,       do: .cancelTheRest, ends: .deadline),
            .on(.cancelled,      from: .awaiting,                               to: .cancelled,    do: .cancelTheRest, ends: .cancelled),
        ]
    )
}
