import Foundation
import RetryFlow

/// A few threads of our own that run closures where `DataTaskAttempt` and the download's
/// `TransferDriver` make URLSession's blocking calls (`dataTask(with:)`, `resume()`), so that a
/// blocked call never holds a thread that Swift's tasks run on.
///
/// Calls come in *lanes*, one a session (or a download): each lane's calls run in the order they
/// were submitted, and the threads take the lanes in turn, one call each. One session's burst then
/// never holds back another session's call: with one first-come queue, the 1,100 calls of two
/// stress tests (500 requests at once, then a cancel storm) kept a test's single call waiting
/// 4.8 s on a loaded machine, past its 3 s per-attempt timeout, before it was even sent
/// (docs/reliability.md, "One session's burst held back every other session").
///
/// Why not a Dispatch queue: this toolchain's libdispatch (Linux) has no cooperative queue, so
/// Swift's global executor *is* the default-QoS root queue, and a concurrent Dispatch queue runs its
/// items on those same two threads; a blocked call there delayed an unrelated task by 2.9 s
/// (success-overhead, fourth look, part 5: docs/benchmarks.md at 143d768). A serial queue per call or per
/// turn took every call to a thread of its own and starved URLSession's one work queue under load.
package final class CallThreads: @unchecked Sendable {
    /// Two threads: the throttle the concurrent queue gave on two cores (about two blocked calls at
    /// once). Every call waits on URLSession's one shared work queue; more threads waiting there
    /// left that queue's own thread too little CPU (hundreds: 6 of 6 test runs failed).
    package static let width = 2

    /// The process's pool, started on its first call.
    package static let shared = CallThreads(width: width, name: "RetryFlowCall") // 15 bytes with ".1"

    /// One submitter's calls not yet taken, oldest at `head` (taken slots are cleared, and dropped
    /// in bulk).
    private struct Lane {
        var jobs: [(@Sendable () -> Void)?] = []
        var head = 0
        var isEmpty: Bool { head == jobs.count }

        mutating func take() -> (@Sendable () -> Void)? {
            let job = jobs[head]
            jobs[head] = nil
            head += 1
            if isEmpty || head >= 64 && head * 2 >= jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            return job
        }
    }

    private let width: Int
    private let name: String
    /// Guards every field below; its threads wait on it for work.
    private let condition = NSCondition()
    /// The lanes with calls waiting.
    private var lanes: [ObjectIdentifier: Lane] = [:]
    /// The lanes with calls waiting, in the order they get their next turn (taken from `turn`).
    private var turns: [ObjectIdentifier] = []
    private var turn = 0
    private var started = false

    package init(width: Int, name: String) {
        precondition(width > 0, "CallThreads needs at least one thread")
        self.width = width
        self.name = name
    }

    /// Queues `job` to run on one of the pool's threads, after the calls `lane` submitted before
    /// it, and after at most one call of each other lane waiting now; never waits for it.
    ///
    /// `lane` names the submitter (a session, a download); only its identity is used.
    package func submit(lane: AnyObject, _ job: @escaping @Sendable () -> Void) {
        let key = ObjectIdentifier(lane)
        condition.lock()
        if lanes[key] == nil {
            lanes[key] = Lane()
            turns.append(key)
        }
        lanes[key]!.jobs.append(job)
        let start = !started
        started = true
        condition.signal()
        condition.unlock()
        if start {
            for index in 0..<width {
                startNamedThread("\(name).\(index)") { [self] in run() }
            }
        }
    }

    /// The next lane's oldest call; the lane goes to the back of the turns if it has more.
    /// Called with the lock held and at least one lane waiting.
    private func takeLocked() -> (@Sendable () -> Void)? {
        let key = turns[turn]
        turn += 1
        let job = lanes[key]!.take()
        if lanes[key]!.isEmpty {
            lanes[key] = nil
        } else {
            turns.append(key)
        }
        if turn == turns.count || turn >= 64 && turn * 2 >= turns.count {
            turns.removeFirst(turn)
            turn = 0
        }
        return job
    }

    /// A thread's life: take the next lane's oldest call, run it outside the lock, again; never ends.
    private func run() {
        while true {
            condition.lock()
            while turn == turns.count { condition.wait() }
            let job = takeLocked()
            condition.unlock()
            job?()
        }
    }
}
