import Dispatch
import Foundation
import RetryFlow
import RetryFlowHTTP
import Testing

/// The threads URLSession's blocking calls are made on: not the threads Swift's tasks run on.
@Suite(.timeLimit(.minutes(1))) struct CallThreadsTests {
    /// Every call thread blocked, and one more call queued behind them: a Swift task still runs,
    /// and runs before the queued call starts. On a Dispatch queue (Linux: Swift's own threads),
    /// the task waited for libdispatch to add a thread, and the queued call took that thread first.
    ///
    /// A pool of its own (the type `DataTaskAttempt` uses, not its instance): blocking the shared
    /// one held every other suite's requests back for seconds while this test waited for a turn.
    @Test func blockedCallsLeaveSwiftsThreadsFree() async {
        let pool = CallThreads(width: CallThreads.width, name: "RetryFlowTests.CallThreads.blocked")
        let release = DispatchSemaphore(value: 0)
        let blocked = Locked(0)
        await withCheckedContinuation { (allBlocked: CheckedContinuation<Void, Never>) in
            for _ in 0..<CallThreads.width {
                pool.submit {
                    let count = blocked.withLock { count -> Int in
                        count += 1
                        return count
                    }
                    if count == CallThreads.width { allBlocked.resume() }
                    release.wait()
                }
            }
        }
        let queuedStarted = Locked(false)
        pool.submit {
            queuedStarted.withLock { $0 = true }
            release.wait()
        }
        let queuedStartedBeforeTheTask = await Task.detached { queuedStarted.withLock { $0 } }.value
        for _ in 0...CallThreads.width { release.signal() }
        #expect(
            !queuedStartedBeforeTheTask, "the queued call started first: blocked calls held the threads tasks run on")
    }

    /// One thread takes the calls in the order they came.
    @Test func oneThreadKeepsSubmissionOrder() async {
        let pool = CallThreads(width: 1, name: "RetryFlowTests.CallThreads.order")
        let order = Locked([Int]())
        let total = 200
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            for index in 0..<total {
                pool.submit {
                    let count = order.withLock { order -> Int in
                        order.append(index)
                        return order.count
                    }
                    if count == total { done.resume() }
                }
            }
        }
        #expect(order.withLock { $0 } == Array(0..<total))
    }
}
