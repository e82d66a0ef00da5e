import Foundation
import RetryFlow
import RetryFlowHTTP

/// The live line of a download on a terminal: bytes, percent, rate, time left, attempt. It is
/// rewritten in place at most ten times a second, and wiped before any other line is printed.
/// Elsewhere (a pipe, a CI log) it prints nothing.
final class DownloadProgressLine: Sendable {
    private struct Drawn {
        var shown = false
        var at: ContinuousClock.Instant?
    }
    private let drawn = Locked(Drawn())
    private let enabled: Bool

    init(enabled: Bool) { self.enabled = enabled }

    /// Draws `progress`, unless the line was drawn less than 100 ms ago.
    func show(_ progress: DownloadProgress) {
        guard enabled else { return }
        drawn.withLock { drawn in
            let now = ContinuousClock.now
            if let at = drawn.at, at.duration(to: now) < .milliseconds(100) { return }
            drawn = Drawn(shown: true, at: now)
            FileHandle.standardError.write(Data(("\r\u{1B}[K" + Self.text(progress)).utf8))
        }
    }

    /// Wipes the line, runs `print` (which writes whole lines), and lets the next update redraw.
    func interrupt(_ print: () -> Void) {
        drawn.withLock { drawn in
            if drawn.shown { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
            drawn = Drawn()
            print()
        }
    }

    /// Wipes the line for good.
    func clear() { interrupt {} }

    /// `12.5 MB of 64 MB  19%  8.1 MB/s  ETA 6 s  attempt 2`.
    static func text(_ progress: DownloadProgress) -> String {
        var parts = [ByteCount.describe(progress.bytesOnDisk)]
        if let total = progress.expectedTotal { parts[0] += " of \(ByteCount.describe(total))" }
        if let fraction = progress.fractionCompleted { parts.append("\(Int((fraction * 100).rounded(.down)))%") }
        parts.append("\(ByteCount.describe(Int(progress.bytesPerSecond)))/s")
        if let total = progress.expectedTotal, progress.bytesPerSecond > 0 {
            let left = Double(total - progress.bytesOnDisk) / progress.bytesPerSecond
            parts.append("ETA \(Duration.milliseconds(Int64(left * 1000)).shortDescription)")
        }
        parts.append("attempt \(progress.attempt)")
        return parts.joined(separator: "  ")
    }
}
