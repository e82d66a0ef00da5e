/// Where a download stands, sent as bytes arrive (on the `progress` stream of
/// `URLSession.download(for:to:retry:options:progress:)`).
public struct DownloadProgress: Hashable, Sendable {
    /// Bytes in the file now (resumed bytes included).
    public var bytesOnDisk: Int
    /// The complete length, once the server announced it.
    public var expectedTotal: Int?
    /// Bytes per second received in the current attempt, since its first byte.
    public var bytesPerSecond: Double
    /// The attempt in flight (from 1).
    public var attempt: Int
    /// Where the current attempt started writing (0 for a fresh or restarted transfer).
    public var resumedAt: Int

    /// The fraction done (0…1), when the total is known.
    public var fractionCompleted: Double? {
        guard let expectedTotal, expectedTotal > 0 else { return nil }
        return Double(bytesOnDisk) / Double(expectedTotal)
    }
}

/// What one attempt of a download asked for and wrote: how a trace shows "resumed at 37.5 MB".
public struct DownloadAttemptRange: Hashable, Sendable, CustomStringConvertible {
    /// The attempt's number (from 1).
    public var attempt: Int
    /// The first byte it asked for (`Range: bytes=N-…`), 0 for the whole body; its later windows
    /// (``DownloadOptions/bytesPerRequest``) continue from there.
    public var requestedFrom: Int
    /// Whether its first request sent `If-Range`.
    public var sentIfRange: Bool
    /// The status of its last answer, if any.
    public var status: Int?
    /// Where its bytes started in the file, if it wrote any (0 for a 200).
    public var wroteFrom: Int?
    /// Bytes on disk when it ended.
    public var endedAt: Int

    /// `#2 asked bytes=1048576- (If-Range), got 206, wrote 1048576..<2097152`.
    public var description: String {
        var text = "#\(attempt) asked bytes=\(requestedFrom)-" + (sentIfRange ? " (If-Range)" : "")
        text += status.map { ", got \($0)" } ?? ", no answer"
        if let wroteFrom { text += ", wrote \(wroteFrom)..<\(endedAt)" }
        return text
    }
}
