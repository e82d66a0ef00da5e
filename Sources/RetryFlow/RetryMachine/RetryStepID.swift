extension RetryStep {
    /// A step's identity: what HTTP rules (`HTTPRetryRules.statusSteps`), verdicts
    /// (``RetryDecision/step(_:)``), guards (``RetryGuard/enters(_:)``) and states
    /// (``RetryState/step(_:)``) name it by. Taken from the step (``RetryStep/id``), not spelled
    /// again, so a joint cannot name a step by a typo; a name that reaches the policy another way
    /// (JSON rules, a trace file) is checked against its steps by validation.
    ///
    /// ```swift
    /// let refresh = RetryStep("refresh credentials") { _ in .done }
    /// rules.statusSteps[401] = refresh.id
    /// ```
    public struct ID: Hashable, Sendable, Codable, CustomStringConvertible {
        /// The step's name: its state's label on charts and in traces.
        package let name: String

        /// The identity of the step named `name`: the package's own (trace files, a credential step).
        package init(_ name: String) { self.name = name }

        /// Reads the step's name (JSON rules write a step as its name).
        public init(from decoder: any Decoder) throws {
            name = try decoder.singleValueContainer().decode(String.self)
        }

        /// Writes the step's name.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(name)
        }

        /// The step's name.
        public var description: String { name }
    }
}
