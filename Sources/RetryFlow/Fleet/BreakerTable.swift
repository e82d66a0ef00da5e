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
public enum BreakerEvent: String, TableSymbol, MachineInput {
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
    public var event: BreakerEvent { self }
}

/// The questions a breaker asks.
public enum BreakerGuard: String, TableSymbol {
    /// The sampled outcomes trip it (failure ratio over the minimum throughput, or consecutive failures).
    case windowTrips = "window trips"
    /// A half-open probe is already in flight.
    case probeInFlight = "probe in flight"

    /// `[window healthy]`, `[no probe in flight]`.
    public var negatedLabel: String {
        switch self {
        case .windowTrips: "window healthy"
        case .probeInFlight: "no probe in flight"
        }
    }
}

/// What a breaker's rows do.
public enum BreakerEffect: String, TableSymbol {
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

/// A circuit breaker's transition table.
public typealias BreakerTable = TransitionTable<
    BreakerState, BreakerEvent, BreakerGuard, BreakerEffect, PerpetualReason
>

extension TransitionTable
where
    State == BreakerState, Event == BreakerEvent, Guard == BreakerGuard, Effect == BreakerEffect,
    Reason == PerpetualReason
{
    /// The circuit breaker, as data: what ``CircuitBreaker`` executes and `retryflow render --machine breaker` draws.
    ///
    /// A perpetual machine (no terminal state). Outcomes of calls admitted earlier can arrive in any
    /// state (a slow call outlives a trip): those rows change nothing but are written down, so no
    /// input is ever "invalid" by accident.
    public static let breaker = BreakerTable(
        name: "CircuitBreaker",
        initial: .closed,
        terminals: [],
        rows: [
            // from       event             guard                  to          effects
            .init(from: .closed, event: .callAsked, to: .closed, effects: [.admit]),
            .init(from: .closed, event: .callSucceeded, to: .closed, effects: [.recordSuccess]),
            .init(from: .closed, event: .callFailed, to: .tripping, effects: [.recordFailure]),
            .init(from: .closed, event: .isolate, to: .isolated),
            .init(from: .closed, event: .reset, to: .closed, effects: [.clearWindow]),

            .init(from: .tripping, event: nil, condition: .when(.windowTrips), to: .open, effects: [.startBreak]),
            .init(from: .tripping, event: nil, to: .closed),

            .init(from: .open, event: .callAsked, to: .open, effects: [.reject]),
            .init(from: .open, event: .breakElapsed, to: .halfOpen),
            // Late outcomes of calls admitted before the trip: the break already decided.
            .init(from: .open, event: .callSucceeded, to: .open),
            .init(from: .open, event: .callFailed, to: .open),
            .init(from: .open, event: .isolate, to: .isolated),
            .init(from: .open, event: .reset, to: .closed, effects: [.clearWindow]),

            .init(
                from: .halfOpen, event: .callAsked, condition: .when(.probeInFlight), to: .halfOpen, effects: [.reject]),
            .init(from: .halfOpen, event: .callAsked, to: .halfOpen, effects: [.admitProbe]),
            .init(from: .halfOpen, event: .probeSucceeded, to: .closed, effects: [.endProbe, .clearWindow]),
            .init(from: .halfOpen, event: .probeFailed, to: .open, effects: [.endProbe, .startBreak]),
            .init(from: .halfOpen, event: .probeAbandoned, to: .halfOpen, effects: [.endProbe]),
            // Late outcomes of calls admitted before the trip: only the probe decides.
            .init(from: .halfOpen, event: .callSucceeded, to: .halfOpen),
            .init(from: .halfOpen, event: .callFailed, to: .halfOpen),
            .init(from: .halfOpen, event: .isolate, to: .isolated, effects: [.endProbe]),
            .init(from: .halfOpen, event: .reset, to: .closed, effects: [.endProbe, .clearWindow]),

            .init(from: .isolated, event: .callAsked, to: .isolated, effects: [.reject]),
            .init(from: .isolated, event: .callSucceeded, to: .isolated),
            .init(from: .isolated, event: .callFailed, to: .isolated),
            .init(from: .isolated, event: .reset, to: .closed, effects: [.clearWindow]),
        ]
    )
}
