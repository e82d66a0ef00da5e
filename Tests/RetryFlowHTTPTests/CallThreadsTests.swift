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
        let lane = Lane()
        let release = DispatchSemaphore(value: 0)
        let blocked = Locked(0)
        await withCheckedContinuation { (allBlocked: CheckedContinuation<Void, Never>) in
            for _ in 0..<CallThreads.width {
                pool.submit(lane: lane) {
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
        pool.submit(lane: lane) {
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
        let lane = Lane()
        let order = Locked([Int]())
        let total = 200
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            for index in 0..<total {
                pool.submit(lane: lane) {
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

    /// One session's burst does not hold back another's call: while a thread is busy, one lane
    /// queues 100 calls and a second lane one; the second lane's call runs after at most one call
    /// of the first, not after all of them. With one first-come queue it ran last (101st), which
    /// under load kept a test's request from being sent for 4.8 s.
    @Test func aBurstInOneLaneDoesNotHoldBackAnother() async {
        let pool = CallThreads(width: 1, name: "RetryFlowTests.CallThreads.lanes")
        let (burst, other) = (Lane(), Lane())
        let release = DispatchSemaphore(value: 0)
        let order = Locked([String]())
        let total = 102
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            @Sendable func record(_ name: String) {
                let count = order.withLock { order -> Int in
                    order.append(name)
                    return order.count
                }
                if count == total { done.resume() }
            }
            pool.submit(lane: burst) {
                release.wait() // the one thread is busy while both lanes queue
                record("burst 0")
            }
            for index in 1...100 { pool.submit(lane: burst) { record("burst \(index)") } }
            pool.submit(lane: other) { record("other") }
            release.signal()
        }
        let seen = order.withLock { $0 }
        #expect(seen.count == total)
        #expect(
            seen.firstIndex(of: "other").map { $0 <= 2 } == true,
            "the other lane waited for the burst: \(seen.prefix(5))")
        #expect(seen.filter { $0 != "other" } == (0...100).map { "burst \($0)" }, "a lane keeps its own order")
    }
}

/// A submitter's identity for a pool's lanes.
private final class Lane: Sendable {}
