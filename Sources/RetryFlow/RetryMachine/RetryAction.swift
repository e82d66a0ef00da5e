/// One thing the driver must do, with its values: an effect of a table row, made concrete by the machine.
@usableFromInline package enum RetryAction: Hashable, Sendable {
    /// Begin attempt number `n` (1-based).
    case startAttempt(Int)
    /// Abandon the attempt in flight.
    case cancelAttempt
    /// Tell observers that `attempt` failed and the next begins after `delay`.
    case notifyRetry(attempt: Int, delay: Duration)
    /// Tell the breaker, the budget and the limiter how the attempt ended (a `CircuitResult`: the
    /// budget reads it too), and whether its answer was a throttle (the limiter slows down).
    case reportHealth(CircuitResult, throttled: Bool)
    /// Ask the adaptive rate limiter for a token for the next try, then deliver `tokenGranted` (at
    /// once, without a limiter) or `rateLimited` with the wait until the reserved token is due.
    case askLimiter
    /// Give the limiter back the token it reserved for a try that will not be sent, keeping the
    /// refusal with the attempts.
    case returnToken
    /// Ask the circuit breaker to admit the try that would be attempt `attempt`, then deliver
    /// `admitted` (at once, without a breaker) or `circuitOpen` with the break's rest.
    case askBreaker(attempt: Int)
    /// Ask the retry budget for a token (a timeout retry costs more in AWS mode), then deliver
    /// `budgetAnswered` with the answer (granted, without a budget).
    case askRetryBudget(afterTimeout: Bool)
    /// Wait until `delay` after the instant the step was decided (the `at` of the input that planned
    /// it), then deliver `delayElapsed`.
    case sleep(Duration)
    /// Run the action of the user's step, then deliver `stepExit` with the exit it ended in (with
    /// what it produced kept for the attempts after it) or `stepFailed`.
    case runStep(RetryStep.ID)
    /// The run is over in `state`, for `reason`.
    case finish(state: RetryState, reason: StopReason)
}

/// The actions of one retry machine step, in order: a fixed-size value, so a step allocates nothing.
/// The engine's buffer, not API: a step's ``MachineStep/actions`` is what callers read.
package typealias RetryActions = StepBuffer<RetryAction>
