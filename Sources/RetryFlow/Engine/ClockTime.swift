/// The engine's clock as one run sees it, from the instant the run started: time since the start,
/// and waits and timers at such times. The machine speaks of times since the start; this turns them
/// into the clock's instants.
struct ClockTime<C: Clock<Duration>>: Sendable {
    let clock: C
    let start: C.Instant

    /// Time since the run started.
    func elapsed() -> Duration { start.duration(to: clock.now) }

    /// Sleeps until `time` after the start; throws when the task is cancelled.
    func sleep(until time: Duration) async throws {
        try await clock.sleep(until: start.advanced(by: time), tolerance: nil)
    }

    /// A timer calling `fire` at `time` after the start, until disarmed.
    func arm(at time: Duration, _ fire: @escaping @Sendable () -> Void) -> ArmedTimer {
        ArmedTimer(clock: clock, at: start.advanced(by: time), fire: fire)
    }
}
