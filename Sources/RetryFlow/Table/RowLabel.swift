/// The one writer of a row's label, `event [guard] / effect, effect`: state diagrams, flowchart
/// branches (`yes / effect`), `[else]` rows, trace steps and messages all read the same way.
package enum RowLabel {
    /// The non-empty `words` joined by spaces, then ` / ` and the effects (just `/ effects` when
    /// there are no words).
    package static func text<Effect: TableSymbol>(_ words: [String?], effects: [Effect]) -> String {
        let head = words.compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
        guard !effects.isEmpty else { return head }
        return head + (head.isEmpty ? "/ " : " / ") + effects.map(\.label).joined(separator: ", ")
    }

    /// A row's label: its event, its bracketed guard (or `guardText` such as `[else]`), its effects.
    package static func text<Event: TableSymbol, Effect: TableSymbol>(
        event: Event?, guardText: String, effects: [Effect]
    ) -> String {
        text([event?.label, guardText], effects: effects)
    }
}
