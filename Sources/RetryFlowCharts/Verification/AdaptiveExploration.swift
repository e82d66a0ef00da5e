import RetryFlow

extension FleetExploration {
    /// Explores the adaptive rate limiter's table with `options` for up to `inputs` inputs: sends,
    /// answers and throttles, each at the same instant as the last input, a tenth of a second later,
    /// past the next 0.5 s measurement bucket, or 3 s later (the limiter's inputs carry times, and
    /// these four steps reach every row: a token there or not, a throttle in the same bucket as the
    /// last drop or not). Checks that the bucket never goes negative nor above its capacity, and that
    /// the fill rate never drops below its minimum.
    ///
    /// ```swift
    /// let result = FleetExploration.adaptive()
    /// print(result.text) // "… every invariant held …"
    /// ```
    package static func adaptive(
        _ table: AdaptiveTable = .adaptive, options: AdaptiveRateLimiterOptions = .default, inputs: Int = 4
    ) -> ExplorationResult<AdaptiveVocabulary> {
        TableExplorer(table: table, rules: AdaptiveRules(options: options), model: AdaptiveModel(inputLimit: inputs))
            .explore()
    }
}

/// The adaptive limiter's world: runs ask to send and report answers and throttles, at any of a few
/// later instants (see ``FleetExploration/adaptive(_:options:inputs:)``).
struct AdaptiveModel: ExplorationModel {
    typealias Rules = AdaptiveRules

    let inputLimit: Int
    /// How far after the last input the next one may come.
    static let steps: [Duration] = [.zero, .milliseconds(100), .milliseconds(600), .seconds(3)]

    var boundDescription: String { "\(inputLimit) inputs, each 0, 0.1, 0.6 or 3 s after the last" }
    var invariants: [String] {
        [
            "a send takes at most its cost", "a send goes at once only on a token the bucket held",
            "the bucket never holds more than its capacity", "the fill rate never drops below its minimum",
        ]
    }

    /// Positions alike: the same state, bucket, rates and time (the continuous facts, exactly).
    struct Key: Hashable {
        let state: AdaptiveState
        let tokens: Double
        let capacity: Double
        let fillRate: Double
        let calculatedRate: Double
        let at: Duration
    }

    func key(_ position: ExplorationPosition<AdaptiveRules>) -> Key {
        let rules = position.machine.rules
        return Key(
            state: position.machine.state, tokens: rules.tokens, capacity: rules.capacity, fillRate: rules.fillRate,
            calculatedRate: rules.calculatedRate, at: position.at)
    }

    func choices(at position: ExplorationPosition<AdaptiveRules>) -> [ExplorationChoice<AdaptiveEvent>] {
        Self.steps.flatMap { step in
            AdaptiveEvent.allCases.map { ExplorationChoice($0, at: position.at + step, required: true) }
        }
    }

    func check(
        before: ExplorationPosition<AdaptiveRules>, after: ExplorationPosition<AdaptiveRules>, input: AdaptiveEvent,
        rows: [Int]
    ) -> [InvariantViolation] {
        let rules = after.machine.rules
        var broken: [InvariantViolation] = []
        // The bucket goes below zero only by sends that reserved their token ahead of its time, one
        // cost each: a send never takes more (the same nanosecond's slack as the `token available` guard).
        let taken = before.machine.rules.tokens - rules.tokens
        if input == .sendAsked, taken > rules.options.requestCost + 1e-9 {
            broken.append(
                .init(
                    "a send takes at most its cost",
                    "a send took \(taken) tokens, a send costs \(rules.options.requestCost)"))
        }
        // A send that goes at once must have found its token; one that found none is told to wait
        // (its token reserved). A disabled limiter grants without a bucket.
        let table = after.machine.table
        let toldToWait = rows.contains { table.rows[$0].effects.contains(.planWait) }
        if input == .sendAsked, before.machine.state != .disabled, !toldToWait, rules.tokens < -1e-9 {
            broken.append(
                .init(
                    "a send goes at once only on a token the bucket held",
                    "a send went at once and left the bucket at \(rules.tokens) tokens"))
        }
        if rules.tokens > rules.capacity + 1e-9 {
            broken.append(
                .init(
                    "the bucket never holds more than its capacity",
                    "the bucket holds \(rules.tokens) tokens, its capacity is \(rules.capacity)"))
        }
        if rules.fillRate < rules.options.minimumFillRate {
            broken.append(
                .init(
                    "the fill rate never drops below its minimum",
                    "the fill rate is \(rules.fillRate)/s, the minimum \(rules.options.minimumFillRate)/s"))
        }
        return broken
    }

    func detail(of input: AdaptiveEvent) -> String? { nil }
}
