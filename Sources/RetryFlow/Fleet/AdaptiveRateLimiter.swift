import Foundation

/// A client-side rate limiter shared by many runs: AWS's "adaptive" retry mode as a table
/// (`TransitionTable.adaptive`), drawn by `retryflow render --machine adaptive`.
///
/// Disabled until the first throttle: until then every send goes out and responses only measure
/// the send rate. From the first throttle on, every attempt (first attempts too) takes a token
/// from a bucket whose fill rate follows TCP CUBIC: it drops by β = 0.7 at each throttle and grows
/// back as C·(t − K)³ + W_max, never above twice the measured send rate.
///
/// Time comes from the injected clock only. Thread-safe: one lock, one table lookup per call.
///
/// ```swift
/// let limiter = try AdaptiveRateLimiter(.default)   // AWS's numbers; .aws for AWS exactly
/// let guards = FleetGuards(limiter: limiter, whenRateLimited: .waitForToken)
/// ```
public final class AdaptiveRateLimiter: Sendable {
    /// Its numbers.
    public let options: AdaptiveRateLimiterOptions
    private let traced: Locked<TracedMachine>
    private let elapsed: @Sendable () -> Duration

    /// What the lock guards: the machine, and its trace when tracing.
    struct TracedMachine {
        var machine: AdaptiveMachine
        var trace: AdaptiveTrace?

        /// Delivers `event` and returns the step's answer (`send asked` only); the trace (when kept)
        /// gets its rows, the last noting the bucket.
        @discardableResult
        mutating func deliver(_ event: AdaptiveEvent, at time: Duration) -> AdaptiveAction? {
            // Every state has a row for every event: a rejection cannot happen.
            guard let step = try? machine.handle(event, at: time) else { return nil }
            if trace != nil {
                let taken = step.taken
                let rules = machine.rules
                for (index, var traced) in taken.enumerated() {
                    if index == taken.count - 1 {
                        traced.detail =
                            "fill \(Self.rate(rules.fillRate))/s, measured \(Self.rate(rules.meter.rate))/s, "
                            + "tokens \(Self.rate(rules.tokens)) of \(Self.rate(rules.capacity))"
                    }
                    trace!.steps.append(traced)
                }
            }
            return step.produced.last
        }

        static func rate(_ value: Double) -> String { String(format: "%.3g", value) }
    }

    /// A disabled limiter with `options`, timed by `clock` (from now; the real clock by default).
    public convenience init<C: Clock<Duration>>(
        _ options: AdaptiveRateLimiterOptions = .default, clock: C = ContinuousClock()
    ) throws(RetryPolicyError) {
        try self.init(options, clock: clock, tracing: false)
    }

    /// The same, with `tracing`: every transition is kept in ``trace`` (for charts and tests).
    package init<C: Clock<Duration>>(
        _ options: AdaptiveRateLimiterOptions = .default, clock: C = ContinuousClock(), tracing: Bool
    ) throws(RetryPolicyError) {
        try options.validate()
        self.options = options
        self.traced = Locked(
            TracedMachine(
                machine: AdaptiveMachine(table: .adaptive, rules: AdaptiveRules(options: options)),
                trace: tracing ? AdaptiveTrace() : nil))
        let start = clock.now
        self.elapsed = { start.duration(to: clock.now) }
    }

    /// `disabled` until the first throttle, then `enabled`.
    package var state: AdaptiveState { traced.withLock { $0.machine.state } }
    /// Tokens per second the bucket fills at now.
    public var fillRate: Double { traced.withLock { $0.machine.rules.fillRate } }
    /// The measured send rate, responses per second.
    public var measuredRate: Double { traced.withLock { $0.machine.rules.meter.rate } }
    /// Tokens in the bucket as of its last refill.
    public var tokens: Double { traced.withLock { $0.machine.rules.tokens } }
    /// Every transition so far, when made with `tracing`.
    package var trace: AdaptiveTrace? { traced.withLock { $0.trace } }

