/// A one-shot timer to await: ``wait()`` returns true when `instant` passes on the clock, false
/// once ``cancel()`` is called first. On the real clock it is an entry of the process's
/// ``SharedTimer`` (fired by its thread, not by a task that needs turns of Swift's pool); on any
/// other clock a task sleeping on it (``ArmedTimer``).
///
/// For timers a loop awaits among other events, such as a hedged run's next hedge: a sleeping task
/// there took four turns of the pool to fire, and in a loaded process every hedge lost the race
/// against a 200 ms per-attempt timeout that the shared timer fired on time.
package final class TimerWait: Sendable {
    private struct State {
        var fired: Bool?
        var continuation: CheckedContinuation<Bool, Never>?
        var timer: ArmedTimer?
    }

    private let state = Locked(State())

    /// Arms the timer for `instant` on `clock`.
    package init<C: Clock<Duration>>(clock: C, until instant: C.Instant) {
        let timer = ArmedTimer(clock: clock, at: instant) { [weak self] in self?.finish(true) }
        let ended = state.withLock { state -> Bool in
            if state.fired == nil { state.timer = timer }
            return state.fired != nil
        }
        if ended { timer.disarm() }
    }

    /// Waits until the timer fires (true) or is cancelled (false).
    package func wait() async -> Bool {
        await withCheckedContinuation { continuation in
            let fired = state.withLock { state -> Bool? in
                if state.fired == nil { state.continuation = continuation }
                return state.fired
            }
            if let fired { continuation.resume(returning: fired) }
        }
    }

    /// Disarms the timer; a ``wait()`` returns false (unless it fired already).
    package func cancel() {
        let timer = state.withLock { $0.timer }
        timer?.disarm()
        finish(false)
    }

    private func finish(_ fired: Bool) {
        let continuation = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard state.fired == nil else { return nil }
            state.fired = fired
            state.timer = nil
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(returning: fired)
    }
}
