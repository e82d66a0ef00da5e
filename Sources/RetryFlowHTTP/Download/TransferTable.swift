import RetryFlow

/// The transfer machine's table: what a download does with its bytes across attempts.
public typealias TransferTable = TransitionTable<
    TransferState, TransferEvent, TransferGuard, TransferEffect, TransferReason
>

extension TransitionTable
where
    State == TransferState, Event == TransferEvent, Guard == TransferGuard, Effect == TransferEffect,
    Reason == TransferReason
{
    /// A resumable download, as data: this is what the download driver executes, and what
    /// `retryflow render --machine transfer` draws. The retry machine decides *whether* another
    /// attempt comes; this table decides what that attempt asks for and what happens to the file.
    public static let transfer = TransferTable(
        name: "Transfer",
        initial: .idle,
        terminals: [.complete, .failed, .cancelled],
        rows: [
            .init(from: .idle, event: .attempt, condition: .when(.windowed), to: .requesting, effects: [.askWindow]),
            .init(from: .idle, event: .attempt, condition: .when(.partialOnDisk), to: .requesting, effects: [.askRest]),
            .init(from: .idle, event: .attempt, to: .requesting, effects: [.askWhole]),
            .init(from: .idle, event: .cancelled, to: .cancelled, effects: [.finish], reason: .cancelled),

            .init(from: .requesting, event: .whole, to: .streaming, effects: [.truncate]),
            .init(from: .requesting, event: .partial, to: .checkingRange),
            .init(from: .requesting, event: .notSatisfiable, to: .checkingLength),
            .init(from: .requesting, event: .refused, to: .cut),
            // Even before an answer: an earlier window of the same attempt may have made progress.
            .init(from: .requesting, event: .interrupted, to: .checkingProgress),
            .init(from: .requesting, event: .cancelled, to: .cancelled, effects: [.finish], reason: .cancelled),

            .init(
                from: .checkingRange, event: nil, condition: .when(.rangeContinuesFile), to: .appending,
                effects: [.append]),
            .init(from: .checkingRange, event: nil, to: .restarting, effects: [.reject, .discard]),
            .init(from: .checkingLength, event: nil, condition: .when(.fileComplete), to: .verifying),
            .init(from: .checkingLength, event: nil, to: .restarting, effects: [.reject, .discard]),

            .init(from: .streaming, event: .bodyEnded, to: .verifying),
            .init(from: .streaming, event: .interrupted, to: .checkingProgress),
            .init(from: .streaming, event: .cancelled, to: .cancelled, effects: [.finish], reason: .cancelled),
            .init(from: .appending, event: .bodyEnded, to: .verifying),
            .init(from: .appending, event: .interrupted, to: .checkingProgress),
            .init(from: .appending, event: .cancelled, to: .cancelled, effects: [.finish], reason: .cancelled),

            // A window ended short of the total: the same attempt asks for the next one.
            .init(
                from: .verifying, event: nil, condition: .when(.windowEnded), to: .requesting,
                effects: [.askWindow]),
            .init(from: .verifying, event: nil, condition: .unless(.fileComplete), to: .checkingProgress),
            .init(
                from: .verifying, event: nil, condition: .unless(.checksumMatches), to: .failed,
                effects: [.discard, .finish], reason: .checksumMismatch),
            .init(from: .verifying, event: nil, to: .complete, effects: [.install, .finish], reason: .complete),

            // Cut: enough new bytes, within the bound on resumes, start the retry count and backoff over.
            .init(from: .checkingProgress, event: nil, condition: .unless(.madeProgress), to: .cut),
            .init(from: .checkingProgress, event: nil, condition: .unless(.resumesLeft), to: .cut),
            .init(from: .checkingProgress, event: nil, to: .cut, effects: [.creditProgress]),

            .init(from: .cut, event: .attempt, condition: .when(.windowed), to: .requesting, effects: [.askWindow]),
            .init(from: .cut, event: .attempt, condition: .when(.partialOnDisk), to: .requesting, effects: [.askRest]),
            .init(from: .cut, event: .attempt, to: .requesting, effects: [.askWhole]),
            .init(from: .cut, event: .gaveUp, to: .failed, effects: [.finish], reason: .gaveUp),
            .init(from: .cut, event: .cancelled, to: .cancelled, effects: [.finish], reason: .cancelled),

            .init(
                from: .restarting, event: .attempt, condition: .when(.windowed), to: .requesting,
                effects: [.askWindow]),
            .init(from: .restarting, event: .attempt, to: .requesting, effects: [.askWhole]),
            .init(from: .restarting, event: .gaveUp, to: .failed, effects: [.finish], reason: .gaveUp),
            .init(from: .restarting, event: .cancelled, to: .cancelled, effects: [.finish], reason: .cancelled),
        ]
    )
}

/// A download's transfer trace: each step's `detail` names the byte range the attempt asked for
/// or wrote (`bytes=39321600-47710207 If-Range "v1"`, `206 from byte 39321600 to 47710207 of 67108864`).
public typealias TransferTrace = TransitionTrace<TransferState, TransferEvent, TransferGuard>
