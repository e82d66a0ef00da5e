/// One row of a transition table: in state `from`, on `event`, if `condition` holds, move to `to`
/// and perform `effects` in order. A row that enters a terminal state names the `reason` the run ends.
///
/// A row whose `event` is `nil` is a *completion transition* (UML's term): it fires by itself as
/// soon as the machine enters `from`. States left only by completion rows are decisions, drawn as
/// diamonds; the machine never rests in them.
public struct Transition<Vocabulary: TableVocabulary>: Hashable, Sendable {
    /// The table's states.
    public typealias State = Vocabulary.State
    /// The table's events.
    public typealias Event = Vocabulary.Event
    /// The table's guards.
    public typealias Guard = Vocabulary.Guard
    /// The table's effects.
    public typealias Effect = Vocabulary.Effect
    /// Why a run ends.
    public typealias Reason = Vocabulary.Reason

    /// The state the row leaves.
    public let from: State
    /// The event that triggers it, or `nil` for a completion transition.
    public let event: Event?
    /// When the row applies.
    public let condition: GuardCondition<Guard>
    /// The state the row enters.
    public let to: State
    /// What the driver must do, in order, when the row is taken.
    public let effects: [Effect]
    /// Why a run that takes this row ends: set on every row entering a terminal state, and only there
    /// (``TransitionTable/validate()`` checks both).
    public let reason: Reason?

    /// Makes a row; tables list one per line, in the order of a chart's column header.
    public init(
        from: State, event: Event?, condition: GuardCondition<Guard> = .always, to: State, effects: [Effect] = [],
        reason: Reason? = nil
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
        _ event: Event, from: State, _ condition: GuardCondition<Guard> = .always, to: State, do effects: Effect...,
        ends reason: Reason? = nil
    ) -> Self {
        Self(from: from, event: event, condition: condition, to: to, effects: effects, reason: reason)
    }

    /// The completion row `from --[condition] / effects--> to`: taken as soon as `from` is entered
    /// and `condition` holds (no event), `.completion(from: .retry, .unless(.attemptsLeft), to: .failure, …)`.
    public static func completion(
        from: State, _ condition: GuardCondition<Guard> = .always, to: State, do effects: Effect...,
        ends reason: Reason? = nil
    ) -> Self {
        Self(from: from, event: nil, condition: condition, to: to, effects: effects, reason: reason)
    }
}

extension Transition: CustomStringConvertible {
    /// `from --label--> to`, for messages and test failures.
    public var description: String { "\(from.label) --\(label)--> \(to.label)" }
}
