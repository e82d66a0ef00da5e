import Foundation
import RetryFlow
import Testing

@Suite struct PolicyTests {
    private func delays(_ policy: RetryPolicy, count: Int, seed: UInt64 = 7) -> [Double] {
        var random = SeededRandom(seed: seed)
        var previous: Duration?
        return (1...count).map { n in
            let d = policy.delay(beforeRetry: n, previous: previous, using: &random)
            previous = d
            return d.inSeconds
        }
    }

    @Test func exponentialWithoutJitterDoublesUpToTheCap() {
        let policy = RetryPolicy(
            backoff: .exponential(base: .milliseconds(500), multiplier: 2), maxDelay: .seconds(20), jitter: .none)
        #expect(delays(policy, count: 8) == [0.5, 1, 2, 4, 8, 16, 20, 20])
        // Huge retry numbers do not overflow: they sit at the cap.
        var random = SeededRandom(seed: 1)
        #expect(policy.delay(beforeRetry: 5_000, previous: nil, using: &random) == .seconds(20))
    }

    @Test func constantAndLinearTables() {
        #expect(
            delays(RetryPolicy(backoff: .constant(.milliseconds(200)), jitter: .none), count: 3) == [0.2, 0.2, 0.2])
        let linear = RetryPolicy(
            backoff: .linear(initial: .seconds(1), increment: .milliseconds(500)), maxDelay: .seconds(2), jitter: .none)
        #expect(delays(linear, count: 4) == [1, 1.5, 2, 2])
    }

    @Test(arguments: [Jitter.full, .equal, .decorrelated, .symmetric(0.3)])
    func jitterStaysInsideItsFormulaBounds(jitter: Jitter) {
        let policy = RetryPolicy(
            backoff: .exponential(base: .milliseconds(100), multiplier: 2), maxDelay: .seconds(5), jitter: jitter)
        var random = SeededRandom(seed: 99)
        var previous: Duration?
        var sawVariety = Set<Int64>()
        for draw in 0..<10_000 {
            let n = draw % 12 + 1
            let expo = min(5.0, 0.1 * pow(2.0, Double(n - 1)))
            let d = policy.delay(beforeRetry: n, previous: previous, using: &random).inSeconds
            switch jitter {
            case .full: #expect(d >= 0 && d <= expo + 1e-9)
            case .equal: #expect(d >= expo / 2 - 1e-9 && d <= expo + 1e-9)
            case .decorrelated:
                let upper = max(0.1, (previous?.inSeconds ?? 0.1) * 3)
                #expect(d >= 0.1 - 1e-9 && d <= min(5, upper) + 1e-9)
            case .symmetric(let spread):
                #expect(d >= expo * (1 - spread) - 1e-9 && d <= min(5, expo * (1 + spread)) + 1e-9)
            case .none, .additive, .fullFrom, .pollyDecorrelated: break // not among the arguments
            }
            previous = .nanoseconds(Int64((d * 1e9).rounded()))
            sawVariety.insert(Int64(d * 1e6))
        }
        #expect(sawVariety.count > 1000, "jitter should spread the delays")
    }

    @Test func theSameSeedGivesTheSameDelays() {
        for jitter in Jitter.named + [.symmetric(0.25)] {
            let policy = RetryPolicy(maxAttempts: 10, jitter: jitter)
            #expect(delays(policy, count: 20, seed: 42) == delays(policy, count: 20, seed: 42))
        }
        #expect(delays(.default, count: 20, seed: 1) != delays(.default, count: 20, seed: 2))
    }

    @Test func presets() throws {
        try RetryPolicy.default.validate()
        #expect(RetryPolicy.default.maxAttempts == 3)
        #expect(RetryPolicy.default.backoff == .exponential(base: .milliseconds(500), multiplier: 2))
        #expect(RetryPolicy.default.maxDelay == .seconds(20))
        #expect(RetryPolicy.default.jitter == .full)
        #expect(RetryPolicy.none.maxAttempts == 1)
        let seed = RetryPolicy.originalSnippet()
        #expect(seed.maxAttempts == 51)
        #expect(seed.backoff == .constant(.milliseconds(200)))
        #expect(seed.jitter == .none)
        try seed.validate()
        try RetryPolicy.originalSnippet(times: 3, wait: .seconds(60)).validate()
    }

    /// `times + 1` attempts would overflow at `Int.max`: it saturates instead of crashing.
    @Test func retryCountsSaturateInsteadOfOverflowing() throws {
        #expect(RetryPolicy.originalSnippet(times: .max).maxAttempts == .max)
        #expect(RetryPolicy.originalSnippet(times: .max - 1).maxAttempts == .max)
        #expect(RetryPolicy.originalSnippet(times: -5).maxAttempts == 1)
        try RetryPolicy.originalSnippet(times: .max).validate()
    }

    @Test(arguments: [
        (RetryPolicy(maxAttempts: 0), "maxAttempts"),
        (RetryPolicy(backoff: .constant(.seconds(-1))), "backoff.delay"),
        (RetryPolicy(backoff: .exponential(base: .seconds(1), multiplier: .nan)), "backoff.multiplier"),
        (RetryPolicy(backoff: .exponential(base: .seconds(1), multiplier: .infinity)), "backoff.multiplier"),
        (RetryPolicy(minDelay: .seconds(-1)), "minDelay"),
        (RetryPolicy(maxDelay: .seconds(20), minDelay: .seconds(60)), "minDelay"),
        (RetryPolicy(deadline: .zero), "deadline"),
        (RetryPolicy(perAttemptTimeout: .seconds(-2)), "perAttemptTimeout"),
        (RetryPolicy(maxRetryAfter: .seconds(-1)), "maxRetryAfter"),
    ])
    func invalidValuesAreRejectedNamingTheField(policy: RetryPolicy, field: String) {
        do {
            try policy.validate()
            Issue.record("\(field) should have been rejected")
        } catch {
            #expect(error.field == field)
            #expect(error.description.contains(field))
        }
    }

    @Test func nonFiniteSecondsAreRejected() throws {
        for bad in [Double.nan, .infinity, -.infinity, -0.5, 1e300] {
            #expect(throws: RetryPolicyError.self) { try Duration(validatingSeconds: bad, field: "delay") }
        }
        #expect(try Duration(validatingSeconds: 0.25, field: "x") == .milliseconds(250))
    }

    @Test func jsonRoundTrip() throws {
        let policy = RetryPolicy(
            maxAttempts: 4, backoff: .linear(initial: .seconds(1), increment: .milliseconds(250)),
            maxDelay: .seconds(9),
            jitter: .equal, deadline: .seconds(30), perAttemptTimeout: .seconds(5), maxRetryAfter: .seconds(60))
        let data = try JSONEncoder().encode(policy)
        let back = try JSONDecoder().decode(RetryPolicy.self, from: data)
        #expect(back.maxAttempts == 4)
        #expect(back.backoff == policy.backoff)
        #expect(back.maxDelay == .seconds(9))
        #expect(back.jitter == .equal)
        #expect(back.deadline == .seconds(30))
        #expect(back.perAttemptTimeout == .seconds(5))
        #expect(back.maxRetryAfter == .seconds(60))
    }

    @Test func jsonFillsDefaultsAndNamesBadFields() throws {
        let minimal = try JSONDecoder().decode(RetryPolicy.self, from: Data(#"{"maxAttempts": 5}"#.utf8))
        #expect(minimal.maxAttempts == 5)
        #expect(minimal.jitter == .full)
        let cases: [(String, String)] = [
            (#"{"maxAttempts": 0}"#, "maxAttempts"),
            (#"{"jitter": "wild"}"#, "jitter"),
            (#"{"maxAttemps": 3}"#, "maxAttemps"),
            (#"{"backoff": {"kind": "fibonacci"}}"#, "backoff.kind"),
            (#"{"backoff": {"kind": "constant", "delay": -1}}"#, "backoff.delay"),
            (#"{"deadline": -3}"#, "deadline"),
        ]
        for (json, field) in cases {
            do {
                _ = try JSONDecoder().decode(RetryPolicy.self, from: Data(json.utf8))
                Issue.record("\(json) should not decode")
            } catch let error as RetryPolicyError {
                #expect(error.field == field, "\(json)")
            } catch {
                Issue.record("\(json): unexpected \(error)")
            }
        }
    }

    @Test func classifierNeverRetriesCancellation() {
        let everything = RetryClassifier { _ in .retry }
        #expect(everything.decision(for: CancellationError()) == .fail)
        #expect(everything.decision(for: URLError(.cancelled)) == .fail)
        #expect(everything.decision(for: URLError(.timedOut)) == .retry)
        #expect(RetryClassifier.never.decision(for: Boom(n: 1)) == .fail)
    }

    @Test func durationsReadWell() {
        #expect(Duration.zero.shortDescription == "0 s")
        #expect(Duration.milliseconds(250).shortDescription == "250 ms")
        #expect(Duration.milliseconds(1500).shortDescription == "1.5 s")
        #expect(Duration.seconds(125).shortDescription == "2 min 5 s")
    }
}