    /// Asks to send one request: granted now (a token was taken, or the limiter is disabled), or
    /// after a wait: the next token is reserved for this send (sends are served in the order they
    /// asked). Send when the wait is over, or give the token back with ``withdraw()``. The wait is
    /// worked out at the present fill rate; a run's token wait follows the rate as it changes
    /// (``nextWake(for:now:latest:)``).
    package func ask() -> RateLimitPermit { reserve().permit }

    /// ``ask()``, and the reservation behind a wait (for ``nextWake(for:now:latest:)``).
    package func reserve() -> (permit: RateLimitPermit, reservation: TokenReservation?) {
        let now = elapsed()
        return traced.withLock { traced in
            switch traced.deliver(.sendAsked, at: now) {
            // Every `send asked` step grants or plans a wait (GuardAnswersTests).
            case .grant, nil: return (.granted, nil)
            case .wait(let seconds, let credit):
                let wait = Duration.checkedSeconds(seconds, rounding: .up) ?? .inputLimit
                return (.wait(wait), TokenReservation(credit: credit))
            }
        }
    }

    /// When a wait for `reservation` should next wake, `now` on the waiter's clock; `nil` when it is
    /// over: the token is due, or `latest` (the waiter's deadline, if it has one) has come.
    ///
    /// The wait told at the ask was worked out at the fill rate of that moment. A token reserved
    /// while the rate was low (at a cold start, 0.5 tokens/s) would otherwise be waited for at that
    /// rate long after the rate grew, and the sends the growth needs would not be made; one reserved
    /// just before a throttle would go out at the old rate and draw more throttles. So the wait
    /// follows the bucket: it looks again at least once a measurement bucket (the rate changes at
    /// most that often) and ends when the bucket has been credited the reserved token, sooner or
    /// later than told (botocore wakes its waiters when the fill rate changes, for the same reason).
    /// It is bounded: the bucket is credited at least the minimum fill rate.
    package func nextWake(for reservation: TokenReservation, now: Duration, latest: Duration?) -> Duration? {
        if let latest, now >= latest { return nil }
        let remaining = traced.withLock { traced in
            traced.machine.rules.secondsUntil(credit: reservation.credit, at: elapsed().inSeconds)
        }
        // Under a millisecond: due (the clock's and the bucket's arithmetic differ by less).
        guard remaining >= 0.001 else { return nil }
        let due = now + (Duration.checkedSeconds(remaining, rounding: .up) ?? .inputLimit)
        return min(due, now + options.bucketWidth, latest ?? .inputLimit)
    }

    /// Reports a response (`throttled`: the server said slow down), or an attempt that ended in a
    /// transport error (not throttled): every one moves the measured rate and the curve.
    package func record(throttled: Bool) {
        let now = elapsed()
        traced.withLock { _ = $0.deliver(throttled ? .throttled : .answered, at: now) }
    }

    /// Gives back the token an ``ask()`` reserved for a send that will not be made.
    package func withdraw() {
        let now = elapsed()
        traced.withLock { _ = $0.deliver(.sendWithdrawn, at: now) }
    }
}

/// A token ``AdaptiveRateLimiter`` reserved for a send: due once the bucket has been credited this
/// many tokens in all.
package struct TokenReservation: Hashable, Sendable {
    let credit: Double
}

/// The limiter's answer to `AdaptiveRateLimiter/ask()`.
package enum RateLimitPermit: Hashable, Sendable {
    /// Send now.
    case granted
    /// Send after this wait: the token is reserved (``AdaptiveRateLimiter/withdraw()`` gives it back).
    case wait(Duration)
}

/// Why a send was not made: the limiter's next token is further away than the caller would wait.
public struct RateLimitRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    /// How long until the next token.
    public let wait: Duration
    /// The bucket's fill rate, tokens per second.
    public let fillRate: Double

    /// `rate limited (next token in 420 ms at 2.37 requests/s)`.
    public var description: String {
        "rate limited (next token in \(wait.shortDescription) at \(String(format: "%.3g", fillRate)) requests/s)"
    }
}

/// An adaptive limiter's trace: each step's `detail` holds the bucket after it.
package typealias AdaptiveTrace = TransitionTrace<AdaptiveVocabulary>
