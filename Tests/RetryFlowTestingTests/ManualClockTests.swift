import Foundation
import RetryFlow
import RetryFlowTesting
import Testing

final class Log: Sendable {
    private let entries = Locked<[String]>([])
    func add(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}

@Suite(.timeLimit(.minutes(1))) struct ManualClockTests {
    @Test func advanceResumesDueSleepersInDeadlineOrder() async throws {
        let clock = ManualClock()
        let log = Log()
        let (done, finished) = AsyncStream.makeStream(of: Void.self)
        await withTaskGroup(of: Void.self) { group in
            for ms in [300, 100, 200, 900] {
                group.addTask {
                    do {
                        try await clock.sleep(until: .init(offset: .milliseconds(ms)))
                        log.add("woke \(ms) at \(clock.now.offset.shortDescription)")
                    } catch {
                        log.add("cancelled \(ms)")
                    }
                    finished.yield()
                }
            }
            await clock.waitForSleepers(4)
            #expect(clock.nextDeadline == .init(offset: .milliseconds(100)))
            clock.advance(by: .milliseconds(250))
            var iterator = done.makeAsyncIterator()
            _ = await iterator.next()
            _ = await iterator.next()
            #expect(Set(log.all) == ["woke 100 at 250 ms", "woke 200 at 250 ms"])
            #expect(clock.sleeperCount == 2)
            clock.advance(to: .init(offset: .milliseconds(300)))
            _ = await iterator.next()
            #expect(log.all.last == "woke 300 at 300 ms")
            group.cancelAll()
            _ = await iterator.next()
            #expect(log.all.last == "cancelled 900")
        }
        #expect(clock.sleeperCount == 0)
        #expect(clock.now.offset == .milliseconds(300), "cancellation does not move time")
    }

    @Test func sleepingUntilThePastReturnsAtOnce() async throws {
        let clock = ManualClock()
        clock.advance(by: .seconds(5))
        try await clock.sleep(until: .init(offset: .seconds(1)))
        try await clock.sleep(for: .zero)
        #expect(clock.sleeperCount == 0)
    }

    @Test func aCancelledTaskCannotSleep() async {
        let clock = ManualClock()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(for: .seconds(1))
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test func advanceToNextDeadlineJumpsExactly() async throws {
        let clock = ManualClock()
        #expect(clock.advanceToNextDeadline() == nil)
        let task = Task { try await clock.sleep(for: .milliseconds(1234)) }
        await clock.waitUntil { $0 == [.init(offset: .milliseconds(1234))] }
        #expect(clock.advanceToNextDeadline() == .init(offset: .milliseconds(1234)))
        try await task.value
        #expect(clock.now.offset == .milliseconds(1234))
    }

    @Test func runAdvancingFinishesSequentialSleepsInstantly() async {
        let clock = ManualClock()
        let total = await clock.runAdvancing {
            for _ in 0..<100 { try? await clock.sleep(for: .seconds(60)) }
            return clock.now.offset
        }
        #expect(total == .seconds(6000))
    }

    /// The throwing variant hands the body's error to the test instead of crashing on `try!`.
    @Test func runAdvancingRethrowsTheBodysError() async {
        struct Late: Error, Equatable {}
        let clock = ManualClock()
        await #expect(throws: Late()) {
            try await clock.runAdvancing {
                try await clock.sleep(for: .seconds(5))
                if clock.now.offset == .seconds(5) { throw Late() }
                return 1
            }
        }
    }

    @Test func instantsOrderAndMeasure() {
        let a = ManualClock.Instant(offset: .seconds(1))
        let b = a.advanced(by: .milliseconds(500))
        #expect(a < b)
        #expect(a.duration(to: b) == .milliseconds(500))
        #expect(b.description == "t=1.5 s")
    }
}
