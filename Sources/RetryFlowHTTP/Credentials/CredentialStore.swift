import RetryFlow

/// A credential shared by every run that uses it, and its refresh: one refresh at a time for all
/// of them (single flight), an older version's refusal answered with the current credential at
/// once, a refresh window, and a failed version that stays failed. It executes the table
/// `TransitionTable.credentialRefresh` on the core machine, one version at a time.
///
/// The credential itself is never traced: the store's trace holds its states and version numbers only.
///
/// ```swift
/// let store = CredentialStore("t1", refresh: { _ in try await tokenService.refresh() })
/// ```
public actor CredentialStore<Credential: Sendable> {
    /// What a run is answered when it asks for the credential.
    package enum Ticket: Sendable {
        /// Use this credential, of this version.
        case current(version: Int, credential: Credential)
        /// Wait for the refresh of this version.
        case wait(version: Int)
        /// The refresh of the current version failed with this error.
        case failed(any Error)
    }

    private var machine: CredentialMachine
    private var credential: Credential
    private let refresh: @Sendable (Credential) async throws -> Credential
    private let isExpired: @Sendable (Credential) -> Bool
    private let elapsed: @Sendable () -> Duration
    /// The credential a refresh returned, until its row installs it.
    private var refreshed: Credential?
    /// The failed refresh's error, while the machine is `failed`.
    private var failure: (any Error)?
    private var waiters: [Int: (version: Int, continuation: CheckedContinuation<(Int, Credential), any Error>)] = [:]
    private var nextWaiter = 0
    /// Tests waiting until so many runs wait for a refresh.
    private var waiterWatchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    /// How many refreshes have started.
    package private(set) var refreshes = 0
    /// Every transition of the store's machine, when made with `tracing` (times on its clock, from
    /// its creation): states and version numbers, never the credential. For our charts and tests,
    /// as the guards' traces are.
    package private(set) var trace: TransitionTrace<CredentialVocabulary>?

    /// A store for `credential`, refreshed by `refresh` (given the credential it replaces).
    ///
    /// - Parameters:
    ///   - credential: the credential to start with (version 1).
    ///   - maximumRefreshes: how many refreshes may start within `window` (Alamofire's
    ///     `RefreshWindow`: 5 in 30 s); a run that would start one more ends `excessive refresh`.
    ///   - window: how far back refreshes count.
    ///   - clock: measures the window.
    ///   - isExpired: whether a credential is known to be expired before it is sent (then it is
    ///     refreshed before the first send); by default none is.
    ///   - refresh: returns a new credential for the one it replaces, or throws (the refresh failed).
    public init(
        _ credential: Credential, maximumRefreshes: Int = 5, window: Duration = .seconds(30),
        clock: any Clock<Duration> = ContinuousClock(),
        isExpired: @escaping @Sendable (Credential) -> Bool = { _ in false },
        refresh: @escaping @Sendable (Credential) async throws -> Credential
    ) {
        self.init(
            credential, maximumRefreshes: maximumRefreshes, window: window, clock: clock, tracing: false,
            isExpired: isExpired, refresh: refresh)
    }

    /// The same, keeping every transition in ``trace`` when `tracing` (our tests and charts).
    package init(
        _ credential: Credential, maximumRefreshes: Int = 5, window: Duration = .seconds(30),
        clock: any Clock<Duration> = ContinuousClock(), tracing: Bool,
        isExpired: @escaping @Sendable (Credential) -> Bool = { _ in false },
        refresh: @escaping @Sendable (Credential) async throws -> Credential
    ) {
        self.credential = credential
        self.refresh = refresh
        self.isExpired = isExpired
        self.elapsed = Self.stopwatch(clock)
        self.machine = CredentialMachine(
            table: .credentialRefresh, rules: CredentialRules(maximumRefreshes: maximumRefreshes, window: window))
        self.trace = tracing ? TransitionTrace() : nil
    }

    private static func stopwatch<C: Clock<Duration>>(_ clock: C) -> @Sendable () -> Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }

    /// The current credential's version, from 1.
    package var version: Int { machine.rules.version }
    /// Where the store's machine stands.
    package var state: CredentialState { machine.state }

    /// Replaces the credential from outside (a new login): a version up, and a failed store works again.
    public func replace(with credential: Credential) {
        refreshed = credential
        perform(deliver(.credentialReplaced))
    }

    /// A run asks for the credential: `sent` is the version its refused request carried, `nil`
    /// before its first send. Throws ``CredentialRefreshError/excessiveRefresh`` when a refresh is
    /// needed and the window is full.
    package func ask(sent: Int?) throws(CredentialRefreshError) -> Ticket {
        let actions = deliver(.credentialAsked(sent: sent, expired: isExpired(credential)))
        var answer: Ticket?
        for action in actions {
            switch action {
            case .handCurrent: answer = .current(version: version, credential: credential)
            case .refuseExcessive: throw .excessiveRefresh
            case .startRefresh(let version): start(refreshOf: version)
            case .awaitRefresh(let version): answer = .wait(version: version)
            case .answerFailure: answer = .failed(failure ?? CredentialRefreshError.refreshFailed)
            case .install, .wakeWaiters, .failWaiters: preconditionFailure("no row answers an ask with \(action)")
            }
        }
        guard let answer else { preconditionFailure("every 'credential asked' row answers the run") }
        return answer
    }

    /// Waits for the refresh of `version`: the new credential and its version, or the refresh's
    /// error. A cancelled waiter ends at once with `CancellationError`; the refresh goes on.
    package func wait(for version: Int) async throws -> (version: Int, credential: Credential) {
        if self.version > version { return (self.version, credential) }
        if machine.state == .failed { throw failure ?? CredentialRefreshError.refreshFailed }
        let id = nextWaiter
        nextWaiter += 1
        let result = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<(Int, Credential), any Error>) in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    waiters[id] = (version, continuation)
                    watchWaiters()
                }
            }
        } onCancel: {
            Task { await self.cancelWaiter(id) }
        }
        return (result.0, result.1)
    }

    /// Suspends until `count` runs wait for a refresh (how a test knows they all joined one).
    package func waitUntilWaiting(_ count: Int) async {
        await withCheckedContinuation { continuation in
            waiterWatchers.append((count, continuation))
            watchWaiters()
        }
    }

    private func watchWaiters() {
        let count = waiters.count
        waiterWatchers.removeAll { watcher in
            if watcher.count <= count { watcher.continuation.resume() }
            return watcher.count <= count
        }
    }

    private func cancelWaiter(_ id: Int) {
        waiters.removeValue(forKey: id)?.continuation.resume(throwing: CancellationError())
    }

    /// Starts the one refresh of `version` in a task of the store's own: no run owns it, so a
    /// cancelled run does not cancel it for the others.
    private func start(refreshOf version: Int) {
        refreshes += 1
        let old = credential
        let refresh = self.refresh
        Task {
            do {
                let new = try await refresh(old)
                self.refreshed(new)
            } catch {
                self.refreshFailed(error)
            }
        }
    }

    private func refreshed(_ new: Credential) {
        refreshed = new
        perform(deliver(.refreshSucceeded))
    }

    private func refreshFailed(_ error: any Error) {
        failure = error
        perform(deliver(.refreshFailed))
    }

    /// Performs the actions of an input that no run asked (a refresh's end, a replacement).
    private func perform(_ actions: [CredentialAction]) {
        for action in actions {
            switch action {
            case .install:
                if let refreshed { credential = refreshed }
                refreshed = nil
                failure = nil
            case .wakeWaiters:
                let woken = waiters
                waiters = [:]
                for (_, waiter) in woken { waiter.continuation.resume(returning: (version, credential)) }
            case .failWaiters:
                let failed = waiters
                waiters = [:]
                let error = failure ?? CredentialRefreshError.refreshFailed
                for (_, waiter) in failed { waiter.continuation.resume(throwing: error) }
            case .handCurrent, .refuseExcessive, .startRefresh, .awaitRefresh, .answerFailure:
                preconditionFailure("only 'credential asked' answers a run: \(action)")
            }
        }
    }

    /// Delivers `input` to the machine, records its rows, and returns its actions.
    private func deliver(_ input: CredentialInput) -> [CredentialAction] {
        let now = elapsed()
        do {
            let step = try machine.handle(input, at: now)
            trace?.steps += step.taken(detail: input.detail)
            return Array(step.actions)
        } catch {
            // Every state has a row for each input a store delivers in it (the table's tests walk them).
            trace?.rejections.append(error)
            return []
        }
    }
}
