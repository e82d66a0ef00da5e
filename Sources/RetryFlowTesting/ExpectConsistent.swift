#if canImport(Testing)
    import RetryFlow
    import Testing

    /// Records a test issue for every way `trace` disagrees with `table` (a step that is no row, a
    /// broken chain, a rejected event), and for an empty trace: pass every trace your tests produce
    /// through it, so no run escapes the table.
    ///
    /// ```swift
    /// let outcome = try await Retry(policy, clock: clock).outcome { _ in try await fetch() }
    /// expectConsistent(outcome.trace)
    /// ```
    public func expectConsistent<Vocabulary>(
        _ trace: TransitionTrace<Vocabulary>, with table: TransitionTable<Vocabulary>,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let problems = trace.inconsistencies(with: table)
        #expect(
            problems.isEmpty, "trace disagrees with table '\(table.name)': \(problems)", sourceLocation: sourceLocation)
        #expect(!trace.steps.isEmpty, "empty trace", sourceLocation: sourceLocation)
    }

    /// ``expectConsistent(_:with:sourceLocation:)`` against the retry table.
    public func expectConsistent(_ trace: RetryTrace, sourceLocation: SourceLocation = #_sourceLocation) {
        expectConsistent(trace, with: RetryTable.retry, sourceLocation: sourceLocation)
    }
#endif
