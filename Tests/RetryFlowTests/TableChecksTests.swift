import RetryFlow
import Testing

/// A table keeps the checks it passed (the engine validates its policy before every run), and
/// keeping them hides nothing: the shipped table passes every check from scratch, and a broken
/// table fails every time it is asked.
@Suite struct TableChecksTests {
    /// The shipped table's checks are taken as passed at run time (and, for a policy without steps,
    /// its step checks too), so this is what stands behind that: a table made anew from its rows (no
    /// check kept) passes every check, through the policy.
    @Test func theShippedTablePassesEveryCheckFromScratch() throws {
        let shipped = RetryTable.retry
        var policy = RetryPolicy.default
        policy.table = RetryTable(
            name: shipped.name, initial: shipped.initial, terminals: shipped.terminals, rows: shipped.rows)
        try policy.validate()
        #expect(policy.table.problems.isEmpty)
    }

    @Test func aBrokenTableFailsEveryTime() {
        let broken = RetryTable(
            name: "broken", initial: .idle, terminals: [.success, .answered, .failure, .cancelled],
            rows: RetryTable.retry.rows.filter { $0.from != .wait })
        var policy = RetryPolicy.default
        policy.table = broken
        for _ in 0..<2 {
            #expect(throws: TableValidationError.self) { try broken.validate() }
            #expect(throws: RetryPolicyError.self) { try policy.validate() }
        }
        // A sound table made from the broken one's fixed rows gets checks of its own.
        policy.table = RetryTable(
            name: "fixed", initial: .idle, terminals: [.success, .answered, .failure, .cancelled],
            rows: RetryTable.retry.rows)
        #expect(throws: Never.self) { try policy.validate() }
    }

    /// What is kept is the table's own checks only: the policy's steps are checked on every call.
    @Test func stepsAreCheckedOnEveryCall() throws {
        var policy = RetryPolicy.default
        policy.add(RetryStep("refresh", entry: .afterFailures(1)) { _ in .done })
        try policy.validate()
        policy.steps = []
        #expect(throws: RetryPolicyError.self) { try policy.validate() }
    }
}
