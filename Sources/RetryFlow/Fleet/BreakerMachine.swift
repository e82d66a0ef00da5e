/// The circuit breaker's specialisation of ``TableMachine``: the sampling window, the break's end
/// and the probe in flight. Times come in with the inputs; no clock is read.
package struct BreakerRules: MachineRules, Hashable {
    package typealias Vocabulary = BreakerVocabulary

    package let options: CircuitBreakerOptions
    /// When the current break ends (meaningful while open).
    package private(set) var openUntil: Duration = .zero
    /// The probe in flight, if any: its number, so a stale probe's outcome is told apart.
    package private(set) var probe: UInt64?
    /// When the probe in flight was let through: after a break's length it no longer holds half-open.
    package private(set) var probeStartedAt: Duration = .zero
    private var probesStarted: UInt64 = 0
    private var window: SamplingWindow
    private var consecutiveFailures = 0
    private var now: Duration = .zero

    package init(options: CircuitBreakerOptions) {
        self.options = options
        if case .failureRatio(_, _, let sampling) = options.trip {
            window = SamplingWindow(duration: sampling)
        } else {
            window = SamplingWindow(duration: .seconds(1))
        }
    }

    package mutating func receive(_ input: BreakerEvent, at time: Duration) {
        now = time
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

    /// The row starting a break shows its length.
    package func traced(_ row: Row) -> (attempt: Int, delay: Duration?) {
        (0, row.effects.contains(.startBreak) ? options.breakDuration : nil)
    }

    package mutating func perform(_ effect: BreakerEffect, of row: Row) -> BreakerAction? {
        switch effect {
        case .admit: return .admit
        case .admitProbe:
            probesStarted += 1
            probe = probesStarted
            probeStartedAt = now
            return .admitProbe(probesStarted)
        case .reject: return .reject
        case .recordSuccess:
            consecutiveFailures = 0
            window.record(failed: false, at: now)
        case .recordFailure:
            consecutiveFailures += 1
            window.record(failed: true, at: now)
        case .startBreak:
            openUntil = now + options.breakDuration
        case .clearWindow:
            consecutiveFailures = 0
            window.clear()
        case .endProbe: probe = nil
        }
        return nil
    }
}

/// The breaker's machine: the one core running `TransitionTable.breaker` with the breaker rules.
package typealias BreakerMachine = TableMachine<BreakerRules>
