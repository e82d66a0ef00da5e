import RetryFlow
import RetryFlowCharts
import RetryFlowTesting
import Testing

/// Under a deadline `verify` first explores the retry machine without its time (each position at
/// the earliest time a run reaches it, every attempt free to take longer), then finds each finding
/// again on a concrete run. It reports what the exact exploration reports: the same rows, verdicts,
/// rested states, and witnesses as short, at bounds where the exact one finishes in a debug build.
@Suite struct DeadlineOverApproximationTests {
    static let guards = RetryWorld(budget: true, breaker: true, retryAfter: true, finalAnswers: true)

    static let cases: [(String, RetryPolicy, RetryWorld)] = {
        var step = RetryPolicy(maxAttempts: 6, deadline: .seconds(10))
        step.add(RetryStep("refresh", maxVisits: 2) { _ in .done })
        return [
            ("50 attempts, every guard, 10 s", RetryPolicy(maxAttempts: 50, deadline: .seconds(10)), guards),
            ("8 attempts, every guard, 30 s", RetryPolicy(maxAttempts: 8, deadline: .seconds(30)), guards),
            (
                "a limiter and an attempt timeout",
                RetryPolicy(maxAttempts: 6, deadline: .seconds(5), perAttemptTimeout: .seconds(2)),
                RetryWorld(limiter: true, retryAfter: true)
            ),
            (
                "failing fast when paced or refused", RetryPolicy(maxAttempts: 6, jitter: .none, deadline: .seconds(3)),
                RetryWorld(breaker: true, waitsOutBreak: false, limiter: true, waitsForToken: false)
            ),
            ("no wait at all", RetryPolicy(maxAttempts: 8, backoff: .constant(.zero), deadline: .seconds(1)), guards),
            ("decorrelated jitter", RetryPolicy(maxAttempts: 8, jitter: .decorrelated, deadline: .seconds(20)), guards),
            ("a step", step, RetryWorld(retryAfter: true)),
        ]
    }()

    @Test(arguments: cases.indices)
    func theOverApproximationReportsWhatTheExactExplorationReports(case index: Int) async {
        let (name, policy, world) = Self.cases[index]
        let (approximated, exact) = await runOnOwnThread {
            (
                RetryExploration.explore(policy: policy, world: world),
                ExplorationEngine.$exactOnly.withValue(true) { RetryExploration.explore(policy: policy, world: world) }
            )
        }
        #expect(approximated.overApproximatedStates > 0, "\(name): the deadline's world is over-approximated")
        #expect(exact.overApproximatedStates == 0)
        #expect(approximated.reachableRows == exact.reachableRows, "\(name)")
        #expect(approximated.holds == exact.holds, "\(name)")
        #expect(Set(approximated.violations.map(\.invariant)) == Set(exact.violations.map(\.invariant)), "\(name)")
        #expect(approximated.restedStates == exact.restedStates, "\(name)")
        #expect(approximated.reachableStates == exact.reachableStates, "\(name)")
        for row in exact.reachableRows {
            // Every witness is a run of the concrete world, as short as the exact exploration's.
            let witness = approximated.witnesses[row]!
            #expect(witness.isConsistent(with: policy.table), "\(name), row \(row)")
            #expect(
                witness.steps.filter { $0.event != nil }.count
                    == exact.witnesses[row]!.steps.filter { $0.event != nil }.count, "\(name), row \(row)")
        }
        #expect(approximated.text.contains("over-approximating the time left before the deadline"))
    }

    /// 50 attempts with every guard, the HTTP rules and a 30 s deadline: what no exhaustive
    /// exploration of its times can do in a test (150,000 states), in a few thousand.
    @Test func theSnippetsFiftyAttemptsUnderEveryGuardAndADeadlineAreExplored() async {
        let policy = RetryPolicy(maxAttempts: 50, deadline: .seconds(30))
        let result = await runOnOwnThread { RetryExploration.explore(policy: policy, world: Self.guards) }
        #expect(result.holds, "\(result.text)")
        #expect(result.statesExplored < 20_000, "\(result.statesExplored) states")
        let rows = policy.table.rows
        let labels = Set(result.reachableRows.map { rows[$0].description })
        #expect(labels.contains("retry --[next wait would cross deadline] / finish--> failure"))
        #expect(labels.contains("request --deadline exceeded / cancel attempt, report health, finish--> failure"))
        // 50 attempts do not fit in 30 s: no run uses them up, nor waits out 50 refusals.
        #expect(!labels.contains("retry --[no attempts left] / finish--> failure"))
        #expect(!labels.contains { $0.contains("no refusals left") })
    }

    /// A row only the over-approximation reaches is not reported: with two attempts and 30 s, an
    /// attempt that ends at the deadline would leave no time for the wait, but the concrete world's
    /// attempts end at once or half-way to it (15 s), and 15.25 s is within the deadline. The
    /// concrete search, to the end, finds no run taking the row.
    @Test func aRowOnlyTheOverApproximationReachesIsNotReported() async throws {
        let policy = RetryPolicy(maxAttempts: 2, deadline: .seconds(30))
        let (result, exact) = await runOnOwnThread {
            (
                RetryExploration.explore(policy: policy),
                ExplorationEngine.$exactOnly.withValue(true) { RetryExploration.explore(policy: policy) }
            )
        }
        let crossing = try #require(
            policy.table.rows.firstIndex { $0.from == .retry && $0.condition == .unless(.withinDeadline) })
        #expect(result.overApproximatedStates > 0)
        #expect(!result.reachableRows.contains(crossing), "\(result.text)")
        #expect(result.reachableRows == exact.reachableRows)
    }

    /// A table that reads the time otherwise than the shipped one (here a wait that does not follow
    /// `within deadline`) is explored exactly: the over-approximation would not cover it.
    @Test func aTableThatSleepsWithoutAskingTheDeadlineIsExploredExactly() async {
        let rows = RetryTable.retry.rows.map { row -> RetryTable.Row in
            guard row.from == .retry, row.condition == .unless(.withinDeadline) else { return row }
            // `[next wait would cross deadline]` no longer ends the run: the wait is slept anyway.
            return .init(from: .retry, event: nil, condition: .unless(.withinDeadline), to: .wait, effects: [.sleep])
        }
        let table = RetryTable(
            name: "careless", initial: .idle, terminals: RetryTable.retry.terminals, rows: rows)
        let policy = RetryPolicy(maxAttempts: 3, jitter: .none, deadline: .seconds(1))
        let result = await runOnOwnThread { RetryExploration.explore(table, policy: policy) }
        #expect(result.overApproximatedStates == 0)
        let crossing = result.violations.first { $0.invariant == "no planned wait crosses the deadline" }
        #expect(crossing != nil, "\(result.text)")
    }
}
