import Foundation

/// A few threads of our own that run closures in the order they were submitted: where
/// `DataTaskAttempt` and the download's `TransferDriver` make URLSession's blocking calls
/// (`dataTask(with:)`, `resume()`), so that a blocked call never holds a thread that Swift's tasks
/// run on.
///
/// Why not a Dispatch queue: this toolchain's libdispatch (Linux) has no cooperative queue, so
/// Swift's global executor *is* the default-QoS root queue, and a concurrent Dispatch queue runs its
/// items on those same two threads; a blocked call there delayed an unrelated task by 2.9 s
/// (docs/benchmarks.md, "success-overhead, fourth look", part 5). A serial queue per call or per
/// turn took every call to a thread of its own and starved URLSession's one work queue under load.
package final class CallThreads: @unchecked Sendable {
    /// Two threads: the throttle the concurrent queue gave on two cores (about two blocked calls at
    /// once). Every call waits on URLSession's one shared work queue; more threads waiting there
    /// left that queue's own thread too little CPU (hundreds: 6 of 6 test runs failed), fewer would
    /// make one session's burst delay every other session's.
    package static let width = 2

    /// The process's pool, started on its first call.
    package static let shared = CallThreads(width: width, name: "RetryFlowCall") // 15 bytes with ".1"

    private let width: Int
    private let name: String
    /// Guards every field below; its threads wait on it for work.
    private let condition = NSCondition()
    /// Submitted and not yet taken, oldest at `head` (taken slots are cleared, and dropped in bulk).
    private var jobs: [(@Sendable () -> Void)?] = []
    private var head = 0
    private var started = false

    package init(width: Int, name: String) {
        precondition(width > 0, "CallThreads needs at least one thread")
        self.width = width
        self.name = name
    }

    /// Queues `job` to run on one of the pool's threads, in submission order; never waits for it.
    package func submit(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        let start = !started
        started = true
        condition.signal()
        condition.unlock()
        if start {
            for index in 0..<width {
                let label = "\(name).\(index)"
                let thread = Thread { [self] in
                    #if os(Linux)
                        // Named from inside: `Thread.name` did not reach the kernel here, so these
                        // threads showed up in profiles and /proc/self/task under the name of the
                        // thread that started them (Linux keeps 15 bytes of a thread's name).
                        try? String(label.prefix(15)).write(
                            toFile: "/proc/thread-self/comm", atomically: false, encoding: .utf8)
                    #endif
                    run()
                }
                thread.name = label
                thread.start()
            }
        }
    }

    /// A thread's life: take the oldest job, run it outside the lock, again; never ends.
    private func run() {
        while true {
            condition.lock()
            while head == jobs.count { condition.wait() }
            let job = jobs[head]
            jobs[head] = nil
            head += 1
            if head == jobs.count || head >= 64 && head * 2 >= jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            condition.unlock()
            job?()
        }
    }
}
