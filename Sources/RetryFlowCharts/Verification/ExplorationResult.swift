import RetryFlow

/// What a ``TableExplorer`` found: how much it explored, which invariants hold, which rows are
/// reachable (with the shortest path to each) and, for each broken invariant, a counterexample trace.
public struct ExplorationResult<Vocabulary: TableVocabulary>: Sendable {
    /// A trace of the machine explored.
    package typealias Trace = TransitionTrace<Vocabulary>

    /// A broken invariant with the first (shortest) run that breaks it.
    package struct Violation: Sendable {
        /// The invariant's name.
        package let invariant: String
        /// What happened, in words.
        package let message: String
        /// The run, from the start to the step that broke it.
        package let trace: Trace
    }

    /// The table's name.
    package let table: String
    /// The bound, in words.
    package let bound: String
    /// Each row's chart label, by index.
    let rows: [String]
    /// Each row as `from --label--> to`, by index.
    package let rowDescriptions: [String]
    /// The table's structural problems (`TransitionTable.problems`).
    package internal(set) var tableProblems: [String] = []
    /// Whether the table could not be explored at all (a completion loop or an overlong step).
    package internal(set) var refused = false
    /// Distinct positions reached (deduplicated by the model's key).
    package internal(set) var statesExplored = 0
    /// Inputs delivered that the table took.
    package internal(set) var transitionsExplored = 0
    /// The bytes the search held for what it keeps of every position reached (its key, how it was
    /// first reached, every transition's target) and for the widest level of whole positions it
    /// expanded: `storedBytes / statesExplored` is what a stored state costs.
    package internal(set) var storedBytes = 0
    /// Of ``statesExplored`` and ``transitionsExplored``, those of an over-approximation explored
    /// first (the retry machine under a deadline, its positions told apart without the time); every
    /// reachable row, state rested in and broken invariant reported was then found again on a
    /// concrete run. Zero when the exploration was exact from the start.
    package internal(set) var overApproximatedStates = 0
    /// The transitions of the over-approximation (see ``overApproximatedStates``).
    package internal(set) var overApproximatedTransitions = 0
    /// States reached, by label.
    package internal(set) var reachableStates: Set<String> = []
    /// States some run stays in for a while (an input arrives later than the one that entered it);
    /// the others are passed through in no time.
    package internal(set) var restedStates: Set<String> = []
    /// The invariants checked, by name.
    package internal(set) var invariants: [String] = []
    /// The first violation of each broken invariant.
    package internal(set) var violations: [Violation] = []
    /// How many times any invariant broke (a violation may be found on many paths).
    package internal(set) var violationCount = 0
    /// The shortest run taking each reachable row, by row index.
    package internal(set) var witnesses: [Int: Trace] = [:]

    init(table: String, bound: String, rows: [String], rowDescriptions: [String]) {
        self.table = table
        self.bound = bound
        self.rows = rows
        self.rowDescriptions = rowDescriptions
    }

    /// This result and `other`'s (another exploration of the same table, from other facts) as one:
    /// counts added, coverage and violations joined, the shorter witness of each row kept.
    package func merged(with other: Self) -> Self {
        var out = self
        out.statesExplored += other.statesExplored
        out.transitionsExplored += other.transitionsExplored
        out.storedBytes = max(storedBytes, other.storedBytes)
        out.overApproximatedStates += other.overApproximatedStates
        out.overApproximatedTransitions += other.overApproximatedTransitions
        out.reachableStates.formUnion(other.reachableStates)
        out.restedStates.formUnion(other.restedStates)
        out.violationCount += other.violationCount
        out.refused = refused || other.refused
        for violation in other.violations where !out.violations.contains(where: { $0.invariant == violation.invariant })
        {
            out.violations.append(violation)
        }
        for (row, witness) in other.witnesses
        where out.witnesses[row].map({ $0.steps.count > witness.steps.count }) ?? true {
            out.witnesses[row] = witness
        }
        return out
    }

    /// This result with `bound` as its bound's words.
    package func describing(_ bound: String) -> Self {
        var out = Self(table: table, bound: bound, rows: rows, rowDescriptions: rowDescriptions)
        out.tableProblems = tableProblems
        out.refused = refused
        out.statesExplored = statesExplored
        out.transitionsExplored = transitionsExplored
        out.storedBytes = storedBytes
        out.overApproximatedStates = overApproximatedStates
        out.overApproximatedTransitions = overApproximatedTransitions
        out.reachableStates = reachableStates
        out.restedStates = restedStates
        out.invariants = invariants
        out.violations = violations
        out.violationCount = violationCount
        out.witnesses = witnesses
        return out
    }

    /// The rows some run under the model takes, by index.
    package var reachableRows: Set<Int> { Set(witnesses.keys) }

    /// Whether every invariant held and the table could be explored.
    public var holds: Bool { !refused && violations.isEmpty }

    /// The invariants every explored table is held to.
    static func sharedInvariants(terminals: Bool, cancellation: Bool) -> [String] {
        (terminals ? ["every run ends"] : []) + [
            "a run ends exactly once", "every row that ends a run names its reason", "every required input has a row",
        ] + (cancellation ? ["cancellation is always terminal"] : [])
    }

    /// The report: bound and states explored, each invariant, coverage with witnesses, counterexamples.
    public var text: String {
        var lines = ["verify \(table): \(bound)"]
        if refused {
            lines.append("cannot explore: the table cannot run")
            lines += tableProblems.map { "  - \($0)" }
            return lines.joined(separator: "\n") + "\n"
        }
        lines.append("explored \(statesExplored) states, \(transitionsExplored) transitions")
        if overApproximatedStates > 0 {
            lines.append(
                "  \(overApproximatedStates) states, \(overApproximatedTransitions) transitions over-approximating the "
                    + "time left before the deadline; every finding below was then found on a concrete run")
        }
        if !tableProblems.isEmpty {
            lines.append("table problems (validate()):")
            lines += tableProblems.map { "  - \($0)" }
        }
        lines.append("invariants:")
        for invariant in invariants {
            let broken = violations.first { $0.invariant == invariant }
            lines.append("  \(broken == nil ? "ok  " : "FAIL") \(invariant)" + (broken.map { ": \($0.message)" } ?? ""))
        }
        lines.append("rows: \(witnesses.count) of \(rows.count) reachable")
        let width = rowDescriptions.map(\.count).max() ?? 0
        for index in rowDescriptions.indices {
            let description = rowDescriptions[index].padding(toLength: width, withPad: " ", startingAt: 0)
            if let witness = witnesses[index] {
                lines.append("  reachable    \(description)  via \(Self.inputs(of: witness))")
            } else {
                lines.append("  unreachable  \(description)")
            }
        }
        for violation in violations {
            lines.append("counterexample (\(violation.invariant)): \(violation.message)")
            for step in violation.trace.steps {
                lines.append("  \(step.at.shortDescription)  \(Trace.describe(step))")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The inputs of a run, in order: `start, failed, delay elapsed`.
    static func inputs(of trace: Trace) -> String {
        let words = trace.steps.compactMap { step in
            step.event.map { event in event.label + (step.detail.map { " (\($0))" } ?? "") }
        }
        return words.isEmpty ? "(the start)" : words.joined(separator: ", ")
    }
}
