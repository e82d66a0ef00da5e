import Foundation
import RetryFlow

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `__park event`: the floor of an event-driven engine, measured before anyone writes one (issue 16).
/// The caller awaits one continuation at a shallow depth; the attempt runs in a short-lived task of
/// its own (its allocator slabs die with it), which steps a real ``RetryMachine`` to its wait and
/// parks the run on one shared timer that holds every waiting run in deadline order (RetryFlow's
/// ``SharedTimer``, which serves inline attempts' timers). What stays
/// alive through the wait is the caller's task, the run's state on the heap (today's `RunDriver`'s
/// fields, with their real types) and the timer's entry.
enum EventParking {
    /// One run's state as the event-driven engine would keep it: `RunDriver`'s stored fields in
    /// order (Sources/RetryFlow/Engine/Retry.swift), then what waiting on the timer adds.
    final class RunState: @unchecked Sendable {
        // RunDriver's `engine: EngineHooks`.
        let onRetry: (@Sendable (RetryNotice) -> Void)?
        let onTransition: (@Sendable (RetryTrace.Step) -> Void)?
        let describeError: @Sendable (any Error) -> String
        /// `any RunTime`: the clock and the run's start instant in one existential.
        let time: any Sendable = (ContinuousClock(), ContinuousClock.now)
        let transitions: AsyncStream<RetryTrace.Step>.Continuation?
        var machine: RetryMachine
        var trace = RetryTrace()
        var attempts: [RecordStandIn] = []
        var lastValue: Int?
        var lastError: (any Error)?
        var delayBefore: Duration = .zero
        /// `AttemptRace<Value>?`: its lock box and its task.
        var inFlight: (AnyObject, Task<Void, Never>?)?
        var pending: RetryInput
        var actions = RetryActions()
        var nextAction = 0
        var decidedAt: Duration = .zero
        /// `(RetryAttempt) async throws -> Value` (the argument type does not change the closure's size).
        let operation: @Sendable (Int) async throws -> Int
        let classifyResult: (@Sendable (Int) -> RetryVerdict?)?
        let runsAttemptsInline = true
        let interruptsInlineAttempts = true
        let guards = FleetGuards()
        var ticket: CircuitTicket?
        var lastRetryCost: Int?
        var attempt = (number: 0, timer: AttemptTimer?.none, started: Duration.zero)
        // The event-driven engine's own: the continuation the caller awaits and the run's entry on
        // the shared timer (RetryFlow's own `SharedTimer`, as such an engine would use it).
        let lock = NSLock()
        var continuation: UnsafeContinuation<Void, Never>?
        var resumed = false
        var token: SharedTimer<ContinuousClock>.Token?

        init(policy: RetryPolicy, operation: @escaping @Sendable (Int) async throws -> Int) {
            onRetry = nil
            onTransition = nil
            describeError = { String(describing: $0) }
            transitions = nil
            machine = RetryMachine(policy: policy, random: SystemRandomNumberGenerator())
            pending = .start
            self.operation = operation
            classifyResult = nil
        }

        /// Delivers `pending` to the real machine and performs the actions that need no waiting,
        /// as `RunDriver.advance` does, up to the next attempt or wait: the answers it gives by hand (admitted,
        /// granted) are the rows it expects, a mirror of RetryTable.retry, rows fingerprint 7aa0333b9c6aa5e8.
        func advance(now: Duration) {
            while true {
                if nextAction == actions.count {
                    decidedAt = now
                    guard let step = try? machine.handle(pending, at: now) else { return }
                    trace.steps += step.taken(detail: pending.detail)
                    actions = step.actions
                    nextAction = 0
                    continue
                }
                let action = actions[nextAction]
                nextAction += 1
                switch action {
                case .startAttempt, .sleep, .finish, .runStep: return
                case .cancelAttempt: inFlight = nil
                case .reportHealth, .returnToken: break
                case .askLimiter: pending = .tokenGranted
                case .askBreaker: pending = .admitted
                case .askRetryBudget: pending = .budgetAnswered(granted: true, detail: nil)
                case .notifyRetry(_, let delay): delayBefore = delay
                }
            }
        }

