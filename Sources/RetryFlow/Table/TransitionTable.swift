/// A finite state machine written down as data: the rows are both what the machine executes and
/// what the charts draw.
///
/// The table is generic so that every machine reuses it, and its executor (``TableMachine``): the
/// retry machine, the teaching tables that retell the original snippets, and any table of your own.
/// Lookup rule: among the rows for the current state and the event, in table order, the first whose
/// ``GuardCondition`` holds wins. Rows entering a terminal state name the `Reason` the run ends.
///
/// ```swift
/// enum Light: String, TableSymbol { case red, green }
/// enum Tick: String, TableSymbol { case tick }
/// enum Nothing: String, TableSymbol { case nothing }   // no guards, effects or ends
/// typealias LightWords = TableWords<Light, Tick, Nothing, Nothing, Nothing>
/// let table = TransitionTable<LightWords>(
///     name: "light", initial: .red, terminals: [],
///     rows: [
///         // event     from           to
///         .on(.tick,   from: .red,    to: .green),
///         .on(.tick,   from: .green,  to: .red),
///     ])
/// ```
public struct TransitionTable<Vocabulary: TableVocabulary>: Sendable {
    /// One row of this table.
    public typealias Row = Transition<Vocabulary>
    /// A trace of a run of this table.
    package typealias Trace = TransitionTrace<Vocabulary>

    /// The graph name used in charts (an identifier; charts of the same table are byte-identical).
    public let name: String
    /// Where every run starts.
    public let initial: Vocabulary.State
    /// The states in which a run is over, in the order charts list them.
    public let terminals: [Vocabulary.State]
    /// The rows, in lookup order.
    public let rows: [Row]
    /// The states the table uses (its initial state, terminals and every row's ends): the
    /// vocabulary's own in its order (`State.allCases`), then states of the table's own (a user's
    /// steps) in row order. What charts draw and validation checks.
    public let states: [Vocabulary.State]
    /// The rows that can apply in each place the machine stands, in lookup order: precomputed so a
    /// machine step scans only those.
    @usableFromInline
    package let lookup: RowLookup
    /// The checks this table (or a copy) has passed, so validating it again costs a lock, not a search.
    package let checks = TableChecks()

    /// Makes a table. It is not validated here; call ``validate()`` (tests do, for every shipped table).
    public init(name: String, initial: Vocabulary.State, terminals: [Vocabulary.State], rows: [Row]) {
        self.name = name
        self.initial = initial
        self.terminals = terminals
        self.rows = rows
        self.lookup = RowLookup(rows: rows, initial: initial)
        var used = Set([initial] + terminals)
        for row in rows {
            used.insert(row.from)
            used.insert(row.to)
        }
        var states = Vocabulary.State.allCases.filter { used.contains($0) }
        for row in rows {
            for state in [row.from, row.to] where !states.contains(state) { states.append(state) }
        }
        self.states = states
    }

    /// Whether a run that reaches `state` is over.
    @inlinable package func isTerminal(_ state: Vocabulary.State) -> Bool { terminals.contains(state) }

    /// Whether `state` is left only by completion transitions (a decision the machine never rests in).
    package func isDecision(_ state: Vocabulary.State) -> Bool {
        var sawRow = false
        for row in rows where row.from == state {
            if row.event != nil { return false }
            sawRow = true
        }
        return sawRow
    }

    /// The index of the row to take from `state` on `event` (`nil` for completion transitions),
    /// evaluating guards with `evaluate`; `nil` when no row applies.
    package func rowIndex(
        from state: Vocabulary.State, on event: Vocabulary.Event?, evaluate: (Vocabulary.Guard) -> Bool
    ) -> Int? {
        for index in rows.indices {
            let row = rows[index]
            if row.from == state, row.event == event, row.condition.holds(evaluate) { return index }
        }
        return nil
    }

    /// The rows leaving `state` on `event`, in lookup order.
    package func rows(from state: Vocabulary.State, on event: Vocabulary.Event?) -> [Row] {
        rows.filter { $0.from == state && $0.event == event }
    }

    /// The chart label of row `index`: the row's own label, with `[else]` for an unconditional row
    /// that follows guarded rows for the same state and event (UML's convention).
    package func label(ofRow index: Int) -> String {
        let row = rows[index]
        return RowLabel.text(event: row.event, guardText: guardText(ofRow: index), effects: row.effects)
    }

    /// The words of a trace step as the chart labels the row it took, without the effects: its
    /// event, then `[else]` when that row is its decision's last way out, else its bracketed guard.
    /// The timeline and the run report both write steps with this, so they read like the chart.
    package func label(of step: Trace.Step) -> String {
        let row = index(from: step.from, event: step.event, condition: step.condition, to: step.to)
        return RowLabel.text(
            event: step.event, guardText: row.map(guardText(ofRow:)) ?? step.condition.bracketed,
            effects: [Vocabulary.Effect]())
    }

    /// Row `index`'s guard as the charts write it: `[else]` (``isElse(row:)``) or the bracketed guard.
    package func guardText(ofRow index: Int) -> String {
        isElse(row: index) ? "[else]" : rows[index].condition.bracketed
    }

    /// Whether row `index` is unconditional and follows guarded rows for the same state and event:
    /// the `[else]` of UML, `(else)` in the Markdown table.
    package func isElse(row index: Int) -> Bool {
        let row = rows[index]
        return row.condition == .always
            && rows[..<index].contains { $0.from == row.from && $0.event == row.event && $0.condition != .always }
    }

    /// Every (state, event) pair that has no row: delivering that event in that state is an
    /// invalid transition.
    package var invalidPairs: [(state: Vocabulary.State, event: Vocabulary.Event)] {
        var pairs: [(state: Vocabulary.State, event: Vocabulary.Event)] = []
        for state in states {
            for event in Vocabulary.Event.allCases
            where !rows.contains(where: { $0.from == state && $0.event == event }) {
                pairs.append((state, event))
            }
        }
        return pairs
    }

    /// Whether `(from, event, condition, to)` is a row of this table (effects are not compared).
    package func contains(
        from: Vocabulary.State, event: Vocabulary.Event?, condition: GuardCondition<Vocabulary.Guard>,
        to: Vocabulary.State
    ) -> Bool {
        index(from: from, event: event, condition: condition, to: to) != nil
    }

    /// The index of the row `(from, event, condition, to)`, if the table has it (how a trace step is
    /// matched to its row).
    package func index(
        from: Vocabulary.State, event: Vocabulary.Event?, condition: GuardCondition<Vocabulary.Guard>,
        to: Vocabulary.State
    ) -> Int? {
        rows.firstIndex { $0.from == from && $0.event == event && $0.condition == condition && $0.to == to }
    }
}
