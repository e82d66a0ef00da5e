import Foundation
import RetryFlow

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Credential refresh as rows of the retry table: one user step (`RetryStep`) a user could have
/// written, `check credential`, sharing one ``CredentialStore`` with every run that uses it.
///
/// The step runs before the first send and after each refresh response (401 by default). It asks
/// the store, which hands the current credential (exit `current`: the first send, or a stale
/// request's resend), or joins the refresh under way or starts the one refresh (single flight) and
/// waits for it (exit `refreshed`), or refuses one refresh too many for the window (exit
/// `excessive refresh`: the run ends `excessive refresh`). A refresh that threw ends the step in
/// `step failed`: the run ends `refresh failed`, with its error. On `current` and `refreshed` the
/// credential goes on every later request (the step's `RequestChange`).
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
    /// The step's identity (its state's name, `check credential`): what the status rules name.
    package static var stepID: RetryStep.ID { RetryStep.ID("check credential") }
    /// The exit when the store handed the current credential (no refresh was needed).
    package static var current: RetryStep.Exit { RetryStep.Exit("current") }
    /// The exit when the step waited for a refresh and has the new credential.
    package static var refreshed: RetryStep.Exit { RetryStep.Exit("refreshed") }
    /// The exit when a refresh was needed and the window was full: the run ends `excessive refresh`.
    package static var excessiveRefresh: RetryStep.Exit { RetryStep.Exit(excessiveRefreshReason) }
    /// The reason a run ends when the refresh window is full.
    package static var excessiveRefreshReason: String { "excessive refresh" }
    /// The reason a run ends when the refresh threw.
    package static var refreshFailedReason: String { "refresh failed" }

    /// The store every run using this refresh shares.
    package let store: CredentialStore<Credential>
    /// Puts the credential on a request.
    package let apply: @Sendable (Credential, inout URLRequest) -> Void
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

    /// The version of the credential the run's requests carry (never traced).
    static var versionKey: RetryStep.Key<Int> { RetryStep.Key("credential version") }

    /// The step, with its action: one step, three exits, no value passed between steps.
    package var step: RetryStep {
        let store = self.store
        let apply = self.apply
        // The first send visits the step too, so its bound is one more than the refreshes.
        return RetryStep(
            Self.stepID.name, entry: .onVerdict, maxVisits: maxRefreshesPerRun + 1,
            failureReason: Self.refreshFailedReason, exits: [Self.current, Self.refreshed, Self.excessiveRefresh]
        ) { context in
            let exit: RetryStep.Exit
            let version: Int
            let credential: Credential
            let ticket: CredentialStore<Credential>.Ticket
            do throws(CredentialRefreshError) {
                ticket = try await store.ask(sent: context.values[Self.versionKey])
            } catch {
                switch error {
                case .excessiveRefresh: return RetryStep.Output(Self.excessiveRefresh, error: error)
                case .refreshFailed: throw error
                }
            }
            switch ticket {
            case .current(let current, let value): (exit, version, credential) = (Self.current, current, value)
            case .wait(let refreshing):
                (version, credential) = try await store.wait(for: refreshing)
                exit = Self.refreshed
            case .failed(let error): throw error
            }
            var output = RetryStep.Output(exit)
            output[Self.versionKey] = version
            output.change = RequestChange { apply(credential, &$0) }
            return output
        }
    }

    /// Adds the step to the options' policy and sends `statuses` to it in its rules: the policy's
    /// table gains the credential rows (docs/credentials.md draws them). The one way to use a refresh.
    public func install(in options: inout HTTPRetryOptions) {
        options.policy.table = Self.table(adding: options.policy.table)
        options.policy.steps.append(step)
        for status in statuses { options.rules.statusSteps[status] = Self.stepID }
    }

    /// `table` with the credential rows: `idle` starts at `check credential` (so the first send
    /// carries the credential, refreshed first when known expired); a refresh response in `retry`
    /// goes there too (`[to check credential]`, first in `retry`). From the step, `current` and
    /// `refreshed` go where `idle` started before (`breaker / ask breaker` in the shipped table: the
    /// first send and every resend are put to the breaker), with the attempt count over;
    /// `excessive refresh` and `step failed` (`refresh failed`) end the run; `cancelled` ends it cancelled.
    package static func table(adding table: RetryTable) -> RetryTable {
        let check = RetryState.step(stepID)
        var rows = table.rows
        // The start row the credential rows take over: its target and effects become the resend's.
        let start = rows.firstIndex { $0.from == .idle && $0.event == .start }
        let next = start.map { rows.remove(at: $0) }
        rows.insert(.init(from: .idle, event: .start, to: check, effects: [.runStep]), at: start ?? rows.startIndex)
        let firstRetry = rows.firstIndex { $0.from == .retry } ?? rows.endIndex
        rows.insert(
            .init(from: .retry, event: nil, condition: .when(.enters(stepID)), to: check, effects: [.runStep]),
            at: firstRetry)
        // Reset, then on as the start went: the resend is attempt 1 of a new series (the refresh
        // used none), and it is put to the breaker like every try.
        let onward = [RetryEffect.resetBackoff] + (next?.effects ?? [.askBreaker])
        rows += [
            .init(from: check, event: .stepExit(current), to: next?.to ?? .breaker, effects: onward),
            .init(from: check, event: .stepExit(refreshed), to: next?.to ?? .breaker, effects: onward),
            .init(
                from: check, event: .stepExit(excessiveRefresh), to: .failure, effects: [.finish],
                reason: .step(excessiveRefreshReason)),
            .init(
                from: check, event: .stepFailed, to: .failure, effects: [.finish], reason: .step(refreshFailedReason)),
            .init(from: check, event: .cancelled, to: .cancelled, effects: [.finish], reason: .cancelled),
        ]
        return RetryTable(name: table.name, initial: table.initial, terminals: table.terminals, rows: rows)
    }
}
