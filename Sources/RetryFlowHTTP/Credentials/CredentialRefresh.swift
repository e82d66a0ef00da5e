import Foundation
import RetryFlow

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Credential refresh as rows of the retry table: two user steps (`RetryStep`) a user could have
/// written, sharing one ``CredentialStore``.
///
/// - `check credential` runs before the first send and after each refresh response (401 by
///   default): it asks the store, which hands the current credential (a stale request's resend),
///   joins the refresh under way, or starts the one refresh (single flight), refusing one too many
///   for the window: the run then ends `excessive refresh`.
/// - `await credential` waits for that refresh and puts the credential on every later request
///   (a `RequestChange`); a refresh that threw ends the run `refresh failed`, with its error.
///
/// Then the run goes on as it would have started (`breaker / ask breaker`): the first send and
/// every resend are put to the circuit breaker like any try. The resend starts the attempt count
/// over (`reset backoff`): a refresh does not use up the policy's attempts. It is bounded all the
/// same: at most ``maxRefreshesPerRun`` refresh responses a run go to the step (then the refresh
/// response is the run's failure, `not retryable`), and the store's window bounds refreshes across runs.
///
/// ```swift
/// let store = CredentialStore("t1") { _ in try await tokenService.refresh() }
/// let refresh = CredentialRefresh(store) { token, request in
///     request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
/// }
/// var options = HTTPRetryOptions.default
/// refresh.install(in: &options)
/// let (data, _) = try await URLSession.shared.data(for: request, retry: options)
/// ```
public struct CredentialRefresh<Credential: Sendable>: Sendable {
    /// The step that asks the store (its state's name).
    public static var checkStep: String { "check credential" }
    /// The step that waits for the refresh and applies the credential.
    public static var awaitStep: String { "await credential" }
    /// The reason a run ends when the refresh window is full.
    public static var excessiveRefreshReason: String { "excessive refresh" }
    /// The reason a run ends when the refresh threw.
    public static var refreshFailedReason: String { "refresh failed" }

    /// The store every run using this refresh shares.
    public let store: CredentialStore<Credential>
    /// Puts the credential on a request.
    public let apply: @Sendable (Credential, inout URLRequest) -> Void
    /// The response statuses that mean "refresh" (401 by default; 403, 419, 440, or 407 for a proxy).
    public var statuses: Set<Int>
    /// How many refresh responses a run may answer with a refresh (or a stale resend).
    public var maxRefreshesPerRun: Int

    /// A refresh through `store`, putting the credential on each request with `apply`.
    public init(
        _ store: CredentialStore<Credential>, statuses: Set<Int> = [401], maxRefreshesPerRun: Int = 2,
        apply: @escaping @Sendable (Credential, inout URLRequest) -> Void
    ) {
        self.store = store
        self.statuses = statuses
        self.maxRefreshesPerRun = maxRefreshesPerRun
        self.apply = apply
    }

    /// The value keys the steps produce (never traced): the request change, the version it carries,
    /// the store's answer between the two steps.
    static var changeKey: String { "credential" }
    static var versionKey: String { "credential version" }
    static var ticketKey: String { "credential ticket" }

    /// The two steps, with their actions.
    public var steps: (check: RetryStep, await: RetryStep) {
        let store = self.store
        let apply = self.apply
        // The first send visits `check credential` too, so its bound is one more than the refreshes.
        let check = RetryStep(
            Self.checkStep, entry: .onVerdict, maxVisits: maxRefreshesPerRun + 1,
            failureReason: Self.excessiveRefreshReason
        ) { context in
            let sent = context.values[Self.versionKey] as? Int
            return [Self.ticketKey: Answer(ticket: try await store.ask(sent: sent))]
        }
        let wait = RetryStep(
            Self.awaitStep, entry: .onVerdict, maxVisits: maxRefreshesPerRun + 1,
            failureReason: Self.refreshFailedReason
        ) { context in
            guard let answer = context.values[Self.ticketKey] as? Answer else {
                preconditionFailure("'\(Self.awaitStep)' runs only after '\(Self.checkStep)'")
            }
            let version: Int
            let credential: Credential
            switch answer.ticket {
            case .current(let current, let value): (version, credential) = (current, value)
            case .wait(let refreshing): (version, credential) = try await store.wait(for: refreshing)
            case .failed(let error): throw error
            }
            return [
                Self.versionKey: version,
                Self.changeKey: RequestChange { apply(credential, &$0) },
            ]
        }
        return (check, wait)
    }

    /// The store's answer, carried from one step to the next among the run's values.
    struct Answer: Sendable {
        let ticket: CredentialStore<Credential>.Ticket
    }

    /// Adds the steps to the options' policy and sends `statuses` to them in its rules: the rows of
    /// ``table(adding:)`` become `options.policy.table`.
    public func install(in options: inout HTTPRetryOptions) {
        let (check, wait) = steps
        options.policy.table = Self.table(adding: options.policy.table)
        options.policy.steps += [check, wait]
        for status in statuses { options.rules.statusSteps[status] = Self.checkStep }
    }

    /// `table` with the credential rows: `idle` starts at `check credential` (so the first send
    /// carries the credential, refreshed first when known expired); a refresh response in `retry`
    /// goes there too (`[to check credential]`, first in `retry`); `check credential` goes on to
    /// `await credential` or fails `excessive refresh`; `await credential` goes where `idle` started
    /// before (`breaker / ask breaker` in the shipped table: the first send and every resend are put
    /// to the breaker), with the attempt count over, or fails `refresh failed`; both end `cancelled`
    /// when cancelled.
    public static func table(adding table: RetryTable) -> RetryTable {
        let check = RetryState.step(checkStep)
        let wait = RetryState.step(awaitStep)
        var rows = table.rows
        // The start row the credential rows take over: its target and effects become the resend's.
        let start = rows.firstIndex { $0.from == .idle && $0.event == .start }
        let next = start.map { rows.remove(at: $0) }
        rows.insert(.init(from: .idle, event: .start, to: check, effects: [.runStep]), at: start ?? rows.startIndex)
        let firstRetry = rows.firstIndex { $0.from == .retry } ?? rows.endIndex
        rows.insert(
            .init(from: .retry, event: nil, condition: .when(.enters(checkStep)), to: check, effects: [.runStep]),
            at: firstRetry)
        rows += [
            .init(from: check, event: .stepDone, to: wait, effects: [.runStep]),
            .init(
                from: check, event: .stepFailed, to: .failure, effects: [.finish],
                reason: .step(excessiveRefreshReason)),
            .init(from: check, event: .cancelled, to: .cancelled, effects: [.finish], reason: .cancelled),
            // Reset, then on as the start went: the resend is attempt 1 of a new series (the refresh
            // used none), and it is put to the breaker like every try.
            .init(
                from: wait, event: .stepDone, to: next?.to ?? .breaker,
                effects: [.resetBackoff] + (next?.effects ?? [.askBreaker])),
            .init(
                from: wait, event: .stepFailed, to: .failure, effects: [.finish], reason: .step(refreshFailedReason)),
            .init(from: wait, event: .cancelled, to: .cancelled, effects: [.finish], reason: .cancelled),
        ]
        return RetryTable(name: table.name, initial: table.initial, terminals: table.terminals, rows: rows)
    }
}
