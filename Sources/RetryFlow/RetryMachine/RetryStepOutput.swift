extension RetryStep {
    /// What a step's action returns: the exit it ends in (``Exit``, routed by the table's rows) and
    /// the values it produced for the attempts after it (by typed ``Key``). Over HTTP, a request
    /// change is an output of its own kind (`RetryStep.Output.change(_:)`, RetryFlowHTTP).
    ///
    /// ```swift
    /// let token = RetryStep.Key<String>("token")
    /// RetryStep("refresh credentials") { _ in .done.with(token, try await tokens.refresh()) }
    /// ```
    public struct Output: Sendable {
        /// The exit the step ends in: one of the step's ``RetryStep/exits``.
        public var exit: Exit
        /// What the step produced, merged into the run's values when it ends.
        package var values: Values
        /// Why the step took its exit, when the exit is a failure's (a credential store's refusal):
        /// kept as the visit's error (``StepRecord/error``) and described in the trace. The exit still
        /// routes the run; an action that throws ends in `step failed` instead.
        public var error: (any Error)?

        /// An output ending in `exit`, with no values yet.
        public init(_ exit: Exit = .done, error: (any Error)? = nil) {
            self.exit = exit
            self.values = Values()
            self.error = error
        }

        /// The step is done (``Exit/done``) and produced nothing.
        public static var done: Output { Output() }

        /// The value under `key`.
        package subscript<Value>(key: Key<Value>) -> Value? {
            get { values[key] }
            set { values[key] = newValue }
        }

        /// This output with `value` under `key`.
        public func with<Value>(_ key: Key<Value>, _ value: Value) -> Output {
            var output = self
            output[key] = value
            return output
        }
    }
}
