import RetryFlow

/// How a download treats its file: resume what is on disk, check a checksum, give up on a stall.
///
/// ```swift
/// var options = DownloadOptions()
/// options.resumeExisting = true                        // curl's -C -
/// options.expectedSHA256 = "9f86d081884c7d65…"
/// options.speedLimit = .init(bytesPerSecond: 1024, window: .seconds(30))
/// ```
public struct DownloadOptions: Hashable, Sendable {
    /// Continue from the bytes already in `FILE.part` (or in `FILE` itself) instead of starting
    /// at 0; the first request then asks for the rest (curl's `-C -`). Default `false`.
    public var resumeExisting: Bool
    /// The SHA-256 (hex) the finished file must have; a mismatch fails the run and removes the
    /// file. Default `nil` (not checked).
    public var expectedSHA256: String?
    /// An attempt whose rate stays below a floor for a while ends as a retryable stall and the
    /// next attempt resumes (curl's `--speed-limit`/`--speed-time`). Default `nil` (off).
    public var speedLimit: SpeedLimit?
    /// The most bytes one request asks for (`Range: bytes=N-M`); the next window is asked for as
    /// soon as one ends, within the same attempt. URLSession on Linux queues every chunk for the
    /// delegate without pausing the transfer, so windows bound memory whatever the file's size.
    /// Windows start at 8 MiB (or this, if smaller) and adapt: they double while
    /// the delegate keeps up with the network (every ordinary link) and halve when body bytes pile
    /// up on its queue (loopback, very fast links), up to this; docs/downloads.md. A server that
    /// ignores ranges answers `200` and the body streams whole. Default
    /// 1 GiB; 8 MiB or less gives fixed windows; `nil` (or not positive) asks for the whole rest.
    public var bytesPerRequest: Int?
    /// Which cut attempts count as progress: each starts the retry count and the backoff over, so
    /// a transfer cut every few MB keeps waiting the first delay and never runs out of attempts
    /// (``ProgressRule``). Default ``ProgressRule/init(minimumBytes:maxResumes:)`` (64 KiB, 1,000
    /// resumes); `nil` is curl's `--retry` meaning: every attempt counts, the backoff keeps growing.
    public var progressRule: ProgressRule?

    /// Tests only: the backlog (bytes) every sample reports instead of the delegate queue's, so
    /// that a window's growth or shrinking is deterministic. `nil` measures.
    package var reportedBacklog: Int?

    /// 1 GiB: on a real link windows grow to this, one round trip per GiB; on loopback they stay
    /// near 8 MiB, with peak memory growth well under 32 MiB (docs/benchmarks.md).
    @usableFromInline package static let defaultBytesPerRequest = 1 << 30

    /// Options; every argument has its default.
    public init(
        resumeExisting: Bool = false, expectedSHA256: String? = nil, speedLimit: SpeedLimit? = nil,
        bytesPerRequest: Int? = DownloadOptions.defaultBytesPerRequest, progressRule: ProgressRule? = ProgressRule()
    ) {
        self.progressRule = progressRule
        self.resumeExisting = resumeExisting
        self.expectedSHA256 = expectedSHA256
        self.speedLimit = speedLimit
        self.bytesPerRequest = bytesPerRequest
    }

    /// A rate floor: fewer than `bytesPerSecond` on average over `window` is a stall. A floor or
    /// window that is not positive watches nothing.
    public struct SpeedLimit: Hashable, Sendable {
        /// The floor, in bytes per second.
        public var bytesPerSecond: Int
        /// How long the rate must stay below the floor (curl's `--speed-time`, 30 s by default).
        public var window: Duration

        /// A floor of `bytesPerSecond` over `window`.
        public init(bytesPerSecond: Int, window: Duration = .seconds(30)) {
            self.bytesPerSecond = bytesPerSecond
            self.window = window
        }
    }
}

extension RetryPolicy {
    /// For downloads: 10 attempts in a row without progress, 0.1 s doubling to 20 s with full jitter.
    /// Each resumed attempt continues where the last one stopped, and one that made progress
    /// (``ProgressRule``) waits the first delay again, so a transfer cut every few MB pays about
    /// 50 ms per cut (aria2 retries at once; curl waits 1 s, doubling).
    public static let download = RetryPolicy(
        maxAttempts: 10, backoff: .exponential(base: .milliseconds(100), multiplier: 2))
}
