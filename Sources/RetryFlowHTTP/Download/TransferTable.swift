import RetryFlow

/// The words of the transfer table: its states, events, guards, effects and the reasons a run ends.
public typealias TransferVocabulary = TableWords<
    TransferState, TransferEvent, TransferGuard, TransferEffect, TransferReason
>

/// The transfer machine's table: what a download does with its bytes across attempts.
public typealias TransferTable = TransitionTable<TransferVocabulary>

extension TransitionTable where Vocabulary == TransferVocabulary {
    // The rows line up in columns like the chart; the formatter would close them up.
    // swift-format-ignore
    /// A resumable download, as data: this is what the download driver executes, and what
    /// `retryflow render --machine transfer` draws. The retry machine decides *whether* another
    /// attempt comes; this table decides what that attempt asks for and what happens to the file.
    public static let transfer = TransferTable(
        name: "Transfer",
        initial: .idle,
        terminals: [.complete, .failed, .cancelled],
        rows: [
            // event             from                     guard                       to                    do (effects), ends (reason)
            .on(.attempt,        from: .idle,             .when(.windowed),           to: .requesting,      do: .askWindow),
            .on(.attempt,        from: .idle,             .when(.partialOnDisk),      to: .requesting,      do: .askRest),
            .on(.attempt,        from: .idle,                                         to: .requesting,      do: .askWhole),
            .on(.cancelled,      from: .idle,                                         to: .cancelled,       do: .finish, ends: .cancelled),

            .on(.whole,          from: .requesting,                                   to: .streaming,       do: .truncate),
            .on(.partial,        from: .requesting,                                   to: .checkingRange),
            .on(.notSatisfiable, from: .requesting,                                   to: .checkingLength),
            .on(.refused,        from: .requesting,                                   to: .cut),
            // Even before an answer: an earlier window of the same attempt may have made progress.
            .on(.interrupted,    from: .requesting,                                   to: .checkingProgress),
            .on(.cancelled,      from: .requesting,                                   to: .cancelled,       do: .finish, ends: .cancelled),

            .completion(         from: .checkingRange,    .when(.rangeContinuesFile), to: .appending,       do: .append),
            .completion(         from: .checkingRange,                                to: .restarting,      do: .reject, .discard),
            .completion(         from: .checkingLength,   .when(.fileComplete),       to: .verifying),
            .completion(         from: .checkingLength,                               to: .restarting,      do: .reject, .discard),

            .on(.bodyEnded,      from: .streaming,                                    to: .verifying),
            .on(.interrupted,    from: .streaming,                                    to: .checkingProgress),
            .on(.cancelled,      from: .streaming,                                    to: .cancelled,       do: .finish, ends: .cancelled),
            .on(.bodyEnded,      from: .appending,                                    to: .verifying),
            .on(.interrupted,    from: .appending,                                    to: .checkingProgress),
            .on(.cancelled,      from: .appending,                                    to: .cancelled,       do: .finish, ends: .cancelled),

            // A window ended short of the total: the same attempt asks for the next one.
            .completion(         from: .verifying,        .when(.windowEnded),        to: .requesting,      do: .askWindow),
            .completion(         from: .verifying,        .unless(.fileComplete),     to: .checkingProgress),
            .completion(         from: .verifying,        .unless(.checksumMatches),  to: .failed,          do: .discard, .finish, ends: .checksumMismatch),
            .completion(         from: .verifying,                                    to: .complete,        do: .install, .finish, ends: .complete),

            // Cut: enough new bytes, within the bound on resumes, start the retry count and backoff over.
            .completion(         from: .checkingProgress, .unless(.madeProgress),     to: .cut),
            .completion(         from: .checkingProgress, .unless(.resumesLeft),      to: .cut),
            .completion(         from: .checkingProgress,                             to: .cut,             do: .creditProgress),

            .on(.attempt,        from: .cut,              .when(.windowed),           to: .requesting,      do: .askWindow),
            .on(.attempt,        from: .cut,              .when(.partialOnDisk),      to: .requesting,      do: .askRest),
            .on(.attempt,        from: .cut,                                          to: .requesting,      do: .askWhole),
            .on(.gaveUp,         from: .cut,                                          to: .failed,          do: .finish, ends: .gaveUp),
            .on(.cancelled,      from: .cut,                                          to: .cancelled,       do: .finish, ends: .cancelled),

            .on(.attempt,        from: .restarting,       .when(.windowed),           to: .requesting,      do: .askWindow),
            .on(.attempt,        from: .restarting,                                   to: .requesting,      do: .askWhole),
            .on(.gaveUp,         from: .restarting,                                   to: .failed,          do: .finish, ends: .gaveUp),
            .on(.cancelled,      from: .restarting,                                   to: .cancelled,       do: .finish, ends: .cancelled),
        ]
    )
}

/// A download's transfer trace: each step's `detail` names the byte range the attempt asked for
/// or wrote (`bytes=39321600-47710207 If-Range "v1"`, `206 from byte 39321600 to 47710207 of 67108864`).
public typealias TransferTrace = TransitionTrace<TransferVocabulary>
