import RetryFlow
import RetryFlowCharts
import RetryFlowTesting
import Testing

/// A finding no small bound shows: a table that breaks "attempts ≤ maxAttempts" only past its 20th
/// attempt is verified at the snippets' 50, and the counterexample is a run the public retry
/// machine takes, input for input.
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

    /// Draws every jitter at the middle of its range, as the explorer does.
    struct MidRange: RandomNumberGenerator, Sendable {
        mutating func next() -> UInt64 { UInt64.max / 2 }
    }

    /// The retry machine's input for a trace step of an explored run (the explorer's words for its
    /// payloads: `retryable`, `granted`, `token in 1 s` …).
    static func input(of step: RetryTrace.Step) -> RetryInput? {
        switch step.event {
        case .start: .start
        case .tokenGranted: .tokenGranted
        case .admitted: .admitted
        case .succeeded: .succeeded
        case .failed where step.detail == "retryable": .failed(.retry, detail: nil)
        case .failed where step.detail == "not retryable": .failed(.fail, detail: nil)
        case .failed where step.detail == "Retry-After 1 s": .failed(.retryAfter(.seconds(1)), detail: nil)
        case .circuitOpen where step.detail == "Retry-After 1 s": .circuitOpen(.retryAfter(.seconds(1)), detail: nil)
        case .budgetAnswered: .budgetAnswered(granted: step.detail == "granted", detail: nil)
        case .delayElapsed: .delayElapsed
        case .stepExit(let exit): .stepExit(exit, detail: nil)
        case .cancelled: .cancelled(detail: nil)
        // The worlds replayed here never take these rows (and `failed`/`circuitOpen` only with the
        // details above): no input to rebuild.
        case .failed, .circuitOpen, .failedAfterProgress, .attemptTimedOut, .rateLimited, .deadlineExceeded,
            .stepFailed, nil:
            nil
        }
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

            // The counterexample, replayed on the public machine: the same rows, input for input.
            let policy = Self.policy(maxAttempts: 50)
            var machine = RetryMachine(policy: policy, table: policy.table, random: MidRange())
            var replayed: [RetryTrace.Step] = []
            for step in broken.trace.steps where step.event != nil {
                let input = try #require(Self.input(of: step), "no input for \(step)")
                replayed += try machine.handle(input, at: step.at).taken
            }
            let words = broken.trace.steps.map { step in
                var step = step
                step.detail = nil
                return step
            }
            #expect(replayed == words)
            #expect(machine.attempt == 51)
            #expect(machine.state == .request)
            #expect(broken.trace.steps.filter { $0.to == .step(RetryStep.ID("mirror")) }.count == 30)
        }
    }
}
