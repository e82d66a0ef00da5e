extension RetryStep {
    /// The name and type of one value a step produces for the attempts after it: reading a value
    /// with its key gives it back with its type, so nothing is cast by hand.
    ///
    /// ```swift
    /// let token = RetryStep.Key<String>("token")
    /// RetryStep("refresh credentials") { _ in .done.with(token, try await tokens.refresh()) }
    /// // in the operation: attempt.values[token] is a String?
    /// ```
    public struct Key<Value: Sendable>: Hashable, Sendable {
        /// The key's name (two keys are one only if their names and value types are).
        package let name: String
        /// Whether every step keeps its own value under this key, so a later step's adds to an
        /// earlier one's instead of replacing it (a request change: each step's applies).
        package let perStep: Bool

        /// A key named `name` for values of type `Value`.
        public init(_ name: String) {
            self.name = name
            perStep = false
        }

        /// A key whose values each step keeps apart (read back with `Values.all(_:)`).
        package init(_ name: String, perStep: Bool) {
            self.name = name
            self.perStep = perStep
        }

        /// Where the value is kept: the name, the type, and with a per-step key the step.
        func slot(in step: ID?) -> Values.Slot {
            Values.Slot(name: name, type: ObjectIdentifier(Value.self), perStep: perStep, step: perStep ? step : nil)
        }
    }

    /// What steps produced, by typed key (``Key``): a step's ``Output`` fills them, and a run merges
    /// every step's into the values its later attempts and steps read (``RetryAttempt/values``,
    /// ``Context/values``). A later value under the same key replaces an earlier one. Never traced:
    /// they may hold credentials.
    public struct Values: Sendable {
        /// Where one value is kept.
        struct Slot: Hashable {
            let name: String
            let type: ObjectIdentifier
            let perStep: Bool
            /// The step that produced the value, for a per-step key once merged into a run's values.
            let step: ID?
        }

        /// The values in the order their slots were first filled (a replaced value keeps its place).
        private var entries: [(slot: Slot, value: any Sendable)] = []

        /// No values.
        package init() {}

        /// Whether no step produced anything.
        package var isEmpty: Bool { entries.isEmpty }

        /// The value under `key`, with its type; `nil` when no step produced one.
        public subscript<Value>(key: Key<Value>) -> Value? {
            get {
                let slot = key.slot(in: nil)
                // The slot's type is `Value`'s: only this subscript fills it.
                return entries.first { $0.slot == slot }?.value as? Value
            }
            set { set(newValue, at: key.slot(in: nil)) }
        }

        /// Every step's value under the per-step `key`, in the order the steps first produced one.
        package func all<Value>(_ key: Key<Value>) -> [Value] {
            entries.compactMap { entry in
                entry.slot.name == key.name && entry.slot.perStep == key.perStep
                    && entry.slot.type == ObjectIdentifier(Value.self) ? entry.value as? Value : nil
            }
        }

        /// Merges what the step `step` produced: each value replaces the one under its key (under its
        /// key and the step, for a per-step key).
        package mutating func merge(_ produced: Values, from step: ID) {
            for entry in produced.entries {
                let slot = entry.slot
                set(
                    entry.value,
                    at: slot.perStep ? Slot(name: slot.name, type: slot.type, perStep: true, step: step) : slot)
            }
        }

        private mutating func set(_ value: (any Sendable)?, at slot: Slot) {
            let index = entries.firstIndex { $0.slot == slot }
            switch (index, value) {
            case (let index?, let value?): entries[index].value = value
            case (let index?, nil): entries.remove(at: index)
            case (nil, let value?): entries.append((slot, value))
            case (nil, nil): break
            }
        }
    }
}
