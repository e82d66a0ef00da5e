/// The retry machine: ``TableMachine`` running ``TransitionTable/retry`` (or another table of the
/// same vocabulary) with the retry rules, which answer its guards from the policy and give its
/// effects their values. Pure: no I/O, no clock (times come in with the inputs).
///
/// ```swift
/// var machine = RetryMachine(policy: .default, random: SeededRandom(seed: 1))
/// let step = try machine.handle(.start, at: .zero)         // actions: [.askLimiter]
/// let asked = try machine.handle(.tokenGranted, at: .zero) // actions: [.askBreaker(attempt: 1)]
/// let sent = try machine.handle(.admitted, at: .zero)       // actions: [.startAttempt(1)]
/// ```
package struct RetryMachine: Sendable {
    /// What one call to ``handle(_:at:)`` did: the rows taken and the actions to perform.
    package typealias Step = MachineStep<RetryVocabulary, RetryAction>

    // `@usableFromInline` for the inlinable `handle`, as are the retry rules.
    @usableFromInline var core: TableMachine<RetryRules>

    /// A machine in the table's initial state. `random` drives jitter; pass a ``SeededRandom`` to
    /// replay. A run refused by an open circuit waits out the break (`waitsOutBreak`) or fails; one
    /// the rate limiter paces waits for its token (`waitsForToken`) or fails.
    package init(
        policy: RetryPolicy, waitsOutBreak: Bool = true, waitsForToken: Bool = true, table: RetryTable = .retry,
        random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()
    ) {
        core = TableMachine(
            table: table,
            rules: RetryRules(
                policy: policy, random: AnyRandom(random), waitsOutBreak: waitsOutBreak, waitsForToken: waitsForToken))
    }

    /// The table this machine executes.
    package var table: RetryTable { core.table }
    /// The policy its guards and delays consult.
    package var policy: RetryPolicy { core.rules.policy }
    /// The current state.
    package var state: RetryState { core.state }
    /// How many attempts have started.
    package var attempt: Int { core.rules.attempt }
    /// Whether the run is over.
    package var isFinished: Bool { core.isFinished }

    /// Delivers `input`, which happened `at` (time since the run started), and moves by the table.
    ///
    /// - Throws: `InvalidTransition` when the table has no row for the input's event in the
    ///   current state; the machine is left unchanged.
    // Inlinable so the core's step writes straight into the caller's step: called, the ~300-byte step
    // was built in a temporary and copied out (memcpy, ≈ 50 instructions a step; docs/benchmarks.md).
    @inlinable
    package mutating func handle(_ input: RetryInput, at time: Duration) throws(InvalidTransition) -> Step {
        try core.handle(input, at: time)
    }
}
