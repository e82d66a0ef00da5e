import Foundation

/// Many timers on one clock served by one waiter: the timers wait in a heap in deadline order, and
/// the waiter sleeps until the earliest, then calls what is due, in order. On the real clock the
/// waiter is a thread of its own (``continuous``); on any other clock (``ManualClock``), a task
/// sleeping on it, so a test sees it as one more sleeper.
///
/// Why a thread on the real clock: a sleeping task needs two turns of Swift's thread pool to fire
/// (one to start, one to wake), and a new one each time an earlier timer comes. In a loaded
/// process those turns queue behind every other job: in the whole test suite under two CPU hogs
/// the sleeper started up to 18 s after it was made, and a 300 ms deadline ended its run 25 s
/// late. The thread waits on the kernel's clock and calls `fire` itself; what `fire` resumes still
/// takes one turn.
///
/// Why: an inline attempt with a timer (the HTTP transport's 30 s default timeout) used to start a
/// task of its own that slept until the timer's instant and was cancelled when the answer came:
/// a task created, scheduled twice and a clock wait registered and left behind, per request
/// (success-overhead, issue 16). Here arming is a heap insertion under a lock and disarming a
/// removal; a new task starts only when a timer is earlier than every armed one, so a stream of
/// requests with the same timeout starts about one task per timeout period.
package final class SharedTimer<C: Clock>: Sendable where C.Duration == Duration {
    /// An armed timer, to disarm it.
    package struct Token: Sendable {
        fileprivate let id: UInt64
    }

    private struct Entry {
        let at: C.Instant
        let id: UInt64
        let fire: @Sendable () -> Void
    }

    private struct State {
        /// A binary min-heap by (instant, arming order).
        var heap: [Entry] = []
        /// Where each armed timer is in `heap`, to disarm it in O(log n).
        var positions: [UInt64: Int] = [:]
        var nextID: UInt64 = 0
        /// The instant the sleeping task wakes at, if one sleeps; its generation.
        var wakesAt: C.Instant?
        var generation: UInt64 = 0
        var sleeper: Task<Void, Never>?
    }

    private let clock: C
    private let state = Locked(State())
    /// The waiting thread's wake-ups, when there is one: a new earliest timer signals it.
    private let waiter: ThreadWaiter?

    /// A timer service on `clock`, with a task sleeping on it.
    package init(clock: C) {
        self.clock = clock
        self.waiter = nil
    }

    /// A timer service on the real clock, with a thread of its own waiting.
    fileprivate init(threadNamed name: String) where C == ContinuousClock {
        self.clock = ContinuousClock()
        self.waiter = ThreadWaiter(name: name)
    }

    /// Arms a timer that calls `fire` once `at` has passed on the clock (never earlier), unless it
    /// is disarmed first. `fire` runs on the sleeping task, without the lock: keep it short.
    package func arm(at instant: C.Instant, _ fire: @escaping @Sendable () -> Void) -> Token {
        state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.heap.append(Entry(at: instant, id: id, fire: fire))
            state.positions[id] = state.heap.count - 1
            siftUp(state.heap.count - 1, in: &state)
            if state.wakesAt.map({ instant < $0 }) ?? true {
                if let waiter {
                    state.wakesAt = instant
                    waiter.wake { [self] in waitForTheNextTimer() }
                } else {
                    startSleeper(until: instant, in: &state)
                }
            }
            return Token(id: id)
        }
    }

    /// Disarms `token`'s timer; nothing happens if it already fired. The sleeping task is left as
    /// it is: it wakes, finds nothing due, and sleeps until the next timer, if any.
    package func disarm(_ token: Token) {
        state.withLock { state in
            guard let index = state.positions[token.id] else { return }
            remove(at: index, in: &state)
        }
    }

    /// How many timers are armed (for tests).
    package var armedCount: Int { state.withLock { $0.heap.count } }

    /// Lock held. Replaces the sleeping task by one that wakes at `instant`.
    private func startSleeper(until instant: C.Instant, in state: inout State) {
        state.sleeper?.cancel()
        state.generation += 1
        state.wakesAt = instant
        let generation = state.generation
        // Detached: the sleeper serves every caller, so it must not keep the task-local values (nor
        // take the priority) of whichever caller happened to arm the earliest timer.
        state.sleeper = Task.detached { [clock] in
            do {
                try await clock.sleep(until: instant, tolerance: nil)
            } catch {
                return // replaced by an earlier one
            }
            self.fireDue(generation: generation)
        }
    }

    /// The waiting thread's turn: fires what is due, then returns how long until the next timer
    /// (nil: none armed), noting it in `wakesAt` so an earlier arming wakes the thread.
    private func waitForTheNextTimer() -> Duration? {
        let (due, next): ([Entry], Duration?) = state.withLock { state in
            let now = clock.now
            var due: [Entry] = []
            while let first = state.heap.first, first.at <= now {
                due.append(first)
                remove(at: 0, in: &state)
            }
            state.wakesAt = state.heap.first?.at
            return (due, state.heap.first.map { now.duration(to: $0.at) })
        }
        for entry in due { entry.fire() }
        return next
    }

    private func fireDue(generation: UInt64) {
        let due: [Entry] = state.withLock { state in
            let now = clock.now
            var due: [Entry] = []
            while let first = state.heap.first, first.at <= now {
                due.append(first)
                remove(at: 0, in: &state)
            }
            if state.generation == generation {
                state.sleeper = nil
                state.wakesAt = nil
                if let next = state.heap.first { startSleeper(until: next.at, in: &state) }
            }
            return due
        }
        for entry in due { entry.fire() }
    }

    private func remove(at index: Int, in state: inout State) {
        let last = state.heap.count - 1
        state.positions[Self.id(at: index, in: state.heap)] = nil
        if index != last {
            state.heap.withUnsafeMutableBufferPointer { $0.swapAt(index, last) }
            state.positions[Self.id(at: index, in: state.heap)] = index
        }
        state.heap.removeLast()
        guard index < state.heap.count else { return }
        siftDown(index, in: &state)
        siftUp(index, in: &state)
    }

    private func siftUp(_ start: Int, in state: inout State) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.precedes(child, parent, in: state.heap) else { return }
            swap(child, parent, in: &state)
            child = parent
        }
    }

    private func siftDown(_ start: Int, in state: inout State) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var first = parent
            if left < state.heap.count, Self.precedes(left, first, in: state.heap) { first = left }
            if right < state.heap.count, Self.precedes(right, first, in: state.heap) { first = right }
            guard first != parent else { return }
            swap(parent, first, in: &state)
            parent = first
        }
    }

    private func swap(_ i: Int, _ j: Int, in state: inout State) {
        // Moved in the buffer: `Array.swapAt` copies through a temporary, retaining the closures
        // (as `remove(at:)` does too).
        state.heap.withUnsafeMutableBufferPointer { $0.swapAt(i, j) }
        state.positions[Self.id(at: i, in: state.heap)] = i
        state.positions[Self.id(at: j, in: state.heap)] = j
    }

    /// Whether the entry at `i` fires before the one at `j`. Read in place through the buffer: an
    /// entry copied to be compared retained and released its closure, the largest source of
    /// retains in an HTTP run's profile (docs/benchmarks.md, nginx-concurrency's third look).
    private static func precedes(_ i: Int, _ j: Int, in heap: borrowing [Entry]) -> Bool {
        heap.withUnsafeBufferPointer { entries in
            entries[i].at < entries[j].at || (entries[i].at == entries[j].at && entries[i].id < entries[j].id)
        }
    }

    /// The id of the entry at `index`, read in place (see ``precedes(_:_:in:)``).
    private static func id(at index: Int, in heap: borrowing [Entry]) -> UInt64 {
        heap.withUnsafeBufferPointer { $0[index].id }
    }
}

