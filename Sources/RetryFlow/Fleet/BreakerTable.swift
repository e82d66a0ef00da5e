/// Where a ``CircuitBreaker`` stands. The raw values are the node labels on its chart.
public enum BreakerState: String, TableSymbol {
    /// Calls go through; outcomes are sampled.
    case closed
    /// Failures tripped it: calls are refused until the break is over.
    case open
    /// The break is over: one probe at a time goes through; its outcome closes or reopens.
    case halfOpen = "half-open"
    /// Held open by hand (maintenance) until reset.
    case isolated
    /// A failure was sampled; the breaker decides whether it trips. A decision: never rested in.
    case tripping
}

/// What happens to a breaker. Its events carry nothing but their time, so each is its own input.
package enum BreakerEvent: String, TableSymbol, MachineInput {
    /// A run wants to send an attempt.
    case callAsked = "call asked"
    /// An attempt admitted as an ordinary call succeeded.
    case callSucceeded = "call succeeded"
    /// An attempt admitted as an ordinary call failed (a retryable failure: the server's health).
    case callFailed = "call failed"
    /// The half-open probe succeeded.
    case probeSucceeded = "probe succeeded"
    /// The half-open probe failed.
    case probeFailed = "probe failed"
    /// The probe ended without a verdict (cancelled, or a non-retryable answer): let another through.
    case probeAbandoned = "probe abandoned"
    /// The break's end came, on the breaker's clock (delivered at that instant, whoever looks).
    case breakElapsed = "break elapsed"
    /// Held open by hand.
    case isolate
    /// Closed by hand.
    case reset

    /// The event this input stands for: itself.
    package var event: BreakerEvent { self }
}

/// The questions a breaker asks.
package enum BreakerGuard: String, TableSymbol {
    /// The sampled outcomes trip it (failure ratio over the minimum throughput, or consecutive failures).
    case windowTrips = "window trips"
    /// A half-open probe is already in flight.
    case probeInFlight = "probe in flight"

    /// `[window healthy]`, `[no probe in flight]`.
    package var negatedLabel: String {
        switch self {
        case .windowTrips: "window healthy"
        case .probeInFlight: "no probe in flight"
        }
    }
}

/// What a breaker's rows do.
package enum BreakerEffect: String, TableSymbol {
    /// Let the call through.
    case admit
    /// Let the call through as the one probe.
    case admitProbe = "admit probe"
    /// Refuse the call: it is not sent.
    case reject
    /// Sample a success.
    case recordSuccess = "record success"
    /// Sample a failure.
    case recordFailure = "record failure"
    /// Start the break: open until now + break duration.
    case startBreak = "start break"
    /// Forget the samples.
    case clearWindow = "clear window"
    /// The probe is over (whatever its outcome).
    case endProbe = "end probe"
}

/// The words of a circuit breaker's table: its states, events, guards, effects and the reasons a run ends.
package typealias BreakerVocabulary = TableWords<
    BreakerState, BreakerEvent, BreakerGuard, BreakerEffect, PerpetualReason
>

/// A circuit breaker's transition table.
package typealias BreakerTable = TransitionTable<BreakerVocabulary>

extension TransitionTable where Vocabulary == BreakerVocabulary {
    // The rows line up in columns like the chart; the formatter would close them up.
    // swift-format-ignore
    /// The circuit breaker, as data: what ``CircuitBreaker`` executes and `retryflow render --machine breaker` draws.
    ///
    /// A perpetual machine (no terminal state). Outcomes of calls admitted earlier can arrive in any
    /// state (a slow call outlives a trip): those rows change nothing but are written down, so no
    /// input is ever "invalid" by accident.
    package static let breaker = BreakerTable(
        name: "CircuitBreaker",
        initial: .closed,
        terminals: [],
        rows: [
            // event             from             guard                  to             do (effects), ends (reason)
            .on(.callAsked,      from: .closed,                          to: .closed,   do: .admit),
            .on(.callSucceeded,  from: .closed,                          to: .closed,   do: .recordSuccess),
            .on(.callFailed,     from: .closed,                          to: .tripping, do: .recordFailure),
            .on(.isolate,        from: .closed,                          to: .isolated),
            .on(.reset,          from: .closed,                          to: .closed,   do: .clearWindow),

            .completion(         from: .tripping, .when(.windowTrips),   to: .open,     do: .startBreak),
            .completion(         from: .tripping,                        to: .closed),

            .on(.callAsked,      from: .open,                            to: .open,     do: .reject),
            .on(.breakElapsed,   from: .open,                            to: .halfOpen),
            // Late outcomes of calls admitted before the trip: the break already decided.
            .on(.callSucceeded,  from: .open,                            to: .open),
            .on(.callFailed,     from: .open,                            to: .open),
            .on(.isolate,        from: .open,                            to: .isolated),
            .on(.reset,          from: .open,                            to: .closed,   do: .clearWindow),

            .on(.callAsked,      from: .halfOpen, .when(.probeInFlight), to: .halfOpen, do: .reject),
            .on(.callAsked,      from: .halfOpen,                        to: .halfOpen, do: .admitProbe),
            .on(.probeSucceeded, from: .halfOpen,                        to: .closed,   do: .endProbe, .clearWindow),
            .on(.probeFailed,    from: .halfOpen,                        to: .open,     do: .endProbe, .startBreak),
            .on(.probeAbandoned, from: .halfOpen,                        to: .halfOpen, do: .endProbe),
            // Late outcomes of calls admitted before the trip: only the probe decides.
            .on(.callSucceeded,  from: .halfOpen,                        to: .halfOpen),
            .on(.callFailed,     from: .halfOpen,                        to: .halfOpen),
            .on(.isolate,        from: .halfOpen,                        to: .isolated, do: .endProbe),
            .on(.reset,          from: .halfOpen,                        to: .closed,   do: .endProbe, .clearWindow),

            .on(.callAsked,      from: .isolated,                        to: .isolated, do: .reject),
            .on(.callSucceeded,  from: .isolated,                        to: .isolated),
            .on(.callFailed,     from: .isolated,                        to: .isolated),
            .on(.reset,          from: .isolated,                        to: .closed,   do: .clearWindow),
        ]
    )
}
