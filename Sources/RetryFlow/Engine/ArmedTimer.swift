/// An inline attempt's timer: on the real clock, an entry of the process's ``SharedTimer`` (no task
/// per attempt); on any other clock (``ManualClock`` in tests), a task sleeping on it, so a test
/// sees the timer as one more sleeper, as before.
enum ArmedTimer {
    case shared(SharedTimer<ContinuousClock>.Token)
    case task(Task<Void, Never>)

    init<C: Clock<Duration>>(clock: C, at instant: C.Instant, fire: @escaping @Sendable () -> Void) {
        if C.self == ContinuousClock.self, let instant = instant as? ContinuousClock.Instant {
            self = .shared(SharedTimer.continuous.arm(at: instant, fire))
        } else {
            self = .task(
                Task {
                    do {
                        try await clock.sleep(until: instant, tolerance: nil)
                        fire()
                    } catch {}
                })
        }
    }

    /// Stops the timer; it will not fire.
    func disarm() {
        switch self {
        case .shared(let token): SharedTimer.continuous.disarm(token)
        case .task(let task): task.cancel()
        }
    }
}
