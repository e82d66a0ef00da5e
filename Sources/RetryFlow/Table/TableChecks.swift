/// Which of a table's checks have passed, kept beside the table and shared by its copies. A table
/// never changes once made (every field is a `let`), so a check that passed once passes for good:
/// the engine validates its policy, and so its table, before every run, and does the table's graph
/// searches (reachability, loops, which rows read an unproduced fact) once per table instead of once
/// per run. A table made anew (`adding(_:)`, decoding) gets fresh checks. Failures are not kept:
/// they are rare and their error is worked out again.
package final class TableChecks: Sendable {
    /// One check of a table.
    package struct Check: OptionSet, Sendable {
        package let rawValue: UInt8
        package init(rawValue: UInt8) { self.rawValue = rawValue }
        /// ``TransitionTable/validate()``: no structural problem.
        package static let structure = Check(rawValue: 1)
        /// A retry table's guards read only facts some row before them produced.
        package static let producedFacts = Check(rawValue: 2)
    }

    private let passed = Locked<Check>([])

    package init() {}

    /// Whether `check` has passed on this table (or a copy of it).
    package func hasPassed(_ check: Check) -> Bool { passed.withLock { $0.contains(check) } }

    /// Records that `check` passed.
    package func record(_ check: Check) { _ = passed.withLock { $0.insert(check) } }
}
