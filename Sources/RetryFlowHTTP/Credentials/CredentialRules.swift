import RetryFlow

/// What a run tells a credential store, with its payload.
package enum CredentialInput: Hashable, Sendable, MachineInput {
    /// A run asks: `sent` is the version its refused request carried (`nil` before its first send),
    /// `expired` whether the current credential is known to be expired.
    case credentialAsked(sent: Int?, expired: Bool)
    /// The refresh returned.
    case refreshSucceeded
    /// The refresh threw.
    case refreshFailed
    /// A credential was set from outside.
    case credentialReplaced

    package var event: CredentialEvent {
        switch self {
        case .credentialAsked: .credentialAsked
        case .refreshSucceeded: .refreshSucceeded
        case .refreshFailed: .refreshFailed
        case .credentialReplaced: .credentialReplaced
        }
    }
}

/// What the store must do after a step of its machine.
package enum CredentialAction: Hashable, Sendable {
    /// Answer the asking run with the current credential.
    case handCurrent
    /// Answer the asking run: refused, too many refreshes.
    case refuseExcessive
    /// Start refreshing version `version`.
    case startRefresh(version: Int)
    /// Answer the asking run: wait for the refresh of `version`.
    case awaitRefresh(version: Int)
    /// Make the refreshed (or replaced) credential current as `version`.
    case install(version: Int)
    /// Hand the new credential to the waiting runs.
    case wakeWaiters
    /// Fail the waiting runs with the refresh's error.
    case failWaiters
    /// Answer the asking run with the failed refresh's error.
    case answerFailure
}

/// The credential store's specialisation of `TableMachine`: versions and the refresh window.
package struct CredentialRules: MachineRules, Hashable {
    package typealias Vocabulary = CredentialVocabulary

    /// The current credential's version, from 1.
    package private(set) var version = 1
    /// How many refreshes may start within `window`.
    let maximumRefreshes: Int
    /// The refresh window's length.
    let window: Duration
    /// When the refreshes within the window started (on the store's clock).
    package private(set) var refreshStarts: [Duration] = []
    /// The asking run's input: the version it sent, whether the credential is known expired.
    private var sent: Int?
    private var expired = false
    private var now: Duration = .zero

    package init(maximumRefreshes: Int, window: Duration) {
        self.maximumRefreshes = maximumRefreshes
        self.window = window
    }

    package mutating func receive(_ input: CredentialInput, at time: Duration) {
        now = time
        if case .credentialAsked(let sent, let expired) = input {
            self.sent = sent
            self.expired = expired
        }
        // Starts older than the window no longer count (Alamofire's RefreshWindow does the same).
        refreshStarts.removeAll { $0 <= time - window }
    }

    package func holds(_ guardSymbol: CredentialGuard) -> Bool {
        switch guardSymbol {
        // A request that carried an older version is resent with the current one: no refresh.
        case .refreshNeeded: expired || sent.map { $0 >= version } == true
        case .refreshWindowFull: refreshStarts.count >= maximumRefreshes
        }
    }

    /// A trace step's count is the credential's version after its row.
    package func traced(_ row: Row) -> (attempt: Int, delay: Duration?) { (version, nil) }

    package mutating func perform(_ effect: CredentialEffect, of row: Row) -> CredentialAction? {
        switch effect {
        case .handCurrent: return .handCurrent
        case .refuseExcessive: return .refuseExcessive
        case .recordRefresh:
            refreshStarts.append(now)
            return nil
        case .startRefresh: return .startRefresh(version: version)
        case .awaitRefresh: return .awaitRefresh(version: version)
        case .installCredential:
            version += 1
            return .install(version: version)
        case .wakeWaiters: return .wakeWaiters
        case .failWaiters: return .failWaiters
        case .answerFailure: return .answerFailure
        }
    }
}

/// A credential store's machine: the one core running `TransitionTable.credentialRefresh`.
package typealias CredentialMachine = TableMachine<CredentialRules>
