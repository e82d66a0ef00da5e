/// How many bytes a download's next window asks for, from what the last window showed.
///
/// URLSession on Linux queues every body chunk for the delegate without pausing libcurl, so the
/// bytes waiting on the delegate queue (the backlog) are the memory a window costs. Where the
/// delegate keeps up (every ordinary network link: disk writes outrun the network) the backlog stays
/// a few chunks and a window can be large, making its round trip negligible; where it falls behind
/// (loopback, very fast links) the backlog approaches the whole window, so the window must stay
/// small. The sizer starts at ``first`` (or `largest`, if smaller), doubles after a window whose
/// peak backlog stayed under ``lowMark``, halves after one whose peak passed ``highMark``, and
/// keeps the size otherwise, within `smallest…largest`. A value type: the driver feeds it
/// observations and asks it for the next size; it decides nothing about the transfer.
package struct WindowSizer: Hashable, Sendable {
    /// The first window: 8 MiB.
    package static let first = 8 << 20
    /// The smallest window after halving: 1 MiB (or `largest`, if smaller).
    package static let smallest = 1 << 20

    /// The size the next window asks for.
    package private(set) var size: Int
    /// The most bytes a window asks for (``DownloadOptions/bytesPerRequest``).
    package let largest: Int
    /// The least bytes a window asks for after halving.
    package let smallest: Int
    /// A window whose peak backlog stayed below this is followed by one twice as large.
    package let lowMark: Int
    /// A window whose peak backlog passed this is followed by one half as large.
    package let highMark: Int
    /// The largest backlog seen in the window in flight.
    package private(set) var peak = 0

    /// A sizer for windows of at most `largest` bytes (positive), starting at `first`. The marks
    /// scale with the first window: a backlog above one first window shrinks the next, and one
    /// under an eighth of it (1 MiB: on a real link the backlog is a few 16 KiB chunks) grows the
    /// next, so a window grows only where the delegate clearly keeps up.
    package init(largest: Int, first: Int = WindowSizer.first) {
        self.largest = max(1, largest)
        size = min(max(1, first), self.largest)
        smallest = min(Self.smallest, size)
        highMark = size
        lowMark = size / 8
    }

    /// Records one sample of the backlog (bytes handed to the delegate queue, not yet written).
    package mutating func observe(backlog: Int) { peak = max(peak, backlog) }

    /// Ends the window in flight: picks and returns the next window's size from its peak backlog.
    package mutating func windowEnded() -> Int {
        if peak > highMark {
            size = max(smallest, size / 2)
        } else if peak < lowMark {
            // Saturating: `largest` may be near Int.max.
            size = size > largest / 2 ? largest : size * 2
        }
        peak = 0
        return size
    }
}
