import RetryFlow

/// The transfer machine's table: what a download does with its bytes across attempts.
public typealias TransferTable = TransitionTable<TransferState, TransferEvent, TransferGuard, TransferEffect>

extension TransitionTable
where State == TransferState, Event == TransferEvent, Guard == TransferGuard, Effect == TransferEffect {
    /// A resumable download, as data: this is what the download driver executes, and what
    /// `retryflow render --machine transfer` draws. The retry machine decides *whether* another
    /// attempt comes; this table decides what that attempt asks for and what happens to the file.
    public static let transfer = TransferTable(
        name: "Transfer",
        initial: .idle,
        terminals: [.complete, .failed, .cancelled],
        rows: [
            .init(from: .idle, event: .attempt, condition: .when(.partialOnDisk), to: .requesting, effects: [.askRest]),
            .init(from: .idle, event: .attempt, to: .requesting, effects: [.askWhole]),
            .init(from: .idle, event: .cancelled, to: .cancelled, effects: [.finish]),

            .init(from: .requesting, event: .whole, to: .streaming, effects: [.truncate]),
            .init(from: .requesting, event: .partial, condition: .when(.rangeContinuesFile), to: .appending,
                  effects: [.append]),
            .init(from: .requesting, event: .partial, to: .restarting, effects: [.reject, .discard]),
            .init(from: .requesting, event: .notSatisfiable, condition: .when(.fileComplete), to: .verifying),
            .init(from: .requesting, event: .notSatisfiable, to: .restarting, effects: [.reject, .discard]),
            .init(from: .requesting, event: .refused, to: .cut),
            .init(from: .requesting, event: .interrupted, to: .cut),
            .init(from: .requesting, event: .cancelled, to: .cancelled, effects: [.finish]),

            .init(from: .streaming, event: .bodyEnded, to: .verifying),
            .init(from: .streaming, event: .interrupted, to: .cut),
            .init(from: .streaming, event: .cancelled, to: .cancelled, effects: [.finish]),
            .init(from: .appending, event: .bodyEnded, to: .verifying),
            .init(from: .appending, event: .interrupted, to: .cut),
            .init(from: .appending, event: .cancelled, to: .cancelled, effects: [.finish]),

            .init(from: .verifying, event: nil, condition: .unless(.fileComplete), to: .cut),
            .init(from: .verifying, event: nil, condition: .unless(.checksumMatches), to: .failed,
                  effects: [.discard, .finish]),
            .init(from: .verifying, event: nil, to: .complete, effects: [.install, .finish]),

            .init(from: .cut, event: .attempt, condition: .when(.partialOnDisk), to: .requesting, effects: [.askRest]),
            .init(from: .cut, event: .attempt, to: .requesting, effects: [.askWhole]),
            .init(from: .cut, event: .gaveUp, to: .failed, effects: [.finish]),
            .init(from: .cut, event: .cancelled, to: .cancelled, effects: [.finish]),

            .init(from: .restarting, event: .attempt, to: .requesting, effects: [.askWhole]),
            .init(from: .restarting, event: .gaveUp, to: .failed, effects: [.finish]),
            .init(from: .restarting, event: .cancelled, to: .cancelled, effects: [.finish]),
        ]
    )
}

/// A download's transfer trace: each step's `detail` names the byte range the attempt asked for
/// or wrote (`bytes 39321600- of 67108864`).
public typealias TransferTrace = TransitionTrace<TransferState, TransferEvent, TransferGuard>
