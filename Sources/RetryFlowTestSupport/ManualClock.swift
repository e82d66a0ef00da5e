import Foundation
import RetryFlow

/// A `Clock` that moves only when told: tests and simulations advance it and every sleeper whose
/// deadline is reached resumes, in deadline order. Nothing sleeps for real.
///
/// ```swift
/// let clock = ManualClock()
/// let run = Task { try await Retry(policy, clock: clock).run { _ in try flaky() } }
/// await clock.waitForSleepers(1)      // the engine is parked in its backoff wait
/// clock.advance(by: .milliseconds(500))
/// ```
///
/// Sleeping is cancellation-aware: a cancelled sleeper throws `CancellationError` at once.
public final class ManualClock: Clock, @unchecked Sendable {
    /// A point on the manual clock: the time since the clock was made.
    public struct Instant: InstantProtocol, Sendable, CustomStringConvertible {
        /// Time since the clock's zero.
        public var offset: Duration

        /// An instant `offset` after zero.
        package init(offset: Duration) { self.offset = offset }

        /// Moves the instant.
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        /// The duration from this instant to `other`.
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        /// Orders instants.
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
        /// `t=1.5 s`.
        public var description: String { "t=\(offset.shortDescription)" }
    }

    private struct Sleeper {
        let id: UInt64
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct Waiter {
        let id: UInt64
        let isSatisfied: @Sendable ([Instant]) -> Bool
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var now = Instant(offset: .zero)
        /// In wake-up order, deadline then id, kept so on insertion: tests with thousands of
        /// sleepers re-read them on every change, and sorting each time was a tenth of the pool's
        /// CPU in a loaded `swift test` (issue 24).
        var sleepers: [Sleeper] = []
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
        var cancelledBeforeRegistering: Set<UInt64> = []

        /// Puts `sleeper` in its place in wake-up order (deadline, then id).
        mutating func insert(_ sleeper: Sleeper) {
            var low = 0
            var high = sleepers.count
            while low < high {
                let middle = (low + high) / 2
                if (sleepers[middle].deadline, sleepers[middle].id) < (sleeper.deadline, sleeper.id) {
                    low = middle + 1
                } else {
                    high = middle
                }
            }
            sleepers.insert(sleeper, at: low)
        }
    }

    private let state = Locked(State())

    /// A clock at zero with no sleepers.
    public init() {}

    /// The current instant.
    public var now: Instant { withLock { $0.now } }

    /// Zero: the manual clock resolves any duration.
    public var minimumResolution: Duration { .zero }

    /// How many tasks are sleeping on this clock now.
    package var sleeperCount: Int { withLock { $0.sleepers.count } }

    /// The earliest deadline among the sleepers, if any.
    public var nextDeadline: Instant? { withLock { $0.sleepers.first?.deadline } }

