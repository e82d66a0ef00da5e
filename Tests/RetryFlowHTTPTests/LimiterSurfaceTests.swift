import Foundation
import RetryFlow
import RetryFlowHTTP
import RetryFlowTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The adaptive limiter gates real runs on every surface (issue 36, item 2): a try with no token
/// waits for it on the run's clock, or ends the run `rate limited` with nothing sent, and a
/// throttle an answer reports slows the next try. Every clock here is a `ManualClock`.
@Suite(.timeLimit(.minutes(1))) struct LimiterSurfaceTests {
    static let policy = RetryPolicy(maxAttempts: 3, backoff: .constant(.zero), jitter: .none)

    /// A limiter that has seen a throttle and has no token left: the next one is about 2 s away.
    static func drainedLimiter(clock: ManualClock) throws -> AdaptiveRateLimiter {
        let limiter = try AdaptiveRateLimiter(.aws, clock: clock)
        limiter.record(throttled: true)
        while limiter.ask() == .granted {}
        limiter.withdraw() // the ask that found none reserved one; nobody sends on it
        return limiter
    }

    /// Moves `clock` from wake to wake of a run's `token wait` until `ended` says the wait is over
    /// (the run's `onTransition` sets it and calls `clock.recheck()`); returns the wakes. A token
    /// wait looks at the limiter again at least once a measurement bucket.
    static func driveTokenWait(_ clock: ManualClock, ended: @escaping @Sendable () -> Bool) async -> [Duration] {
        var wakes: [Duration] = []
        while true {
            await clock.waitUntil { deadlines in ended() || deadlines.count == 1 }
            if ended() { return wakes }
            guard let next = clock.nextDeadline else { continue }
            wakes.append(next.offset)
            clock.advance(to: next)
        }
    }

    /// An `onTransition` hook that notes when the run leaves `token wait`, and the flag it sets.
    static func tokenWaitWatch(_ clock: ManualClock) -> (@Sendable (RetryTrace.Step) -> Void, @Sendable () -> Bool) {
        let left = Locked(false)
        return (
            { step in
                if step.from == .tokenWait { left.withLock { $0 = true } }
                clock.recheck()
            },
            { left.withLock { $0 } }
        )
    }

    @Test(arguments: [Surface.async, .completionHandler, .synchronous])
    func aRunThatMayNotWaitForATokenEndsRateLimitedWithNothingSent(surface: Surface) async throws {
        let server = try FlakyServer(scripts: ["/r": [.status(200, body: "ok")]])
        defer { server.stop() }
        let limiter = try Self.drainedLimiter(clock: ManualClock())
        let tokens = limiter.tokens
        var options = HTTPRetryOptions.policy(Self.policy)
        options.guards.limiter = limiter
        options.guards.whenRateLimited = .fail
        let run = try await Runner.run(surface, URLRequest(url: server.url("/r")), retry: options)
        #expect(run.outcome.finalState == .failure && run.outcome.reason == .rateLimited)
        #expect(run.outcome.error?.reason == .rateLimited, "handed over as the failure it is")
        #expect(server.requests.isEmpty, "nothing was sent")
        #expect(run.completions == 1)
        #expect(run.outcome.trace.steps.map(\.to) == [.limiter, .pacing, .failure])
        let refusal = try #require(run.outcome.attempts.last?.error as? RateLimitRefusal, "the refusal is kept")
        #expect(refusal.wait > .zero && refusal.fillRate == limiter.fillRate)
        #expect(refusal.description.hasPrefix("rate limited (next token in "), "\(refusal)")
        #expect(abs(limiter.tokens - tokens) < 1e-9, "the reserved token went back")
        expectConsistent(run.outcome.trace)

        // Without the limiter the same run is sent and succeeds: the setting is what stopped it.
        options.guards.limiter = nil
        let free = try await Runner.run(surface, URLRequest(url: server.url("/r")), retry: options)
        #expect(free.outcome.finalState == .success && server.requests.count == 1)
    }

    @Test func anAsyncRunWaitsForItsTokenOnTheRunsClock() async throws {
        let server = try FlakyServer(scripts: ["/r": [.status(200, body: "ok")]])
        defer { server.stop() }
        let clock = ManualClock()
        var options = HTTPRetryOptions.policy(Self.policy)
        options.guards.limiter = try Self.drainedLimiter(clock: clock)
        let (watch, left) = Self.tokenWaitWatch(clock)
        options.onTransition = watch
        let session = Runner.session()
        let request = URLRequest(url: server.url("/r"))
        let run = Task { try await session.retryOutcome(for: request, retry: options, clock: clock) }
        let wakes = await Self.driveTokenWait(clock, ended: left)
        #expect(server.requests.count <= 1)
        let sent = try #require(wakes.last)
        #expect(sent > .seconds(1) && sent <= .seconds(2), "the token is about 2 s away: \(wakes)")
        #expect(zip([.zero] + wakes, wakes).allSatisfy { $1 - $0 <= .milliseconds(500) }, "looked again each bucket")
        let outcome = try await run.value
        #expect(outcome.finalState == .success && server.requests.count == 1)
        #expect(outcome.attempts.first?.start == sent, "sent when the wait ended, on the run's clock")
        #expect(
            outcome.trace.steps.prefix(4).map(\.to) == [.limiter, .pacing, .tokenWait, .breaker],
            "\(outcome.trace.steps.map(\.to))")
        expectConsistent(outcome.trace)
    }

    @Test func aCoreRunsThrottleSlowsItsNextTry() async throws {
        // A core run reports a throttle through its verdict; the limiter, quiet until then, paces the retry.
        let clock = ManualClock()
        let limiter = try AdaptiveRateLimiter(.aws, clock: clock)
        var engine = Retry(Self.policy, clock: clock, guards: FleetGuards(limiter: limiter))
        let (watch, left) = Self.tokenWaitWatch(clock)
        engine.onTransition = watch
        let calls = Locked(0)
        let run = Task { [engine] in
            try await engine.outcome(classifyResult: { status in
                status == 429 ? RetryVerdict(.retry, "HTTP 429", throttled: true) : nil
            }) { _ in
                calls.withLock { $0 += 1 }
                return calls.withLock { $0 } == 1 ? 429 : 200
            }
        }
        await clock.waitForSleepers(1)
        #expect(calls.withLock { $0 } == 1, "the retry waits for a token")
        let wakes = await Self.driveTokenWait(clock, ended: left)
        #expect(!wakes.isEmpty)
        let outcome = try await run.value
        #expect(outcome.finalState == .success && outcome.attempts.count == 2)
        #expect(outcome.trace.steps.contains { $0.to == .tokenWait })
        expectConsistent(outcome.trace)

        // The same run with a verdict that is no throttle never waits.
        let quiet = try AdaptiveRateLimiter(.aws, clock: clock)
        let plain = try await Retry(Self.policy, clock: clock, guards: FleetGuards(limiter: quiet)).outcome(
            classifyResult: { status in status == 429 ? RetryVerdict(.retry, "HTTP 429") : nil }
        ) { attempt in attempt.number == 1 ? 429 : 200 }
        #expect(plain.finalState == .success && plain.attempts.count == 2)
        #expect(!plain.trace.steps.contains { $0.to == .tokenWait })
    }

    /// A token reserved while the rate was low is sent as soon as the grown rate has earned it, not
    /// when the low rate would have (issue 36: at a cold start 32 clients reserved tokens at 0.5/s
    /// and slept their whole waits while the rate climbed, and almost nothing was sent for 12 s);
    /// one reserved before a throttle waits for the lower rate.
    @Test func aTokenWaitEndsWhenTheBucketAtItsPresentRateHasEarnedTheToken() async throws {
        enum Change { case none, growing, throttled }
        func run(_ change: Change) async throws -> (planned: Duration, sent: Duration) {
            let clock = ManualClock()
            let limiter = try AdaptiveRateLimiter(.aws, clock: clock)
            // 20 answers a second for 10 s, then a throttle: the fill rate drops by β.
            for _ in 0..<200 {
                clock.advance(by: .milliseconds(50))
                limiter.record(throttled: false)
            }
            limiter.record(throttled: true)
            // 55 sends ahead in the queue: the run's token is seconds away.
            for _ in 0..<55 { _ = limiter.ask() }
            var engine = Retry(Self.policy, clock: clock, guards: FleetGuards(limiter: limiter))
            let (watch, left) = Self.tokenWaitWatch(clock)
            engine.onTransition = watch
            let start = clock.now
            let run = Task { [engine] in try await engine.outcome { _ in 200 } }
            await clock.waitForSleepers(1)
            let planned = try #require(clock.nextDeadline).offset - start.offset
            var wakes: [Duration] = []
            while true {
                await clock.waitUntil { deadlines in left() || deadlines.count == 1 }
                if left() { break }
                let next = try #require(clock.nextDeadline)
                switch change {
                case .none: break
                // Meanwhile the fleet's answers come back at 40 a second: the CUBIC curve climbs back.
                case .growing: for _ in 0..<20 { limiter.record(throttled: false) }
                // Or the server throttles again: the rate drops by β each time.
                case .throttled: limiter.record(throttled: true)
                }
                wakes.append(next.offset - start.offset)
                clock.advance(to: next)
            }
            let outcome = try await run.value
            #expect(outcome.finalState == .success)
            expectConsistent(outcome.trace)
            let step = try #require(outcome.trace.steps.first { $0.to == .tokenWait })
            return (step.delay ?? planned, try #require(outcome.attempts.first).start)
        }
        let steady = try await run(.none)
        #expect(steady.planned > .milliseconds(1500) && steady.planned <= .seconds(4), "\(steady)")
        #expect(
            steady.sent <= steady.planned && steady.sent > steady.planned - .milliseconds(1),
            "at an unchanged rate, the token is due when planned: \(steady)")
        let grown = try await run(.growing)
        #expect(grown.planned == steady.planned)
        #expect(grown.sent < steady.sent - .milliseconds(150), "sent at \(grown.sent), \(steady.sent) unchanged")
        let throttled = try await run(.throttled)
        #expect(throttled.planned == steady.planned)
        #expect(
            throttled.sent > steady.sent + .milliseconds(150), "sent at \(throttled.sent), \(steady.sent) unchanged")
    }
}
