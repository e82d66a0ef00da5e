/// The record of one run: every transition taken, in order, with when and during which attempt.
///
/// A run makes its trace (`RetryOutcome.trace`); you read it. It is data, so it can be saved as
/// JSON (`HTTPTraceJSON.encode` in RetryFlowHTTP), drawn over the chart, and checked against the
/// table with ``isConsistent(with:)``: a run that took a transition the table does not have is
/// caught.
public struct TransitionTrace<Vocabulary: TableVocabulary>: Sendable, Hashable {
    /// One transition taken.
    public struct Step: Sendable, Hashable {
        /// The state left.
        public var from: Vocabulary.State
        /// The event that triggered it (`nil` for a completion transition).
        public var event: Vocabulary.Event?
        /// The row's condition, as it held.
        public var condition: GuardCondition<Vocabulary.Guard>
        /// The state entered.
        public var to: Vocabulary.State
        /// Time since the run started, on the run's clock.
        public var at: Duration
        /// The attempt number current when the step was taken (0 before the first).
        public var attempt: Int
        /// The delay decided at this step, if any (the wait, or a Retry-After).
        public var delay: Duration?
        /// What happened, in words (an error description, redacted by the driver), if anything.
        public var detail: String?

        /// Makes a step: the driver, and our tools and tests (a trace file read back, a replay).
        package init(
            from: Vocabulary.State, event: Vocabulary.Event?, condition: GuardCondition<Vocabulary.Guard>,
            to: Vocabulary.State, at: Duration, attempt: Int,
            delay: Duration? = nil, detail: String? = nil
        ) {
            self.from = from
            self.event = event
            self.condition = condition
            self.to = to
            self.at = at
            self.attempt = attempt
            self.delay = delay
            self.detail = detail
        }
    }

    /// An event delivered in a state that has no row for it.
    public struct Rejection: Sendable, Hashable {
        /// The state the machine was in (and stayed in).
        public var state: Vocabulary.State
        /// The event that had no row.
        public var event: Vocabulary.Event
        /// When, since the run started.
        public var at: Duration

        /// Makes a rejection record (the machine, and our tools and tests). Usable from inline code:
        /// `TableMachine.handle` throws one, and is inlined into the modules that run machines.
        @usableFromInline package init(state: Vocabulary.State, event: Vocabulary.Event, at: Duration) {
            self.state = state
            self.event = event
            self.at = at
        }
    }

    /// The transitions taken, in order.
    public var steps: [Step]
    /// Events that had no row. A correct driver never produces one; tests assert this is empty.
    public var rejections: [Rejection]

    /// A trace of these steps (empty by default): the driver's, or one our tools and tests build.
    package init(steps: [Step] = [], rejections: [Rejection] = []) {
        self.steps = steps
        self.rejections = rejections
    }

    /// The state the run ended in (the last step's target), or `nil` before any step.
    package var finalState: Vocabulary.State? { steps.last?.to }

    /// Why this trace does not match `table`, one sentence per problem (empty when consistent).
    ///
    /// Checks: the first step leaves the initial state; each step is a row of the table; each step
    /// leaves the state the previous one entered; there are no rejected events.
    package func inconsistencies(with table: TransitionTable<Vocabulary>) -> [String] {
        var found: [String] = []
        if let first = steps.first, first.from != table.initial {
            found.append("first step leaves '\(first.from.label)', not the initial state '\(table.initial.label)'")
        }
        for (index, step) in steps.enumerated() {
            if !table.contains(from: step.from, event: step.event, condition: step.condition, to: step.to) {
                found.append("step \(index) is not a row of the table: \(Self.describe(step))")
            }
            if index > 0, steps[index - 1].to != step.from {
                found.append(
                    "step \(index) leaves '\(step.from.label)' but step \(index - 1) entered '\(steps[index - 1].to.label)'"
                )
            }
        }
        for rejection in rejections {
            found.append("event '\(rejection.event.label)' had no row in state '\(rejection.state.label)'")
        }
        return found
    }

    /// Whether every step of this run is a row of `table`, chained from its initial state.
    public func isConsistent(with table: TransitionTable<Vocabulary>) -> Bool {
        inconsistencies(with: table).isEmpty
    }

    /// `from --event [guard]--> to`.
    package static func describe(_ step: Step) -> String {
        let label = RowLabel.text(event: step.event, guardText: step.condition.bracketed, effects: [Vocabulary.Event]())
        return "\(step.from.label) --\(label)--> \(step.to.label)"
    }
}

/// A retry run's trace.
public typealias RetryTrace = TransitionTrace<RetryVocabulary>
