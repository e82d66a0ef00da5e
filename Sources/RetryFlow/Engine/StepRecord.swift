/// One visit of a user step (``RetryStep``) in a run: which step, when, how long, and its error if
/// its action threw. Kept beside the attempts, so nothing a run did is lost.
public struct StepRecord: Sendable, CustomStringConvertible {
    /// The step's name.
    public let name: String
    /// When the action started, since the run's start.
    public let start: Duration
    /// How long the action took.
    public let duration: Duration
    /// The action's error, if it threw.
    public let error: (any Error)?

    /// `refresh credentials at 1.2 s: done` or `…: failed: <error>`.
    public var description: String {
        "\(name) at \(start.shortDescription): " + (error.map { "failed: \($0)" } ?? "done")
    }
}
