import Foundation
import RetryFlow
import RetryFlowTesting
import Testing

/// Polly v8's defaults, exactly; one probe at a time; the break ends on the clock.
@Suite struct CircuitBreakerTests {
    @Test func breakerTableIsValid() throws {
        try BreakerTable.breaker.validate()
    }

    @Test func ninetyNineFailuresInThirtySecondsStayClosedBelowMinimumThroughput() throws {
        let clock = ManualClock()
        let breaker = try CircuitBreaker(.polly, clock: clock, tracing: true)
        for _ in 1...99 {
            try fail(breaker)
            clock.advance(by: .milliseconds(300)) // 99 calls within 29.7 s
        }
        #expect(breaker.state == .closed)
        expectBreakerConsistent(breaker)
    }

    @Test func hundredCallsWithTenFailuresOpenIt() throws {
        let clock = ManualClock()
        let breaker = try CircuitBreaker(.polly, clock: clock, tracing: true)
        for _ in 1...90 { try succeed(breaker) }
        for n in 1...9 {
            try fail(breaker)
            #expect(breaker.state == .closed, "after failure \(n)")
        }
        try fail(breaker) // 10 of 100: ratio 0.1
        #expect(breaker.state == .open)
        guard case .rejected(let rejection) = breaker.ask() else { throw Unexpected("open breaker admitted a call") }
        #expect(rejection.remainingBreak == .seconds(5))
        expectBreakerConsistent(breaker)
    }

    @Test func outcomesOlderThanTheSamplingWindowAreForgotten() throws {
        let clock = ManualClock()
        let breaker = try CircuitBreaker(.polly, clock: clock)
        for _ in 1...60 { try fail(breaker) }
        clock.advance(by: .seconds(31))
        for _ in 1...40 { try succeed(breaker) }
        for _ in 1...4 { try fail(breaker) } // 4 of 44 in the window: no trip
        #expect(breaker.state == .closed)
    }

    @Test func firstCallAfterTheBreakIsTheOnlyProbeAndItsFailureReopens() throws {
        let clock = ManualClock()
        let breaker = try CircuitBreaker(
            .init(trip: .consecutiveFailures(3), breakDuration: .seconds(5)), clock: clock, tracing: true)
        for _ in 1...3 { try fail(breaker) }
        #expect(breaker.state == .open)
        clock.advance(by: .milliseconds(4999))
        #expect(breaker.state == .open)
        clock.advance(by: .milliseconds(1))
        // Nobody called: the break still ended at its instant.
        #expect(breaker.state == .halfOpen)
        #expect(breaker.trace?.steps.last?.at == .seconds(5))
        clock.advance(by: .seconds(2)) // the trace keeps the break's end, not the moment someone looked
        guard case .admitted(let probe) = breaker.ask() else { throw Unexpected("the first call was refused") }
        // A concurrent second caller is refused while the probe is in flight; no remaining break to wait.
        guard case .rejected(let second) = breaker.ask() else { throw Unexpected("a second probe went through") }
        #expect(second.state == .halfOpen && second.remainingBreak == nil)
        breaker.record(probe, .failure)
        #expect(breaker.state == .open)
        guard case .rejected(let reopened) = breaker.ask() else { throw Unexpected("reopened breaker admitted") }
        #expect(reopened.remainingBreak == .seconds(5))
        expectBreakerConsistent(breaker)
        #expect(breaker.trace?.steps.first { $0.event == .breakElapsed }?.at == .seconds(5))
    }

    @Test func probeSuccessClosesAndAbandonedProbeLetsAnotherThrough() throws {
        let clock = ManualClock()
        let breaker = try CircuitBreaker(
            .init(trip: .consecutiveFailures(1), breakDuration: .seconds(1)), clock: clock, tracing: true)
        try fail(breaker)
        clock.advance(by: .seconds(1))
        guard case .admitted(let first) = breaker.ask() else { throw Unexpected("no probe") }
        breaker.record(first, .abandoned)
        guard case .admitted(let second) = breaker.ask() else { throw Unexpected("no second probe after abandon") }
        breaker.record(first, .success) // stale: the first probe no longer decides
        #expect(breaker.state == .halfOpen)
        breaker.record(second, .success)
        #expect(breaker.state == .closed)
        expectBreakerConsistent(breaker)
    }

    @Test func aHungProbeIsGivenUpAfterABreaksLength() throws {
        let clock = ManualClock()
        let breaker = try CircuitBreaker(
            .init(trip: .consecutiveFailures(1), breakDuration: .seconds(5)), clock: clock, tracing: true)
        try fail(breaker)
        clock.advance(by: .seconds(5))
        guard case .admitted(let hung) = breaker.ask() else { throw Unexpected("no probe") }
        clock.advance(by: .milliseconds(4999))
        guard case .rejected = breaker.ask() else {
            throw Unexpected("a second probe while the first may still answer")
        }
        clock.advance(by: .milliseconds(1))
        guard case .admitted(let next) = breaker.ask() else { throw Unexpected("the hung probe still holds half-open") }
        #expect(breaker.trace?.steps.contains { $0.event == .probeAbandoned && $0.at == .seconds(10) } == true)
        breaker.record(hung, .success) // too late: it no longer decides
        #expect(breaker.state == .halfOpen)
        breaker.record(next, .success)
        #expect(breaker.state == .closed)
        expectBreakerConsistent(breaker)
    }

    @Test func isolatedRefusesUntilReset() throws {
        let breaker = try CircuitBreaker(.polly, clock: ManualClock(), tracing: true)
        breaker.isolate()
        guard case .rejected(let rejection) = breaker.ask() else { throw Unexpected("isolated breaker admitted") }
        #expect(rejection.state == .isolated)
        breaker.reset()
        try succeed(breaker)
        #expect(breaker.state == .closed)
        expectBreakerConsistent(breaker)
    }

    @Test func badOptionsAreRefusedByName() {
        do {
            _ = try CircuitBreaker(
                .init(trip: .failureRatio(1.5, minimumThroughput: 10, samplingDuration: .seconds(1))))
            Issue.record("ratio 1.5 accepted")
        } catch {
            #expect(error.field == "breaker.failureRatio")
        }
    }

    private func fail(_ breaker: CircuitBreaker) throws {
        guard case .admitted(let ticket) = breaker.ask() else { throw Unexpected("refused") }
        breaker.record(ticket, .failure)
    }

    private func succeed(_ breaker: CircuitBreaker) throws {
        guard case .admitted(let ticket) = breaker.ask() else { throw Unexpected("refused") }
        breaker.record(ticket, .success)
    }
}

struct Unexpected: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The breaker's trace (it must have been made with `tracing`) against its table.
func expectBreakerConsistent(_ breaker: CircuitBreaker, sourceLocation: SourceLocation = #_sourceLocation) {
    guard let trace = breaker.trace else {
        Issue.record("breaker made without tracing", sourceLocation: sourceLocation)
        return
    }
    expectConsistent(trace, with: BreakerTable.breaker, sourceLocation: sourceLocation)
}
