import Foundation

#if canImport(FoundationEssentials)
    import FoundationEssentials
#endif
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Decides, for an error an attempt threw, whether to retry: the policy's "retry-if".
///
/// Cancellation (`CancellationError`, `URLError(.cancelled)`) is never retried, whatever the
/// closure says: the classifier answers `fail` for it without asking the closure.
///
/// ```swift
/// let onlyTimeouts = RetryClassifier { error in
///     (error as? URLError)?.code == .timedOut ? .retry : .fail
/// }
/// ```
public struct RetryClassifier: Sendable {
    private let decide: @Sendable (any Error) -> RetryDecision
    /// The user steps this classifier sends failures to (``RetryDecision/step(_:)``): what validation
    /// counts as its way into them. A step entered on a verdict that no classifier or rule sends
    /// failures to is refused, and so is a step named here that the policy does not have.
    package let steps: [RetryStep.ID]

    /// Wraps a decision function that never names a step.
    public init(_ decide: @escaping @Sendable (any Error) -> RetryDecision) {
        self.decide = decide
        self.steps = []
    }

    /// Wraps a decision function that may send failures to `steps` (and to no other step).
    ///
    /// ```swift
    /// policy.retryIf = RetryClassifier(sendingTo: [refresh.id]) { $0 is Unauthorized ? .step(refresh.id) : .retry }
    /// ```
    public init(sendingTo steps: [RetryStep.ID], _ decide: @escaping @Sendable (any Error) -> RetryDecision) {
        self.decide = decide
        self.steps = steps
    }

    /// The decision for `error`.
    package func decision(for error: any Error) -> RetryDecision {
        if Self.isCancellation(error) { return .fail }
        let decision = decide(error)
        // An error has no value to answer with: a final answer for one is a failure.
        return decision == .finalAnswer ? .fail : decision
    }

    /// Retries every error except cancellation.
    public static let retryAll = RetryClassifier { _ in .retry }

    /// Retries nothing.
    public static let never = RetryClassifier { _ in .fail }

    /// Whether `error` means "the caller cancelled", which no classifier may retry.
    package static func isCancellation(_ error: any Error) -> Bool {
        if error is CancellationError { return true }
        if let urlError = error as? URLError, urlError.code == .cancelled { return true }
        return false
    }
}
