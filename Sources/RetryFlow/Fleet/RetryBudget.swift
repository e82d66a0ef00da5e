import Foundation

/// A token bucket shared by many runs that caps retries, so a fleet of clients cannot multiply the
/// load on a struggling server. It gates retries only, never first attempts.
///
/// Its states are a table (``TransitionTable/budget``), drawn by `retryflow render --machine budget`.
/// Thread-safe and cheap: one lock, one table lookup per call.
///
/// ```swift
/// let budget = RetryBudget(.awsStandard)          // 500 tokens, 5 per retry, 10 per timeout retry
/// let engine = Retry(Resilience(policy: .default, budget: budget))
/// ```
public final class RetryBudget: Sendable {
    /// How it counts.
    public let mode: RetryBudgetMode
    private let book: Locked<Book>
    private let tracing: Bool
    private let elapsed: @Sendable () -> Duration

    struct Book {
        var machine: BudgetMachine
        var trace: BudgetTrace?
    }

    /// A full bucket counting by `mode`. With `tracing`, every transition is kept in ``trace``
    /// (times on `clock`, from now); leave it off for a long-lived budget, whose trace would grow forever.
    public init<C: Clock<Duration>>(_ mode: RetryBudgetMode, clock: C, tracing: Bool = false) throws(RetryPolicyError) {
        try mode.validate()
        self.mode = mode
        self.tracing = tracing
        self.book = Locked(Book(machine: BudgetMachine(mode: mode), trace: tracing ? BudgetTrace() : nil))
        let start = clock.now
        self.elapsed = { start.duration(to: clock.now) }
    }

    /// A full bucket counting by `mode`, on the real clock (see ``init(_:clock:tracing:)``).
    public convenience init(_ mode: RetryBudgetMode = .awsStandard, tracing: Bool = false) throws(RetryPolicyError) {
        try self.init(mode, clock: ContinuousClock(), tracing: tracing)
    }

    /// Tokens in the bucket now (thousandths kept exactly).
    public var tokens: Double { Double(book.withLock { $0.machine.milliTokens }) / 1000 }

    /// Where the budget stands now: `available` or `exhausted`.
    public var state: BudgetState { book.withLock { $0.machine.state } }

    /// Every transition so far, when made with `tracing`.
    public var trace: BudgetTrace? { book.withLock { $0.trace } }

    /// Asks to retry (after a timeout, when `timeout`: AWS charges more). Returns the tokens taken,
    /// in thousandths (zero for gRPC), or `nil` when the retry is refused.
    package func acquireRetry(timeout: Bool) -> Int? {
        let traced = tracingTime()
        return book.withLock { book in
            let fired = book.machine.retryAsked(timeout: timeout)
            book.record(fired, at: traced)
            return book.machine.granted ? book.machine.cost(timeout: timeout) : nil
        }
    }

    /// Records a failed attempt (gRPC charges one token; AWS nothing).
    package func recordFailure() {
        let traced = tracingTime()
        book.withLock { book in book.record(book.machine.attemptFailed(), at: traced) }
    }

    /// Records a successful attempt. `refund` is what the run's last retry took (``acquireRetry(timeout:)``'s
    /// answer), `nil` when the run succeeded without retrying.
    package func recordSuccess(refund: Int?) {
        let traced = tracingTime()
        book.withLock { book in book.record(book.machine.attemptSucceeded(refund: refund), at: traced) }
    }

    /// The clock is read only when a trace is kept: the uncontended path is one lock and one lookup.
    private func tracingTime() -> Duration? {
        tracing ? elapsed() : nil
    }
}

extension RetryBudget.Book {
    fileprivate mutating func record(_ fired: FiredRows?, at time: Duration?) {
        guard let time, trace != nil, let fired else { return }
        let tokens = "tokens: \(Double(machine.milliTokens) / 1000)"
        trace!.steps.append(machine.table.traceStep(ofRow: fired.row, at: time, detail: fired.completion == nil ? tokens : nil))
        if let completion = fired.completion {
            trace!.steps.append(machine.table.traceStep(ofRow: completion, at: time, detail: tokens))
        }
    }
}

/// A retry budget's trace: each step's `detail` holds the tokens left after it.
public typealias BudgetTrace = TransitionTrace<BudgetState, BudgetEvent, BudgetGuard>
