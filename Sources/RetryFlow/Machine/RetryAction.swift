/// One thing the driver must do, with its values: an effect of a table row, made concrete by the machine.
public enum RetryAction: Hashable, Sendable {
    /// Begin attempt number `n` (1-based).
    case startAttempt(Int)
    /// Abandon the attempt in flight.
    case cancelAttempt
    /// Tell observers that `attempt` failed and the next begins after `delay`.
    case notifyRetry(attempt: Int, delay: Duration)
    /// Ask the retry budget for a token (a timeout retry costs more in AWS mode), then deliver
    /// `budgetAnswered` with the answer (granted, without a budget).
    case askRetryBudget(afterTimeout: Bool)
    /// Sleep `delay` on the clock, then deliver `delayElapsed`.
    case sleep(Duration)
    /// The run is over in `state`, for `reason`.
    case finish(state: RetryState, reason: StopReason)
}

/// The actions of one machine step, in order: a fixed-size value, so a step allocates nothing.
///
/// Iterate it: `for action in actions { … }`.
public struct RetryActions: Sequence, Hashable, Sendable {
    /// The most actions one step can produce (an event row plus a completion row).
    public static let capacity = 4

    private var a0: RetryAction?
    private var a1: RetryAction?
    private var a2: RetryAction?
    private var a3: RetryAction?
    /// How many actions there are.
    public private(set) var count = 0

    /// No actions.
    public init() {}

    /// Appends an action. A table whose step needs more than ``capacity`` fails validation in tests;
    /// in release an extra action is dropped rather than crashing.
    @usableFromInline
    mutating func append(_ action: RetryAction) {
        switch count {
        case 0: a0 = action
        case 1: a1 = action
        case 2: a2 = action
        case 3: a3 = action
        default:
            assertionFailure("more than \(Self.capacity) actions in one step")
            return
        }
        count += 1
    }

    /// The action at `index`.
    public subscript(index: Int) -> RetryAction {
        precondition(index >= 0 && index < count, "action index out of range")
        switch index {
        case 0: return a0!
        case 1: return a1!
        case 2: return a2!
        default: return a3!
        }
    }

    /// Iterates the actions in order.
    public struct Iterator: IteratorProtocol {
        fileprivate let actions: RetryActions
        fileprivate var index = 0
        /// The next action.
        public mutating func next() -> RetryAction? {
            guard index < actions.count else { return nil }
            defer { index += 1 }
            return actions[index]
        }
    }

    /// An iterator over the actions.
    public func makeIterator() -> Iterator { Iterator(actions: self) }

    /// The actions as an array (for tests and display; allocates).
    public var array: [RetryAction] { Array(self) }
}
