import Foundation
import RetryFlow
import RetryFlowTesting
import Testing

/// The shared timer behind inline attempts' timers, on the manual clock: nothing sleeps for real.
@Suite(.timeLimit(.minutes(1))) struct SharedTimerTests {
    @Test func firesDueTimersInDeadlineOrderNeverEarlyAndNeverWhenDisarmed() async {
        let clock = ManualClock()
        let timer = SharedTimer(clock: clock)
        let fired = Locked<[String]>([])
        let (last, lastFired) = AsyncStream.makeStream(of: Void.self)
        let start = clock.now
        _ = timer.arm(at: start.advanced(by: .seconds(3))) {
            fired.withLock { $0.append("c") }
            lastFired.yield()
        }
        _ = timer.arm(at: start.advanced(by: .seconds(1))) { fired.withLock { $0.append("a") } }
        let disarmed = timer.arm(at: start.advanced(by: .seconds(2))) { fired.withLock { $0.append("x") } }
        _ = timer.arm(at: start.advanced(by: .seconds(2))) { fired.withLock { $0.append("b") } }
        timer.disarm(disarmed)
        #expect(timer.armedCount == 3)
        // One task sleeps, until the earliest timer (the one armed for 3 s was replaced).
        await clock.waitUntil { $0 == [start.advanced(by: .seconds(1))] }
        clock.advance(by: .milliseconds(999))
        #expect(clock.sleeperCount == 1, "never early")
        #expect(fired.withLock { $0 }.isEmpty)
        clock.advance(to: start.advanced(by: .seconds(3)))
        var iterator = last.makeAsyncIterator()
        _ = await iterator.next()
        #expect(fired.withLock { $0 } == ["a", "b", "c"])
        #expect(timer.armedCount == 0)
    }

    @Test func anEarlierTimerWakesTheSleeperEarlierAndALaterOneSleepsOnAfterIt() async {
        let clock = ManualClock()
        let timer = SharedTimer(clock: clock)
        let (fired, fire) = AsyncStream.makeStream(of: String.self)
        let start = clock.now
        let late = timer.arm(at: start.advanced(by: .seconds(10))) { fire.yield("late") }
        _ = timer.arm(at: start.advanced(by: .seconds(1))) { fire.yield("early") }
        await clock.waitUntil { $0 == [start.advanced(by: .seconds(1))] }
        clock.advance(by: .seconds(1))
        var iterator = fired.makeAsyncIterator()
        #expect(await iterator.next() == "early")
        // The sleeper goes back to sleep until the remaining timer; disarmed, it never fires.
        await clock.waitUntil { $0 == [start.advanced(by: .seconds(10))] }
        timer.disarm(late)
        _ = timer.arm(at: start.advanced(by: .seconds(11))) { fire.yield("after") }
        clock.advance(to: start.advanced(by: .seconds(10)))
        await clock.waitUntil { $0 == [start.advanced(by: .seconds(11))] }
        clock.advance(to: start.advanced(by: .seconds(11)))
        #expect(await iterator.next() == "after")
        #expect(timer.armedCount == 0)
    }

    /// The real clock's timers fire on a thread of their own, not on a task that needs turns of
    /// Swift's pool (which, in a loaded process, came up to 18 s late); an earlier timer wakes the
    /// thread out of its wait for a later one.
    @Test func theRealClocksTimersFireOnTheirOwnThreadAndAnEarlierOneWakesIt() async {
        let timer = SharedTimer.continuous
        let later = timer.arm(at: .now.advanced(by: .seconds(600))) {}
        defer { timer.disarm(later) }
        let firedOn: String? = await withCheckedContinuation { continuation in
            _ = timer.arm(at: .now) { continuation.resume(returning: Thread.current.name) }
        }
        #expect(firedOn == "RetryFlowTimer")
    }
}
