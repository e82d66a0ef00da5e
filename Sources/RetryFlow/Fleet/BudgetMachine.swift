/// The retry budget's machine: pure, a value. ``TransitionTable/budget`` decides; this gives its
/// guard and effects their meaning (token arithmetic in thousandths, so it is exact).
package struct BudgetMachine: TableSemantics, Sendable {
    package typealias State = BudgetState
    package typealias Event = BudgetEvent
    package typealias Guard = BudgetGuard
    package typealias Effect = BudgetEffect

    /// The mode's numbers, in thousandths of a token.
    private let capacity: Int
    private let retryCost: Int
    private let timeoutRetryCost: Int
    private let successIncrement: Int
    private let failureCharge: Int
    /// gRPC's threshold: retries only while tokens are above it (AWS: none).
    private let grpcHalf: Int?

    package let table: BudgetTable
    package private(set) var state: BudgetState
    /// Tokens in the bucket, in thousandths.
    package private(set) var milliTokens: Int
    /// The cost of the retry being asked (the input's), or an ordinary retry's.
    private var asked: Int
    /// What a success gives back (the input's refund, or the mode's increment).
    private var refundDue: Int
    /// The answer to the last `retry asked`.
    package private(set) var granted = false

    package init(mode: RetryBudgetMode, table: BudgetTable = .budget) {
        switch mode {
        case .awsStandard(let capacity, let retryCost, let timeoutRetryCost, let successIncrement):
            self.capacity = capacity * 1000
            self.retryCost = retryCost * 1000
            self.timeoutRetryCost = timeoutRetryCost * 1000
            self.successIncrement = successIncrement * 1000
            self.failureCharge = 0
            self.grpcHalf = nil
        case .grpcThrottling(let maxTokens, let tokenRatio):
            self.capacity = RetryBudgetMode.milli(maxTokens)
            self.retryCost = 0
            self.timeoutRetryCost = 0
            self.successIncrement = RetryBudgetMode.milli(tokenRatio)
            self.failureCharge = 1000
            self.grpcHalf = RetryBudgetMode.milli(maxTokens) / 2
        }
        self.table = table
        self.state = table.initial
        self.milliTokens = capacity
        self.asked = retryCost
        self.refundDue = 0
    }

    /// The cost, in thousandths, that an ordinary retry or a timeout retry takes.
    package func cost(timeout: Bool) -> Int { timeout ? timeoutRetryCost : retryCost }

    /// A run asks to retry (after a timeout, when `timeout`). Returns the rows taken, or `nil` (never
    /// for this table: every state has a row for every event).
    package mutating func retryAsked(timeout: Bool) -> FiredRows? {
        asked = cost(timeout: timeout)
        granted = false
        defer { asked = retryCost }
        return fire(.retryAsked)
    }

    /// An attempt failed.
    package mutating func attemptFailed() -> FiredRows? { fire(.attemptFailed) }

    /// An attempt succeeded; `refund` is what its run's last retry took (AWS gives that back), or
    /// `nil` when the run needed no retry (AWS gives the success increment).
    package mutating func attemptSucceeded(refund: Int?) -> FiredRows? {
        refundDue = grpcHalf == nil ? (refund ?? successIncrement) : successIncrement
        return fire(.attemptSucceeded)
    }

    private mutating func fire(_ event: BudgetEvent) -> FiredRows? {
        var state = self.state
        let fired = table.fire(event, in: &state, with: &self)
        self.state = state
        return fired
    }

    package func holds(_ guardSymbol: BudgetGuard) -> Bool {
        switch guardSymbol {
        case .retryAffordable:
            if let grpcHalf { return milliTokens > grpcHalf }
            return milliTokens >= asked
        }
    }

    package mutating func perform(_ effect: BudgetEffect) {
        switch effect {
        case .takeTokens: milliTokens -= asked
        case .grant: granted = true
        case .deny: granted = false
        case .chargeFailure: milliTokens = max(0, milliTokens - failureCharge)
        case .refund: milliTokens = min(capacity, milliTokens + refundDue)
        }
    }
}
