import Foundation
import RetryFlow

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A change a user step (`RetryStep`) makes to every request sent after it: an output of its own
/// kind (`RetryStep.Output.change`), which each HTTP surface applies before the next
/// attempt goes out (a new token, another base URL). Each step keeps its own change: a later visit
/// of the step replaces it, another step's change applies too, in the order the steps first made
/// one. Never traced, so a credential here stays out of traces and reports.
///
/// ```swift
/// let refresh = RetryStep("refresh credentials") { _ in
///     let token = try await tokens.refresh()
///     return .change(RequestChange { $0.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") })
/// }
/// ```
public struct RequestChange: Sendable {
    private let change: @Sendable (inout URLRequest) -> Void

    /// A change to apply to each later request.
    public init(_ change: @escaping @Sendable (inout URLRequest) -> Void) { self.change = change }

    /// Where a step's change is kept among its values: one per step.
    static let key = RetryStep.Key<RequestChange>("request change", perStep: true)

    /// Applies every step's change among `values` to `request`, in the order the steps first made one.
    static func apply(_ values: RetryStep.Values, to request: inout URLRequest) {
        for change in values.all(key) { change.change(&request) }
    }
}

extension RetryStep.Output {
    /// The change this step makes to every later request, if any: an output of its own kind, not a
    /// value under a key of yours.
    package var change: RequestChange? {
        get { self[RequestChange.key] }
        set { self[RequestChange.key] = newValue }
    }

    /// The step is done (`RetryStep.Exit.done`) and changes every later request with `change`.
    public static func change(_ change: RequestChange) -> RetryStep.Output {
        var output = RetryStep.Output.done
        output.change = change
        return output
    }
}
