import RetryFlow

/// The fleet's machines explored: a retry budget and a circuit breaker, each fed every input its
/// runs can send, for a number of inputs (both are perpetual: no run of theirs ends).
package enum FleetExploration {
    /// Explores the budget table in `mode` for up to `inputs` inputs: "a budget never goes negative".
    /// Small budgets (the default: 10 tokens, 5 a retry, 10 a timeout retry) reach exhaustion within
    /// a few inputs, so every row is within the bound.
    package static func budget(
        _ table: BudgetTable = .budget,
        mode: RetryBudgetMode = .awsStandard(capacity: 10, retryCost: 5, timeoutRetryCost: 10, successIncrement: 1),
        inputs: Int = 8
    ) -> ExplorationResult<BudgetVocabulary> {
        TableExplorer(table: table, rules: BudgetRules(mode: mode), model: BudgetModel(mode: mode, inputLimit: inputs))
            .explore()
    }

    /// Explores the breaker table with `options` for up to `inputs` inputs: "the breaker admits at
    /// most one half-open probe".
    package static func breaker(
        _ table: BreakerTable = .breaker,
        options: CircuitBreakerOptions = CircuitBreakerOptions(
            trip: .consecutiveFailures(2), breakDuration: .seconds(5)),
        inputs: Int = 6
    ) -> ExplorationResult<BreakerVocabulary> {
        TableExplorer(table: table, rules: BreakerRules(options: options), model: BreakerModel(inputLimit: inputs))
            .explore()
    }
}

/// The budget's world: runs ask for retries (ordinary or after a timeout), and report failures and
/// successes (refunding what their last retry took, or nothing).
struct BudgetModel: ExplorationModel {
    typealias Rules = BudgetRules

    let mode: RetryBudgetMode
    let inputLimit: Int

    var boundDescription: String { "\(inputLimit) inputs; mode \(mode)" }
    var invariants: [String] { ["a budget never goes negative"] }

    func choices(at position: ExplorationPosition<BudgetRules>) -> [ExplorationChoice<BudgetInput>] {
        let cost = position.machine.rules.cost(timeout: false)
        return [
            .init(.retryAsked(timeout: false), at: position.at, required: true),
            .init(.retryAsked(timeout: true), at: position.at, required: true),
            .init(.attemptFailed, at: position.at, required: true),
            .init(.attemptSucceeded(refund: nil), at: position.at, required: true),
            .init(.attemptSucceeded(refund: cost), at: position.at, required: true),
        ]
    }

    func check(
        before: ExplorationPosition<BudgetRules>, after: ExplorationPosition<BudgetRules>, input: BudgetInput,
        rows: [Int]
    ) -> [InvariantViolation] {
        let tokens = after.machine.rules.milliTokens
        guard tokens < 0 else { return [] }
        return [.init("a budget never goes negative", "the bucket holds \(Double(tokens) / 1000) tokens")]
    }

    func detail(of input: BudgetInput) -> String? {
        switch input {
        case .retryAsked(let timeout): timeout ? "after a timeout" : nil
        case .attemptSucceeded(let refund): refund.map { "refund \(Double($0) / 1000)" }
        case .attemptFailed: nil
        }
    }
}

/// The breaker's world: runs ask to call and report outcomes; the probe's outcome comes only while
/// a probe is in flight; the break ends when it is due; an operator isolates and resets.
struct BreakerModel: ExplorationModel {
    typealias Rules = BreakerRules

    let inputLimit: Int

    var boundDescription: String { "\(inputLimit) inputs" }
    var invariants: [String] { ["the breaker admits at most one half-open probe"] }

    func choices(at position: ExplorationPosition<BreakerRules>) -> [ExplorationChoice<BreakerEvent>] {
        let now = position.at
        let rules = position.machine.rules
        var events: [BreakerEvent] = [.callAsked, .callSucceeded, .callFailed, .isolate, .reset]
        if rules.probe != nil { events += [.probeSucceeded, .probeFailed, .probeAbandoned] }
        var choices = events.map { ExplorationChoice($0, at: now) }
        if position.machine.state == .open { choices.append(.init(.breakElapsed, at: max(now, rules.openUntil))) }
        return choices
    }

    func check(
        before: ExplorationPosition<BreakerRules>, after: ExplorationPosition<BreakerRules>, input: BreakerEvent,
        rows: [Int]
    ) -> [InvariantViolation] {
        let table = after.machine.table
        let admits = rows.contains { table.rows[$0].effects.contains(.admitProbe) }
        guard admits, before.machine.rules.probe != nil else { return [] }
        return [
            .init(
                "the breaker admits at most one half-open probe",
                "a second probe was let through while probe \(before.machine.rules.probe!) was in flight")
        ]
    }
}