        /// The attempt failed with `error`: its record, then the machine's steps up to the wait.
        func attemptFailed(_ error: any Error, started: Duration, now: Duration) {
            let words = describeError(error)
            lastError = error
            pending = .failed(.retry, detail: words)
            attempts.append(
                RecordStandIn(
                    number: attempts.count + 1, start: started, duration: now - started, delayBefore: delayBefore,
                    error: error, decision: .retry, errorDescription: words, returnedValue: false))
            advance(now: now)
        }
    }

    /// `AttemptRecord`'s stored fields (its initialiser is internal to RetryFlow); the same size,
    /// checked by ``layoutNote()``.
    struct RecordStandIn {
        var number: Int
        var start: Duration
        var duration: Duration
        var delayBefore: Duration
        var error: (any Error)?
        var decision: RetryDecision?
        var errorDescription: String?
        var returnedValue: Bool
    }

    /// Hands the caller's continuation over to the run; resumes it at once if it was resumed before.
    static func hold(_ run: RunState, _ continuation: UnsafeContinuation<Void, Never>) {
        let early = run.lock.withLock { () -> Bool in
            if !run.resumed { run.continuation = continuation }
            return run.resumed
        }
        if early { continuation.resume() }
    }

    /// Resumes the caller once: its deadline passed (here the event-driven engine would start the
    /// next attempt; the harness never lets 60 s pass), or it was cancelled.
    static func resume(_ run: RunState) {
        let continuation = run.lock.withLock { () -> UnsafeContinuation<Void, Never>? in
            run.resumed = true
            defer { run.continuation = nil }
            return run.continuation
        }
        if let token = run.lock.withLock({ run.token }) { SharedTimer.continuous.disarm(token) }
        continuation?.resume()
    }

    /// One caller: makes the run's state, starts the attempt in its own task and awaits the
    /// continuation that the timer will resume.
    static func parkedRun(policy: RetryPolicy, clock: ContinuousClock, didPark: @escaping @Sendable () -> Void) async {
        let start = clock.now
        let run = RunState(policy: policy) { _ in throw URLError(.networkConnectionLost) }
        run.advance(now: .zero)
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                hold(run, continuation)
                Task {
                    let started = start.duration(to: clock.now)
                    do {
                        _ = try await run.operation(1)
                    } catch {
                        run.attemptFailed(error, started: started, now: start.duration(to: clock.now))
                    }
                    let token = SharedTimer.continuous.arm(at: start.advanced(by: run.decidedAt + run.delayBefore)) {
                        resume(run)
                    }
                    run.lock.withLock { run.token = token }
                    didPark()
                }
            }
        } onCancel: {
            resume(run)
        }
    }

    /// The sizes the floor is made of, for the benchmark's note (MemoryLayout of the real types).
    static func layoutNote() -> String {
        let run = RunState(policy: .default) { _ in 0 }
        #if os(Linux)
            let instance = "\(usableSize(Unmanaged.passUnretained(run).toOpaque()))"
        #else
            let instance = "?"
        #endif
        let sameRecord = MemoryLayout<RecordStandIn>.size == MemoryLayout<AttemptRecord>.size
        run.advance(now: .zero)
        run.attemptFailed(URLError(.networkConnectionLost), started: .zero, now: .milliseconds(1))
        let steps = "\(run.trace.steps.count) trace steps (capacity \(run.trace.steps.capacity))"
        return "run state \(instance) B allocated (RetryMachine \(MemoryLayout<RetryMachine>.size) B, "
            + "RetryPolicy \(MemoryLayout<RetryPolicy>.size) B, RetryActions \(MemoryLayout<RetryActions>.size) B, "
            + "RetryInput \(MemoryLayout<RetryInput>.size) B, trace step \(MemoryLayout<RetryTrace.Step>.stride) B, "
            + "AttemptRecord \(MemoryLayout<AttemptRecord>.stride) B\(sameRecord ? "" : " (stand-in differs!)"); \(steps) at the wait)"
    }
}

#if os(Linux)
    /// glibc's `malloc_usable_size` (declared in malloc.h, which Glibc does not export): the bytes
    /// an allocation really holds.
    @_silgen_name("malloc_usable_size")
    private func usableSize(_ pointer: UnsafeMutableRawPointer) -> Int
#endif
