import RetryFlow
import RetryFlowCharts
import RetryFlowTesting
import Testing

/// A finding no small bound shows: a table that breaks "attempts ≤ maxAttempts" only past its 20th
/// attempt is verified at the snippets' 50, and the counterexample is a run the real retry
/// machine takes, input for input (what `retryflow simulate --replay` checks).
@Suite struct DeepCounterexampleTests {
    /// A mirror step entered after 21 failed attempts (at most 30 times a run), whose way out sends
    /// the next try without asking `attempts left`: the row `step done [no attempts left] → failure`
    /// that `RetryStep` adds is taken out. Only a run that fails 21 times reaches the step, so only a
    /// policy of more than 20 attempts can start one attempt too many.
    static func policy(maxAttempts: Int) -> RetryPolicy {
        var policy = RetryPolicy(maxAttempts: maxAttempts, jitter: .none)
        let mirror = RetryStep("mirror", entry: .afterFailures(21), maxVisits: 30) { _ in .done }
        policy.add(mirror)
        let rows = policy.table.rows.filter { !($0.from == mirror.state && $0.condition == .unless(.attemptsLeft)) }
        policy.table = RetryTable(
            name: "mirror without a check", initial: .idle, terminals: policy.table.terminals, rows: rows)
        return policy
    }

    @Test func aTableBrokenPastTheTwentiethAttemptIsCaughtAtFifty() async throws {
        let worlds = [
            RetryWorld(), RetryWorld(budget: true, retryAfter: true, finalAnswers: true),
        ]
        for world in worlds {
            let (twenty, fifty) = await runOnOwnThread {
                (
                    RetryExploration.explore(policy: Self.policy(maxAttempts: 20), world: world),
                    RetryExploration.explore(policy: Self.policy(maxAttempts: 50), world: world)
                )
            }
            #expect(twenty.holds, "nothing to see within 20 attempts: \(twenty.text)")
            let broken = try #require(
                fifty.violations.first { $0.invariant == "attempts ≤ maxAttempts" }, "\(fifty.text)")
            #expect(broken.message == "attempt 51 started, the policy allows 50")

            // The counterexample, replayed on the real machine as `retryflow simulate --replay` does:
            // the same rows, input for input.
            let policy = Self.policy(maxAttempts: 50)
            let replayed = try ExploredRunReplay.replay(broken.trace, policy: policy)
            #expect(replayed.count == broken.trace.steps.count)
            #expect(replayed.last?.attempt == 51)
            #expect(replayed.last?.to == .request)
            #expect(broken.trace.steps.filter { $0.to == .step(RetryStep.ID("mirror")) }.count == 30)
        }
    }
}
