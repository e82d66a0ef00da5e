import RetryFlow

/// The world of a machine whose events carry nothing: in every state, every event of the table can
/// happen (those without a row there are simply not taken). What a table of your own needs to be
/// explored when its rules are `Hashable` and its events are their own inputs, as the snippets' are.
///
/// ```swift
/// let result = TableExplorer(table: door, rules: DoorRules(), model: EveryEventModel(inputLimit: 6)).explore()
/// ```
package struct EveryEventModel<Rules: MachineRules & Hashable>: ExplorationModel
where Rules.Input == Rules.Vocabulary.Event {
    /// The most inputs one run may take.
    package let inputLimit: Int
    /// The bound in words.
    package let boundDescription: String

    /// Every event, in every state, for up to `inputLimit` inputs; `bound` describes it (default "N inputs").
    package init(inputLimit: Int, bound: String? = nil) {
        self.inputLimit = inputLimit
        self.boundDescription = bound ?? "\(inputLimit) inputs, every event in every state"
    }

    /// Every event, at the time of the last.
    package func choices(at position: ExplorationPosition<Rules>) -> [ExplorationChoice<Rules.Input>] {
        Rules.Vocabulary.Event.allCases.map { ExplorationChoice($0, at: position.at) }
    }
}
