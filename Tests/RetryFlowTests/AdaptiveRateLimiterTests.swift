import Foundation
import RetryFlow
import RetryFlowTesting
import Testing

/// The limiter as a shared object: enabled by the first throttle, no token lost under contention, and every trace made of its table's rows.
@Suite(.timeLimit(.minutes(1))) struct AdaptiveRateLimiterTests {
    @Test func adaptiveTableIsValid() throws {
        try AdaptiveTable.adaptive.validate()
        // Every (state, event) the object can deliver has a row; only the decision takes no events.
        #expect(AdaptiveTable.adaptive.invalidPairs.allSatisfy { AdaptiveTable.adaptive.isDecision($0.state) })
    }

    @Test func badOptionsNameTheirField() {
        var options = AdaptiveRateLimiterOptions.aws
        options.beta = 1
        #expect(throws: RetryPolicyError.self) { try options.validate() }
        options = .aws
        options.minimumCapacity = 0.5
        do {
            try options.validate()
            Issue.record("accepted a capacity below the request cost")
        } catch {
            #expect(error.description.contains("adaptive.minimumCapacity"))
        }
    }

    /// Sends the limiter `count` answered responses spread over `seconds`.
    func answer(_ limiter: AdaptiveRateLimiter, _ clock: ManualClock, count: Int, over seconds: Double) {
        for _ in 0..<count {
            clock.advance(by: .seconds(seconds / Double(count)))
            limiter.record(throttled: false)
        }
    }

    @Test func enabledOnTheFirstThrottleOnly() throws {
        let clock = ManualClock()
        let limiter = try AdaptiveRateLimiter(.aws, clock: clock, tracing: true)
        answer(limiter, clock, count: 100, over: 5)
        #expect(limiter.state == .disabled)
        #expect(limiter.ask() == .granted)
        limiter.record(throttled: true)
        #expect(limiter.state == .enabled)
        // The rate it sent at was ~20/s; the bucket now fills at β of it.
        #expect(abs(limiter.fillRate - 0.7 * limiter.measuredRate) < 1e-9)
        // Drain what the bucket holds, then a send must wait exactly for the next token, which it
        // reserves: the send after it waits one token longer, and gets nothing sooner when that first
        // wait is over (the bucket owes both tokens).
        var tokens = limiter.tokens
        while case .granted = limiter.ask() { tokens = limiter.tokens }
        let beforeFirst = tokens // the loop's last ask reserved the first token due later
        guard case .wait(let wait) = limiter.ask() else { throw Unexpected("a send after the reserved one went now") }
        let expected = (2 - beforeFirst) / limiter.fillRate
        #expect(abs(wait.inSeconds - expected) < 1e-9)
        #expect(wait.inSeconds >= expected) // rounded up: never early
        limiter.withdraw() // the second send is not made: its token goes back
        clock.advance(by: .seconds((1 - beforeFirst) / limiter.fillRate) + .nanoseconds(1))
        // The reserved token is now earned and spent: the next send reserves the one after it.
        guard case .wait(let next) = limiter.ask() else { throw Unexpected("a send took the reserved token") }
        #expect(abs(next.inSeconds - 1 / limiter.fillRate) < 1e-6)
        expectConsistent(limiter.trace!, with: AdaptiveTable.adaptive)
    }

    @Test func throttleOnceEnabledDropsFromTheLowerOfMeasuredAndFill() throws {
        let clock = ManualClock()
        let limiter = try AdaptiveRateLimiter(.aws, clock: clock)
        answer(limiter, clock, count: 100, over: 5)
        limiter.record(throttled: true)
        let fill = limiter.fillRate // 0.7 × ~20 = ~14, below the measured ~20
        clock.advance(by: .milliseconds(1))
        limiter.record(throttled: true)
        #expect(limiter.fillRate < fill)
        #expect(abs(limiter.fillRate - 0.7 * min(fill, limiter.measuredRate)) < 1e-6)
    }

    /// RetryFlow's default counts a burst of throttles as one drop per 0.5 s bucket; `.aws` drops on each.
    @Test func aBurstOfThrottlesDropsOnceByDefault() throws {
        for (options, drops) in [(AdaptiveRateLimiterOptions.default, 1), (.aws, 3)] {
            let clock = ManualClock()
            let limiter = try AdaptiveRateLimiter(options, clock: clock, tracing: true)
            answer(limiter, clock, count: 100, over: 5)
            limiter.record(throttled: true)
            let first = limiter.fillRate
            for _ in 1...2 {
                clock.advance(by: .milliseconds(10))
                limiter.record(throttled: true)
            }
            let expected = drops == 1 ? first : first * 0.7 * 0.7
            #expect(abs(limiter.fillRate - expected) < 1e-6, "\(options.dropsOncePerBucket)")
            let coalesced = limiter.trace!.steps.filter { $0.condition == .when(.droppedThisBucket) }.count
            #expect(coalesced == 3 - drops)
            clock.advance(by: .milliseconds(500))
            limiter.record(throttled: true) // a bucket later: a new congestion event
            #expect(limiter.fillRate < expected)
            expectConsistent(limiter.trace!, with: AdaptiveTable.adaptive)
        }
    }

    @Test func aThousandConcurrentAcquirersLoseNoToken() async throws {
        let clock = ManualClock()
        let limiter = try AdaptiveRateLimiter(.aws, clock: clock, tracing: true)
        answer(limiter, clock, count: 2000, over: 10) // measured 200/s
        limiter.record(throttled: true) // fill 140/s, capacity 140
        clock.advance(by: .seconds(10)) // the bucket fills up to its capacity, the new rate
        let capacity = limiter.fillRate
        #expect(capacity > 100)
        let granted = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<1000 { group.addTask { limiter.ask() == .granted } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(Double(granted) == (capacity + 1e-9).rounded(.down))
        // Every ask took exactly one token, at once or reserved ahead: none lost, none taken twice.
        #expect(abs(limiter.tokens + 1000 - capacity) < 1e-6)
        let trace = try #require(limiter.trace)
        #expect(trace.steps.filter { $0.effectsGranted }.count >= granted)
        expectConsistent(trace, with: AdaptiveTable.adaptive)
    }
}

extension AdaptiveRateLimiterTests {
    @Test func theRegistryKeepsOneLimiterPerHostAndNoneByDefault() throws {
        let clock = ManualClock()
        let registry = try ResilienceRegistry(budget: .awsStandard, breaker: nil, limiter: .aws, clock: clock)
        let a = try #require(registry.limiter(forKey: "a.example"))
        #expect(registry.limiter(forKey: "a.example") === a)
        #expect(registry.limiter(forKey: "b.example") !== a)
        let guards = registry.guards(forKey: "a.example", completing: FleetGuards())
        #expect(guards.limiter === a)
        #expect(guards.whenRateLimited == .waitForToken)
        #expect(try ResilienceRegistry(clock: clock).limiter(forKey: "a.example") == nil)
        var bad = AdaptiveRateLimiterOptions.aws
        bad.smoothing = 0
        #expect(throws: RetryPolicyError.self) { try ResilienceRegistry(limiter: bad, clock: clock) }
    }
}

extension AdaptiveTrace.Step {
    /// Whether this step is a granted send (a `token available` row, or a send while disabled).
    fileprivate var effectsGranted: Bool {
        condition == .when(.tokenAvailable) || (event == .sendAsked && from == .disabled)
    }
}
