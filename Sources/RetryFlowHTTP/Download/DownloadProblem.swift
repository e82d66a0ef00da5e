import Foundation

/// Why one download attempt failed beyond what the transport says; kept in the attempt records.
public enum DownloadProblem: Error, Hashable, Sendable, CustomStringConvertible {
    /// A `206` or `416` the transfer table would not use (wrong start, other total): the partial
    /// file was discarded and the next attempt starts again from byte 0. Retried.
    case rejected(String)
    /// The body ended cleanly but fewer bytes than the total are on disk. Retried (resuming).
    case incomplete(bytesOnDisk: Int, total: Int?)
    /// The rate stayed below `bytesPerSecond` for `window` (curl's `--speed-limit`/`--speed-time`).
    /// Retried (resuming).
    case stalled(bytesPerSecond: Int, window: Duration)
    /// Every byte arrived but the file's SHA-256 is not the expected one. Not retried; the file
    /// is removed.
    case checksumMismatch(expected: String, actual: String)
    /// The body is larger than ``HTTPRetryRules/maxBodyBytes`` allows (announced, or as it
    /// arrived: `bytes` is then how far it got). Not retried.
    case tooLarge(bytes: Int, limit: Int)
    /// The file could not be opened, written, read or renamed (an errno in words). Not retried.
    case file(String, Int32)

    /// Whether another attempt may help.
    package var isRetryable: Bool {
        switch self {
        case .rejected, .incomplete, .stalled: true
        case .checksumMismatch, .tooLarge, .file: false
        }
    }

    /// The problem in words.
    public var description: String {
        switch self {
        case .rejected(let reason): "unusable answer, restarting from byte 0: \(reason)"
        case .incomplete(let bytes, let total):
            "body ended with \(bytes) of \(total.map(String.init) ?? "an unknown number of") bytes on disk"
        case .stalled(let rate, let window):
            "stalled: below \(rate) bytes/s for \(window.shortDescription)"
        case .checksumMismatch(let expected, let actual): "SHA-256 mismatch: expected \(expected), got \(actual)"
        case .tooLarge(let bytes, let limit): "the body has \(bytes) bytes or more, more than the \(limit) allowed"
        case .file(let what, let code): "\(what): \(String(cString: strerror(code)))"
        }
    }
}
