/// A step of your own in the retry flow: a named state whose async action runs between attempts,
/// drawn on the chart, recorded in the trace and bounded like the retry loop.
///
/// A failure enters it (a classifier or HTTP rule names it by its ``id``, or after a number of
/// failures), its action runs, and it ends in one of its ``exits``, which the rows route: by default
/// back to the next try with what the action produced, which the following attempts receive
/// (``RetryAttempt/values``, by typed ``Key``). An action that throws ends the run with the step's
/// ``failureReason``. A step runs at most ``maxVisits`` times a run.
///
/// ```swift
/// let token = RetryStep.Key<String>("token")
/// let refresh = RetryStep("refresh credentials", entry: .onVerdict) { _ in
///     .done.with(token, try await tokens.refresh())      // the next attempts see attempt.values[token]
/// }
/// var policy = RetryPolicy.default
/// policy.add(refresh)                                     // its rows join policy.table
/// policy.retryIf = RetryClassifier(sendingTo: [refresh.id]) { $0 is Unauthorized ? .step(refresh.id) : .retry }
/// ```
public struct RetryStep: Sendable {
    /// How a failure comes to the step.
    public enum Entry: Hashable, Sendable {
        /// When the failure's verdict names the step (``RetryDecision/step(_:)``): an HTTP rule
        /// (`HTTPRetryRules.statusSteps[401] = refresh.id`), or a classifier that says it sends
        /// failures there (``RetryClassifier/init(sendingTo:_:)``). Validation refuses such a step
        /// that no rule or classifier names.
        case onVerdict
        /// After this many attempts have failed retryably (a mirror after two failures of the primary).
        case afterFailures(Int)
    }

    /// What the action learns of the run.
    public struct Context: Sendable {
        /// The number of the attempt that failed before the step.
        public let attempt: Int
        /// That attempt's error (a rejected result's is a `RejectedResult`), if any.
        public let error: (any Error)?
        /// What earlier steps produced, merged (a later value replaces an earlier one of the same key).
        public let values: Values
        /// Which visit of the step this is, from 1.
        public let visit: Int
    }

    /// The step's name: the state's label on charts and in traces. Not a built-in state's name.
    public let name: String
    /// How a failure comes to the step.
    public var entry: Entry
    /// How many times one run may take the step: the static bound `validate()` relies on.
    public var maxVisits: Int
    /// Why the run ends when the action throws: the reason on the `step failed` row.
    public var failureReason: String
    /// The ways the action may end, each routed by rows from the step's state (``Exit/done`` alone
    /// by default). An action that returns another exit ends in `step failed`.
    public let exits: [Exit]
    /// The action: returns its exit and the values for the attempts after it, or throws to end the run.
    package let action: @Sendable (Context) async throws -> Output

    /// Makes a step named `name` (its state), entered on `entry`, at most `maxVisits` times a run,
    /// ending in one of `exits`.
    public init(
        _ name: String, entry: Entry = .onVerdict, maxVisits: Int = 1, failureReason: String? = nil,
        exits: [Exit] = [.done], action: @escaping @Sendable (Context) async throws -> Output
    ) {
        self.name = name
        self.entry = entry
        self.maxVisits = maxVisits
        self.failureReason = failureReason ?? "\(name) failed"
        self.exits = exits
        self.action = action
    }

    /// The step's identity, what rules, verdicts, guards and rows name it by.
    public var id: ID { ID(name) }

    /// The step's state in the table.
    package var state: RetryState { .step(id) }

    /// The rows that put the step in a retry table: first in `retry`, `[to NAME] → NAME / run step`
    /// (taken only while visits are left); from the step, for each exit, `EXIT [no attempts left] →
    /// failure` (the step ran after the last attempt: no attempt is left to use what it produced),
    /// else `EXIT → limiter / ask limiter` (the next try, paced and put to the breaker first); then `step
    /// failed → failure` with ``failureReason``, and `cancelled → cancelled`.
    package var rows: (entry: RetryTable.Row, exits: [RetryTable.Row]) {
        let onward = exits.flatMap { exit in
            [
                RetryTable.Row(
                    from: state, event: .stepExit(exit), condition: .unless(.attemptsLeft), to: .failure,
                    effects: [.finish], reason: .attemptsExhausted),
                RetryTable.Row(from: state, event: .stepExit(exit), to: .limiter, effects: [.askLimiter]),
            ]
        }
        return (
            RetryTable.Row(from: .retry, event: nil, condition: .when(.enters(id)), to: state, effects: [.runStep]),
            onward + [
                RetryTable.Row(
                    from: state, event: .stepFailed, to: .failure, effects: [.finish], reason: .step(failureReason)),
                RetryTable.Row(from: state, event: .cancelled, to: .cancelled, effects: [.finish], reason: .cancelled),
            ]
        )
    }
}

extension TransitionTable where Vocabulary == RetryVocabulary {
    /// This table with `step`'s rows: its entry before every other row of `retry` (so it is asked
    /// first; steps added later are asked after earlier ones), its exits at the end. In a table
    /// without the `limiter` state (a user's table that dropped its rows), `step done` goes where
    /// the table sends a try: to `breaker / ask breaker`, or without that state too, straight to
    /// `request / start attempt`.
    package func adding(_ step: RetryStep) -> RetryTable {
        var (entry, exits) = step.rows
        if !states.contains(.limiter) {
            let (next, effect): (RetryState, RetryEffect) =
                states.contains(.breaker) ? (.breaker, .askBreaker) : (.request, .startAttempt)
            exits = exits.map { row in
                guard row.to == .limiter else { return row }
                return RetryTable.Row(
                    from: row.from, event: row.event, condition: row.condition, to: next, effects: [effect])
            }
        }
        var rows = self.rows
        let stepsAlready = rows.prefix { $0.from == .retry && $0.condition.guardSymbol.map(\.isStepEntry) == true }
        let first = rows.firstIndex { $0.from == .retry } ?? rows.endIndex
        rows.insert(entry, at: first + stepsAlready.count)
        rows += exits
        return RetryTable(name: name, initial: initial, terminals: terminals, rows: rows)
    }
}

extension RetryGuard {
    /// Whether this is a step's entry guard, `to NAME`.
    var isStepEntry: Bool {
        if case .enters = self { return true }
        return false
    }
}
