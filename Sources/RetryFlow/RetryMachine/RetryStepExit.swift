extension RetryStep {
    /// One way a step's action ends, routed by the table's rows: each exit is an event of its own
    /// (``RetryEvent/stepExit(_:)``, drawn with the exit's name), so the rows from the step's state say
    /// where each one goes. A step with one way on has the one exit ``done`` (`step done`); a credential
    /// step has `current`, `refreshed` and `excessive refresh`. An action that throws takes no exit: it
    /// ends in `step failed`.
    ///
    /// ```swift
    /// let cached = RetryStep.Exit("cached"), fetched = RetryStep.Exit("fetched")
    /// let step = RetryStep("find token", exits: [cached, fetched]) { _ in RetryStep.Output(fetched) }
    /// ```
    public struct Exit: Hashable, Sendable, CustomStringConvertible {
        /// The exit's name: the event's label on its rows. Not a built-in event's (validation checks).
        public let name: String

        /// The exit named `name`.
        public init(_ name: String) { self.name = name }

        /// The one exit of a step with one way on: `step done`.
        public static let done = Exit("step done")

        /// The exit's name.
        public var description: String { name }
    }
}
