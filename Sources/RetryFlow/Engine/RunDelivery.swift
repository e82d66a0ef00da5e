/// What a run hands its caller, decided by the state it ended in and nothing else: the one rule
/// every surface (`Retry.run`, the HTTP surfaces, downloads) and the `retryflow` tool follow.
package enum RunDelivery: String, Sendable, CaseIterable {
    /// `success` or `answered`: the last value (a 200, a 404, a POST's 503 that may not be sent again).
    case value
    /// `failure`: a ``RetryError`` carrying every attempt.
    case error
    /// `cancelled`: `CancellationError` (the outcome still holds every attempt).
    case cancellation
}

extension RetryState {
    /// What a run that ended here hands its caller; `nil` for a state a run does not end in.
    package var delivery: RunDelivery? {
        switch self {
        case .success, .answered: .value
        case .failure: .error
        case .cancelled: .cancellation
        case .idle, .limiter, .pacing, .tokenWait, .breaker, .request, .retry, .budget, .admission, .wait, .step:
            nil
        }
    }
}
