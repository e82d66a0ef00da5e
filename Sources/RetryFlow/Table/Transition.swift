/// One row of a transition table: in state `from`, on `event`, if `condition` holds, move to `to`
/// and perform `effects` in order. A row that enters a terminal state names the `reason` the run ends.
///
/// A row whose `event` is `nil` is a *completion transition* (UML's term): it fires by itself as
/// soon as the machine enters `from`. States left only by completion rows are decisions, drawn as
/// diamonds; the machine never rests in them.
public struct Transition<Vocabulary: TableVocabulary>: Hashable, Sendable {
    /// The state the row leaves.
    public let from: Vocabulary.State
    /// The event that triggers it, or `nil` for a completion transition.
    public let event: Vocabulary.Event?
    /// When the row applies.
    public let condition: GuardCondition<Vocabulary.Guard>
    /// The state the row enters.
    public let to: Vocabulary.State
    /// What the driver must do, in order, when the row is taken.
    public let effects: [Vocabulary.Effect]
    /// Why a run that takes this row ends: set on every row entering a terminal state, and only there
    /// (``TransitionTable/validate()`` checks both).
    public let reason: Vocabulary.Reason?

    /// Makes a row. Tables write rows with the builders below (``on(_:from:_:to:do:ends:)``,
    /// ``completion(from:_:to:do:ends:)``), one per line; our own modules build rows from parts.
    package init(
        from: Vocabulary.State, event: Vocabulary.Event?, condition: GuardCondition<Vocabulary.Guard> = .always,
        to: Vocabulary.State, effects: [Vocabulary.Effect] = [],
        reason: Vocabulary.Reason? = nil
    ) {
        self.from = from
        self.event = event
        self.condition = condition
        self.to = to
        self.effects = effects
        self.reason = reason
    }

    /// The UML-style label `event [guard] / effect, effect` used on state diagrams.
    public var label: String { RowLabel.text(event: event, guardText: condition.bracketed, effects: effects) }
}

// The row builders: a table reads like Boost.SML (`src + event [guard] / action = dst`) and like the
// chart, one row per line, under a column header comment that lines up with them.
extension Transition {
    /// The row `from --event [condition] / effects--> to`, ending the run for `reason` when `to` is
    /// terminal: `.on(.failed, from: .request, to: .retry, do: .reportHealth, .planDelay)`.
    public static func on(
        _ event: Vocabulary.Event, from: Vocabulary.State, _ condition: GuardCondition<Vocabulary.Guard> = .always,
        to: Vocabulary.State, do effects: Vocabulary.Effect...,
        ends reason: Vocabulary.Reason? = nil
    ) -> Self {
        Self(from: from, event: event, condition: condition, to: to, effects: effects, reason: reason)
    }

    /// The completion row `from --[condition] / effects--> to`: taken as soon as `from` is entered
    /// and `condition` holds (no event), `.completion(from: .retry, .unless(.attemptsLeft), to: .failure, …)`.
    public static func completion(
        from: Vocabulary.State, _ condition: GuardCondition<Vocabulary.Guard> = .always, to: Vocabulary.State,
        do effects: Vocabulary.Effect...,
        ends reason: Vocabulary.Reason? = nil
    ) -> Self {
        Self(from: from, event: nil, condition: condition, to: to, effects: effects, reason: reason)
    }
}

extension Transition: CustomStringConvertible {
    /// `from --label--> to`, for messages and test failures.
    public var description: String { "\(from.label) --\(label)--> \(to.label)" }
}
