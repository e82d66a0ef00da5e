import Foundation

/// A circuit breaker shared by many runs: after enough failures it refuses attempts for a break,
/// then lets exactly one probe through. Its states are a table (`TransitionTable.breaker`), drawn by
/// `retryflow render --machine breaker`.
///
/// Time comes from the injected clock only. The break ends at its instant whoever looks: reading
/// ``state`` after the break shows `half-open`, and the trace records the change at the break's end,
/// not at the moment someone happened to call (Polly moves only when touched). A probe still in flight
/// a break's length after it started is given up, so the next caller probes.
///
/// ```swift
/// let breaker = try CircuitBreaker(.polly)      // 10 % failures over ≥ 100 calls in 30 s; 5 s break
/// ```
public final class CircuitBreaker: Sendable {
    /// When it opens and for how long.
    public let options: CircuitBreakerOptions
    private let traced: Locked<TracedMachine>
    private let elapsed: @Sendable () -> Duration

    /// What the lock guards: the machine, and its trace when tracing.
    struct TracedMachine {
        var machine: BreakerMachine
        var trace: BreakerTrace?

        /// Delivers what the clock decided since the last input, each at its own instant: the break's
        /// end; and a probe still in flight a break's length after it started is given up (Polly allows
        /// one probe per break duration), so a hung probe cannot hold the breaker half-open forever.
        mutating func catchUp(to now: Duration) {
            if machine.state == .open, machine.rules.openUntil <= now {
                handle(.breakElapsed, at: machine.rules.openUntil)
            }
            let probeEnds = machine.rules.probeStartedAt + machine.rules.options.breakDuration
            if machine.state == .halfOpen, machine.rules.probe != nil, probeEnds <= now {
                handle(.probeAbandoned, at: probeEnds)
            }
        }

        /// Delivers `event` after catching up, and returns the step's answer (`call asked` only).
        @discardableResult
        mutating func deliver(_ event: BreakerEvent, at now: Duration) -> BreakerAction? {
            catchUp(to: now)
            return handle(event, at: now)
        }

        /// Every (state, event) the object delivers has a row, bar a probe's outcome after the probe
        /// ended, which `CircuitBreaker/record(_:_:)` turns into an ordinary call's first.
        @discardableResult
        mutating func handle(_ event: BreakerEvent, at time: Duration) -> BreakerAction? {
            guard let step = try? machine.handle(event, at: time) else { return nil }
            if trace != nil { trace!.steps.append(contentsOf: step.taken) }
            return step.produced.last
        }
    }

    /// A closed breaker with `options`, timed by `clock` (from now; the real clock by default).
    public convenience init<C: Clock<Duration>>(
        _ options: CircuitBreakerOptions = .polly, clock: C = ContinuousClock()
    ) throws(RetryPolicyError) {
        try self.init(options, clock: clock, tracing: false)
    }

    /// The same, with `tracing`: every transition is kept in ``trace`` (for charts and tests).
    package init<C: Clock<Duration>>(
        _ options: CircuitBreakerOptions = .polly, clock: C = ContinuousClock(), tracing: Bool
    ) throws(RetryPolicyError) {
        try options.validate()
        self.options = options
        self.traced = Locked(
            TracedMachine(
                machine: BreakerMachine(table: .breaker, rules: BreakerRules(options: options)),
                trace: tracing ? BreakerTrace() : nil))
        let start = clock.now
        self.elapsed = { start.duration(to: clock.now) }
    }

    /// Where the breaker stands now, on its clock.
    public var state: BreakerState {
        let now = elapsed()
        return traced.withLock { traced in
            traced.catchUp(to: now)
            return traced.machine.state
        }
    }

    /// Every transition so far, when made with `tracing`.
    package var trace: BreakerTrace? { traced.withLock { $0.trace } }

    /// Holds the breaker open by hand until ``reset()``.
    public func isolate() { deliver(.isolate) }

    /// Closes the breaker by hand, forgetting its samples.
    public func reset() { deliver(.reset) }

    /// Asks to send an attempt. Refused while open (with the break's remaining time), while isolated,
    /// and in half-open while the one probe is in flight (no remaining time: the probe decides).
    package func ask() -> CircuitPermit {
        let now = elapsed()
        return traced.withLock { traced in
            switch traced.deliver(.callAsked, at: now) {
            case .admit: return .admitted(CircuitTicket(probe: nil))
            case .admitProbe(let number): return .admitted(CircuitTicket(probe: number))
            // Every `call asked` step admits or rejects (GuardAnswersTests): no answer is no admission.
            case .reject, nil:
                let remaining = traced.machine.state == .open ? traced.machine.rules.openUntil - now : nil
                return .rejected(CircuitRejection(state: traced.machine.state, remainingBreak: remaining))
            }
        }
    }

    /// Reports how an admitted attempt ended. A `failure` is a sign of the server's ill health (a
    /// retryable failure); an attempt that ended otherwise (cancelled, a definite refusal) is `abandoned`.
    package func record(_ ticket: CircuitTicket, _ result: CircuitResult) {
        let now = elapsed()
        traced.withLock { traced in
            traced.catchUp(to: now)
            // Only the probe in flight decides half-open; a stale probe counts as an ordinary call.
            let isProbe = ticket.probe != nil && ticket.probe == traced.machine.rules.probe
            let event: BreakerEvent?
            switch (result, isProbe) {
            case (.success, true): event = .probeSucceeded
            case (.failure, true): event = .probeFailed
            case (.abandoned, true): event = .probeAbandoned
            case (.success, false): event = .callSucceeded
            case (.failure, false): event = .callFailed
            case (.abandoned, false): event = nil // an ordinary call that ended without a verdict samples nothing
            }
            if let event { traced.handle(event, at: now) }
        }
    }

    private func deliver(_ event: BreakerEvent) {
        let now = elapsed()
        traced.withLock { _ = $0.deliver(event, at: now) }
    }
}

/// The breaker's answer to `CircuitBreaker/ask()`.
package enum CircuitPermit: Hashable, Sendable {
    /// Send the attempt, then report its result with the ticket.
    case admitted(CircuitTicket)
    /// Do not send it.
    case rejected(CircuitRejection)
}

/// Proof of admission: hand it back to `CircuitBreaker/record(_:_:)`.
package struct CircuitTicket: Hashable, Sendable {
    /// The probe's number when the attempt is the half-open probe.
    let probe: UInt64?
}

/// Why an attempt was refused.
public struct CircuitRejection: Hashable, Sendable, Error, CustomStringConvertible {
    /// The breaker's state: open, half-open (a probe is in flight) or isolated.
    public let state: BreakerState
    /// While open, the time left in the break (a wait like a Retry-After); otherwise `nil`.
    public let remainingBreak: Duration?

    /// `circuit open (3.5 s of the break left)`.
    public var description: String {
        switch state {
        case .open: "circuit open (\((remainingBreak ?? .zero).shortDescription) of the break left)"
        case .halfOpen: "circuit half-open (its one probe is in flight)"
        case .closed, .isolated, .tripping: "circuit \(state.label)"
        }
    }
}

/// How an admitted attempt ended, for the breaker and the retry budget: what the retry table's
/// `report health` effect tells them.
@usableFromInline package enum CircuitResult: Hashable, Sendable {
    /// The server answered acceptably.
    case success
    /// A failure that says something about the server's health (retryable).
    case failure
    /// Neither: cancelled, or a definite answer that is no sign of ill health.
    case abandoned
}

/// A circuit breaker's trace.
package typealias BreakerTrace = TransitionTrace<BreakerVocabulary>
