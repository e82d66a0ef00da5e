import RetryFlow
import Testing

/// What a guard's trace shows as a row's delay (`traced(_:)`) is what its machine answered: the
/// breaker's break on the row that starts it, the limiter's wait on the row that plans it, and no
/// delay on any other row. The limiter reads the wait back from the bucket after `take token`, so
/// this pins that reading to the action the driver waits on.
@Suite struct GuardTraceDelayTests {
    @Test func theBreakersTraceShowsItsBreakOnTheRowThatStartsIt() throws {
        var machine = BreakerMachine(
            table: .breaker,
            rules: BreakerRules(options: .init(trip: .consecutiveFailures(1), breakDuration: .seconds(5))))
        let admitted = try machine.handle(.callAsked, at: .zero)
        #expect(admitted.taken.allSatisfy { $0.delay == nil })
        let tripped = try machine.handle(.callFailed, at: .seconds(1))
        #expect(machine.state == .open)
        #expect(tripped.taken.compactMap(\.delay) == [.seconds(5)])
        #expect(tripped.taken.last?.delay == .seconds(5), "the row entering open carries it")
    }

    @Test func theLimitersTraceShowsTheWaitItAnswered() throws {
        var machine = AdaptiveMachine(table: .adaptive, rules: AdaptiveRules(options: .init()))
        _ = try machine.handle(.sendAsked, at: .zero)
        _ = try machine.handle(.throttled, at: .zero)
        for time in [Duration.zero, .milliseconds(300), .seconds(1)] {
            let step = try machine.handle(.sendAsked, at: time)
            guard case .wait(let seconds, _) = step.actions.last else {
                Issue.record("expected a wait at \(time), got \(step.actions)")
                return
            }
            let wait = try #require(Duration.checkedSeconds(seconds, rounding: .up))
            #expect(step.taken.compactMap(\.delay) == [wait], "at \(time)")
        }
    }
}
