import Foundation
import RetryFlow
import Testing

/// Random bits chosen by the test, in turn (repeating), so a jittered delay is exact.
/// `unit(u)` gives the bits that RetryFlow's 0..<1 draw (Python's `random.random()`, .NET's
/// `NextDouble()`) reads as `u`; `.top` and `.bottom` are the ends of a closed-range draw
/// (`Double.random(in: a...b)` returns `b` for all-ones bits and `a` for 2047).
struct ScriptedBits: RandomNumberGenerator {
    static let top = UInt64.max
    static let bottom: UInt64 = 2047
    static func unit(_ u: Double) -> UInt64 { UInt64(u * 0x1p53) << 11 }
    /// The largest draw below 1.
    static let belowOne = 1 - 0x1p-53

    private let bits: [UInt64]
    private var index = 0
    init(_ bits: [UInt64]) { self.bits = bits }
    init(units: [Double]) { self.init(units.map(Self.unit)) }

    mutating func next() -> UInt64 {
        defer { index = (index + 1) % bits.count }
        return bits[index]
    }
}

/// The peers' configurations that issue 24 found inexpressible, each written as a RetryPolicy and
/// checked against the peer's own tests (file and test named beside each) or, where those only bound
/// the delays, against the peer's published formula with the draws fixed.
@Suite struct PeerBackoffCasesTests {
    /// Delays before retries 1…n in seconds, from one memory, drawing from `random`.
    static func delays(_ policy: RetryPolicy, _ n: Int, random: some RandomNumberGenerator) -> [Double] {
        var random = random
        var memory = BackoffMemory()
        return (1...n).map { policy.delay(beforeRetry: $0, memory: &memory, using: &random).inSeconds }
    }

