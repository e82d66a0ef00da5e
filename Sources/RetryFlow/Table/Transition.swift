/// One row of a transition table: in state `from`, on `event`, if `condition` holds, move to `to`
/// and perform `effects` in order.
///
/// A row whose `event` is `nil` is a *completion transition* (UML's term): it fires by itself as
/// soon as the machine enters `from`. States left only by completion rows are decisions, drawn as
/// diamonds; the machine never rests in them.
public struct Transition<State: TableSymbol, Event: TableSymbol, Guard: TableSymbol, Effect: TableSymbol>:
    Hashable, Sendable
{
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

    /// Makes a row. Prefer the table-building helpers `on(_:_:when:to:do:)` and friends for readability.
    public init(
        from: State, event: Event?, condition: GuardCondition<Guard> = .always, to: State, effects: [Effect] = []
    ) {
        self.from = from
        self.event = event
        self.condition = condition
        self.to = to
        self.effects = effects
    }

    /// The UML-style label `event [guard] / effect, effect` used on state diagrams.
    public var label: String {
        var parts: [String] = []
        if let event { parts.append(event.label) }
        if condition != .always { parts.append("[\(condition.label)]") }
        var text = parts.joined(separator: " ")
        if !effects.isEmpty {
            text += (text.isEmpty ? "/ " : " / ") + effects.map(\.label).joined(separator: ", ")
        }
        return text
    }
}

extension Transition: CustomStringConvertible {
    /// `from --label--> to`, for messages and test failures.
    public var description: String { "\(from.label) --\(label)--> \(to.label)" }
}
