/// What a classifier says about one failed attempt (an error, or a result it does not accept).
public enum RetryDecision: Hashable, Sendable {
    /// Retry after the policy's backoff delay.
    case retry
    /// Retry after exactly this delay (a server's Retry-After), never earlier.
    case retryAfter(Duration)
    /// Do not retry: the run fails (`failure`, not retryable) and the caller gets a ``RetryError``.
    case fail
    /// Do not retry, and do not fail: the value is the caller's answer (a 404, a POST's 503 that may
    /// not be sent again). The run ends in `answered` for the reason `final answer`, and every surface
    /// returns the value (`RetryState.delivery`). For a thrown error, which has no value to hand
    /// over, it is ``fail``.
    case finalAnswer
    /// Go to this user step (``RetryStep``, entered ``RetryStep/Entry/onVerdict``), named by its
    /// ``RetryStep/id``: e.g. a 401 sent to `refresh credentials`. Not retryable by itself: once the
    /// step's visits are used up, the failure ends the run as not retryable.
    case step(RetryStep.ID)

    /// Whether the decision allows another attempt (the `retryable` guard).
    package var isRetryable: Bool {
        switch self {
        case .retry, .retryAfter: true
        case .fail, .finalAnswer, .step: false
        }
    }
}
