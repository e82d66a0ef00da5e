import Foundation
import RetryFlow
import Testing

/// Each schedule a peer library offers, written as a RetryPolicy and checked against the numbers
/// that library documents.
@Suite struct PeerScheduleTests {
    /// Delays before retries 1…n, drawing from `random`.
    static func delays(_ policy: RetryPolicy, _ n: Int, random: some RandomNumberGenerator = SeededRandom(seed: 3))
        -> [Double]
    {
        var random = random
        var previous: Duration?
        return (1...n).map { retry in
            let delay = policy.delay(beforeRetry: retry, previous: previous, using: &random)
            previous = delay
            return Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
        }
    }

    /// tenacity, `wait_exponential(multiplier=1, min=4, max=10)`: "2^x * 1 second between each retry
    /// starting with 4 seconds, then up to 10 seconds, then 10 seconds afterwards".
    @Test func tenacityMinimumDelay() throws {
        let policy = RetryPolicy(
            maxAttempts: 7, backoff: .exponential(base: .seconds(1), multiplier: 2), maxDelay: .seconds(10),
            jitter: .none,
            minDelay: .seconds(4))
        try policy.validate()
        #expect(Self.delays(policy, 6) == [4, 4, 4, 8, 10, 10])
    }

    /// Polly, `WaitAndRetryAsync(new[] { 1 s, 2 s, 3 s })`: exactly those delays (the last repeats here
    /// when the policy allows more attempts than the list has delays).
    @Test func pollyExplicitSchedule() throws {
        let policy = RetryPolicy(
            maxAttempts: 5, backoff: .schedule([.seconds(1), .seconds(2), .seconds(3)]), jitter: .none)
        try policy.validate()
        #expect(Self.delays(policy, 4) == [1, 2, 3, 3])
        #expect(throws: RetryPolicyError.self) { try RetryPolicy(backoff: .schedule([])).validate() }
    }

    /// Polly v8, constant 2 s with `UseJitter`: ±25 %, so every delay lies in 1.5…2.5 s, and the
    /// draws reach both ends.
    @Test func pollySymmetricJitter() throws {
        let policy = RetryPolicy(maxAttempts: 1000, backoff: .constant(.seconds(2)), jitter: .symmetric(0.25))
        try policy.validate()
        let drawn = Self.delays(policy, 999)
        #expect(drawn.allSatisfy { (1.5...2.5).contains($0) })
        #expect(drawn.min()! < 1.52 && drawn.max()! > 2.48, "the spread is symmetric and used in full")
    }

    /// gRPC's numbers with the default switches: initial 1 s, multiplier 1.6, jitter ±20 % on every
    /// wait, the 120 s cap hard. gRPC's exact form (an unjittered first wait, a band past the cap)
    /// is `PeerBackoffCasesTests.grpcConnectionBackoff`.
    @Test func grpcSymmetricJitter() throws {
        let policy = RetryPolicy(
            maxAttempts: 12, backoff: .exponential(base: .seconds(1), multiplier: 1.6), maxDelay: .seconds(120),
            jitter: .symmetric(0.2))
        try policy.validate()
        for seed in UInt64(0)..<50 {
            for (index, delay) in Self.delays(policy, 11, random: SeededRandom(seed: seed)).enumerated() {
                let nominal = pow(1.6, Double(index))
                #expect(delay >= nominal * 0.8 - 1e-9 && delay <= nominal * 1.2 + 1e-9, "retry \(index + 1): \(delay)")
            }
        }
    }

    /// Polly accepts `MaxDelay` below `Delay`: every delay is the cap.
    @Test func capBelowTheFirstDelayMeansConstantAtTheCap() throws {
        let policy = RetryPolicy(
            maxAttempts: 5, backoff: .exponential(base: .seconds(2), multiplier: 2), maxDelay: .seconds(1),
            jitter: .none)
        try policy.validate()
        #expect(Self.delays(policy, 4) == [1, 1, 1, 1])
    }

    /// A custom backoff runs as written, and its JSON form is refused with words saying why.
    @Test func customBackoffIsCodeNotJSON() throws {
        let fibonacci = CustomBackoff("fibonacci") { n in .seconds([1, 1, 2, 3, 5, 8][min(n, 6) - 1]) }
        let policy = RetryPolicy(maxAttempts: 8, backoff: .custom(fibonacci), maxDelay: .seconds(60), jitter: .none)
        try policy.validate()
        #expect(Self.delays(policy, 7) == [1, 1, 2, 3, 5, 8, 8])
        do {
            _ = try JSONEncoder().encode(policy)
            Issue.record("a custom backoff must not encode")
        } catch let EncodingError.invalidValue(_, context) {
            #expect(context.debugDescription.contains("custom backoff 'fibonacci' is code and has no JSON form"))
        }
        let json = Data(#"{"backoff": {"kind": "custom"}}"#.utf8)
        #expect(
            throws: RetryPolicyError(
                field: "backoff.kind",
                problem: "a custom backoff is code and cannot be read from JSON; write its delays as a schedule"
            )
        ) { try JSONDecoder().decode(RetryPolicy.self, from: json) }
    }

    /// The new fields round-trip through JSON.
    @Test func newSchedulesRoundTripThroughJSON() throws {
        let policy = RetryPolicy(
            backoff: .schedule([.seconds(1), .milliseconds(2500)]), jitter: .symmetric(0.2),
            minDelay: .milliseconds(300))
        let back = try JSONDecoder().decode(RetryPolicy.self, from: try JSONEncoder().encode(policy))
        #expect(back.backoff == policy.backoff)
        #expect(back.jitter == .symmetric(0.2))
        #expect(back.minDelay == .milliseconds(300))
        #expect(throws: RetryPolicyError.self) {
            try JSONDecoder().decode(
                RetryPolicy.self, from: Data(#"{"jitter": {"kind": "symmetric", "spread": 2}}"#.utf8))
        }
    }
}
