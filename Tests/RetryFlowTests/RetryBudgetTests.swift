import Foundation
import RetryFlow
import RetryFlowTesting
import Testing

/// Exact token arithmetic for both published modes, and the budget's trace against its table.
@Suite struct RetryBudgetTests {
    @Test func budgetTableIsValid() throws {
        try BudgetTable.budget.validate()
        // Every (state, event) the object can deliver has a row; only the decisions take no events.
        #expect(BudgetTable.budget.invalidPairs.allSatisfy { BudgetTable.budget.isDecision($0.state) })
    }

    @Test func awsFreshBucketPaysExactlyOneHundredOrdinaryRetries() throws {
        let budget = try RetryBudget(.awsStandard, clock: ManualClock(), tracing: true)
        for n in 1...100 { #expect(budget.ask(afterTimeout: false).milliTokens == 5000, "retry \(n)") }
        #expect(budget.tokens == 0)
        #expect(budget.state == .exhausted)
        #expect(budget.ask(afterTimeout: false).milliTokens == nil)
        expectBudgetConsistent(budget)
    }

    @Test func awsFreshBucketPaysExactlyFiftyTimeoutRetries() throws {
        let budget = try RetryBudget(.awsStandard, clock: ManualClock(), tracing: true)
        for n in 1...50 { #expect(budget.ask(afterTimeout: true).milliTokens == 10000, "retry \(n)") }
        #expect(budget.tokens == 0)
        #expect(budget.ask(afterTimeout: true).milliTokens == nil)
        expectBudgetConsistent(budget)
    }

    @Test func awsTimeoutRetryRefusedWhileOrdinaryOneIsStillPaid() throws {
        let budget = try RetryBudget(
            .awsStandard(capacity: 12, retryCost: 5, timeoutRetryCost: 10, successIncrement: 1))
        #expect(budget.ask(afterTimeout: true).milliTokens == 10000) // 12 → 2
        #expect(budget.ask(afterTimeout: false).milliTokens == nil) // 2 < 5
        budget.record(.success(refunding: nil)) // +1 → 3
        budget.record(.success(refunding: RetryBudgetTicket(milliTokens: 10000))) // the retry's 10 back, capped at 12
        #expect(budget.tokens == 12)
        #expect(budget.state == .available)
        #expect(budget.ask(afterTimeout: true).milliTokens == 10000) // 12 → 2: denied timeout retry leaves it available
        budget.record(.success(refunding: nil))
        budget.record(.success(refunding: nil))
        budget.record(.success(refunding: nil)) // 5
        #expect(budget.state == .available)
        #expect(budget.ask(afterTimeout: true).milliTokens == nil) // 5 < 10, still available for ordinary ones
        #expect(budget.state == .available)
        #expect(budget.ask(afterTimeout: false).milliTokens == 5000)
        #expect(budget.tokens == 0)
    }

    @Test func awsFailuresCostNothingAndSuccessesRefillOneAtATime() throws {
        let budget = try RetryBudget(.awsStandard)
        for _ in 1...100 { _ = budget.ask(afterTimeout: false).milliTokens }
        for _ in 1...1000 { budget.record(.failure) }
        #expect(budget.tokens == 0)
        for _ in 1...4 { budget.record(.success(refunding: nil)) }
        #expect(budget.state == .exhausted)
        budget.record(.success(refunding: nil))
        #expect(budget.tokens == 5)
        #expect(budget.state == .available)
    }

    @Test func grpcFiveFailuresStopRetriesAndOneSuccessResumesThem() throws {
        let budget = try RetryBudget(.grpc(maxTokens: 10, tokenRatio: 0.1), clock: ManualClock(), tracing: true)
        for failure in 1...4 {
            budget.record(.failure)
            #expect(budget.ask(afterTimeout: false).milliTokens == 0, "after failure \(failure)")
        }
        budget.record(.failure) // 5 tokens: not above maxTokens / 2
        #expect(budget.tokens == 5)
        #expect(budget.state == .exhausted)
        #expect(budget.ask(afterTimeout: false).milliTokens == nil)
        budget.record(.success(refunding: nil)) // 5.1
        #expect(budget.tokens == 5.1)
        #expect(budget.state == .available)
        #expect(budget.ask(afterTimeout: true).milliTokens == 0)
        expectBudgetConsistent(budget)
    }

    @Test func grpcTokensStayWithinZeroAndMax() throws {
        let budget = try RetryBudget(.grpc(maxTokens: 3, tokenRatio: 0.5))
        for _ in 1...10 { budget.record(.failure) }
        #expect(budget.tokens == 0)
        // gRPC ignores AWS refunds.
        for _ in 1...100 { budget.record(.success(refunding: RetryBudgetTicket(milliTokens: 7000))) }
        #expect(budget.tokens == 3)
    }

    @Test func badModesAreRefusedByName() {
        #expect(throws: RetryPolicyError.self) { try RetryBudget(.grpc(maxTokens: 0, tokenRatio: 0.1)) }
        #expect(throws: RetryPolicyError.self) { try RetryBudget(.grpc(maxTokens: 10, tokenRatio: .nan)) }
        do {
            _ = try RetryBudget(.awsStandard(capacity: 10, retryCost: 0, timeoutRetryCost: 10, successIncrement: 1))
            Issue.record("a free retry was accepted")
        } catch {
            #expect(error.field == "budget.retryCost")
        }
    }

    /// 1,000 concurrent runs sharing one budget: every token is accounted for afterwards.
    /// The loop of docs/fleet.md's "without the engine", by hand: the ticket of the last granted retry
    /// brings its tokens back on success, and a refusal hands nothing out.
    @Test func aLoopOfYourOwnGetsTheLastRetrysTokensBack() throws {
        let budget = try RetryBudget(
            .awsStandard(capacity: 12, retryCost: 5, timeoutRetryCost: 10, successIncrement: 1))
        var lastRetry: RetryBudgetTicket?
        for _ in 1...2 {
            budget.record(.failure) // AWS charges a failure nothing
            guard case .granted(let ticket) = budget.ask() else {
                Issue.record("refused with \(budget.tokens)")
                return
            }
            lastRetry = ticket
        }
        #expect(budget.tokens == 2)
        #expect(budget.ask() == .refused)
        #expect(budget.ask(afterTimeout: true) == .refused)
        budget.record(.success(refunding: lastRetry))
        #expect(budget.tokens == 7) // the last retry's 5 back; the first retry's stay spent
        #expect(budget.ask(afterTimeout: true) == .refused) // 7 < 10
        #expect(budget.ask().milliTokens == 5000)
    }

    @Test func concurrentRunsLoseNoToken() async throws {
        let budget = try RetryBudget(
            .awsStandard(capacity: 10_000, retryCost: 5, timeoutRetryCost: 10, successIncrement: 1))
        let granted = await withTaskGroup(of: Int.self) { group in
            for run in 0..<1000 {
                group.addTask {
                    // Each run: 3 retries asked (odd runs after timeouts), then one success refunding the last.
                    var taken = 0
                    var last: Int?
                    for _ in 0..<3 {
                        if let cost = budget.ask(afterTimeout: run % 2 == 1).milliTokens {
                            taken += cost
                            last = cost
                        }
                    }
                    budget.record(.success(refunding: last.map { RetryBudgetTicket(milliTokens: $0) }))
                    // What the run kept: its takes minus the refund (AWS gives 1 token to a run that got no retry).
                    return taken - (last ?? 1000)
                }
            }
            return await group.reduce(0, +)
        }
        // Start 10,000; the runs ask 500 × 15 + 500 × 30 = 22,500, so many are refused. Every run that got
        // a retry kept at least one other's cost, so the bucket never returns near its cap (no clipping):
        // what is left is exactly the start minus what was kept.
        #expect(budget.tokens * 1000 == Double(10_000_000 - granted))
        #expect(granted > 0)
        #expect(budget.tokens < 10_000)
    }
}

/// The budget's trace (it must have been made with `tracing`) against its table.
func expectBudgetConsistent(_ budget: RetryBudget, sourceLocation: SourceLocation = #_sourceLocation) {
    guard let trace = budget.trace else {
        Issue.record("budget made without tracing", sourceLocation: sourceLocation)
        return
    }
    expectConsistent(trace, with: BudgetTable.budget, sourceLocation: sourceLocation)
}
