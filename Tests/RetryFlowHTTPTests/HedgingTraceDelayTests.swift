import RetryFlow
import RetryFlowHTTP
import Testing

/// The hedging trace shows, on the row that arms the hedge timer, the wait the timer was armed
/// with: the policy's delay, or a failed copy's pushback (`traced(_:)` reads it back from the
/// facts after the row, as the action does during it).
@Suite struct HedgingTraceDelayTests {
    @Test func theRowArmingTheTimerShowsItsWait() throws {
        var machine = HedgingMachine(
            table: .hedging, rules: HedgingRules(policy: HedgingPolicy(delay: .milliseconds(50), maxAttempts: 3)))
        let started = try machine.handle(.start, at: .zero)
        #expect(started.actions.contains(.armHedgeTimer(after: .milliseconds(50))))
        #expect(started.taken.compactMap(\.delay) == [.milliseconds(50)])

        let pushed = try machine.handle(
            .attemptFailed(attempt: 1, pushback: .delay(.milliseconds(300)), detail: nil), at: .milliseconds(10))
        let armed = pushed.actions.compactMap { action -> Duration? in
            if case .armHedgeTimer(let after) = action { return after }
            return nil
        }
        #expect(armed == [.milliseconds(300)], "\(pushed.actions)")
        #expect(pushed.taken.compactMap(\.delay) == armed)
    }
}
