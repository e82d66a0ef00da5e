/// Where a ``RetryBudget`` stands. The raw values are the node labels on its chart.
package enum BudgetState: String, TableSymbol {
    /// The bucket can pay for an ordinary retry.
    case available
    /// It cannot: every retry is refused until successes refill it.
    case exhausted
    /// A retry was asked; the bucket weighs its cost. A decision: never rested in.
    case pricing
    /// Tokens just changed; the bucket decides where it stands. A decision: never rested in.
    case settling
}

/// What happens to a budget. Each comes from a run sharing it.
package enum BudgetEvent: String, TableSymbol {
    /// A run wants to retry (the retry machine's `ask retry budget` effect).
    case retryAsked = "retry asked"
    /// An attempt failed (gRPC charges every failure; AWS charges nothing here).
    case attemptFailed = "attempt failed"
    /// An attempt succeeded: tokens come back.
    case attemptSucceeded = "attempt succeeded"
}

/// The one question a budget asks.
package enum BudgetGuard: String, TableSymbol {
    /// The bucket can pay for the retry asked (AWS: tokens ≥ its cost; gRPC: tokens > maxTokens / 2).
    case retryAffordable = "retry affordable"

    /// `[retry budget exhausted]`.
    package var negatedLabel: String { "retry budget exhausted" }
}

/// What a budget's rows do.
package enum BudgetEffect: String, TableSymbol {
    /// Take the retry's cost from the bucket (AWS; gRPC retries cost nothing more than their failure).
    case takeTokens = "take tokens"
    /// Answer the run: retry permitted.
    case grant
    /// Answer the run: retry refused.
    case deny
    /// Take a failed attempt's charge (gRPC: 1 token; AWS: none).
    case chargeFailure = "charge failure"
    /// Give back a success's refund, never above the capacity.
    case refund
}

/// The words of a retry budget's table: its states, events, guards, effects and the reasons a run ends.
package typealias BudgetVocabulary = TableWords<BudgetState, BudgetEvent, BudgetGuard, BudgetEffect, PerpetualReason>

/// A retry budget's transition table.
package typealias BudgetTable = TransitionTable<BudgetVocabulary>

extension TransitionTable where Vocabulary == BudgetVocabulary {
    // The rows line up in columns like the chart; the formatter would close them up.
    // swift-format-ignore
    /// The retry budget, as data: what ``RetryBudget`` executes and `retryflow render --machine budget` draws.
    ///
    /// A perpetual machine (no terminal state). A retry asked is weighed in `pricing` (its guard reads
    /// the cost the input brought); every token change passes through `settling`, whose guard reads
    /// the tokens the change produced.
    package static let budget = BudgetTable(
        name: "RetryBudget",
        initial: .available,
        terminals: [],
        rows: [
            // event               from              guard                    to              do (effects), ends (reason)
            .on(.retryAsked,       from: .available,                          to: .pricing),
            .completion(           from: .pricing,   .when(.retryAffordable), to: .settling,  do: .takeTokens, .grant),
            // A timeout retry (AWS: 10 tokens) can be refused while an ordinary one (5) is still affordable.
            .completion(           from: .pricing,                            to: .available, do: .deny),
            .on(.attemptFailed,    from: .available,                          to: .settling,  do: .chargeFailure),
            .on(.attemptSucceeded, from: .available,                          to: .available, do: .refund),

            .on(.retryAsked,       from: .exhausted,                          to: .exhausted, do: .deny),
            .on(.attemptFailed,    from: .exhausted,                          to: .exhausted, do: .chargeFailure),
            .on(.attemptSucceeded, from: .exhausted,                          to: .settling,  do: .refund),

            .completion(           from: .settling,  .when(.retryAffordable), to: .available),
            .completion(           from: .settling,                           to: .exhausted),
        ]
    )
}
