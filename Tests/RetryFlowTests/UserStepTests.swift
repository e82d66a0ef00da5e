import Foundation
import RetryFlow
import RetryFlowTesting
import Testing

/// A user's step runs on the engine like the shipped rows: entered from a failure, its action
/// awaited between attempts, what it produced handed to the attempts after it, bounded by its
/// visits, drawn and traced; and the tables that could not run are refused, naming the row.
@Suite struct UserStepTests {
    struct Unauthorized: Error {}
    struct RefreshFailed: Error {}

    static let fast = RetryPolicy(maxAttempts: 3, backoff: .constant(.zero), jitter: .none)

    /// A policy whose classifier sends `Unauthorized` to `refresh credentials`.
    static func policy(refresh: RetryStep) -> RetryPolicy {
        var policy = fast
        policy.retryIf = RetryClassifier { $0 is Unauthorized ? .step("refresh credentials") : .retry }
        policy.add(refresh)
        return policy
    }

    @Test func aStepRunsBetweenAttemptsAndItsValuesReachTheNext() async throws {
        let refresh = RetryStep("refresh credentials") { context in
            #expect(context.error is Unauthorized && context.attempt == 1 && context.visit == 1)
            return ["token": "new"]
        }
        let seen = Locked<[String?]>([])
        let outcome = try await Retry(Self.policy(refresh: refresh)).outcome { attempt -> String in
            seen.withLock { $0.append(attempt.values["token"] as? String) }
            guard attempt.values["token"] as? String == "new" else { throw Unauthorized() }
            return "ok"
        }
        #expect(outcome.succeeded && outcome.value == "ok")
        #expect(seen.withLock { $0 } == [nil, "new"])
        #expect(outcome.steps.map(\.name) == ["refresh credentials"])
        let table = Self.policy(refresh: refresh).table
        #expect(outcome.trace.isConsistent(with: table))
        #expect(!outcome.trace.isConsistent(with: .retry), "the step's rows are not the shipped table's")
        let path = outcome.trace.steps.map { "\($0.from.label) → \($0.to.label)" }
        #expect(
            path == [
                "idle → breaker", "breaker → request", "request → retry", "retry → refresh credentials",
                "refresh credentials → breaker", "breaker → request", "request → success",
            ])
        #expect(outcome.trace.steps[3].condition == .when(.enters("refresh credentials")))
    }

    @Test func aStepsVisitsBoundTheLoop() async throws {
        let calls = Locked(0)
        let refresh = RetryStep("refresh credentials", maxVisits: 2) { _ in
            calls.withLock { $0 += 1 }
            return [:]
        }
        var policy = Self.policy(refresh: refresh)
        policy.maxAttempts = 10
        let outcome = try await Retry(policy).outcome { _ -> Int in throw Unauthorized() }
        #expect(calls.withLock { $0 } == 2, "two visits, then the 401 is not retryable")
        #expect(outcome.reason == .notRetryable)
        #expect(outcome.attempts.count == 3)
        #expect(outcome.trace.isConsistent(with: policy.table))
    }

    @Test func aStepThatThrowsEndsTheRunWithItsReasonAndKeepsTheError() async throws {
        let refresh = RetryStep("refresh credentials", failureReason: "credentials refused") { _ in
            throw RefreshFailed()
        }
        let policy = Self.policy(refresh: refresh)
        let outcome = try await Retry(policy).outcome { _ -> Int in throw Unauthorized() }
        #expect(outcome.finalState == .failure && outcome.reason == .step("credentials refused"))
        #expect(outcome.steps.first?.error is RefreshFailed)
        #expect(outcome.attempts.first?.error is Unauthorized, "the attempt's error is kept too")
        #expect(outcome.trace.isConsistent(with: policy.table))
        #expect(outcome.error?.steps.first?.error is RefreshFailed)
    }

    @Test func aMirrorAfterTwoFailuresChangesWhereLaterAttemptsGo() async throws {
        var policy = Self.fast
        policy.maxAttempts = 4
        policy.add(RetryStep("use mirror", entry: .afterFailures(2)) { _ in ["host": "mirror"] })
        let hosts = Locked<[String]>([])
        let outcome = try await Retry(policy).outcome { attempt -> String in
            let host = attempt.values["host"] as? String ?? "primary"
            hosts.withLock { $0.append(host) }
            if host == "primary" { throw URLError(.cannotConnectToHost) }
            return host
        }
        #expect(hosts.withLock { $0 } == ["primary", "primary", "mirror"])
        #expect(outcome.value == "mirror")
        #expect(outcome.trace.isConsistent(with: policy.table))
    }

    @Test func cancellingDuringAStepEndsTheRun() async throws {
        let entered = AsyncStream<Void>.makeStream()
        let refresh = RetryStep("refresh credentials") { _ in
            entered.continuation.yield()
            try await Task.sleep(for: .seconds(3600))
            return [:]
        }
        let policy = Self.policy(refresh: refresh)
        let run = Task { try await Retry(policy).outcome { _ -> Int in throw Unauthorized() } }
        for await _ in entered.stream { break }
        run.cancel()
        let outcome = try await run.value
        #expect(outcome.finalState == .cancelled)
        #expect(outcome.trace.isConsistent(with: policy.table))
    }

    @Test func theChartsDrawTheStepByName() {
        var policy = Self.fast
        policy.add(RetryStep("refresh credentials") { _ in [:] })
        let dot = DOTChart.render(policy.table, style: .state)
        #expect(dot.contains("refresh credentials"))
        #expect(dot.contains("to refresh credentials"))
        #expect(MarkdownTable.render(policy.table).contains("| refresh credentials | step done | (else) | breaker |"))
    }

    /// docs/policies.md shows the rows a step adds: they are the ones `policy.add` puts in the table.
    @Test func theGuideShowsTheRowsAStepAdds() throws {
        var policy = Self.fast
        policy.add(RetryStep("refresh credentials") { _ in [:] })
        let rendered = MarkdownTable.render(policy.table).split(separator: "\n").map(String.init)
        let guide = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
                "../../docs/policies.md"), encoding: .utf8)
        let shown = guide.split(separator: "\n").map(String.init).filter { $0.contains("refresh credentials |") }
        #expect(shown.count == 5)
        for line in shown { #expect(rendered.contains(line), "\(line)") }
    }

    // MARK: refused

    static func problem(_ policy: RetryPolicy) -> String? {
        do { try policy.validate() } catch { return error.description }
        return nil
    }

    @Test func aLoopThroughAStepWithoutABoundIsRefusedNamingTheRow() {
        var policy = Self.fast
        policy.steps = [RetryStep("clear cache") { _ in [:] }]
        var rows = RetryTable.retry.rows
        // Entered whenever the failure is retryable: nothing counts the visits.
        rows.insert(
            .init(
                from: .retry, event: nil, condition: .when(.retryable), to: .step("clear cache"), effects: [.runStep]),
            at: rows.firstIndex { $0.from == .retry }!)
        rows.append(.init(from: .step("clear cache"), event: .stepDone, to: .request, effects: [.startAttempt]))
        policy.table = RetryTable(
            name: "loops", initial: .idle, terminals: [.success, .failure, .cancelled], rows: rows)
        let problem = Self.problem(policy)
        #expect(problem?.contains("without a bound") == true, "\(problem ?? "accepted")")
        #expect(problem?.contains("retry --[retryable] / run step--> clear cache") == true, "\(problem ?? "")")
    }

    /// `attempts left` bounds only a loop that starts attempts: a wait that goes straight back to the
    /// decision, sending nothing, would loop forever however many attempts are left.
    @Test func aBoundWhoseCountTheLoopNeverGrowsIsNoBound() {
        var policy = Self.fast
        let rows = RetryTable.retry.rows.map { row -> RetryTable.Row in
            guard row.from == .wait, row.event == .delayElapsed else { return row }
            return .init(from: .wait, event: .delayElapsed, to: .retry, effects: [.planDelay])
        }
        policy.table = RetryTable(
            name: "idle loop", initial: .idle, terminals: [.success, .failure, .cancelled], rows: rows)
        let problem = Self.problem(policy)
        #expect(problem?.contains("without a bound") == true, "\(problem ?? "accepted")")
    }

    @Test func aStepWithNoWayOutIsRefused() {
        var policy = Self.fast
        policy.steps = [RetryStep("stuck") { _ in [:] }]
        var rows = RetryTable.retry.rows
        rows.insert(
            .init(
                from: .retry, event: nil, condition: .when(.enters("stuck")), to: .step("stuck"), effects: [.runStep]),
            at: rows.firstIndex { $0.from == .retry }!)
        policy.table = RetryTable(
            name: "stuck", initial: .idle, terminals: [.success, .failure, .cancelled], rows: rows)
        #expect(Self.problem(policy)?.contains("state 'stuck' is not terminal but no row leaves it") == true)
    }

    @Test func aRowReadingAFactNoEffectProducesIsRefused() {
        var policy = Self.fast
        // `retry immediately` reads the delay `plan delay` works out; here nothing plans one.
        let rows = RetryTable.retry.rows.map { row -> RetryTable.Row in
            guard row.from == .request, row.event == .failed else { return row }
            return .init(from: .request, event: .failed, to: .retry, effects: [])
        }
        policy.table = RetryTable(
            name: "unplanned", initial: .idle, terminals: [.success, .failure, .cancelled], rows: rows)
        let problem = Self.problem(policy)
        #expect(problem?.contains("reads 'within deadline'") == true, "\(problem ?? "accepted")")
        #expect(problem?.contains("request --failed--> retry") == true, "\(problem ?? "")")
    }

    @Test func aStepWithoutAnActionAndAStepNamedLikeABuiltInAreRefused() {
        var policy = Self.fast
        policy.table = RetryTable.retry.adding(RetryStep("ghost") { _ in [:] })
        #expect(Self.problem(policy)?.contains("'ghost' but steps has no action") == true)
        var named = Self.fast
        named.steps = [RetryStep("wait") { _ in [:] }]
        #expect(Self.problem(named)?.contains("a built-in state") == true)
    }

    /// `reset backoff` between attempts, as the credential rows take it before the resend is put to
    /// the breaker, makes the resend attempt 1 of a new series: the failure after it still has its
    /// retries, and waits the first delay. (Reset as after an attempt, the resend was attempt 2 of
    /// its series, and with 2 attempts the run ended at once, `attempts exhausted`.)
    @Test func aResetBetweenAttemptsMakesTheNextAttemptTheFirstOfItsSeries() throws {
        let relogin = RetryStep("log in again") { _ in [:] }
        var policy = RetryPolicy(maxAttempts: 2, backoff: .exponential(base: .seconds(1), multiplier: 2), jitter: .none)
        policy.steps = [relogin]
        let (entry, exits) = relogin.rows
        var rows = RetryTable.retry.rows
        rows.insert(entry, at: rows.firstIndex { $0.from == .retry }!)
        rows += exits.map { row in
            guard row.event == .stepDone, row.condition == .always else { return row }
            return .init(from: row.from, event: .stepDone, to: .breaker, effects: [.resetBackoff, .askBreaker])
        }
        policy.table = RetryTable(
            name: "relogin", initial: .idle, terminals: [.success, .failure, .cancelled], rows: rows)
        try policy.validate()
        var machine = RetryMachine(policy: policy, table: policy.table, random: SeededRandom(seed: 1))
        _ = try machine.handle(.start, at: .zero)
        _ = try machine.handle(.admitted, at: .zero)
        #expect(
            Array(try machine.handle(.failed(.step("log in again"), detail: nil), at: .zero).actions).last
                == .runStep("log in again"))
        #expect(Array(try machine.handle(.stepDone, at: .zero).actions) == [.askBreaker(attempt: 2)])
        #expect(Array(try machine.handle(.admitted, at: .zero).actions) == [.startAttempt(2)])
        // Attempt 2 is the first of its series: one retry is left, after the first delay (1 s).
        let retried = Array(try machine.handle(.failed(.retry, detail: nil), at: .zero).actions)
        #expect(retried.last == .askRetryBudget(afterTimeout: false), "\(retried)")
        let waits = Array(try machine.handle(.budgetAnswered(granted: true, detail: nil), at: .zero).actions)
        #expect(waits.last == .sleep(.seconds(1)), "\(waits)")
        _ = try machine.handle(.delayElapsed, at: .seconds(1))
        #expect(Array(try machine.handle(.admitted, at: .seconds(1)).actions) == [.startAttempt(3)])
        let last = Array(try machine.handle(.failed(.retry, detail: nil), at: .seconds(1)).actions)
        #expect(last.last == .finish(state: .failure, reason: .attemptsExhausted))
    }

    @Test func theShippedTableStillValidatesWithEveryCheck() throws {
        try RetryPolicy.default.validate()
        try RetryTable.retry.validate()
    }
}
