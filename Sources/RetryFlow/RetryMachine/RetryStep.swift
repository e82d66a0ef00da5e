/// A step of your own in the retry flow: a named state whose async action runs between attempts,
/// drawn on the chart, recorded in the trace and bounded like the retry loop.
///
/// A failure enters it (a classifier or HTTP rule names it, or after a number of failures), its
/// action runs, and the run goes back to `request` with what the action produced, which the
/// following attempts receive (``RetryAttempt/values``); an action that throws ends the run with
/// the step's ``failureReason``. A step runs at most ``maxVisits`` times a run.
///
/// ```swift
/// let refresh = RetryStep("refresh credentials", entry: .onVerdict) { _ in
///     ["token": try await tokens.refresh()]          // the next attempts see attempt.values["token"]
/// }
/// var policy = RetryPolicy.default
/// policy.add(refresh)                                 // its rows join policy.table
/// ```
public struct RetryStep: Sendable {
    /// How a failure comes to the step.
    public enum Entry: Hashable, Sendable {
        /// When the failure's verdict names the step (``RetryDecision/step(_:)``): a classifier's
        /// answer, or an HTTP rule (`HTTPRetryRules.statusSteps[401] = "refresh credentials"`).
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
        public let values: [String: any Sendable]
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
    /// The action: returns values for the attempts after it, or throws to end the run.
    public let action: @Sendable (Context) async throws -> [String: any Sendable]

    /// Makes a step named `name` (its state), entered on `entry`, at most `maxVisits` times a run.
    public init(
        _ name: String, entry: Entry = .onVerdict, maxVisits: Int = 1, failureReason: String? = nil,
        action: @escaping @Sendable (Context) async throws -> [String: any Sendable]
    ) {
        self.name = name
        self.entry = entry
        self.maxVisits = maxVisits
        self.failureReason = failureReason ?? "\(name) failed"
        self.action = action
    }

    /// The step's state in the table.
    public var state: RetryState { .step(name) }

    /// The rows that put the step in a retry table: first in `retry`, `[to NAME] → NAME / run step`
    /// (taken only while visits are left); from the step, `step done [no attempts left] → failure`
    /// (the step ran after the last attempt: no attempt is left to use what it produced), else
    /// `step done → limiter / ask limiter` (the next try, paced and put to the breaker first),
    /// `step failed → failure` with ``failureReason``, and `cancelled → cancelled`.
    public var rows: (entry: RetryTable.Row, exits: [RetryTable.Row]) {
        (
            RetryTable.Row(from: .retry, event: nil, condition: .when(.enters(name)), to: state, effects: [.runStep]),
            [
                RetryTable.Row(
                    from: state, event: .stepDone, condition: .unless(.attemptsLeft), to: .failure, effects: [.finish],
                    reason: .attemptsExhausted),
                RetryTable.Row(from: state, event: .stepDone, to: .limiter, effects: [.askLimiter]),
                RetryTable.Row(
                    from: state, event: .stepFailed, to: .failure, effects: [.finish], reason: .step(failureReason)),
                RetryTable.Row(from: state, event: .cancelled, to: .cancelled, effects: [.finish], reason: .cancelled),
            ]
        )
    }
}

extension TransitionTable
where State == RetryState, Event == RetryEvent, Guard == RetryGuard, Effect == RetryEffect, Reason == StopReason {
    /// This table with `step`'s rows: its entry before every other row of `retry` (so it is asked
    /// first; steps added later are asked after earlier ones), its exits at the end. In a table
    /// without the `limiter` state (a user's table that dropped its rows), `step done` goes where
    /// the table sends a try: to `breaker / ask breaker`, or without that state too, straight to
    /// `request / start attempt`.
    public func adding(_ step: RetryStep) -> RetryTable {
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
