/// The engine's clock as one run sees it: time since the run started, waits and timers on it.
///
/// The run's loop and attempts see the clock only through this (an existential holding the clock
/// and the start instant inline, no allocation): a parked run's task keeps the task-allocator
/// slabs its deepest chain of async frames ever took, and generic code holding a `C.Instant`
/// across an await allocates it there, frame after frame (docs/benchmarks.md, waiting-memory).
protocol RunTime: Sendable {
    /// Time since the run started.
    func elapsed() -> Duration
    /// Sleeps until `time` after the start; throws when the task is cancelled.
    func sleep(until time: Duration) async throws
    /// A timer calling `fire` at `time` after the start, until disarmed.
    func arm(at time: Duration, _ fire: @escaping @Sendable () -> Void) -> ArmedTimer
}

/// A run's time on the engine's clock `C`, from the instant the run started.
struct ClockTime<C: Clock<Duration>>: RunTime {
    let clock: C
    let start: C.Instant

    func elapsed() -> Duration { start.duration(to: clock.now) }

    func sleep(until time: Duration) async throws {
        try await clock.sleep(until: start.advanced(by: time), tolerance: nil)
    }

    func arm(at time: Duration, _ fire: @escaping @Sendable () -> Void) -> ArmedTimer {
        ArmedTimer(clock: clock, at: start.advanced(by: time), fire: fire)
    }
}
