extension RetryPolicy {
    /// Checks the policy's table and steps together: the table validates (``TransitionTable/validate()``:
    /// no unbounded loop, no dead end, every ending row names its reason, …), every step state has an
    /// action in ``steps`` and every step a state, no step takes a built-in state's name, `run step`
    /// only enters a step, and each step's bound is at least 1. Called by ``validate()``.
    func validateTable() throws(RetryPolicyError) {
        // The shipped table (or a copy) is a constant that the tests check from scratch
        // (`TableChecksTests`): its table checks are not searched again in every process.
        let shipped = table.checks === RetryTable.retry.checks
        do {
            if !shipped { try table.validate() }
        } catch {
            throw RetryPolicyError(
                field: "table", problem: "is invalid: \(error.problems.map(\.description).joined(separator: "; "))")
        }
        // The shipped table has no step states and no rows that run or enter a step (the same tests
        // check it): without steps of the policy's own there is nothing below to find, and the
        // search copied every row once a run (nginx-concurrency's profile).
        if shipped && steps.isEmpty { return }
        var names: Set<RetryStep.ID> = []
        for step in steps {
            guard names.insert(step.id).inserted else {
                throw RetryPolicyError(field: "steps", problem: "name the step '\(step.name)' twice")
            }
            guard !RetryState.allCases.contains(where: { $0.rawValue == step.name }) else {
                throw RetryPolicyError(field: "steps", problem: "may not name a step '\(step.name)', a built-in state")
            }
            guard step.maxVisits >= 1 else {
                throw RetryPolicyError(
                    field: "steps", problem: "'\(step.name)' needs maxVisits of at least 1 (got \(step.maxVisits))")
            }
            if case .afterFailures(let count) = step.entry, count < 1 {
                throw RetryPolicyError(
                    field: "steps", problem: "'\(step.name)' needs afterFailures of at least 1 (got \(count))")
            }
            guard table.states.contains(step.state) else {
                throw RetryPolicyError(
                    field: "steps", problem: "'\(step.name)' has no state in the table (policy.add(step) adds its rows)"
                )
            }
            try Self.checkExits(of: step, in: table)
        }
        for state in table.states {
            if case .step(let id) = state, !names.contains(id) {
                throw RetryPolicyError(
                    field: "table", problem: "has the step state '\(id.name)' but steps has no action for it")
            }
        }
        // A pure function of the table: searched once per table (`TableChecks`), not once per run.
        if !shipped && !table.checks.hasPassed(.producedFacts) {
            if let (row, guardSymbol, entered) = table.unproducedFact() {
                let producer =
                    (guardSymbol.producers?.effects.map(\.label) ?? [])
                    + (guardSymbol.producers?.events.map(\.label) ?? [])
                throw RetryPolicyError(
                    field: "table",
                    problem: "has a row that reads '\(guardSymbol.label)', which no row before it produces "
                        + "(\(producer.joined(separator: " or "))): \(row), entered by \(entered)")
            }
            table.checks.record(.producedFacts)
        }
        for row in table.rows {
            if row.effects.contains(.runStep), case .step = row.to {
            } else if row.effects.contains(.runStep) {
                throw RetryPolicyError(field: "table", problem: "runs a step on a row that enters no step: \(row)")
            }
            if case .enters(let id)? = row.condition.guardSymbol, !names.contains(id) {
                throw RetryPolicyError(
                    field: "table",
                    problem: "guards a row with the step '\(id.name)', which steps has no action for: \(row)")
            }
            if case .stepExit(let exit)? = row.event, !steps.contains(where: { $0.state == row.from }) {
                throw RetryPolicyError(
                    field: "table", problem: "takes the step exit '\(exit.name)' from a state that is no step: \(row)")
            }
        }
    }

