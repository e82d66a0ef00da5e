import Foundation
import RetryFlow
import RetryFlowTesting
import Testing

/// Issue 36, item 6: what a run hands its caller is decided by its final state alone, every run ends
/// in a terminal state, and a final answer has a terminal state of its own.
@Suite(.timeLimit(.minutes(1))) struct OneOutcomeRuleTests {
    let policy = RetryPolicy(maxAttempts: 3, backoff: .constant(.milliseconds(500)), jitter: .none)

    @Test func everyTerminalStateSaysWhatTheCallerReceives() {
        for state in RetryTable.retry.terminals { #expect(state.delivery != nil, "\(state)") }
        for state in RetryState.allCases where !RetryTable.retry.isTerminal(state) {
            #expect(state.delivery == nil, "\(state) is no end")
        }
        #expect(RetryState.success.delivery == .value && RetryState.answered.delivery == .value)
        #expect(RetryState.failure.delivery == .error && RetryState.cancelled.delivery == .cancellation)
    }

    @Test func aFinalAnswerEndsInAnsweredAndIsReturnedAsAValue() async throws {
        let clock = ManualClock()
        let engine = Retry(policy, clock: clock)
        let answered = try await engine.outcome(classifyResult: { status in
            status == 503 ? RetryVerdict(.finalAnswer, "HTTP 503 may not be sent again") : nil
        }) { _ in 503 }
        #expect(answered.finalState == .answered && answered.reason == .finalAnswer)
        #expect(answered.attempts.count == 1)
        #expect(try answered.get() == 503, "a value, not an error")
        expectConsistent(answered.trace)
        let value = try await engine.run(classifyResult: { _ in RetryVerdict(.finalAnswer, "the answer") }) { _ in 404 }
        #expect(value == 404)
    }

    @Test func aThrownErrorCalledAFinalAnswerFailsForItHasNoValue() async throws {
        struct Gone: Error {}
        var policy = policy
        policy.retryIf = RetryClassifier { _ in .finalAnswer }
        let outcome = try await Retry(policy, clock: ManualClock()).outcome { _ -> Int in throw Gone() }
        #expect(outcome.finalState == .failure && outcome.reason == .notRetryable)
        #expect(outcome.error?.lastError is Gone)
    }

    @Test func anEventWithoutARowEndsTheRunInFailure() async throws {
        // A table with no row for `cancelled` in `request`: valid, for nothing requires that row,
        // but a cancelled attempt has nowhere to go.
        var policy = policy
        let rows = RetryTable.retry.rows.filter { !($0.from == .request && $0.event == .cancelled) }
        policy.table = RetryTable(
            name: "no cancel in request", initial: .idle, terminals: RetryTable.retry.terminals, rows: rows)
        #expect(policy.table.problems.isEmpty)
        let clock = ManualClock()
        let task = Task {
            try await Retry(policy, clock: clock).outcome { _ -> Int in
                try await clock.sleep(for: .seconds(3600))
                return 1
            }
        }
        await clock.waitForSleepers(1)
        task.cancel()
        let outcome = try await task.value
        #expect(outcome.finalState == .failure, "a run always ends in a terminal state")
        #expect(outcome.reason == .invalidTransition)
        #expect(outcome.trace.rejections.map(\.description) == ["no row for event 'cancelled' in state 'request'"])
        #expect(outcome.error?.reason == .invalidTransition, "delivered as the failure it is")
    }
}
