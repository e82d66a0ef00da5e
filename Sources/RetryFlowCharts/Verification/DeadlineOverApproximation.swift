import RetryFlow

/// When and how the retry machine's exploration under a deadline may first over-approximate the
/// time: positions told apart without it, each kept with the least time any run reaches it in
/// (``TableExplorer/overApproximate(measure:)``), and every attempt allowed to take any time up to
/// the deadline. Under a deadline the concrete world's times (an attempt ends at once or half-way to
/// the deadline, waits add their delays) make nearly every run's time its own, and the positions
/// grow exponentially with the waits that fit in the deadline; without the time, they are those of
/// a run without a deadline.
///
/// It covers the concrete world when the table reads the time as the shipped table does, which
/// ``init(table:policy:)`` checks:
/// - only `within deadline` reads it, on completion rows `[next wait would cross deadline]` that end
///   the run, at most one on the way of one step: a step's rows then depend on the time only
///   through one threshold, and from a smaller time every step a larger time allows is possible, or
///   the run ends by the same row at the deadline (each input that can meet such a row is also
///   delivered at the deadline);
/// - every `sleep` follows, at the same instant and with the same planned delay, a `within deadline`
///   that held: then no planned wait crosses the deadline at any time, which checking the smallest
///   time alone could not show.
/// A table that reads the time otherwise is explored exactly.
struct DeadlineOverApproximation: Sendable {
    /// The deadline.
    let deadline: Duration
    /// The events that can meet `within deadline` in the step they start, from each state (by its
    /// index in the table's states): delivered at the deadline too.
    let meetsDeadline: [[RetryEvent]]

    /// The approximation for `policy`'s deadline on `table`, or `nil` when there is no deadline or
    /// the table reads the time in a way it does not cover.
    init?(table: RetryTable, policy: RetryPolicy) {
        // A table the explorer refuses (a completion loop) is not walked here either.
        guard let deadline = policy.deadline, !table.problems.contains(where: \.stopsExploration) else { return nil }
        self.deadline = deadline
        let states = table.states
        let decisions = Set(table.rows.filter { $0.event == nil }.map(\.from))
        // A decision without an `else` could leave a step resting where the time decided it.
        for problem in table.problems {
            if case .decisionWithoutElse = problem { return nil }
        }
        for row in table.rows where row.condition.guardSymbol.map(Self.readsTime) == true {
            guard row.event == nil, case .unless = row.condition, table.isTerminal(row.to) else { return nil }
        }
        let timed = Set(
            table.rows.filter { $0.condition.guardSymbol.map(Self.readsTime) == true }.map(\.from))
        // At most one decision asking the time on the way of one step.
        func askedOnTheWay(from state: RetryState, seen: Int) -> Int {
            guard decisions.contains(state) else { return seen }
            let here = seen + (timed.contains(state) ? 1 : 0)
            return table.rows.filter { $0.from == state && $0.event == nil }
                .map { askedOnTheWay(from: $0.to, seen: here) }.max() ?? here
        }
        for row in table.rows where row.event != nil {
            guard askedOnTheWay(from: row.to, seen: 0) <= 1 else { return nil }
        }
        guard Self.sleepsFollowTheDeadlineCheck(table) else { return nil }
        meetsDeadline = states.map { state in
            table.rows.filter { $0.from == state && $0.event != nil && askedOnTheWay(from: $0.to, seen: 0) > 0 }
                .compactMap(\.event)
        }
    }

    /// Whether a guard reads the time (``RetryRules``: only `within deadline` compares the input's time).
    static func readsTime(_ guardSymbol: RetryGuard) -> Bool {
        switch guardSymbol {
        case .withinDeadline: true
        case .finalAnswer, .retryable, .attemptsLeft, .retryAfterWithinCap, .retryImmediately, .retryBudgetLeft,
            .waitsOutBreak, .waitsForToken, .refusalsLeft, .enters:
            false
        }
    }

    /// Whether the world (``RetryModel``) may deliver an input of `event` later than the last input:
    /// an attempt's outcome, the deadline, a wait's end. The others come at once.
    static func advancesTime(_ event: RetryEvent) -> Bool {
        switch event {
        case .succeeded, .failed, .failedAfterProgress, .attemptTimedOut, .deadlineExceeded, .delayElapsed: true
        case .start, .tokenGranted, .rateLimited, .admitted, .circuitOpen, .budgetAnswered, .cancelled, .stepExit,
            .stepFailed:
            false
        }
    }

    /// Whether every `sleep` of `table` follows a `within deadline` that held at the same instant for
    /// the same planned delay: on every way to it, the last input that could advance the time or
    /// change the delay (or `plan delay`) comes before a completion row taken after
    /// `[next wait would cross deadline]` was passed. A must-analysis to a greatest fixed point.
    static func sleepsFollowTheDeadlineCheck(_ table: RetryTable) -> Bool {
        let states = table.states
        let index = Dictionary(states.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        // Whether the check holds on entering each state; everything holds until shown otherwise.
        var checked = [Bool](repeating: true, count: states.count)
        checked[index[table.initial]!] = false
        // Whether taking `row` from a state where the check was `held` leaves it held, and whether a
        // `sleep` on it came unchecked.
        func take(_ row: RetryTable.Row, held: Bool) -> (held: Bool, uncheckedSleep: Bool) {
            var held = held
            if let event = row.event {
                if advancesTime(event) || event == .rateLimited { held = false }
            } else if let position = table.rows.firstIndex(where: { $0 == row }),
                table.rows[..<position].contains(where: {
                    $0.from == row.from && $0.event == nil && $0.condition.guardSymbol.map(readsTime) == true
                })
            {
                held = true // passed `[next wait would cross deadline]` just now: the wait fits
            }
            var unchecked = false
            for effect in row.effects {
                if effect == .planDelay { held = false }
                if effect == .sleep && !held { unchecked = true }
            }
            return (held, unchecked)
        }
        var changed = true
        while changed {
            changed = false
            for row in table.rows {
                guard let from = index[row.from], let to = index[row.to] else { continue }
                let (held, _) = take(row, held: checked[from])
                if checked[to] && !held {
                    checked[to] = false
                    changed = true
                }
            }
        }
        return !table.rows.contains { row in
            guard let from = index[row.from] else { return false }
            return take(row, held: checked[from]).uncheckedSleep
        }
    }
}