    /// Suspends until `deadline` is reached by ``advance(by:)``; returns at once if it already is.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id: UInt64 = withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = withLock { state in
                    if state.cancelledBeforeRegistering.remove(id) != nil { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(()) }
                    state.insert(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return nil
                }
                if let outcome {
                    continuation.resume(with: outcome)
                } else {
                    notifyWaiters()
                }
            }
        } onCancel: {
            let sleeper: Sleeper? = withLock { state in
                if let index = state.sleepers.firstIndex(where: { $0.id == id }) {
                    return state.sleepers.remove(at: index)
                }
                state.cancelledBeforeRegistering.insert(id)
                return nil
            }
            sleeper?.continuation.resume(throwing: CancellationError())
            if sleeper != nil { self.notifyWaiters() }
        }
    }

    /// Moves time forward by `duration` and resumes, in deadline order, every sleeper now due.
    public func advance(by duration: Duration) {
        precondition(duration >= .zero, "a clock cannot go backwards")
        let due: [Sleeper] = withLock { state in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let dueCount = state.sleepers.prefix { $0.deadline <= now }.count
            defer { state.sleepers.removeFirst(dueCount) }
            return Array(state.sleepers.prefix(dueCount))
        }
        for sleeper in due { sleeper.continuation.resume() }
        if !due.isEmpty { notifyWaiters() }
    }

    /// Moves time to `instant` (if it is later) and resumes every sleeper now due.
    package func advance(to instant: Instant) {
        let delta = now.duration(to: instant)
        advance(by: max(.zero, delta))
    }

    /// Moves time to the earliest sleeper's deadline and resumes it; returns that deadline, or
    /// `nil` when nobody sleeps.
    @discardableResult
    public func advanceToNextDeadline() -> Instant? {
        guard let next = nextDeadline else { return nil }
        advance(to: next)
        return next
    }

    /// Moves time to the earliest sleeper's deadline and resumes only that sleeper (ties go to the
    /// one that started sleeping first); returns its deadline, or `nil` when nobody sleeps. With one
    /// resumed at a time, many concurrent sleepers run in an order that never depends on threads.
    @discardableResult
    package func resumeEarliestSleeper() -> Instant? {
        let sleeper: Sleeper? = withLock { state in
            guard !state.sleepers.isEmpty else { return nil }
            let sleeper = state.sleepers.removeFirst()
            if state.now < sleeper.deadline { state.now = sleeper.deadline }
            return sleeper
        }
        guard let sleeper else { return nil }
        sleeper.continuation.resume()
        notifyWaiters()
        return sleeper.deadline
    }

    /// Suspends until at least `count` tasks are sleeping on this clock: how a test knows the code
    /// under test has reached its wait, without sleeping for real. Returns early if cancelled.
    public func waitForSleepers(_ count: Int = 1) async {
        await waitUntil { $0.count >= count }
    }

    /// Suspends until the sleepers' deadlines (sorted) satisfy `condition`, re-checked whenever a
    /// task starts sleeping, is resumed or is cancelled. Returns early if cancelled.
    ///
    /// ```swift
    /// await clock.waitUntil { $0 == [clock.now.advanced(by: .milliseconds(100))] }
    /// ```
    package func waitUntil(_ condition: @escaping @Sendable (_ deadlines: [Instant]) -> Bool) async {
        let id: UInt64 = withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = withLock { state in
                    if condition(Self.deadlines(state)) || state.cancelledBeforeRegistering.remove(id) != nil {
                        return true
                    }
                    state.waiters.append(Waiter(id: id, isSatisfied: condition, continuation: continuation))
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            let waiter: Waiter? = withLock { state in
                if let index = state.waiters.firstIndex(where: { $0.id == id }) {
                    return state.waiters.remove(at: index)
                }
                state.cancelledBeforeRegistering.insert(id)
                return nil
            }
            waiter?.continuation.resume()
        }
    }

    private static func deadlines(_ state: State) -> [Instant] { state.sleepers.map(\.deadline) }

    /// Runs `body`, advancing to the next sleeper's deadline each time something sleeps, until
    /// `body` returns: for code whose only waits are sequential sleeps (a retry run without
    /// timeouts, a simulation). With concurrent sleepers, drive the clock by hand instead.
    package func runAdvancing<T: Sendable>(_ body: @escaping @Sendable () async -> T) async -> T {
        await withTaskGroup(of: T?.self) { group in
            group.addTask { await body() }
            group.addTask {
                while !Task.isCancelled {
                    await self.waitForSleepers(1)
                    if Task.isCancelled { break }
                    self.advanceToNextDeadline()
                }
                return nil
            }
            var result: T?
            for await value in group where value != nil {
                result = value
                group.cancelAll()
            }
            return result!
        }
    }

    /// ``runAdvancing(_:)`` for a `body` that throws: its error is rethrown, so a test fails with
    /// it instead of crashing on `try!`.
    package func runAdvancing<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let result: Result<T, any Error> = await runAdvancing {
            do { return .success(try await body()) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Re-checks every ``waitUntil(_:)`` condition now: for conditions that also read state outside
    /// the clock (a driver's own bookkeeping), call this when that state changes.
    package func recheck() { notifyWaiters() }

    private func notifyWaiters() {
        let ready: [Waiter] = withLock { state in
            guard !state.waiters.isEmpty else { return [] }
            let deadlines = Self.deadlines(state)
            let ready = state.waiters.filter { $0.isSatisfied(deadlines) }
            let readyIDs = Set(ready.map(\.id))
            state.waiters.removeAll { readyIDs.contains($0.id) }
            return ready
        }
        for waiter in ready { waiter.continuation.resume() }
    }

    private func withLock<R>(_ body: (inout State) -> R) -> R {
        state.withLock(body)
    }
}
