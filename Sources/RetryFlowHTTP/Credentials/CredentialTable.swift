import RetryFlow

/// Where a ``CredentialStore`` stands. The raw values are the node labels on its chart.
package enum CredentialState: String, TableSymbol {
    /// The current credential is in use; nobody is refreshing it.
    case idle
    /// One refresh of the current version is under way; every run that asks waits for it.
    case refreshing
    /// The refresh of the current version failed: every run that asks fails with its error, and
    /// that version is never refreshed again (only a credential set from outside leaves it).
    case failed
    /// A run asked; the store weighs whether a refresh is needed and allowed. A decision: never rested in.
    case weighing
}

/// What happens to a credential store.
package enum CredentialEvent: String, TableSymbol {
    /// A run asks for the credential: before its first send, or after a refresh response to a request
    /// that carried a version of it.
    case credentialAsked = "credential asked"
    /// The refresh returned a new credential.
    case refreshSucceeded = "refresh succeeded"
    /// The refresh threw.
    case refreshFailed = "refresh failed"
    /// The owner set a credential from outside (a new login).
    case credentialReplaced = "credential replaced"
}

/// The questions a credential store asks when a run asks for the credential.
package enum CredentialGuard: String, TableSymbol {
    /// The run's request carried the current version (not an older one), or the current credential
    /// is known to be expired: only a refresh helps.
    case refreshNeeded = "refresh needed"
    /// The refresh window is full: as many refreshes as it allows started within it.
    case refreshWindowFull = "refresh window full"

    /// `[no refresh needed]`, `[refresh window has room]`.
    package var negatedLabel: String {
        switch self {
        case .refreshNeeded: "no refresh needed"
        case .refreshWindowFull: "refresh window has room"
        }
    }
}

/// What a credential store's rows do.
package enum CredentialEffect: String, TableSymbol {
    /// Answer the run with the current credential (a stale request's resend needs no refresh).
    case handCurrent = "hand current"
    /// Answer the run: too many refreshes in the window (it ends `excessive refresh`).
    case refuseExcessive = "refuse excessive"
    /// Note the refresh's start in the refresh window.
    case recordRefresh = "record refresh"
    /// Start the one refresh of the current version (in a task of the store's: no run owns it).
    case startRefresh = "start refresh"
    /// Answer the run: wait for the refresh under way.
    case awaitRefresh = "await refresh"
    /// Make the refreshed credential the current one, a version up.
    case installCredential = "install credential"
    /// Hand the new credential to every run waiting for the refresh.
    case wakeWaiters = "wake waiters"
    /// End every run waiting for the refresh with its error.
    case failWaiters = "fail waiters"
    /// Answer the run with the failed refresh's error.
    case answerFailure = "answer failure"
}

/// The words of a credential store's table: its states, events, guards, effects and the reasons a run ends.
package typealias CredentialVocabulary = TableWords<
    CredentialState, CredentialEvent, CredentialGuard, CredentialEffect, PerpetualReason
>

/// A credential store's transition table.
package typealias CredentialTable = TransitionTable<CredentialVocabulary>

extension TransitionTable where Vocabulary == CredentialVocabulary {
    // The rows line up in columns like the chart; the formatter would close them up.
    // swift-format-ignore
    /// Credential refresh, as data: what ``CredentialStore`` executes, one version at a time, and
    /// `diagrams/credential-table.md` draws. A perpetual machine (no terminal state).
    ///
    /// Single flight: only `weighing` starts a refresh, and only from `idle`; in `refreshing` every
    /// run waits for the one under way. A stale request (it carried an older version) gets the
    /// current credential without a refresh. A failed version stays failed.
    package static let credentialRefresh = CredentialTable(
        name: "CredentialRefresh",
        initial: .idle,
        terminals: [],
        rows: [
            // event                 from               guard                      to               do (effects), ends (reason)
            .on(.credentialAsked,    from: .idle,                                  to: .weighing),
            .completion(             from: .weighing,   .unless(.refreshNeeded),   to: .idle,       do: .handCurrent),
            .completion(             from: .weighing,   .when(.refreshWindowFull), to: .idle,       do: .refuseExcessive),
            .completion(             from: .weighing,                              to: .refreshing, do: .recordRefresh, .startRefresh, .awaitRefresh),
            .on(.credentialAsked,    from: .refreshing,                            to: .refreshing, do: .awaitRefresh),
            .on(.refreshSucceeded,   from: .refreshing,                            to: .idle,       do: .installCredential, .wakeWaiters),
            .on(.refreshFailed,      from: .refreshing,                            to: .failed,     do: .failWaiters),
            // A login during a refresh: later asks get it; the runs waiting get the refresh's result.
            .on(.credentialReplaced, from: .refreshing,                            to: .refreshing, do: .installCredential),
            .on(.credentialAsked,    from: .failed,                                to: .failed,     do: .answerFailure),
            .on(.credentialReplaced, from: .failed,                                to: .idle,       do: .installCredential),
            .on(.credentialReplaced, from: .idle,                                  to: .idle,       do: .installCredential),
        ]
    )
}
