/// What a run tells a retry budget, with its payload.
package enum BudgetInput: Hashable, Sendable, MachineInput {
    /// A run wants to retry, after a timeout when `timeout` (AWS charges more).
    case retryAsked(timeout: Bool)
    /// An attempt failed.
    case attemptFailed
    /// An attempt succeeded; `refund` is what its run's last retry took, in thousandths (`nil`: none).
    case attemptSucceeded(refund: Int?)

    package var event: BudgetEvent {
        switch self {
        case .retryAsked: .retryAsked
        case .attemptFailed: .attemptFailed
        case .attemptSucceeded: .attemptSucceeded
        }
    }
}

/// The retry budget's specialisation of ``TableMachine``: token arithmetic in thousandths, so it is exact.
package struct BudgetRules: MachineRules, Hashable {
    package typealias Vocabulary = BudgetVocabulary

    /// The mode's numbers, in thousandths of a token.
    private let capacity: Int
    private let retryCost: Int
    private let timeoutRetryCost: Int
    private let successIncrement: Int
    private let failureCharge: Int
    /// gRPC's threshold: retries only while tokens are above it (AWS: none).
    private let grpcHalf: Int?

    /// Tokens in the bucket, in thousandths.
    package private(set) var milliTokens: Int
    /// The cost of the retry being weighed (the input's), or an ordinary retry's.
    private var asked: Int
    /// What a success gives back (the input's refund, or the mode's increment).
    private var refundDue = 0

    package init(mode: RetryBudgetMode) {
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
        self.milliTokens = capacity
        self.asked = retryCost
    }

    /// The cost, in thousandths, that an ordinary retry or a timeout retry takes.
    package func cost(timeout: Bool) -> Int { timeout ? timeoutRetryCost : retryCost }

    package mutating func receive(_ input: BudgetInput, at time: Duration) {
        asked = retryCost
        switch input {
        case .retryAsked(let timeout): asked = cost(timeout: timeout)
        case .attemptFailed: break
        case .attemptSucceeded(let refund):
            refundDue = grpcHalf == nil ? (refund ?? successIncrement) : successIncrement
        }
    }

    package func holds(_ guardSymbol: BudgetGuard) -> Bool {
        switch guardSymbol {
        case .retryAffordable:
            if let grpcHalf { return milliTokens > grpcHalf }
            return milliTokens >= asked
        }
    }

    package mutating func perform(_ effect: BudgetEffect, of row: Row) -> BudgetAction? {
        switch effect {
        case .takeTokens:
            milliTokens -= asked
            asked = retryCost // `settling` then asks whether an ordinary retry is still affordable
            return nil
        case .grant: return .grant
        case .deny: return .deny
        case .chargeFailure:
            milliTokens = max(0, milliTokens - failureCharge)
            return nil
        case .refund:
            milliTokens = min(capacity, milliTokens + refundDue)
            return nil
        }
    }
}

/// The budget's machine: the one core running `TransitionTable.budget` with the budget rules.
package typealias BudgetMachine = TableMachine<BudgetRules>
