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

    /// The heap keeps its order through many arms and disarms in any order: 200 timers at seeded
    /// random instants (ties included), a third disarmed, fire in (instant, arming) order, and
    /// none of the disarmed ones fires.
    @Test func manyTimersArmedAndDisarmedAtRandomFireInOrder() async {
        let clock = ManualClock()
        let timer = SharedTimer(clock: clock)
        let fired = Locked<[Int]>([])
        let (done, finish) = AsyncStream.makeStream(of: Void.self)
        let start = clock.now
        var random = SeededRandom(seed: 26)
        var armed: [(at: Int, index: Int, token: SharedTimer<ManualClock>.Token)] = []
        for index in 0..<200 {
            let at = Int.random(in: 1...50, using: &random)
            let token = timer.arm(at: start.advanced(by: .seconds(at))) { fired.withLock { $0.append(index) } }
            armed.append((at, index, token))
        }
        var kept: [(at: Int, index: Int)] = []
        for entry in armed.shuffled(using: &random) {
            if Int.random(in: 0..<3, using: &random) == 0 {
                timer.disarm(entry.token)
            } else {
                kept.append((entry.at, entry.index))
            }
        }
        #expect(timer.armedCount == kept.count)
        let expected = kept.sorted { ($0.at, $0.index) < ($1.at, $1.index) }.map(\.index)
        // One more, last of all, says when every other has fired.
        _ = timer.arm(at: start.advanced(by: .seconds(60))) { finish.yield() }
        clock.advance(by: .seconds(60))
        var iterator = done.makeAsyncIterator()
        _ = await iterator.next()
        #expect(fired.withLock { $0 } == expected)
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
