import Foundation
import RetryFlow
import RetryFlowHTTP
import RetryFlowTesting
import Testing

/// Hedging's races over real URLSession (`HedgingHTTPTests`) and its stress test, one after the
/// other. The stress test's 2,000 runs fill Swift's thread pool for as long as they last (70 to
/// 85 s in a loaded whole-suite run on two cores). Moved beside the HTTP tests (issue 37), it
/// started with them, and a race waiting there for its hedge timer ran into its 30 s attempt
/// timeout: 3 failures in each of 2 whole-suite runs, none in a run without the stress test.
@Suite(.serialized) enum HedgingSerialTests {}

extension HedgingSerialTests {
    /// Many hedged runs at once, a tenth cancelled by their caller: each returns once, every copy it
    /// started has ended by then, and every trace is rows of the hedging table. CI size; the copies
    /// that lose wait on a manual clock nobody advances, so only cancellation ends them.
    @Suite struct HedgingStressTests {
        @Test func manyHedgedRunsEndWithNothingInFlight() async {
            let runs = 2_000
            let stalled = ManualClock()
            let started = Locked(0)
            let ended = Locked(0)
            // Each run's record, and how many of its copies were still running when it returned (the
            // copies count themselves, so this holds the run to its word, whatever it recorded).
            let records = await withTaskGroup(of: (HedgingRecord, Int).self) { group in
                for index in 0..<runs {
                    let run = Task {
                        let running = Locked(0)
                        let outcome = await HedgedRun(
                            HedgingPolicy(delay: .zero, maxAttempts: 3), clock: ContinuousClock()
                        )
                        .outcome(classify: { (try? $0.get()) == nil ? .nonFatal(.none) : .accept }) { attempt in
                            started.withLock { $0 += 1 }
                            running.withLock { $0 += 1 }
                            defer {
                                running.withLock { $0 -= 1 }
                                ended.withLock { $0 += 1 }
                            }
                            if attempt.number == index % 3 + 1 { return attempt.number }
                            try await stalled.sleep(until: stalled.now.advanced(by: .seconds(1)), tolerance: nil)
                            return 0
                        }
                        return (outcome.record, running.withLock { $0 })
                    }
                    if index % 10 == 0 { run.cancel() }
                    group.addTask { await run.value }
                }
                var all: [(HedgingRecord, Int)] = []
                for await record in group { all.append(record) }
                return all
            }.map { record, running in
                #expect(running == 0, "a run returned with \(running) of its copies still running")
                return record
            }
            #expect(records.count == runs, "every run returned once")
            #expect(records.allSatisfy { $0.inFlightAtReturn == 0 })
            #expect(started.withLock { $0 } == ended.withLock { $0 }, "every copy ended")
            #expect(stalled.sleeperCount == 0, "no loser left waiting")
            #expect(records.allSatisfy { $0.trace.isConsistent(with: HedgingTable.hedging) })
            #expect(records.allSatisfy { $0.trace.rejections.isEmpty }, "no event without a row")
            #expect(records.filter { $0.finalState == .succeeded }.count >= runs * 8 / 10)
            #expect(records.allSatisfy { $0.finalState == .succeeded || $0.finalState == .cancelled })
        }
    }
}