    static func close(_ a: [Double], _ b: [Double], within tolerance: Double = 1e-9) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) <= tolerance * max(1, abs($1)) }
    }

    // MARK: additive jitter

    /// tenacity `wait_exponential_jitter(max=60)` (initial 1, exp_base 2, jitter 1):
    /// `initial * 2 ** (n - 1) + uniform(0, jitter)`, then `min(…, max)`.
    /// tenacity tests/test_tenacity.py, `TestWaitConditions.test_wait_exponential_jitter`: retry 1 in
    /// 1…2, 2 in 2…3, 3 in 4…5, 4 in 8…9, 5 in 16…17, 6 in 32…33, then exactly 60, 60, 60.
    @Test func tenacityWaitExponentialJitter() throws {
        let policy = RetryPolicy(
            maxAttempts: 10, backoff: .exponential(base: .seconds(1), multiplier: 2), maxDelay: .seconds(60),
            jitter: .additive(.seconds(1)))
        try policy.validate()
        let low: [Double] = [1, 2, 4, 8, 16, 32, 60, 60, 60]
        #expect(Self.delays(policy, 9, random: ScriptedBits(units: [0])) == low)
        #expect(
            Self.delays(policy, 9, random: ScriptedBits(units: [0.5])) == [1.5, 2.5, 4.5, 8.5, 16.5, 32.5, 60, 60, 60])
        let high = Self.delays(policy, 9, random: ScriptedBits(units: [ScriptedBits.belowOne]))
        #expect(Self.close(high, [2, 3, 5, 9, 17, 33, 60, 60, 60]))
        for seed in UInt64(0)..<1000 {
            let drawn = Self.delays(policy, 9, random: SeededRandom(seed: seed))
            for (index, delay) in drawn.enumerated() {
                #expect(delay >= low[index] && delay <= (index < 6 ? low[index] + 1 : 60), "retry \(index + 1)")
            }
        }
        // The same test's `wait_exponential_jitter(10, 5)`: initial 10 above max 5, so always 5.
        let capped = RetryPolicy(
            backoff: .exponential(base: .seconds(10), multiplier: 2), maxDelay: .seconds(5),
            jitter: .additive(.seconds(1)))
        for seed in UInt64(0)..<100 {
            #expect(Self.delays(capped, 1, random: SeededRandom(seed: seed)) == [5])
        }
    }

    /// urllib3 `Retry(backoff_factor=0.2, backoff_max=1, backoff_jitter=0.4)`: no wait before the
    /// first retry, then `0.2 * 2 ** (n - 1) + random() * 0.4`, then `min(backoff_max, …)`.
    /// urllib3 test/test_retry.py, `TestRetry.test_backoff_jitter`: 0, then 0.4…0.8, 0.8…1, 1, 1.
    @Test func urllib3BackoffJitter() throws {
        // urllib3 skips the first retry's backoff; a schedule cannot say "0, then exponential", so
        // the backoff is code, and the first wait is left unjittered as urllib3 leaves it.
        let urllib3 = CustomBackoff("urllib3") { n in n == 1 ? .zero : .milliseconds(200) * (1 << min(n - 1, 40)) }
        let policy = RetryPolicy(
            maxAttempts: 6, backoff: .custom(urllib3), maxDelay: .seconds(1), jitter: .additive(.milliseconds(400)),
            jittersFirstDelay: false)
        try policy.validate()
        #expect(Self.close(Self.delays(policy, 5, random: ScriptedBits(units: [0])), [0, 0.4, 0.8, 1, 1]))
        #expect(Self.close(Self.delays(policy, 5, random: ScriptedBits(units: [0.5])), [0, 0.6, 1, 1, 1]))
        #expect(Self.close(Self.delays(policy, 5, random: ScriptedBits(units: [0.25])), [0, 0.5, 0.9, 1, 1]))
        for seed in UInt64(0)..<1000 {
            let d = Self.delays(policy, 5, random: SeededRandom(seed: seed))
            #expect(d[0] == 0 && (0.4...0.8).contains(d[1]) && (0.8...1).contains(d[2]) && d[3] == 1 && d[4] == 1)
        }
    }

    // MARK: Polly's DecorrelatedJitterBackoffV2

    /// Polly's formula as published (src/Polly.Core/Retry/RetryHelper.cs, `DecorrelatedJitterBackoffV2`;
    /// Polly.Contrib.WaitAndRetry's Backoff.DecorrelatedJitterV2.cs), in seconds: for attempt `a`
    /// (0-based) and draw `u`, `t = a + u`, `next = 2^t · tanh(√(4t))`, delay `(next − prev) / 1.4 · base`.
    static func pollyFormula(base: Double, draws: [Double]) -> [Double] {
        var prev = 0.0
        return draws.enumerated().map { attempt, u in
            let t = Double(attempt) + u
            let next = pow(2, t) * tanh((4.0 * t).squareRoot())
            defer { prev = next }
            return (next - prev) * (1 / 1.4) * base
        }
    }

    /// With the draws fixed, RetryFlow's delays are Polly's formula's, to the nanosecond.
    @Test func pollyDecorrelatedFollowsTheFormula() throws {
        let policy = RetryPolicy(
            maxAttempts: 9, backoff: .exponential(base: .seconds(1), multiplier: 2), maxDelay: .seconds(3600),
            jitter: .pollyDecorrelated)
        try policy.validate()
        for draws in [[0.5], [0.25, 0.75], [0, 0.5, 0.125, 0.875]] {
            let units = (0..<8).map { draws[$0 % draws.count] }
            let got = Self.delays(policy, 8, random: ScriptedBits(units: units))
            #expect(Self.close(got, Self.pollyFormula(base: 1, draws: units), within: 1e-9), "draws \(draws)")
        }
        // Polly's doc comment: retries fall "at time f * 2^1, f * 2^2 …": with the median draw, the
        // time of retry n (the sum of the waits, which telescopes to the formula's value) is near
        // base · 2^(n−1).
        var time = 0.0
        for (index, delay) in Self.delays(policy, 8, random: ScriptedBits(units: [0.5])).enumerated() {
            time += delay
            let target = pow(2, Double(index))
            #expect(time > target * 0.85 && time < target * 1.05, "retry \(index + 1) at \(time) s")
        }
    }

    /// Polly.Contrib.WaitAndRetry src/Polly.Contrib.WaitAndRetry.Specs/DecorrelatedJitterBackoffV2Specs.cs,
    /// `Backoff_ResultIsInRange_WideTest` (seeds 0…999, mean first delay 3 s, 6 retries): try t waits
    /// from 0 to f·2^(t+1) for t < 2, and to f·(2^(t+1) − 2^(t−1)) after.
    @Test func pollyDecorrelatedStaysInContribRange() throws {
        let policy = RetryPolicy(
            maxAttempts: 7, backoff: .exponential(base: .seconds(3), multiplier: 2), maxDelay: .seconds(86_400),
            jitter: .pollyDecorrelated)
        try policy.validate()
        var spread = Set<Int64>()
        for seed in UInt64(0)..<1000 {
            for (index, delay) in Self.delays(policy, 6, random: SeededRandom(seed: seed)).enumerated() {
                let t = Double(index + 1)
                let factor = t < 2 ? pow(2, t + 1) : pow(2, t + 1) - pow(2, t - 1)
                #expect(delay >= 0 && delay <= 3 * factor, "seed \(seed), try \(index + 1): \(delay)")
                spread.insert(Int64(delay * 1000))
            }
        }
        #expect(spread.count > 3000, "the draws spread the delays")
    }

    /// Polly test/Polly.Core.Tests/Retry/RetryHelperTests.cs, `DecorrelatedJitterBackoffV2_Meets_Specification`:
    /// from a fresh state, attempt `a` (1…2048) with base `v` waits from 0 to `v·2^a·4` less a tick,
    /// clamped to `TimeSpan.MaxValue` (RetryFlow saturates lower, at 1e9 s).
    @Test func pollyDecorrelatedMeetsPollysSpecification() throws {
        var random = SeededRandom(seed: 530)
        for base in [0.001, 0.25, 1, 7.8, 3600] {
            let policy = RetryPolicy(
                backoff: .exponential(base: .nanoseconds(Int64(base * 1e9)), multiplier: 2),
                maxDelay: .seconds(Int64.max), jitter: .pollyDecorrelated)
            try policy.validate()
            for attempt in [1, 2, 3, 4, 10, 100, 1000, 1023, 1024, 1025, 2048] {
                var memory = BackoffMemory()
                let delay = policy.delay(beforeRetry: attempt + 1, memory: &memory, using: &random).inSeconds
                let ceiling = min(base * pow(2, Double(attempt)) * 4 - 1e-7, 29_227 * 365.25 * 86_400)
                #expect(delay >= 0 && delay <= ceiling, "base \(base), attempt \(attempt): \(delay)")
                #expect(delay > 0 && delay <= 1e9)
            }
        }
    }

    /// Polly RetryHelperTests.cs, `MaxDelay_Ok(Exponential, jitter: true)`: draw 0.5, attempt 2, base
    /// 10 s, `MaxDelay` 1 s: exactly 1 s. And `GetRetryDelay_Exponential_Does_Not_Exceed_MaxDelay`
    /// (base 2 s, max 30 s, attempts 1…1025): above zero, at most 30 s.
    @Test func pollyDecorrelatedIsCappedAfterTheFormula() throws {
        let policy = RetryPolicy(
            backoff: .exponential(base: .seconds(10), multiplier: 2), maxDelay: .seconds(1), jitter: .pollyDecorrelated)
        var half = ScriptedBits(units: [0.5])
        var memory = BackoffMemory()
        #expect(policy.delay(beforeRetry: 3, memory: &memory, using: &half) == .seconds(1))

        let thirty = RetryPolicy(
            backoff: .exponential(base: .seconds(2), multiplier: 2), maxDelay: .seconds(30), jitter: .pollyDecorrelated)
        var random = SeededRandom(seed: 0)
        for attempt in [1, 2, 3, 4, 10, 100, 1000, 1024, 1025] {
            var fresh = BackoffMemory()
            let delay = thirty.delay(beforeRetry: attempt + 1, memory: &fresh, using: &random)
            #expect(delay > .zero && delay <= .seconds(30), "attempt \(attempt): \(delay)")
        }
    }

    /// The engine keeps Polly's running value across a run: a machine's waits are the formula's.
    @Test func theMachineCarriesPollysRunningValue() throws {
        let policy = RetryPolicy(
            maxAttempts: 5, backoff: .exponential(base: .seconds(1), multiplier: 2), maxDelay: .seconds(3600),
            jitter: .pollyDecorrelated)
        var machine = RetryMachine(policy: policy, random: ScriptedBits(units: [0.25, 0.75]))
        var waits: [Double] = []
        var now = Duration.zero
        var inputs: [RetryInput] = [.start]
        while let input = inputs.popLast() {
            for action in try machine.handle(input, at: now).actions {
                switch action {
                case .askLimiter: inputs.append(.tokenGranted)
                case .askBreaker: inputs.append(.admitted)
                case .startAttempt: inputs.append(.failed(.retry, detail: nil))
                case .askRetryBudget: inputs.append(.budgetAnswered(granted: true, detail: nil))
                case .sleep(let delay):
                    waits.append(delay.inSeconds)
                    now += delay
                    inputs.append(.delayElapsed)
                case .cancelAttempt, .notifyRetry, .reportHealth, .returnToken, .runStep, .finish: break
                }
            }
        }
        #expect(machine.state == .failure)
        #expect(Self.close(waits, Self.pollyFormula(base: 1, draws: [0.25, 0.75, 0.25, 0.75])))
    }

    // MARK: gRPC connection backoff

    /// gRPC connection backoff (grpc/grpc doc/connection-backoff.md; grpc-go internal/backoff/backoff.go,
    /// `Exponential.Backoff`, whose constants internal/backoff/backoff_test.go
    /// `TestNewExponentialBuilderDefault` pins: base 1 s, multiplier 1.6, jitter 0.2, max 120 s): the
    /// first wait is exactly the base; then `min(base · 1.6^k, 120 s) · (1 + 0.2 · (2r − 1))`, which
    /// may pass the cap (up to 144 s).
    static let grpc = RetryPolicy(
        maxAttempts: 16, backoff: .exponential(base: .seconds(1), multiplier: 1.6), maxDelay: .seconds(120),
        jitter: .symmetric(0.2), jittersFirstDelay: false, jitterMayPassCap: true)

    /// grpc-go's loop, as written: `backoff *= multiplier` while below max, then the cap.
    static func grpcNominal(retries: Int) -> Double {
        var backoff = 1.0
        var retries = retries
        while backoff < 120 && retries > 0 {
            backoff *= 1.6
            retries -= 1
        }
        return min(backoff, 120)
    }

    @Test func grpcConnectionBackoff() throws {
        try Self.grpc.validate()
        let nominal = (1...15).map { Self.grpcNominal(retries: $0) }
        // r at its top (1.2 ×) and at its bottom (0.8 ×): the first wait is 1 s either way.
        let top = Self.delays(Self.grpc, 16, random: ScriptedBits([ScriptedBits.top]))
        let bottom = Self.delays(Self.grpc, 16, random: ScriptedBits([ScriptedBits.bottom]))
        #expect(top[0] == 1 && bottom[0] == 1)
        #expect(Self.close(Array(top.dropFirst()), nominal.map { $0 * 1.2 }))
        #expect(Self.close(Array(bottom.dropFirst()), nominal.map { $0 * 0.8 }))
        #expect(top.last == 144, "the jitter band passes the 120 s cap")
        for seed in UInt64(0)..<500 {
            let drawn = Self.delays(Self.grpc, 16, random: SeededRandom(seed: seed))
            #expect(drawn[0] == 1, "the first wait is never jittered")
            for (index, delay) in drawn.dropFirst().enumerated() {
                let n = nominal[index]
                #expect(delay >= n * 0.8 - 1e-9 && delay <= n * 1.2 + 1e-9, "retry \(index + 2): \(delay)")
            }
        }
        // With the defaults the cap stays hard and the first wait is jittered, as before.
        var hard = Self.grpc
        hard.jittersFirstDelay = true
        hard.jitterMayPassCap = false
        let old = Self.delays(hard, 16, random: ScriptedBits([ScriptedBits.top]))
        #expect(old[0] == 1.2 && old.last == 120)
    }

    /// A progress reset starts the series over: the next first wait is unjittered again.
    @Test func grpcFirstWaitIsPerSeries() {
        var memory = BackoffMemory()
        var random = ScriptedBits([ScriptedBits.top])
        #expect(Self.grpc.delay(beforeRetry: 1, memory: &memory, using: &random) == .seconds(1))
        #expect(Self.grpc.delay(beforeRetry: 2, memory: &memory, using: &random) == .milliseconds(1920))
        memory = BackoffMemory()
        #expect(Self.grpc.delay(beforeRetry: 1, memory: &memory, using: &random) == .seconds(1))
    }

    // MARK: tenacity's wait_random_exponential(min=…)

    /// tenacity tenacity/wait.py, `wait_random_exponential.__call__`: `high = max(min, min(d, max))`
    /// (`wait_exponential`), then `random.uniform(min, high)` = `min + (high − min) · random()`, so
    /// a draw of 0.5 lands midway between the floor and the delay, where a floor under full jitter
    /// (`max(min, uniform(0, d))`) would sit at the floor.
    @Test func tenacityWaitRandomExponentialWithMin() throws {
        let policy = RetryPolicy(
            maxAttempts: 8, backoff: .exponential(base: .seconds(1), multiplier: 2), maxDelay: .seconds(10),
            jitter: .fullFrom(.seconds(4)))
        try policy.validate()
        #expect(Self.delays(policy, 7, random: ScriptedBits(units: [0])) == [4, 4, 4, 4, 4, 4, 4])
        #expect(Self.delays(policy, 7, random: ScriptedBits(units: [0.5])) == [4, 4, 4, 6, 7, 7, 7])
        #expect(
            Self.close(Self.delays(policy, 5, random: ScriptedBits(units: [ScriptedBits.belowOne])), [4, 4, 4, 8, 10]))
        let floored = RetryPolicy(
            maxAttempts: 8, backoff: .exponential(base: .seconds(1), multiplier: 2), maxDelay: .seconds(10),
            jitter: .full, minDelay: .seconds(4))
        #expect(Self.delays(floored, 7, random: ScriptedBits([1 << 62])).allSatisfy { $0 == 4 }, "not tenacity's")
    }

    /// tenacity tests/test_tenacity.py, `TestWaitConditions.test_wait_random_exponential`:
    /// `wait_random_exponential(0.5, 60.0)` (min 0) waits 0…0.5, 0…1, 0…2 … 0…32, then 0…60; and
    /// `wait_random_exponential(10, 5)` 0…5.
    @Test func tenacityWaitRandomExponentialBounds() throws {
        let policy = RetryPolicy(
            maxAttempts: 10, backoff: .exponential(base: .milliseconds(500), multiplier: 2), maxDelay: .seconds(60),
            jitter: .fullFrom(.zero))
        let small = RetryPolicy(
            backoff: .exponential(base: .seconds(10), multiplier: 2), maxDelay: .seconds(5), jitter: .fullFrom(.zero))
        let highs: [Double] = [0.5, 1, 2, 4, 8, 16, 32, 60, 60]
        var seen = [Double](repeating: 0, count: 9)
        for seed in UInt64(0)..<1000 {
            let drawn = Self.delays(policy, 9, random: SeededRandom(seed: seed))
            for (index, delay) in drawn.enumerated() {
                #expect(delay >= 0 && delay <= highs[index])
                seen[index] = max(seen[index], delay / highs[index])
            }
            #expect((0...5).contains(Self.delays(small, 1, random: SeededRandom(seed: seed))[0]))
        }
        #expect(seen.allSatisfy { $0 > 0.99 }, "the draws reach the top of each range")
        #expect(Self.delays(policy, 9, random: ScriptedBits(units: [0.5])) == highs.map { $0 / 2 })
    }

    // MARK: delays past 1e9 s

    /// tenacity tests/test_tenacity.py, `test_exponential` (`wait_exponential()`, whose max is
    /// `_utils.MAX_WAIT`, sys.maxsize / 2 s): 1, 2, 4 … 128; and wait.py returns `max` on an
    /// OverflowError. Polly RetryHelperTests.cs, `GetRetryDelay_Overflow_ReturnsMaxTimeSpan` (attempt
    /// 1000, base 1 day, no `MaxDelay`: `TimeSpan.MaxValue`) and
    /// `GetRetryDelay_OverflowWithMaxDelay_ReturnsMaxDelay` (`MaxDelay` 2 days: 2 days). RetryFlow
    /// accepts such caps and saturates at its limit, 1e9 s (about 31.7 years), instead of refusing.
    @Test func hugeDelaysSaturate() throws {
        let tenacity = RetryPolicy(
            maxAttempts: 9, backoff: .exponential(base: .seconds(1), multiplier: 2),
            maxDelay: .seconds(Int64.max / 2 / 1_000_000_000 * 1_000_000_000), jitter: .none)
        try tenacity.validate()
        #expect(Self.delays(tenacity, 8, random: SeededRandom(seed: 1)) == [1, 2, 4, 8, 16, 32, 64, 128])
        var random = SeededRandom(seed: 1)
        #expect(tenacity.delay(beforeRetry: 5_000, previous: nil, using: &random) == .seconds(1_000_000_000))

        let day = Duration.seconds(86_400)
        let polly = RetryPolicy(
            backoff: .exponential(base: day, multiplier: 2), maxDelay: .seconds(922_337_203_685), jitter: .none)
        try polly.validate()
        #expect(polly.delay(beforeRetry: 1001, previous: nil, using: &random) == .seconds(1_000_000_000))
        var withCap = polly
        withCap.maxDelay = day * 2
        #expect(withCap.delay(beforeRetry: 1001, previous: nil, using: &random) == day * 2)

        // Every delay field saturates; a schedule of one huge delay waits the limit.
        for jitter in Jitter.named + [.symmetric(0.2), .additive(.seconds(Int64.max)), .fullFrom(.seconds(Int64.max))] {
            var huge = RetryPolicy(
                backoff: .schedule([.seconds(Int64.max)]), maxDelay: .seconds(Int64.max), jitter: jitter,
                jitterMayPassCap: true, minDelay: .seconds(Int64.max))
            try huge.validate()
            #expect(huge.delay(beforeRetry: 3, previous: nil, using: &random) == .seconds(1_000_000_000), "\(jitter)")
            huge.minDelay = .zero
            #expect(huge.delay(beforeRetry: 3, previous: nil, using: &random) <= .seconds(1_000_000_000), "\(jitter)")
        }
    }

    /// In JSON a delay past the limit saturates too; other fields still refuse it, and every bad
    /// value is refused naming its field.
    @Test func jsonSaturatesDelaysAndNamesBadFields() throws {
        let json =
            #"{"maxDelay": 1e15, "backoff": {"kind": "constant", "delay": 1e300}, "jitter": {"kind": "additive", "max": 2e9}}"#
        let policy = try JSONDecoder().decode(RetryPolicy.self, from: Data(json.utf8))
        #expect(policy.maxDelay == .seconds(1_000_000_000))
        #expect(policy.backoff == .constant(.seconds(1_000_000_000)))
        #expect(policy.jitter == .additive(.seconds(1_000_000_000)))
        let bad: [(String, String)] = [
            (#"{"maxDelay": -1}"#, "maxDelay"),
            (#"{"deadline": 1e12}"#, "deadline"),
            (#"{"jitter": {"kind": "additive", "max": -0.5}}"#, "jitter.max"),
            (#"{"jitter": {"kind": "fullFrom", "min": -1}}"#, "jitter.min"),
            (#"{"jitter": {"kind": "wobbly", "max": 1}}"#, "jitter.kind"),
            (#"{"jitter": "polly"}"#, "jitter"),
            (#"{"jittersFirstDelay": "no"}"#, "jittersFirstDelay"),
        ]
        for (text, field) in bad {
            do {
                _ = try JSONDecoder().decode(RetryPolicy.self, from: Data(text.utf8))
                Issue.record("\(text) should be refused")
            } catch let error as RetryPolicyError {
                #expect(error.field == field, "\(text)")
            } catch DecodingError.typeMismatch(_, let context) {
                #expect(context.codingPath.last?.stringValue == field, "\(text)")
            }
        }
        for (policy, field) in [
            (RetryPolicy(jitter: .additive(.seconds(-1))), "jitter.max"),
            (RetryPolicy(jitter: .fullFrom(.milliseconds(-1))), "jitter.min"),
            (RetryPolicy(maxDelay: .seconds(-1)), "maxDelay"),
            (RetryPolicy(deadline: .seconds(2_000_000_000)), "deadline"),
        ] {
            #expect(throws: RetryPolicyError.self) { try policy.validate() }
            do { try policy.validate() } catch { #expect(error.field == field) }
        }
    }

    /// The new jitters and switches round-trip through JSON; the defaults add no key, so existing
    /// policy files and their encodings do not change.
    @Test func newFormsRoundTripThroughJSON() throws {
        for jitter in [Jitter.additive(.milliseconds(400)), .fullFrom(.seconds(4)), .pollyDecorrelated] {
            var policy = Self.grpc
            policy.jitter = jitter
            let data = try JSONEncoder().encode(policy)
            let back = try JSONDecoder().decode(RetryPolicy.self, from: data)
            #expect(back.jitter == jitter)
            #expect(back.jittersFirstDelay == false && back.jitterMayPassCap == true)
        }
        let plain = String(decoding: try JSONEncoder().encode(RetryPolicy.default), as: UTF8.self)
        #expect(!plain.contains("jittersFirstDelay") && !plain.contains("jitterMayPassCap"))
        #expect(Jitter(rawValue: "pollyDecorrelated") == .pollyDecorrelated)
    }
}