extension SharedTimer where C == ContinuousClock {
    /// The process's timer service on the real clock, for inline attempts' timers.
    package static var continuous: SharedTimer<ContinuousClock> { continuousTimer }
}

/// (A generic type cannot hold a static stored property.)
private let continuousTimer = SharedTimer<ContinuousClock>(threadNamed: "RetryFlowTimer")

/// A thread that runs a turn, then waits as long as the turn said (or until woken), forever; started
/// on its first wake-up.
private final class ThreadWaiter: @unchecked Sendable {
    // @unchecked: `started` and `woken` are behind `condition`.
    private let condition = NSCondition()
    private let name: String
    private var started = false
    private var woken = false

    init(name: String) { self.name = name }

    /// Makes the thread take a turn now (starting it with `turn` the first time).
    func wake(_ turn: @escaping @Sendable () -> Duration?) {
        condition.lock()
        woken = true
        let start = !started
        started = true
        condition.signal()
        condition.unlock()
        if start { startNamedThread(name) { [self] in run(turn) } }
    }

    private func run(_ turn: @Sendable () -> Duration?) {
        while true {
            condition.lock()
            woken = false
            condition.unlock()
            let next = turn()
            condition.lock()
            // A wake-up during the turn counts: the turn may have missed the timer it announced.
            if !woken {
                if let next {
                    _ = condition.wait(until: Date(timeIntervalSinceNow: max(0, next.inSeconds)))
                } else {
                    condition.wait()
                }
            }
            condition.unlock()
        }
    }
}
