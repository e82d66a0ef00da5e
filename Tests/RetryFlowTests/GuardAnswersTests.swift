import RetryFlow
import Testing

/// The budget, the breaker and the adaptive limiter answer with the actions of the step, not through a field read after
/// it: the step that asks carries exactly one answer, every other step none.
@Suite struct GuardAnswersTests {
    @Test func budgetAnswersEachAskInItsStep() throws {
        var machine = BudgetMachine(
            table: .budget,
            rules: BudgetRules(
                mode: .awsStandard(capacity: 10, retryCost: 5, timeoutRetryCost: 10, successIncrement: 1)))
        // 10 tokens: an ordinary retry (5), then a timeout retry (10) is refused, then one more (5).
        #expect(Array(try machine.handle(.retryAsked(timeout: false), at: .zero).actions) == [.grant])
        #expect(Array(try machine.handle(.retryAsked(timeout: true), at: .zero).actions) == [.deny])
        #expect(Array(try machine.handle(.retryAsked(timeout: false), at: .zero).actions) == [.grant])
        #expect(machine.state == .exhausted)
        #expect(Array(try machine.handle(.retryAsked(timeout: false), at: .zero).actions) == [.deny])
        #expect(try machine.handle(.attemptFailed, at: .zero).actions.isEmpty)
        #expect(try machine.handle(.attemptSucceeded(refund: 5000), at: .zero).actions.isEmpty)
        #expect(machine.state == .available)
    }

    @Test func breakerAnswersEachCallInItsStep() throws {
        var machine = BreakerMachine(
            table: .breaker,
            rules: BreakerRules(options: .init(trip: .consecutiveFailures(1), breakDuration: .seconds(5))))
        #expect(Array(try machine.handle(.callAsked, at: .zero).actions) == [.admit])
        #expect(try machine.handle(.callFailed, at: .zero).actions.isEmpty)
        #expect(machine.state == .open)
        #expect(Array(try machine.handle(.callAsked, at: .seconds(1)).actions) == [.reject])
        #expect(try machine.handle(.breakElapsed, at: .seconds(5)).actions.isEmpty)
        #expect(Array(try machine.handle(.callAsked, at: .seconds(5)).actions) == [.admitProbe(1)])
        #expect(Array(try machine.handle(.callAsked, at: .seconds(5)).actions) == [.reject])
        #expect(try machine.handle(.probeSucceeded, at: .seconds(6)).actions.isEmpty)
        #expect(Array(try machine.handle(.callAsked, at: .seconds(6)).actions) == [.admit])
    }

    @Test func limiterAnswersEachSendInItsStep() throws {
        var machine = AdaptiveMachine(table: .adaptive, rules: AdaptiveRules(options: .init()))
        // Disabled: every send goes, and keeps no bucket.
        #expect(Array(try machine.handle(.sendAsked, at: .zero).actions) == [.grant])
        #expect(try machine.handle(.throttled, at: .zero).actions.isEmpty)
        #expect(machine.state == .enabled)
        // Enabled with an empty bucket: the send reserves the next token and is told to wait for it.
        let step = try machine.handle(.sendAsked, at: .zero)
        guard case .wait(let seconds, _) = step.actions.last, step.actions.count == 1 else {
            Issue.record("expected one wait, got \(step.actions)")
            return
        }
        #expect(seconds > 0)
        #expect(try machine.handle(.answered, at: .seconds(1)).actions.isEmpty)
        #expect(try machine.handle(.sendWithdrawn, at: .seconds(1)).actions.isEmpty)
    }
}
