/// One visit of a user step (``RetryStep``) in a run: which step, when, how long, and its error if
/// its action threw. Kept beside the attempts, so nothing a run did is lost.
public struct StepRecord: Sendable, CustomStringConvertible {
    /// The step's name.
    public let name: String
    /// When the action started, since the run's start.
    public let start: Duration
    /// How long the action took.
    public let duration: Duration
    /// The exit the step ended in (``RetryStep/Exit``); `nil` when its action threw.
    public let exit: RetryStep.Exit?
    /// The action's error, if it threw, or the reason it gave for its exit (``RetryStep/Output/error``).
    public let error: (any Error)?

    /// `refresh credentials at 1.2 s: step done`, `check credential at 0 s: excessive refresh: <error>`,
    /// or `…: failed: <error>`.
    public var description: String {
        "\(name) at \(start.shortDescription): " + (exit?.name ?? "failed") + (error.map { ": \($0)" } ?? "")
    }
}