    /// Throws unless `step`'s exits can be told apart and each is routed: no exit twice, none named
    /// like a built-in event (its label would read as that event), a row from the step's state for
    /// every exit (else the run would stop there), and no such row for an exit the step lacks.
    private static func checkExits(of step: RetryStep, in table: RetryTable) throws(RetryPolicyError) {
        guard !step.exits.isEmpty else {
            throw RetryPolicyError(field: "steps", problem: "'\(step.name)' needs at least one exit")
        }
        var seen: Set<RetryStep.Exit> = []
        for exit in step.exits {
            guard seen.insert(exit).inserted else {
                throw RetryPolicyError(field: "steps", problem: "'\(step.name)' names the exit '\(exit.name)' twice")
            }
            guard exit == .done || !RetryEvent.isBuiltIn(exit.name), !exit.name.isEmpty else {
                throw RetryPolicyError(
                    field: "steps", problem: "'\(step.name)' may not name an exit '\(exit.name)', a built-in event")
            }
            guard table.rows.contains(where: { $0.from == step.state && $0.event == .stepExit(exit) }) else {
                throw RetryPolicyError(
                    field: "table", problem: "has no row for the exit '\(exit.name)' of the step '\(step.name)'")
            }
        }
        for row in table.rows where row.from == step.state {
            if case .stepExit(let exit)? = row.event, !seen.contains(exit) {
                throw RetryPolicyError(
                    field: "table",
                    problem: "routes the exit '\(exit.name)', which the step '\(step.name)' does not have: \(row)")
            }
        }
    }

    /// Throws unless the steps and what names them fit together: every step in `named` (the steps the
    /// run's rules and classifiers send failures to, with where each name comes from) is one of
    /// ``steps``, and every step entered on a verdict (``RetryStep/Entry/onVerdict``) is named by
    /// one of them, else no failure could reach it. A step entered after failures reaches itself.
    /// Both errors name the step. The engine checks the policy's `retryIf`; the HTTP surfaces add
    /// their rules' `statusSteps`.
    package func validateSteps(named: [(step: RetryStep.ID, by: String)]) throws(RetryPolicyError) {
        if steps.isEmpty && named.isEmpty { return }
        for (id, source) in named where !steps.contains(where: { $0.id == id }) {
            throw RetryPolicyError(
                field: "steps", problem: "has no step '\(id.name)', which \(source) sends failures to")
        }
        for step in steps where step.entry == .onVerdict && !named.contains(where: { $0.step == step.id }) {
            throw RetryPolicyError(
                field: "steps",
                problem: "has the step '\(step.name)', entered on a verdict, but no rule or classifier sends failures "
                    + "to it (HTTPRetryRules.statusSteps, RetryClassifier(sendingTo:)), so no run can reach it")
        }
    }

    /// The steps `retryIf` sends failures to, each with where its name comes from.
    var stepsNamedByClassifier: [(step: RetryStep.ID, by: String)] {
        retryIf.steps.map { ($0, "retryIf") }
    }
}

extension RetryGuard {
    /// The effects or events whose rows produce what this guard reads; `nil` for what is always
    /// known (the attempt count, configuration).
    var producers: (effects: [RetryEffect], events: [RetryEvent])? {
        switch self {
        case .withinDeadline: ([.planDelay], [.rateLimited])
        case .retryImmediately: ([.planDelay], [])
        case .retryBudgetLeft: ([], [.budgetAnswered])
        case .finalAnswer, .retryable, .retryAfterWithinCap, .enters:
            ([], [.failed, .failedAfterProgress, .attemptTimedOut, .circuitOpen])
        case .attemptsLeft, .refusalsLeft, .waitsOutBreak, .waitsForToken: nil
        }
    }
}

extension TransitionTable where Vocabulary == RetryVocabulary {
    /// The first row whose guard reads a fact that some path from the initial state reaches it
    /// without producing (a guard reads only what a row's effect or input produced), with the guard
    /// and the row of that path that entered the row's state.
    func unproducedFact() -> (row: Row, guard: RetryGuard, entered: Row)? {
        for row in rows {
            guard let guardSymbol = row.condition.guardSymbol, let producers = guardSymbol.producers else { continue }
            func produces(_ candidate: Row) -> Bool {
                candidate.effects.contains { producers.effects.contains($0) }
                    || candidate.event.map { producers.events.contains($0) } == true
            }
            // States reached from the initial one through rows that do not produce the fact, and the
            // row that reached each first.
            var reachedBy: [RetryState: Row] = [:]
            var frontier = [initial]
            var seen: Set<RetryState> = [initial]
            while let state = frontier.popLast() {
                for next in rows where next.from == state && !produces(next) && seen.insert(next.to).inserted {
                    reachedBy[next.to] = next
                    frontier.append(next.to)
                }
            }
            // An event row's guard reads the facts before its input, a completion row's after the row entering it.
            if let entered = reachedBy[row.from] { return (row, guardSymbol, entered) }
        }
        return nil
    }
}
