import Foundation

/// A token bucket shared by many runs that caps retries, so a fleet of clients cannot multiply the
/// load on a struggling server. It gates retries only, never first attempts.
///
/// Its states are a table (`TransitionTable.budget`), drawn by `retryflow render --machine budget`.
/// Thread-safe and cheap: one lock, one table lookup per call.
///
/// ```swift
/// let budget = try RetryBudget(.awsStandard)      // 500 tokens, 5 per retry, 10 per timeout retry
/// let engine = Retry(.default, guards: FleetGuards(budget: budget))
/// ```
public final class RetryBudget: Sendable {
    /// How it counts.
    public let mode: RetryBudgetMode
    private let traced: Locked<TracedMachine>
    private let tracing: Bool
    private let elapsed: @Sendable () -> Duration

    /// What the lock guards: the machine, and its trace when tracing.
    struct TracedMachine {
        var machine: BudgetMachine
        var trace: BudgetTrace?

        /// Delivers `input` and returns the step's answer (`retry asked` only); the trace (when kept)
        /// gets its rows, the last noting the tokens left.
        @discardableResult
        mutating func deliver(_ input: BudgetInput, at time: Duration?) -> BudgetAction? {
            // Every state has a row for every event: a rejection cannot happen.
            guard let step = try? machine.handle(input, at: time ?? .zero) else { return nil }
            if time != nil, trace != nil {
                let taken = step.taken
                for (index, var traced) in taken.enumerated() {
                    if index == taken.count - 1 {
                        traced.detail = "tokens: \(Double(machine.rules.milliTokens) / 1000)"
                    }
                    trace!.steps.append(traced)
                }
            }
            return step.produced.last
        }
    }

    /// A full bucket counting by `mode`, timed by `clock` (the real clock by default).
    public convenience init<C: Clock<Duration>>(
        _ mode: RetryBudgetMode = .awsStandard, clock: C = ContinuousClock()
    ) throws(RetryPolicyError) {
        try self.init(mode, clock: clock, tracing: false)
    }

    /// The same, with `tracing`: every transition is kept in ``trace`` (for charts and tests).
    package init<C: Clock<Duration>>(
        _ mode: RetryBudgetMode = .awsStandard, clock: C = ContinuousClock(), tracing: Bool
    ) throws(RetryPolicyError) {
        try mode.validate()
        self.mode = mode
        self.tracing = tracing
        self.traced = Locked(
            TracedMachine(
                machine: BudgetMachine(table: .budget, rules: BudgetRules(mode: mode)),
                trace: tracing ? BudgetTrace() : nil))
        let start = clock.now
        self.elapsed = { start.duration(to: clock.now) }
    }

    /// Tokens in the bucket now (thousandths kept exactly).
    public var tokens: Double { Double(traced.withLock { $0.machine.rules.milliTokens }) / 1000 }

    /// Where the budget stands now: `available` or `exhausted`.
    package var state: BudgetState { traced.withLock { $0.machine.state } }

    /// Every transition so far, when made with `tracing`.
    package var trace: BudgetTrace? { traced.withLock { $0.trace } }

    /// Asks to retry (`afterTimeout`: the failed attempt timed out, which AWS charges more for).
    /// Granted with a ticket for the tokens taken, or refused when the bucket is too low.
    ///
    /// ```swift
    /// guard case .granted(let ticket) = budget.ask() else { throw lastError }
    /// // … retry; on success: budget.record(.success(refunding: ticket))
    /// ```
    package func ask(afterTimeout: Bool = false) -> RetryBudgetPermit {
        let time = tracingTime()
        return traced.withLock { traced in
            switch traced.deliver(.retryAsked(timeout: afterTimeout), at: time) {
            case .grant:
                return .granted(RetryBudgetTicket(milliTokens: traced.machine.rules.cost(timeout: afterTimeout)))
            // Every `retry asked` step grants or denies (GuardAnswersTests): no answer is no permit.
            case .deny, nil: return .refused
            }
        }
    }

    /// Reports how an attempt ended: a success (refunding the tokens the run's last retry took, as
    /// AWS does) or a failure that is a sign of the server's ill health (gRPC charges one token).
    package func record(_ result: RetryBudgetResult) {
        let time = tracingTime()
        traced.withLock { traced in
            switch result {
            // Reports answer nothing (GuardAnswersTests).
            case .success(let ticket): _ = traced.deliver(.attemptSucceeded(refund: ticket?.milliTokens), at: time)
            case .failure: _ = traced.deliver(.attemptFailed, at: time)
            }
        }
    }

    /// The clock is read only when a trace is kept: the uncontended path is one lock and one lookup.
    private func tracingTime() -> Duration? {
        tracing ? elapsed() : nil
    }
}

/// The budget's answer to `RetryBudget/ask(afterTimeout:)`.
package enum RetryBudgetPermit: Hashable, Sendable {
    /// Retry; report the run's success with the ticket so its tokens come back.
    case granted(RetryBudgetTicket)
    /// Do not retry: the bucket is too low.
    case refused

    /// The tokens taken, in thousandths (zero for gRPC); `nil` when refused.
    package var milliTokens: Int? {
        guard case .granted(let ticket) = self else { return nil }
        return ticket.milliTokens
    }
}

/// The tokens one granted retry took, handed back with `RetryBudgetResult/success(refunding:)`.
package struct RetryBudgetTicket: Hashable, Sendable {
    /// Thousandths of a token, kept exactly.
    package let milliTokens: Int

    package init(milliTokens: Int) { self.milliTokens = milliTokens }
}

/// How an attempt ended, for `RetryBudget/record(_:)`.
package enum RetryBudgetResult: Hashable, Sendable {
    /// It succeeded; `refunding` is the ticket of the run's last granted retry (`nil`: it did not retry).
    case success(refunding: RetryBudgetTicket?)
    /// It failed in a way that says the server is unwell (a retryable failure).
    case failure
}

/// A retry budget's trace: each step's `detail` holds the tokens left after it.
package typealias BudgetTrace = TransitionTrace<BudgetVocabulary>
