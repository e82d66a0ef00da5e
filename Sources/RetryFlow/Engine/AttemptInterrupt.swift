/// Ends an attempt that runs in the engine's own task when its timer fires, without cancelling
/// that task (which would cancel the whole run). An operation that listens (the HTTP transport)
/// registers how to end itself; the engine's timer calls it.
///
/// Why attempts of such operations run inline even with a timer: a child task per attempt must
/// first be scheduled on Swift's global executor, and in a process with thousands of queued jobs
/// (a full parallel `swift test` on a loaded 2-core machine) that took 3.2 s, so a 3 s per-attempt
/// timeout expired before the request was even made. Inline, the request goes out at once and the
/// attempt is decided where its answer arrives, not after another trip through that queue.
package final class AttemptInterrupt: Sendable {
    /// The interrupt of the inline attempt running in this task, if any.
    @TaskLocal package static var current: AttemptInterrupt?

    private struct State {
        var fired = false
        var answered = false
        var handler: (@Sendable () -> Void)?
    }

    private let state = Locked(State())
    /// Whether the timer's instant has passed, on the engine's clock.
    private let due: @Sendable () -> Bool

    /// An interrupt for a timer whose instant has passed when `due` returns true.
    package init(due: @escaping @Sendable () -> Bool) { self.due = due }

    /// Whether the attempt timed out: the timer fired, or the answer came after its instant.
    package var fired: Bool { state.withLock { $0.fired } }

    /// The operation has its answer, right where it arrives: a timer firing later changes nothing,
    /// and an answer after the timer's instant counts as the timeout it is (the timer's own task
    /// may run late on a busy executor, after URLSession's backstop timeout answered).
    package func answered() {
        let late = due()
        state.withLock { state in
            guard !state.answered else { return }
            state.answered = true
            if !state.fired && late { state.fired = true }
            state.handler = nil
        }
    }

    /// Registers how to end the operation; runs it at once if the timer already fired.
    package func onInterrupt(_ handler: @escaping @Sendable () -> Void) {
        let firedAlready = state.withLock { state -> Bool in
            if !state.fired { state.handler = handler }
            return state.fired
        }
        if firedAlready { handler() }
    }

    /// The timer fired: ends the operation (once).
    package func fire() {
        let handler = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.fired, !state.answered else { return nil }
            state.fired = true
            defer { state.handler = nil }
            return state.handler
        }
        handler?()
    }
}
