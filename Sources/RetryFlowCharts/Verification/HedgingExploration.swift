import RetryFlow
import RetryFlowHTTP

/// The hedging machine explored: every answer an attempt in flight can give, every timer, every
/// budget answer, the deadline and cancellation, in every order, for up to `maxAttempts` attempts.
package enum HedgingExploration {
    /// Explores `table` with up to `maxAttempts` attempts: "never more attempts than maxAttempts",
    /// "an answer comes only from an attempt in flight" and "a run that ends cancels the rest".
    package static func explore(
        _ table: HedgingTable = .hedging, maxAttempts: Int = 3
    ) -> ExplorationResult<HedgingVocabulary> {
        let policy = HedgingPolicy(delay: .milliseconds(100), maxAttempts: maxAttempts)
        return TableExplorer(
            table: table, rules: HedgingRules(policy: policy), model: HedgingModel(maxAttempts: maxAttempts)
        ).explore()
    }
}

/// The hedged run's world: answers come only while attempts are in flight, the hedge timer fires
/// only while one is armed (racing), and the budget answers only when asked.
struct HedgingModel: ExplorationModel {
    typealias Rules = HedgingRules

    let maxAttempts: Int

    /// Each attempt brings at most three inputs (its timer, its budget answer, its answer), plus the
    /// start and the end.
    var inputLimit: Int { 3 * maxAttempts + 2 }
    var boundDescription: String { "attempts ≤ \(maxAttempts)" }
    var invariants: [String] {
        [
            "never more attempts than maxAttempts", "in flight never negative",
            "an ending run cancels the rest",
        ]
    }
    var deliversCancellation: Bool { true }

    func isCancellation(_ input: HedgingInput) -> Bool { input == .cancelled }

    func choices(at position: ExplorationPosition<HedgingRules>) -> [ExplorationChoice<HedgingInput>] {
        let at = position.at
        let rules = position.machine.rules
        switch position.machine.state {
        case .idle: return [.init(.start, at: at, required: true)]
        case .askingBudget:
            return [
                .init(.budgetAnswered(granted: true), at: at, required: true),
                .init(.budgetAnswered(granted: false), at: at, required: true),
            ]
        case .racing, .awaiting:
            var choices: [ExplorationChoice<HedgingInput>] = [
                .init(.deadlinePassed, at: at, required: true), .init(.cancelled, at: at, required: true),
            ]
            if position.machine.state == .racing { choices.append(.init(.hedgeDue, at: at, required: true)) }
            if rules.inFlight > 0 {
                let n = rules.sent
                choices += [
                    .init(.answerAccepted(attempt: n), at: at, required: true),
                    .init(.answerFinal(attempt: n, detail: nil), at: at, required: true),
                    .init(.attemptFailed(attempt: n, pushback: .none, detail: nil), at: at, required: true),
                    .init(
                        .attemptFailed(attempt: n, pushback: .delay(.seconds(1)), detail: nil), at: at, required: true),
                    .init(.attemptFailed(attempt: n, pushback: .stop, detail: nil), at: at, required: true),
                ]
            }
            return choices
        case .pacing, .weighing, .admitting, .windingDown, .succeeded, .failed, .cancelled: return []
        }
    }

    func check(
        before: ExplorationPosition<HedgingRules>, after: ExplorationPosition<HedgingRules>, input: HedgingInput,
        rows: [Int]
    ) -> [InvariantViolation] {
        var found: [InvariantViolation] = []
        let rules = after.machine.rules
        if rules.sent > maxAttempts {
            found.append(.init("never more attempts than maxAttempts", "\(rules.sent) attempts sent"))
        }
        if rules.inFlight < 0 { found.append(.init("in flight never negative", "\(rules.inFlight) in flight")) }
        if after.machine.isFinished, rules.inFlight > 0,
            !(after.last?.produced.contains(.cancelTheRest) ?? false)
        {
            found.append(.init("an ending run cancels the rest", "\(rules.inFlight) attempts left running"))
        }
        return found
    }
}
