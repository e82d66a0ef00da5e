/// The circuit breaker's machine: pure, a value; times come in with the inputs.
/// ``TransitionTable/breaker`` decides; this gives its guards and effects their meaning.
package struct BreakerMachine: TableSemantics, Sendable {
    package typealias State = BreakerState
    package typealias Event = BreakerEvent
    package typealias Guard = BreakerGuard
    package typealias Effect = BreakerEffect

    /// What the last `call asked` was answered.
    package enum Answer: Hashable, Sendable {
        case admitted
        case admittedProbe(UInt64)
        case rejected
    }

    package let table: BreakerTable
    package let options: CircuitBreakerOptions
    package private(set) var state: BreakerState
    /// When the current break ends (meaningful while open).
    package private(set) var openUntil: Duration = .zero
    /// The probe in flight, if any: its number, so a stale probe's outcome is told apart.
    package private(set) var probe: UInt64?
    package private(set) var answer: Answer = .rejected
    private var probesStarted: UInt64 = 0
    private var window: SamplingWindow
    private var consecutiveFailures = 0
    private var now: Duration = .zero

    package init(options: CircuitBreakerOptions, table: BreakerTable = .breaker) {
        self.options = options
        self.table = table
        self.state = table.initial
        if case .failureRatio(_, _, let sampling) = options.trip {
            window = SamplingWindow(duration: sampling)
        } else {
            window = SamplingWindow(duration: .seconds(1))
        }
    }

    /// Delivers `event` at `time`; the rows taken, or `nil` when the table has no row (the state is unchanged).
    package mutating func handle(_ event: BreakerEvent, at time: Duration) -> FiredRows? {
        now = time
        var state = self.state
        let fired = table.fire(event, in: &state, with: &self)
        self.state = state
        return fired
    }

    package func holds(_ guardSymbol: BreakerGuard) -> Bool {
        switch guardSymbol {
        case .probeInFlight:
            return probe != nil
        case .windowTrips:
            switch options.trip {
            case .consecutiveFailures(let count):
                return consecutiveFailures >= count
            case .failureRatio(let ratio, let minimumThroughput, _):
                let health = window.health(at: now)
                return health.calls >= minimumThroughput && Double(health.failures) >= ratio * Double(health.calls)
            }
        }
    }

    package mutating func perform(_ effect: BreakerEffect) {
        switch effect {
        case .admit: answer = .admitted
        case .admitProbe:
            probesStarted += 1
            probe = probesStarted
            answer = .admittedProbe(probesStarted)
        case .reject: answer = .rejected
        case .recordSuccess:
            consecutiveFailures = 0
            window.record(failed: false, at: now)
        case .recordFailure:
            consecutiveFailures += 1
            window.record(failed: true, at: now)
        case .startBreak: openUntil = now + options.breakDuration
        case .clearWindow:
            consecutiveFailures = 0
            window.clear()
        case .endProbe: probe = nil
        }
    }
}
