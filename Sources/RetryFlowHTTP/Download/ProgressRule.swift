/// What makes a download attempt *progress*, so that it starts the retry count and the backoff
/// over instead of using up `maxAttempts`.
///
/// An attempt made progress when it ended (cut, reset, stalled) with at least ``minimumBytes``
/// more bytes in the file than the file ever held of the same version before it began, and fewer
/// than ``maxResumes`` attempts have been credited so far. The transfer table decides it (the
/// `checking progress` state: `[made progress]`, `[resumes left]`); the retry table's
/// `failed after progress` row then resets the count and the backoff. Everything else counts as
/// curl counts it: an attempt that wrote nothing, fewer bytes, or only bytes the file already held
/// (a `200` restarting the same version), an answer that is not the file (a `503`), and a
/// per-attempt timeout. A server trickling bytes cannot keep a client forever: an attempt below
/// the speed limit ends by the stall rule (``DownloadOptions/speedLimit``), one below the minimum
/// is a failure, and credits stop after ``maxResumes``.
///
/// ```swift
/// var options = DownloadOptions()
/// options.progressRule = ProgressRule(minimumBytes: 1 << 20, maxResumes: 100)
/// options.progressRule = nil   // curl's meaning: every attempt counts, the backoff keeps growing
/// ```
public struct ProgressRule: Hashable, Sendable {
    /// The new bytes an attempt must add to count as progress. Default 64 KiB.
    public var minimumBytes: Int
    /// How many attempts may be credited with progress in one run; after that every attempt counts
    /// against `maxAttempts`. Default 1,000 (a 4 GiB file cut every 7 MB needs 585).
    public var maxResumes: Int

    /// A rule; every argument has its default. A minimum below 1 byte counts as 1.
    public init(minimumBytes: Int = 64 << 10, maxResumes: Int = 1_000) {
        self.minimumBytes = max(1, minimumBytes)
        self.maxResumes = maxResumes
    }
}
