import RetryFlow

/// Where a download's bytes stand. The raw values are the node labels on the transfer chart.
public enum TransferState: String, TableSymbol {
    /// Nothing asked yet (a partial file from an earlier run may be on disk).
    case idle
    /// A request is out; no answer yet.
    case requesting
    /// A `200` body is being written from byte 0 (the file was truncated first).
    case streaming
    /// A `206` body is being appended at the end of the partial file.
    case appending
    /// A `206` arrived: does its `Content-Range` continue the file? A decision.
    case checkingRange = "checking range"
    /// A `416` arrived: is the file on disk already whole? A decision.
    case checkingLength = "checking length"
    /// An attempt ended early after its answer began: did it add enough new bytes to count as
    /// progress (``ProgressRule``)? A decision.
    case checkingProgress = "checking progress"
    /// An attempt ended early; the bytes on disk are kept for the next attempt to resume.
    case cut
    /// The partial file was discarded (wrong `206`, unusable `416`); the next attempt starts at 0.
    case restarting
    /// The body ended: are all bytes on disk, and does the checksum match? A decision.
    case verifying
    /// Terminal: every byte is on disk (and matched the checksum); the file is in place.
    case complete
    /// Terminal: the run gave up; the partial file is kept to resume later (or removed when its
    /// checksum proved it wrong).
    case failed
    /// Terminal: the caller cancelled; the partial file is kept.
    case cancelled
}

/// What happens to a download's bytes. The raw values are the edge labels on the transfer chart.
public enum TransferEvent: String, TableSymbol {
    /// An attempt starts.
    case attempt
    /// `200`: the whole body follows.
    case whole = "200"
    /// `206`: part of the body follows, per its `Content-Range`.
    case partial = "206"
    /// `416 Range Not Satisfiable`.
    case notSatisfiable = "416"
    /// Another status (a `503` to retry, a `404`): nothing written.
    case refused = "other status"
    /// The body ended where its length said.
    case bodyEnded = "body ended"
    /// The attempt ended before the body did (cut, reset, stall, timeout).
    case interrupted
    /// The retry machine gave up.
    case gaveUp = "gave up"
    /// The caller cancelled.
    case cancelled
}

/// The questions the transfer table asks. The raw values are drawn on the chart as `[guard]`.
public enum TransferGuard: String, TableSymbol {
    /// Some bytes are on disk, so the request can ask for the rest (`Range: bytes=N-`).
    case partialOnDisk = "partial on disk"
    /// The `206`'s `Content-Range` starts exactly at the bytes on disk, and its total agrees
    /// with the one known.
    case rangeContinuesFile = "range continues file"
    /// The bytes on disk are as many as the total the server announced.
    case fileComplete = "file complete"
    /// No expected SHA-256 was given, or the file's matches it.
    case checksumMatches = "checksum matches"
    /// Requests ask for a bounded window of bytes (`Range: bytes=N-M`), so that what URLSession
    /// queues for the delegate never exceeds one window (``DownloadOptions/bytesPerRequest``; the
    /// driver adapts each window's size, `WindowSizer`).
    case windowed
    /// A `206` body ended cleanly at its `Content-Range` end, short of the total: the next window
    /// is asked for at once, within the same attempt.
    case windowEnded = "window ended"
    /// The attempt added at least ``ProgressRule/minimumBytes`` bytes beyond the most the file held
    /// of this version before it began (never without a rule: curl's meaning).
    case madeProgress = "made progress"
    /// Fewer attempts than ``ProgressRule/maxResumes`` were credited with progress so far.
    case resumesLeft = "resumes left"

    /// How a failing guard reads on the chart.
    public var negatedLabel: String {
        switch self {
        case .partialOnDisk: "nothing on disk"
        case .rangeContinuesFile: "range does not continue file"
        case .fileComplete: "bytes missing"
        case .checksumMatches: "checksum mismatch"
        case .windowed: "not windowed"
        case .windowEnded: "window not ended"
        case .madeProgress: "no progress"
        case .resumesLeft: "no resumes left"
        }
    }
}

/// Why a transfer ended, named by the row that ended it.
public enum TransferReason: String, TableSymbol {
    /// Every byte is on disk and in place.
    case complete
    /// Every byte arrived but the SHA-256 did not match.
    case checksumMismatch = "checksum mismatch"
    /// The retry machine gave up; the partial file is kept.
    case gaveUp = "gave up"
    /// The caller cancelled; the partial file is kept.
    case cancelled
}

/// The work a row of the transfer table asks the download driver to do.
public enum TransferEffect: String, TableSymbol {
    /// Ask for the whole body (no `Range`).
    case askWhole = "ask whole"
    /// Ask for `Range: bytes=N-`, with `If-Range` when a strong ETag or a Last-Modified is known.
    case askRest = "ask rest"
    /// Ask for the next window, `Range: bytes=N-(N+window-1)` (N may be 0), with `If-Range` when
    /// a validator is known.
    case askWindow = "ask window"
    /// Empty the partial file and write the body from byte 0.
    case truncate
    /// Write the body after the bytes on disk.
    case append
    /// Stop the transfer in flight; the attempt fails (retryably) without writing a byte.
    case reject
    /// Empty the partial file and forget its validators.
    case discard
    /// Move the finished file into place.
    case install
    /// The attempt made progress: count the resume, and tell the retry machine (its
    /// `failed after progress` row starts the attempt count and the backoff over).
    case creditProgress = "credit progress"
    /// The run is over: report it.
    case finish
}
