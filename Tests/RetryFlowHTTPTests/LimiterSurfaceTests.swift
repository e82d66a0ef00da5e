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
        let session = Runner.session()
        let request = URLRequest(url: server.url("/r"))
        let run = Task { try await session.retryOutcome(for: request, retry: options, clock: clock) }
        await clock.waitForSleepers(1)
        #expect(server.requests.isEmpty, "paced: nothing is sent before its token is due")
        let wake = try #require(clock.nextDeadline)
        #expect(wake.offset > .seconds(1) && wake.offset <= .seconds(2), "the token is about 2 s away")
        clock.advance(to: wake)
        let outcome = try await run.value
        #expect(outcome.finalState == .success && server.requests.count == 1)
        #expect(
            outcome.trace.steps.prefix(4).map(\.to) == [.limiter, .pacing, .tokenWait, .breaker],
            "\(outcome.trace.steps.map(\.to))")
        expectConsistent(outcome.trace)
    }

    @Test func aCoreRunsThrottleSlowsItsNextTry() async throws {
        // A core run reports a throttle through its verdict; the limiter, quiet until then, paces the retry.
        let clock = ManualClock()
        let limiter = try AdaptiveRateLimiter(.aws, clock: clock)
        let engine = Retry(Self.policy, clock: clock, guards: FleetGuards(limiter: limiter))
        let calls = Locked(0)
        let run = Task {
            try await engine.outcome(classifyResult: { status in
                status == 429 ? RetryVerdict(.retry, "HTTP 429", throttled: true) : nil
            }) { _ in
                calls.withLock { $0 += 1 }
                return calls.withLock { $0 } == 1 ? 429 : 200
            }
        }
        await clock.waitForSleepers(1)
        #expect(calls.withLock { $0 } == 1, "the retry waits for a token")
        clock.advance(to: try #require(clock.nextDeadline))
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
}
