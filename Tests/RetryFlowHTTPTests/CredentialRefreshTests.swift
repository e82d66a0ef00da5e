import Foundation
import RetryFlow
import RetryFlowCharts
import RetryFlowHTTP
import RetryFlowTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Credential refresh as rows of the retry table (issue 21): one refresh for many refresh
/// responses, stale resends, a window, failed versions, cancellation; every trace is rows of its table.
@Suite(.timeLimit(.minutes(1))) struct CredentialRefreshTests {
    struct TokenServiceDown: Error, Equatable {}

    /// A gate a refresh waits at until the test opens it.
    actor Gate {
        private var open = false
        private var waiting: [CheckedContinuation<Void, Never>] = []
        func pass() async {
            if open { return }
            await withCheckedContinuation { waiting.append($0) }
        }
        func unlock() {
            open = true
            for continuation in waiting { continuation.resume() }
            waiting = []
        }
    }

    /// Counts refresh calls and hands out tokens in order.
    final class Tokens: Sendable {
        private let issued = Locked(0)
        let next: @Sendable (Int) -> String
        init(_ next: @escaping @Sendable (Int) -> String = { "t\($0 + 1)" }) { self.next = next }
        func refresh() -> String {
            next(
                issued.withLock { count in
                    count += 1
                    return count
                })
        }
    }

    static func bearer(_ store: CredentialStore<String>, maxRefreshesPerRun: Int = 2) -> (RetryPolicy, HTTPRetryRules) {
        let refresh = CredentialRefresh(store, maxRefreshesPerRun: maxRefreshesPerRun) { token, request in
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        }
        var options = HTTPRetryOptions.default
        refresh.install(in: &options)
        return (options.policy, options.rules)
    }

    static func run(
        _ server: FlakyServer, _ policy: RetryPolicy, _ rules: HTTPRetryRules, path: String = "/me",
        session: URLSession = Runner.session()
    ) async throws -> RetryOutcome<HTTPResponse> {
        try await session.retryOutcome(
            for: URLRequest(url: server.url(path)), retry: HTTPRetryOptions(policy, rules: rules))
    }

    static func authorizations(_ server: FlakyServer, _ path: String = "/me") -> [String?] {
        server.requests(to: path).map { $0.header("Authorization") }
    }

    /// Checks a run's trace against the policy's table, and that no token is in it.
    static func expectClean(_ outcome: RetryOutcome<HTTPResponse>, _ policy: RetryPolicy, tokens: [String]) {
        expectConsistent(outcome.trace, with: policy.table)
        let words = outcome.trace.steps.compactMap(\.detail).joined(separator: "\n")
        for token in tokens { #expect(!words.contains(token), "the token \(token) is never traced") }
    }

    static func expectStoreConsistent(_ store: CredentialStore<String>) async {
        let trace = await store.trace
        #expect(trace != nil)
        if let trace { expectConsistent(trace, with: CredentialTable.credentialRefresh) }
    }

    @Test func aRefreshResponseThenTheNewTokenIsTwoRequestsAndOneRefresh() async throws {
        let server = try FlakyServer(scripts: ["/me": [.status(200, body: "me")]])
        defer { server.stop() }
        server.requireAuthorization("Bearer t2", for: "/me")
        let tokens = Tokens()
        let store = CredentialStore("t1", clock: ManualClock(), tracing: true) { _ in tokens.refresh() }
        let (policy, rules) = Self.bearer(store)
        try policy.validate()
        let outcome = try await Self.run(server, policy, rules)
        #expect(outcome.succeeded && outcome.value.map { String(decoding: $0.data, as: UTF8.self) } == "me")
        #expect(Self.authorizations(server) == ["Bearer t1", "Bearer t2"])
        #expect(await store.refreshes == 1)
        #expect(await store.version == 2)
        #expect(
            outcome.trace.steps.map { "\($0.from.label) → \($0.to.label)" } == [
                "idle → check credential", "check credential → limiter", "limiter → breaker", "breaker → request",
                "request → retry", "retry → check credential", "check credential → limiter", "limiter → breaker",
                "breaker → request", "request → success",
            ])
        // One step, taken twice: the first send with the current token, the resend after the refresh.
        typealias Refresh = CredentialRefresh<String>
        #expect(outcome.steps.map(\.exit) == [Refresh.current, Refresh.refreshed])
        let exits = outcome.trace.steps.compactMap(\.event).filter {
            [Refresh.current, Refresh.refreshed].map(RetryEvent.stepExit).contains($0)
        }
        #expect(exits == [.stepExit(Refresh.current), .stepExit(Refresh.refreshed)])
        Self.expectClean(outcome, policy, tokens: ["t1", "t2"])
        await Self.expectStoreConsistent(store)
        // The resend starts the count over: the refresh used up none of the policy's attempts.
        #expect(outcome.attempts.count == 2)
    }

    @Test func twentyConcurrentRunsAllRefusedShareExactlyOneRefresh() async throws {
        let server = try FlakyServer(scripts: ["/me": [.status(200, body: "me")]])
        defer { server.stop() }
        // All 20 are refused together, so each sent t1 before any refresh began.
        server.requireAuthorization("Bearer t2", for: "/me", holdingRefusals: 20)
        let gate = Gate()
        let tokens = Tokens()
        let store = CredentialStore("t1", clock: ManualClock(), tracing: true) { _ in
            await gate.pass()
            return tokens.refresh()
        }
        let (policy, rules) = Self.bearer(store)
        // A connection each: a held refusal holds its connection (6 per host by default).
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 40
        configuration.timeoutIntervalForRequest = 30
        let session = URLSession(configuration: configuration)
        let runs = (0..<20).map { _ in Task { try await Self.run(server, policy, rules, session: session) } }
        await store.waitUntilWaiting(20) // every run was refused and waits for the one refresh
        await gate.unlock()
        for run in runs {
            let outcome = try await run.value
            #expect(outcome.succeeded)
            Self.expectClean(outcome, policy, tokens: ["t1", "t2"])
        }
        #expect(await store.refreshes == 1)
        let sent = Self.authorizations(server)
        // At least 20 with t1, not exactly (29 were seen once at load 20): the server holds every
        // refusal until the 20th request arrives, which on a loaded machine can take longer than an
        // early run's attempt timeout, and libcurl re-sends a request on a pooled connection by
        // itself (shared/notes/facts.md); a run that sends again before the refresh rightly uses t1.
        // The refresh is one either way, and each run sends t2 exactly once after it.
        #expect(sent.filter { $0 == "Bearer t1" }.count >= 20)
        #expect(sent.filter { $0 == "Bearer t2" }.count == 20)
        await Self.expectStoreConsistent(store)
    }

    @Test func aRequestSentWithAnOlderVersionIsResentWithoutARefresh() async throws {
        let tokens = Tokens()
        let store = CredentialStore("t1", clock: ManualClock(), tracing: true) { _ in tokens.refresh() }
        // Run B takes v1 for its first send.
        guard case .current(let sentByB, "t1") = try await store.ask(sent: nil) else {
            Issue.record("the first send gets the current credential")
            return
        }
        // Run A is refused with v1 and refreshes: v2 exists.
        guard case .wait(let refreshing) = try await store.ask(sent: 1) else {
            Issue.record("a refusal of the current version refreshes")
            return
        }
        let (version, token) = try await store.wait(for: refreshing)
        #expect(version == 2 && token == "t2")
        // B's v1 request is refused now: it gets v2 at once, and nothing is refreshed.
        guard case .current(2, "t2") = try await store.ask(sent: sentByB) else {
            Issue.record("a stale request is resent with the current credential")
            return
        }
        #expect(await store.refreshes == 1)
        await Self.expectStoreConsistent(store)
        let labels = await store.trace?.steps.map { "\($0.from.label) → \($0.to.label)" } ?? []
        #expect(labels.suffix(2) == ["idle → weighing", "weighing → idle"], "the stale ask takes [no refresh needed]")
    }

    @Test func aRefreshThatThrowsFailsEveryWaiterAfterExactlyOneRefresh() async throws {
        let server = try FlakyServer(scripts: ["/me": [.status(200, body: "me")]])
        defer { server.stop() }
        server.requireAuthorization("Bearer t2", for: "/me", holdingRefusals: 5) // all 5 refused with t1
        let gate = Gate()
        let calls = Locked(0)
        let store = CredentialStore("t1", clock: ManualClock(), tracing: true) { _ -> String in
            calls.withLock { $0 += 1 }
            await gate.pass()
            throw TokenServiceDown()
        }
        let (policy, rules) = Self.bearer(store)
        let session = Runner.session()
        let runs = (0..<5).map { _ in Task { try await Self.run(server, policy, rules, session: session) } }
        await store.waitUntilWaiting(5)
        await gate.unlock()
        for run in runs {
            let outcome = try await run.value
            #expect(outcome.finalState == .failure && outcome.reason == .step("refresh failed"))
            #expect(outcome.steps.last?.error is TokenServiceDown)
            Self.expectClean(outcome, policy, tokens: ["t1"])
        }
        #expect(calls.withLock { $0 } == 1)
        #expect(await store.state == .failed)
        // The failed version is never refreshed again: a later run fails the same way, with no refresh.
        let later = try await Self.run(server, policy, rules, session: session)
        #expect(later.reason == .step("refresh failed") && later.steps.last?.error is TokenServiceDown)
        #expect(calls.withLock { $0 } == 1)
        #expect(Self.authorizations(server).count == 5, "nobody was resent, and the later run sent nothing")
        await Self.expectStoreConsistent(store)
    }

    @Test func theSixthRefreshWithinThirtySecondsEndsExcessiveRefresh() async throws {
        let server = try FlakyServer(scripts: ["/me": [.status(200, body: "me")]])
        defer { server.stop() }
        let clock = ManualClock()
        let tokens = Tokens()
        let store = CredentialStore("t1", clock: clock, tracing: true) { _ in tokens.refresh() }
        let (policy, rules) = Self.bearer(store)
        let session = Runner.session()
        for run in 1...6 {
            server.requireAuthorization("Bearer t\(run + 1)", for: "/me") // the server rotated the token
            let outcome = try await Self.run(server, policy, rules, session: session)
            Self.expectClean(outcome, policy, tokens: ["t\(run)", "t\(run + 1)"])
            if run < 6 {
                #expect(outcome.succeeded, "refresh \(run) of 5 in the window")
            } else {
                #expect(outcome.finalState == .failure && outcome.reason == .step("excessive refresh"))
                #expect(outcome.steps.last?.error as? CredentialRefreshError == .excessiveRefresh)
                #expect(outcome.steps.last?.exit == CredentialRefresh<String>.excessiveRefresh)
            }
            clock.advance(by: .seconds(5)) // six refreshes within 25 s
        }
        #expect(await store.refreshes == 5)
        // Once the first refresh is 30 s old, the window has room again.
        clock.advance(by: .seconds(5))
        let again = try await Self.run(server, policy, rules, session: session)
        #expect(again.succeeded)
        #expect(await store.refreshes == 6)
        await Self.expectStoreConsistent(store)
    }

    @Test func aRefreshThatReturnsTheSameTokenEndsBoundedInFailure() async throws {
        let server = try FlakyServer(scripts: ["/me": [.status(200, body: "me")]])
        defer { server.stop() }
        server.requireAuthorization("Bearer good", for: "/me")
        let store = CredentialStore("t1", clock: ManualClock(), tracing: true) { old in old }
        let (policy, rules) = Self.bearer(store, maxRefreshesPerRun: 2)
        let outcome = try await Self.run(server, policy, rules)
        #expect(outcome.finalState == .failure && outcome.reason == .notRetryable)
        #expect(outcome.value?.statusCode == 401, "the caller gets the last refusal")
        #expect(Self.authorizations(server) == ["Bearer t1", "Bearer t1", "Bearer t1"])
        #expect(await store.refreshes == 2)
        Self.expectClean(outcome, policy, tokens: ["t1"])
        await Self.expectStoreConsistent(store)
    }

    @Test func cancellingOneWaitingRunMidRefreshLetsTheOthersComplete() async throws {
        let server = try FlakyServer(scripts: ["/me": [.status(200, body: "me")]])
        defer { server.stop() }
        server.requireAuthorization("Bearer t2", for: "/me", holdingRefusals: 3)
        let gate = Gate()
        let tokens = Tokens()
        let store = CredentialStore("t1", clock: ManualClock(), tracing: true) { _ in
            await gate.pass()
            return tokens.refresh()
        }
        let (policy, rules) = Self.bearer(store)
        let session = Runner.session()
        let runs = (0..<3).map { _ in Task { try await Self.run(server, policy, rules, session: session) } }
        await store.waitUntilWaiting(3)
        runs[0].cancel()
        // It ends at once, while the refresh is still held at the gate.
        let cancelled = try await runs[0].value
        #expect(cancelled.finalState == .cancelled)
        Self.expectClean(cancelled, policy, tokens: ["t1"])
        #expect(await store.state == .refreshing)
        await gate.unlock()
        for run in runs.dropFirst() {
            let outcome = try await run.value
            #expect(outcome.succeeded)
            Self.expectClean(outcome, policy, tokens: ["t1", "t2"])
        }
        #expect(await store.refreshes == 1)
        #expect(Self.authorizations(server).filter { $0 == "Bearer t2" }.count == 2)
        await Self.expectStoreConsistent(store)
    }

    @Test func aCredentialKnownExpiredIsRefreshedBeforeTheFirstSend() async throws {
        let server = try FlakyServer(scripts: ["/me": [.status(200, body: "me")]])
        defer { server.stop() }
        server.requireAuthorization("Bearer t2", for: "/me")
        let tokens = Tokens()
        let store = CredentialStore("t1", clock: ManualClock(), tracing: true, isExpired: { $0 == "t1" }) { _ in
            tokens.refresh()
        }
        let (policy, rules) = Self.bearer(store)
        let outcome = try await Self.run(server, policy, rules)
        #expect(outcome.succeeded)
        #expect(Self.authorizations(server) == ["Bearer t2"])
        #expect(await store.refreshes == 1)
        Self.expectClean(outcome, policy, tokens: ["t1", "t2"])
        await Self.expectStoreConsistent(store)
    }

    /// Every send goes through the breaker (issue 36 item 3): held open, it refuses the first send
    /// after `check credential` handed the token, and nothing reaches the server.
    @Test func anOpenBreakerKeepsTheFirstSendOffTheWire() async throws {
        let server = try FlakyServer(scripts: ["/me": [.status(200, body: "me")]])
        defer { server.stop() }
        let store = CredentialStore("t1", clock: ManualClock(), tracing: true) { _ in "t2" }
        let (policy, rules) = Self.bearer(store)
        let breaker = try CircuitBreaker(.init(trip: .consecutiveFailures(1)), clock: ManualClock())
        breaker.isolate()
        var options = HTTPRetryOptions(policy, rules: rules)
        options.guards = FleetGuards(breaker: breaker, whenCircuitOpen: .fail)
        let outcome = try await Runner.session().retryOutcome(for: URLRequest(url: server.url("/me")), retry: options)
        #expect(outcome.reason == .circuitOpen)
        #expect(server.requests(to: "/me").isEmpty, "the breaker refused the first send")
        #expect(
            outcome.trace.steps.map { "\($0.from.label) → \($0.to.label)" } == [
                "idle → check credential", "check credential → limiter", "limiter → breaker", "breaker → failure",
            ])
        Self.expectClean(outcome, policy, tokens: ["t1"])
    }

    /// A breaker that opens while the credential is refreshed refuses the resend: one request (the
    /// refused one) reached the server, not two.
    @Test func aBreakerOpenedDuringTheRefreshKeepsTheResendOffTheWire() async throws {
        let server = try FlakyServer(scripts: ["/me": [.status(200, body: "me")]])
        defer { server.stop() }
        server.requireAuthorization("Bearer t2", for: "/me")
        let breaker = try CircuitBreaker(.init(trip: .consecutiveFailures(1)), clock: ManualClock())
        let store = CredentialStore("t1", clock: ManualClock(), tracing: true) { _ in
            breaker.isolate() // the server's trouble begins while the token is refreshed
            return "t2"
        }
        let (policy, rules) = Self.bearer(store)
        var options = HTTPRetryOptions(policy, rules: rules)
        options.guards = FleetGuards(breaker: breaker, whenCircuitOpen: .fail)
        let outcome = try await Runner.session().retryOutcome(for: URLRequest(url: server.url("/me")), retry: options)
        #expect(outcome.reason == .circuitOpen)
        #expect(Self.authorizations(server) == ["Bearer t1"], "the resend with t2 was refused before it was sent")
        #expect(await store.refreshes == 1)
        #expect(
            outcome.trace.steps.suffix(3).map { "\($0.from.label) → \($0.to.label)" } == [
                "check credential → limiter", "limiter → breaker", "breaker → failure",
            ])
        Self.expectClean(outcome, policy, tokens: ["t1", "t2"])
    }

    /// The old credential rows (`await credential --step done--> request / start attempt`) started
    /// an attempt the breaker never saw: such a table is refused, naming the row.
    @Test func aCredentialRowThatStartsAnAttemptPastTheBreakerIsRefused() {
        let (policy, _) = Self.bearer(CredentialStore("t1") { $0 })
        let check = RetryState.step(CredentialRefresh<String>.stepID)
        let refreshed = RetryEvent.stepExit(CredentialRefresh<String>.refreshed)
        var bypassing = policy
        bypassing.table = RetryTable(
            name: "bypass", initial: .idle, terminals: policy.table.terminals,
            rows: policy.table.rows.map { row in
                guard row.from == check, row.event == refreshed else { return row }
                return .init(from: check, event: refreshed, to: .request, effects: [.startAttempt, .resetBackoff])
            })
        #expect(throws: RetryPolicyError.self) { try bypassing.validate() }
        do {
            try bypassing.validate()
        } catch {
            #expect(
                error.description.contains(
                    "row has the effect 'start attempt' but does not leave 'breaker' on 'admitted', so what it "
                        + "starts bypasses 'breaker': check credential --refreshed / start attempt, reset "
                        + "backoff--> request"),
                "\(error)")
        }
    }

    @Test func theCredentialTableAndAPolicyWithTheStepsValidate() throws {
        try CredentialTable.credentialRefresh.validate()
        let (policy, _) = Self.bearer(CredentialStore("t1") { $0 })
        try policy.validate()
        // The shipped retry table is untouched: only the policy's copy has the rows.
        let check = RetryState.step(CredentialRefresh<String>.stepID)
        #expect(!RetryTable.retry.states.contains(check))
        #expect(policy.table.states.contains(check))
        // One step, with its exits; nothing passes between steps any more.
        #expect(policy.steps.map(\.id) == [CredentialRefresh<String>.stepID])
        #expect(
            policy.steps.first?.exits == [
                CredentialRefresh<String>.current, CredentialRefresh<String>.refreshed,
                CredentialRefresh<String>.excessiveRefresh,
            ])
    }
}

