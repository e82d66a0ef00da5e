import RetryFlow

extension RetryOutcome {
    /// For a hedged run (`HTTPRetryOptions.hedging`): each hedged attempt's race, in order (its
    /// copies, hedges counted apart from retries, and its trace against `TransitionTable.hedging`).
    /// Empty for a run that did not hedge.
    public package(set) var hedging: [HedgingRecord] {
        // The HTTP driver is the only writer, and it writes a `[HedgingRecord]`.
        get { hedgingStorage as? [HedgingRecord] ?? [] }
        set { hedgingStorage = newValue }
    }

    /// Hedges sent over the whole run (retries are `attempts` after the first).
    public var hedges: Int { hedging.reduce(0) { $0 + $1.hedges } }
}
