import RetryFlow
import RetryFlowTesting
import Testing

/// Waits are deadlines fixed when the machine decides; each run of an engine jitters on its own.
@Suite(.timeLimit(.minutes(1))) struct WaitAndJitterTests {
    /// The hook takes 300 ms of clock time; the 1 s wait still ends 1 s after the failure, so a wait
    /// planned to end before the 1.2 s deadline does (started after the hook, it would end at 1.3 s).
    @Test func waitIsAnchoredAtTheDecisionWhateverTheHooksCost() async throws {
        let clock = ManualClock()
        let policy = RetryPolicy(
            maxAttempts: 2, backoff: .constant(.seconds(1)), jitter: .none, deadline: .milliseconds(1200))
        let retry = Retry(policy, clock: clock, onRetry: { _ in clock.advance(by: .milliseconds(300)) })
        let run = Task {
            try await retry.outcome { attempt -> Int in
                if attempt.number == 1 { throw Boom(n: 1) }
                return 2
            }
        }
        // Parked in the wait: one sleeper, and not the first attempt's deadline timer.
        await clock.waitUntil { $0.count == 1 && $0[0].offset != .milliseconds(1200) }
        #expect(clock.now.offset == .milliseconds(300), "the slow hook ran before the wait began")
        #expect(clock.nextDeadline?.offset == .seconds(1), "the wait ends 1 s after the decision, not after the hook")
        clock.advance(to: ManualClock.Instant(offset: .seconds(1)))
        let outcome = try await run.value
        #expect(outcome.reason == .succeeded)
        #expect(outcome.attempts.map(\.start) == [.zero, .seconds(1)])
        expectConsistent(outcome.trace)
    }

    /// Full-jitter delays of the first `runs` runs of one engine, one after the other.
    static func delays(of retry: Retry<ManualClock>, clock: ManualClock, runs: Int) async -> [Duration] {
        var delays: [Duration] = []
        for _ in 0..<runs {
            let outcome = await clock.runAdvancing {
                (try? await retry.outcome { _ -> Int in throw Boom(n: 1) })!
            }
            expectConsistent(outcome.trace)
            delays += outcome.attempts.dropFirst().map(\.delayBefore)
        }
        return delays
    }

    static let jittered = RetryPolicy(maxAttempts: 2, backoff: .constant(.seconds(10)), jitter: .full)

    @Test func runsOfOneSeededEngineDifferAndReplay() async {
        let clock = ManualClock()
        let first = await Self.delays(
            of: Retry(Self.jittered, clock: clock, random: SeededRandom(seed: 5)), clock: clock, runs: 3)
        #expect(Set(first).count == 3, "each run draws its own jitter: \(first)")
        let again = await Self.delays(
            of: Retry(Self.jittered, clock: clock, random: SeededRandom(seed: 5)), clock: clock, runs: 3)
        #expect(again == first, "the same seed replays every run, in order")
    }

    /// Engines on the system's generator (every HTTP request's) draw their seeds from one stream:
    /// separate engines, one run each, still jitter apart.
    @Test func enginesOnTheSystemGeneratorJitterApart() async {
        var delays: [Duration] = []
        for _ in 0..<8 {
            let clock = ManualClock()
            delays += await Self.delays(of: Retry(Self.jittered, clock: clock), clock: clock, runs: 1)
        }
        #expect(delays.count == 8)
        #expect(Set(delays).count >= 7, "eight engines, eight draws: \(delays)")
    }

    @Test func concurrentRunsOfOneEngineDrawDifferentJitter() async throws {
        let clock = ManualClock()
        let retry = Retry(Self.jittered, clock: clock, random: SeededRandom(seed: 5))
        let runs = (0..<2).map { _ in
            Task { try await retry.outcome { _ -> Int in throw Boom(n: 1) } }
        }
        await clock.waitUntil { $0.count == 2 }
        clock.advance(by: .seconds(10))
        var delays: [Duration] = []
        for run in runs { delays += try await run.value.attempts.dropFirst().map(\.delayBefore) }
        #expect(delays.count == 2)
        #expect(delays[0] != delays[1], "two runs in flight at once must not retry in lock-step")
        let other = ManualClock()
        let sequential = await Self.delays(
            of: Retry(Self.jittered, clock: other, random: SeededRandom(seed: 5)), clock: other, runs: 2)
        #expect(Set(delays) == Set(sequential), "the same per-run generators, whichever run took which")
    }
}
