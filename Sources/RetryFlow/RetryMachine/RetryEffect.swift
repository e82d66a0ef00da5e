/// The kinds of work a row of the retry table asks for. The machine turns most into a
/// driver's action carrying its values (attempt number, delay, why the run ended); `plan delay`
/// only computes the next wait, which the guards of the `retry` decision then read.
public enum RetryEffect: String, TableSymbol {
    /// Begin the next attempt.
    case startAttempt = "start attempt"
    /// Abandon the attempt in flight (it timed out, or the deadline passed).
    case cancelAttempt = "cancel attempt"
    /// Work out the wait before the next attempt: the server's Retry-After, or the policy's backoff
    /// with its cap and jitter. On the rows entering `retry`, so its guards read a planned delay.
    case planDelay = "plan delay"
    /// Start the attempt count and the backoff over: the attempt that made progress becomes the
    /// first of a new series, so the next wait is the first delay and `attempts left` counts from it.
    /// Between attempts (a resend after a credential refresh), the attempt to come is the first.
    case resetBackoff = "reset backoff"
    /// Tell observers a retry is coming (the `onRetry` hook).
    case notifyRetry = "notify retry"
    /// Tell the fleet's guards how the attempt ended: the breaker records a success, a failure or
    /// an abandoned attempt, the budget earns a success or pays for a failure, and the adaptive
    /// limiter measures the answer and slows down when it was a throttle (the HTTP throttle rules say). Only a retryable
    /// failure speaks of the server's health; a final answer, a failure verdict or a cancellation does not.
    case reportHealth = "report health"
    /// Ask the circuit breaker whether the next try may be sent; the driver delivers its answer,
    /// `admitted` or `circuit open` (`admitted` at once without a breaker).
    case askBreaker = "ask breaker"
    /// Ask the adaptive rate limiter for a token for the next try; the driver delivers its answer,
    /// `token granted` or `rate limited` with the wait until the token it reserved is due
    /// (`token granted` at once without a limiter).
    case askLimiter = "ask limiter"
    /// Give the limiter back the token it reserved for a try that will not be sent (the run fails
    /// fast, or the wait would cross the deadline), so the other runs sharing it are not slowed;
    /// the refusal is kept with the attempts.
    case returnToken = "return token"
    /// Count a try the breaker refused: the count `refusals left` reads. A refused try is not sent
    /// and uses up no attempt, but a run waits out at most `maxAttempts` refusals.
    case countRefusal = "count refusal"
    /// Ask the shared retry budget for a token; the driver delivers its answer (`budget answered`).
    case askRetryBudget = "ask retry budget"
    /// Sleep the planned delay on the injected clock.
    case sleep
    /// The run is over: report the outcome, for the reason the row names.
    case finish
    /// Run the action of the user's step the row enters (``RetryStep``); the driver delivers
    /// `step done` or `step failed`.
    case runStep = "run step"

    /// `finish` ends the run, so only rows entering a terminal state may carry it.
    public var endsRun: Bool { self == .finish }
}

extension RetryEffect: AdmittedEffect {
    /// `start attempt` only on `breaker --admitted-->` (in a table with the `breaker` state): every
    /// attempt is put to the circuit breaker first, the first send and a resend after a step alike.
    package var admittedBy: (state: String, event: String)? {
        self == .startAttempt ? (RetryState.breaker.label, RetryEvent.admitted.label) : nil
    }
}
