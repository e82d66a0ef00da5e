import RetryFlow
import RetryFlowSnippets
import Testing

@Suite struct TransitionTableTests {
    @Test func shippedTableIsValid() throws {
        try RetryTable.retry.validate()
        #expect(RetryTable.retry.problems.isEmpty)
    }

    /// The teaching tables that retell the original snippets are sound tables too.
    @Test func snippetTablesAreValid() throws {
        try TransitionTable.swiftSnippet.validate()
        try TransitionTable.objcSnippet.validate()
        // The Objective-C snippet retries without any wait; the Swift one waits by blocking a thread.
        #expect(TransitionTable.objcSnippet.rows.contains { $0.from == .retry && $0.to == .request })
        #expect(TransitionTable.swiftSnippet.rows.contains { $0.effects.contains(.usleep) })
    }

    @Test func everyStateEventPairHasARowOrIsInvalid() throws {
        let table = RetryTable.retry
        let invalid = table.invalidPairs
        for state in RetryState.allCases {
            for event in RetryEvent.allCases {
                let hasRow = table.rows.contains { $0.from == state && $0.event == event }
                let listedInvalid = invalid.contains { $0.state == state && $0.event == event }
                #expect(hasRow != listedInvalid, "\(state) + \(event)")
                // Put a machine in `state` by replaying a path to it, then deliver `event`.
                guard var machine = Self.machine(in: state) else {
                    #expect(table.isDecision(state), "no path to \(state)") // a decision: never rested in
                    continue
                }
                if listedInvalid {
                    #expect(throws: InvalidTransition(state: state, event: event, at: .seconds(9))) {
                        _ = try machine.handle(Self.input(event), at: .seconds(9))
                    }
                    #expect(machine.state == state, "an invalid event must leave the machine where it was")
                } else {
                    let step = try machine.handle(Self.input(event), at: .seconds(9))
                    #expect(step.transition.from == state)
                    #expect(step.transition.event == event)
                }
            }
        }
    }

    /// The machine rests only in non-decision states; `retry` is passed through within one step.
    @Test func machineNeverRestsInADecision() throws {
        var machine = RetryMachine(policy: .default, random: SeededRandom(seed: 1))
        _ = try machine.handle(.start, at: .zero)
        _ = try machine.handle(.tokenGranted, at: .zero)
        _ = try machine.handle(.admitted, at: .zero)
        let step = try machine.handle(.failed(.retry, detail: nil), at: .zero)
        #expect(step.transition.to == .retry)
        #expect(step.taken.count == 2)
        #expect(machine.state != .retry)
        #expect(RetryTable.retry.isDecision(.retry))
        #expect(!RetryTable.retry.isDecision(.wait))
    }

    @Test func noStepNeedsMoreActionsThanTheFixedCapacity() {
        let table = RetryTable.retry
        for row in table.rows where row.event != nil {
            let completionMax =
                table.isDecision(row.to)
                ? table.rows(from: row.to, on: nil).map(\.effects.count).max() ?? 0 : 0
            #expect(row.effects.count + completionMax <= RetryActions.capacity, "\(row)")
        }
    }

    /// Validation counts what one step can produce: a row whose step overflows the fixed buffer
    /// fails validation instead of losing an action at run time.
    @Test func overfullStepIsReported() {
        var rows = RetryTable.retry.rows.filter { !($0.from == .wait && $0.event == .delayElapsed) }
        rows.append(
            .init(
                from: .wait, event: .delayElapsed, to: .request,
                effects: [
                    .startAttempt, .notifyRetry, .cancelAttempt, .startAttempt, .notifyRetry, .cancelAttempt,
                    .startAttempt,
                ]))
        let table = RetryTable(
            name: "broken", initial: .idle, terminals: [.success, .answered, .failure, .cancelled], rows: rows)
        #expect(table.problems.contains { if case .stepTooLong(_, rows: 1, effects: 7) = $0 { true } else { false } })
    }

    /// Every row into a terminal names why the run ends, and no other row names a reason.
    @Test func reasonsAreRowDataAndChecked() {
        #expect(RetryTable.retry.rows.filter { RetryTable.retry.isTerminal($0.to) }.allSatisfy { $0.reason != nil })
        var rows = RetryTable.retry.rows.map { row in
            row.from == .wait && row.event == .cancelled
                ? RetryTable.Row(from: row.from, event: row.event, to: row.to, effects: row.effects) : row
        }
        rows.append(
            .init(from: .wait, event: .delayElapsed, condition: .when(.retryable), to: .request, reason: .succeeded))
        let table = RetryTable(
            name: "broken", initial: .idle, terminals: [.success, .answered, .failure, .cancelled], rows: rows)
        #expect(table.problems.contains(.missingReason(row: "wait --cancelled / finish--> cancelled")))
        #expect(table.problems.contains(.reasonWithoutEnd(row: "wait --delay elapsed [retryable]--> request")))
    }

    /// `finish` on a row that stays in the run fails validation (it would stop the executor at run time).
    @Test func finishOnlyOnRowsThatEndTheRun() {
        #expect(RetryTable.retry.problems.isEmpty)
        let rows = RetryTable.retry.rows.map { row in
            row.from == .wait && row.event == .delayElapsed && row.condition == .always
                ? RetryTable.Row(from: row.from, event: row.event, to: row.to, effects: row.effects + [.finish]) : row
        }
        let table = RetryTable(
            name: "broken", initial: .idle, terminals: [.success, .answered, .failure, .cancelled], rows: rows)
        let bad = rows.first { $0.effects.contains(.finish) && !table.isTerminal($0.to) }
        #expect(bad != nil, "the broken table has such a row")
        #expect(table.problems == [.endingEffectWithoutEnd(row: bad?.description ?? "", effect: "finish")])
        #expect(RetryEffect.finish.endsRun && !RetryEffect.sleep.endsRun && !RetryState.failure.endsRun)
    }

    /// Every attempt is put to the breaker (issue 36): in a table with the `breaker` state, a row
    /// that starts an attempt from anywhere but `breaker --admitted-->` is refused, naming the row;
    /// a table without the state (the snippets' own) may start attempts where it likes.
    @Test func anAttemptStartedPastTheBreakerIsRefusedNamingTheRow() throws {
        let rows = RetryTable.retry.rows.map { row in
            row.from == .wait && row.event == .delayElapsed
                ? RetryTable.Row(from: .wait, event: .delayElapsed, to: .request, effects: [.startAttempt]) : row
        }
        let table = RetryTable(
            name: "bypass", initial: .idle, terminals: [.success, .answered, .failure, .cancelled], rows: rows)
        #expect(
            table.problems == [
                .unadmittedEffect(
                    row: "wait --delay elapsed / start attempt--> request", effect: "start attempt", state: "breaker",
                    event: "admitted")
            ])
        let message = String(describing: Self.error(of: table))
        #expect(
            message.contains(
                "row has the effect 'start attempt' but does not leave 'breaker' on 'admitted', so what it starts "
                    + "bypasses 'breaker': wait --delay elapsed / start attempt--> request"),
            "\(message)")
        // Without the `breaker` state the rule has nothing to keep: the same rows without the breaker's pass.
        let noBreaker = RetryTable(
            name: "no breaker", initial: .idle, terminals: [.success, .failure],
            rows: [
                .init(from: .idle, event: .start, to: .request, effects: [.startAttempt]),
                .init(
                    from: .request, event: .succeeded, to: .success, effects: [.finish], reason: .succeeded),
                .init(from: .request, event: .failed, to: .failure, effects: [.finish], reason: .notRetryable),
            ])
        #expect(noBreaker.problems == [])
        #expect(RetryTable.retry.problems == [])
    }

    /// The reason a run reports is the one its finishing row names, for every finishing row.
    @Test func finishActionCarriesTheRowsReason() throws {
        var machine = RetryMachine(policy: RetryPolicy(maxAttempts: 1), random: SeededRandom(seed: 1))
        _ = try machine.handle(.start, at: .zero)
        _ = try machine.handle(.tokenGranted, at: .zero)
        _ = try machine.handle(.admitted, at: .zero)
        let step = try machine.handle(.failed(.retry, detail: "boom"), at: .seconds(1))
        // The failed attempt is reported to the fleet's guards first (a retryable failure), then the run ends.
        #expect(
            Array(step.actions) == [
                .reportHealth(.failure, throttled: false), .finish(state: .failure, reason: .attemptsExhausted),
            ])
        #expect(step.taken(detail: "boom").map(\.detail) == ["boom", nil])
    }

    @Test func unreachableRowsAndARestlessInitialStateAreReported() {
        var rows = RetryTable.retry.rows.filter { $0.to != .wait }
        rows.append(.init(from: .retry, event: nil, to: .failure, effects: [.finish], reason: .notRetryable))
        let table = RetryTable(
            name: "broken", initial: .retry, terminals: [.success, .answered, .failure, .cancelled], rows: rows)
        #expect(table.problems.contains(.unreachableRow(row: "wait --delay elapsed / ask limiter--> limiter")))
        #expect(table.problems.contains(.initialCannotRest(state: "retry")))
    }

    @Test func unreachableStateIsReported() {
        let table = RetryTable(
            name: "broken", initial: .idle, terminals: [.success, .answered, .failure, .cancelled],
            rows: RetryTable.retry.rows.filter { $0.to != .wait })
        let problems = table.problems
        #expect(problems.contains(.unreachable(state: "wait")))
        #expect(throws: TableValidationError.self) { try table.validate() }
        let message = (try? table.validate()).map { _ in "" } ?? String(describing: Self.error(of: table))
        #expect(message.contains("state 'wait' is unreachable"))
    }

    @Test func deadEndIsReported() {
        let table = RetryTable(
            name: "broken", initial: .idle, terminals: [.success, .answered, .failure, .cancelled],
            rows: RetryTable.retry.rows.filter { $0.from != .wait })
        #expect(table.problems.contains(.deadEnd(state: "wait")))
        #expect(String(describing: Self.error(of: table)).contains("'wait' is not terminal but no row leaves it"))
    }

    @Test func duplicateAndShadowedRowsAreReported() {
        var rows = RetryTable.retry.rows
        rows.append(.init(from: .wait, event: .delayElapsed, to: .failure, effects: [.finish]))
        rows.append(.init(from: .wait, event: .cancelled, condition: .when(.retryable), to: .failure))
        let table = RetryTable(
            name: "broken", initial: .idle, terminals: [.success, .answered, .failure, .cancelled], rows: rows)
        #expect(table.problems.contains(.duplicateRow(row: "wait --delay elapsed / finish--> failure")))
        #expect(table.problems.contains(.shadowedRow(row: "wait --cancelled [retryable]--> failure")))
    }

    @Test func decisionWithoutElseAndTerminalExitsAreReported() {
        var rows = RetryTable.retry.rows.filter { !($0.from == .retry && $0.condition == .always) }
        rows.append(.init(from: .success, event: .start, to: .request))
        let table = RetryTable(
            name: "broken", initial: .idle, terminals: [.success, .answered, .failure, .cancelled], rows: rows)
        #expect(table.problems.contains(.decisionWithoutElse(state: "retry")))
        #expect(table.problems.contains(.terminalHasExit(state: "success")))
    }

    @Test func stateThatCannotFinishIsReported() {
        // wait only loops back to itself: reachable, has a way out, but no terminal beyond it.
        var rows = RetryTable.retry.rows.filter { $0.from != .wait }
        rows.append(.init(from: .wait, event: .delayElapsed, to: .wait))
        let table = RetryTable(
            name: "broken", initial: .idle, terminals: [.success, .answered, .failure, .cancelled], rows: rows)
        #expect(table.problems.contains(.cannotFinish(state: "wait")))
    }

    @Test func completionLoopIsReported() {
        enum S: String, TableSymbol { case a, b, c, end }
        enum E: String, TableSymbol { case go }
        enum G: String, TableSymbol { case ok }
        enum X: String, TableSymbol { case x }
        typealias V = TableWords<S, E, G, X, X>
        let table = TransitionTable<V>(
            name: "loop", initial: .a, terminals: [.end],
            rows: [
                .init(from: .a, event: .go, to: .b),
                .init(from: .b, event: nil, condition: .when(.ok), to: .end, reason: .x),
                .init(from: .b, event: nil, to: .c),
                .init(from: .c, event: nil, condition: .when(.ok), to: .end, reason: .x),
                .init(from: .c, event: nil, to: .b),
            ])
        #expect(table.problems.contains(.completionLoop(states: ["b", "c", "b"])))
    }

    @Test func rowLabelsReadLikeUML() {
        let labels = RetryTable.retry.rows.map(\.description)
        #expect(labels.contains("request --attempt timed out / cancel attempt, report health, plan delay--> retry"))
        #expect(labels.contains("request --succeeded / report health, finish--> success"))
        #expect(labels.contains("retry --[no attempts left] / finish--> failure"))
        #expect(labels.contains("admission --[retry immediately] / notify retry, ask limiter--> limiter"))
        #expect(labels.contains("limiter --token granted / ask breaker--> breaker"))
        #expect(labels.contains("pacing --[fails when rate limited] / return token, finish--> failure"))
        #expect(labels.contains("token wait --delay elapsed / ask breaker--> breaker"))
        #expect(labels.contains("admission --[retry budget exhausted] / finish--> failure"))
        #expect(labels.contains("breaker --admitted / start attempt--> request"))
        #expect(labels.contains("breaker --circuit open [fails fast] / finish--> failure"))
        #expect(labels.contains("breaker --circuit open [no refusals left] / finish--> failure"))
        #expect(labels.contains("breaker --circuit open / count refusal, plan delay--> retry"))
    }

    // MARK: helpers

    /// An input standing for `event`, with a retryable verdict where one is carried.
    static func input(_ event: RetryEvent) -> RetryInput {
        switch event {
        case .start: .start
        case .succeeded: .succeeded
        case .failed: .failed(.retry, detail: nil)
        case .failedAfterProgress: .failedAfterProgress(.retry, detail: nil)
        case .attemptTimedOut: .attemptTimedOut(.retry, detail: nil)
        case .deadlineExceeded: .deadlineExceeded(detail: nil)
        case .delayElapsed: .delayElapsed
        case .cancelled: .cancelled(detail: nil)
        case .admitted: .admitted
        case .tokenGranted: .tokenGranted
        case .rateLimited: .rateLimited(wait: .seconds(1), detail: nil)
        case .circuitOpen: .circuitOpen(.retryAfter(.seconds(1)), detail: nil)
        case .budgetAnswered: .budgetAnswered(granted: true, detail: nil)
        case .stepExit(let exit): .stepExit(exit, detail: nil)
        case .stepFailed: .stepFailed(detail: nil)
        }
    }

    static func error(of table: RetryTable) -> TableValidationError? {
        do { try table.validate() } catch { return error }
        return nil
    }

    /// A machine brought to `state` through real transitions, or `nil` for a decision state.
    static func machine(in state: RetryState) -> RetryMachine? {
        var machine = RetryMachine(
            policy: RetryPolicy(maxAttempts: 2, backoff: .constant(.seconds(1)), jitter: .none),
            random: SeededRandom(seed: 0))
        let path: [RetryEvent]
        switch state {
        case .idle: path = []
        case .limiter: path = [.start]
        case .tokenWait: path = [.start, .rateLimited]
        case .breaker: path = [.start, .tokenGranted]
        case .request: path = [.start, .tokenGranted, .admitted]
        case .budget: path = [.start, .tokenGranted, .admitted, .failed]
        case .wait: path = [.start, .tokenGranted, .admitted, .failed, .budgetAnswered]
        case .success: path = [.start, .tokenGranted, .admitted, .succeeded]
        case .answered: path = [.start, .tokenGranted, .admitted]
        case .failure: path = [.start, .tokenGranted, .admitted, .deadlineExceeded]
        case .cancelled: path = [.cancelled]
        case .retry, .admission, .pacing, .step: return nil
        }
        for event in path { _ = try? machine.handle(input(event), at: .zero) }
        if state == .answered { _ = try? machine.handle(.failed(.finalAnswer, detail: nil), at: .zero) }
        return machine.state == state ? machine : nil
    }
}
