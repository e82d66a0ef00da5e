import RetryFlow

/// Replays a run the retry exploration reported (a broken invariant's counterexample, as `verify`
/// writes it) on a fresh retry machine, input for input: `retryflow simulate --replay FILE.json`.
///
/// Each input is rebuilt from its step's event and the explorer's words for the payload
/// (`retryable`, `Retry-After 1 s`, `granted`, `token in 1 s` …, what ``RetryExploration`` writes in
/// `detail`), and the machine is told it at the step's time, with jitter drawn at the middle of its
/// range as the explorer draws it. So a counterexample is a concrete run of the real machine, not
/// only a path in the explorer's model: the replay takes exactly the rows the file shows, or says
/// at which step it departs.
package enum ExploredRunReplay {
    /// Why a trace does not replay: the first step whose input cannot be rebuilt, or that the
    /// machine takes differently.
    package struct Departure: Error, Hashable, Sendable, CustomStringConvertible {
        /// The step's position in the trace, from 1.
        package let step: Int
        package let problem: String
        /// Whether the file itself is wrong (an input that cannot be rebuilt), not the machine's run.
        package var isBadInput = false
        package var description: String { "step \(step): \(problem)" }
    }

    /// The steps the machine takes for `trace`'s inputs under `policy` (its own table unless
    /// `table` is given); throws at the first step that cannot be replayed or comes out differently.
    package static func replay(
        _ trace: RetryTrace, table: RetryTable? = nil, policy: RetryPolicy, waitsOutBreak: Bool = true,
        waitsForToken: Bool = true
    ) throws(Departure) -> [RetryTrace.Step] {
        var machine = RetryMachine(
            policy: policy, waitsOutBreak: waitsOutBreak, waitsForToken: waitsForToken, table: table ?? policy.table,
            random: MidRangeRandom())
        var replayed: [RetryTrace.Step] = []
        for (index, step) in trace.steps.enumerated() where step.event != nil {
            let input = try input(of: step, policy: policy, at: index + 1)
            do {
                replayed += try machine.handle(input, at: step.at).taken
            } catch {
                throw Departure(step: index + 1, problem: "the machine has no row for it: \(error)")
            }
        }
        for (index, (expected, taken)) in zip(trace.steps, replayed).enumerated()
        where !sameRow(expected, taken) {
            throw Departure(
                step: index + 1,
                problem:
                    "the file shows \(RetryTrace.describe(expected)), the machine took \(RetryTrace.describe(taken))")
        }
        guard replayed.count == trace.steps.count else {
            throw Departure(
                step: min(replayed.count, trace.steps.count) + 1,
                problem: "the file shows \(trace.steps.count) steps, the machine took \(replayed.count)")
        }
        return replayed
    }

    /// The same row at the same time (the explorer's words in `detail` are not the machine's).
    static func sameRow(_ a: RetryTrace.Step, _ b: RetryTrace.Step) -> Bool {
        var a = a
        var b = b
        a.detail = nil
        b.detail = nil
        return a == b
    }

    /// The input a step of an explored run was taken on.
    static func input(of step: RetryTrace.Step, policy: RetryPolicy, at index: Int) throws(Departure) -> RetryInput {
        guard let event = step.event else {
            throw Departure(step: index, problem: "a completion row has no input", isBadInput: true)
        }
        switch event {
        case .start: return .start
        case .succeeded: return .succeeded
        case .failed: return .failed(try decision(step, policy, index), detail: nil)
        case .failedAfterProgress: return .failedAfterProgress(try decision(step, policy, index), detail: nil)
        case .attemptTimedOut: return .attemptTimedOut(try decision(step, policy, index), detail: nil)
        case .tokenGranted: return .tokenGranted
        case .rateLimited:
            guard let text = step.detail, text.hasPrefix("token in "),
                let wait = Duration(shortDescription: String(text.dropFirst("token in ".count)))
            else {
                throw Departure(
                    step: index, problem: "'rate limited' needs 'token in DURATION' as its detail", isBadInput: true)
            }
            return .rateLimited(wait: wait, detail: nil)
        case .admitted: return .admitted
        case .circuitOpen: return .circuitOpen(try decision(step, policy, index), detail: nil)
        case .budgetAnswered:
            guard let text = step.detail, text == "granted" || text == "refused" else {
                throw Departure(
                    step: index, problem: "'budget answered' needs 'granted' or 'refused' as its detail",
                    isBadInput: true)
            }
            return .budgetAnswered(granted: text == "granted", detail: nil)
        case .delayElapsed: return .delayElapsed
        case .cancelled: return .cancelled(detail: nil)
        case .deadlineExceeded: return .deadlineExceeded(detail: nil)
        case .stepExit(let exit): return .stepExit(exit, detail: nil)
        case .stepFailed: return .stepFailed(detail: nil)
        }
    }

    /// The verdict the explorer wrote (``RetryExploration``'s words for a ``RetryDecision``).
    static func decision(_ step: RetryTrace.Step, _ policy: RetryPolicy, _ index: Int) throws(Departure)
        -> RetryDecision
    {
        let text = step.detail ?? ""
        switch text {
        case "retryable": return .retry
        case "not retryable": return .fail
        case "final answer": return .finalAnswer
        default:
            if text.hasPrefix("Retry-After "),
                let wait = Duration(shortDescription: String(text.dropFirst("Retry-After ".count)))
            {
                return .retryAfter(wait)
            }
            if text.hasPrefix("step "), let step = policy.steps.first(where: { "step \($0.id.name)" == text }) {
                return .step(step.id)
            }
            throw Departure(
                step: index,
                problem: "'\(step.event?.label ?? "")' needs a verdict as its detail (retryable, not retryable, "
                    + "final answer, Retry-After DURATION, step NAME), not '\(text)'", isBadInput: true)
        }
    }
}