/// The retry table with the credential rows, explored like any policy's (what `verify` does).
@Suite struct CredentialRefreshExplorationTests {
    @Test func everyCredentialRowIsReachedAndEveryRunEnds() {
        let (policy, _) = CredentialRefreshTests.bearer(CredentialStore("t1") { $0 })
        let result = RetryExploration.explore(policy: policy)
        let credentialRows = policy.table.rows.indices.filter {
            let row = policy.table.rows[$0]
            return [row.from, row.to].contains(.step(CredentialRefresh<String>.stepID))
        }
        #expect(credentialRows.count == 7)
        #expect(Set(credentialRows).isSubset(of: result.reachableRows), "\(result.text)")
        #expect(!result.violations.contains { $0.invariant == "every run ends" }, "\(result.text)")
        // By design, a refresh uses none of the policy's attempts: the resend starts a new series, so
        // the explorer's "attempts ≤ maxAttempts" is crossed, and only right after 'check credential'.
        let beyond = result.violations.filter { $0.invariant == "attempts ≤ maxAttempts" }
        #expect(!beyond.isEmpty, "\(result.text)")
        for violation in beyond {
            // The resend's start: `breaker --admitted-->` right after `check credential` sent it to the
            // limiter and the limiter to the breaker.
            let steps = violation.trace.steps
            #expect(steps.last?.from == .breaker, "\(violation.message)")
            #expect(steps.dropLast(2).last?.from == .step(CredentialRefresh<String>.stepID), "\(violation.message)")
            #expect(violation.trace.isConsistent(with: policy.table))
        }
        #expect(result.violations.allSatisfy { $0.invariant == "attempts ≤ maxAttempts" }, "\(result.text)")
    }
}
