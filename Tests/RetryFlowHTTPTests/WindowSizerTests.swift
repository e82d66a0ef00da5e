import RetryFlowHTTP
import Testing

/// The download window's size, from backlog observations alone: grows while the delegate keeps up,
/// shrinks when bytes pile up on its queue, always within its bounds.
@Suite struct WindowSizerTests {
    static let mib = 1 << 20

    /// The sizes a sizer picks after windows whose backlog samples are `windows`.
    static func sizes(_ sizer: inout WindowSizer, _ windows: [[Int]]) -> [Int] {
        windows.map { samples in
            for backlog in samples { sizer.observe(backlog: backlog) }
            return sizer.windowEnded()
        }
    }

    @Test func windowsDoubleUpToTheLargestWhileTheDelegateKeepsUp() {
        var sizer = WindowSizer(largest: 1 << 30)
        #expect(sizer.size == 8 * Self.mib)
        let keepingUp = Array(repeating: [0, 16_384, 32_768], count: 9)
        #expect(Self.sizes(&sizer, keepingUp).map { $0 / Self.mib } == [16, 32, 64, 128, 256, 512, 1024, 1024, 1024])
    }

    @Test func windowsHalveDownToTheSmallestWhenTheBacklogPassesTheHighMark() {
        var sizer = WindowSizer(largest: 1 << 30)
        _ = Self.sizes(&sizer, [[0], [0], [0]]) // 64 MiB
        let behind = Array(repeating: [Self.mib, 40 * Self.mib, 2 * Self.mib], count: 8)
        #expect(Self.sizes(&sizer, behind).map { $0 / Self.mib } == [32, 16, 8, 4, 2, 1, 1, 1])
    }

    @Test func aBacklogBetweenTheMarksKeepsTheSize() {
        var sizer = WindowSizer(largest: 1 << 30)
        #expect(sizer.lowMark == Self.mib && sizer.highMark == 8 * Self.mib)
        // On loopback an 8 MiB window's backlog reaches most of it: the window stays, memory bounded.
        let between = Array(repeating: [3 * Self.mib, 7 * Self.mib], count: 4)
        #expect(Self.sizes(&sizer, between).map { $0 / Self.mib } == [8, 8, 8, 8])
        // The marks themselves: exactly at the low mark does not grow, exactly at the high does not shrink.
        #expect(Self.sizes(&sizer, [[Self.mib], [8 * Self.mib]]).map { $0 / Self.mib } == [8, 8])
    }

    @Test func growthThenPileUpOscillatesWithinTwoFirstWindows() {
        // A delegate at half the network's speed leaves half of each window queued: 8 MiB windows
        // (4 MiB backlog) stay; had one grown to 16 MiB (8+ MiB backlog), the next halves back.
        var sizer = WindowSizer(largest: 1 << 30)
        let sizes = Self.sizes(&sizer, [[Self.mib / 2], [8 * Self.mib + 1], [4 * Self.mib]])
        #expect(sizes.map { $0 / Self.mib } == [16, 8, 8])
    }

    @Test func eachWindowIsJudgedByItsOwnPeakOnly() {
        var sizer = WindowSizer(largest: 1 << 30)
        #expect(Self.sizes(&sizer, [[9 * Self.mib], []]).map { $0 / Self.mib } == [4, 8])
        #expect(sizer.peak == 0)
    }

    @Test func aSmallLargestFixesTheWindow() {
        var fixed = WindowSizer(largest: 300_000)
        #expect(fixed.size == 300_000 && fixed.smallest == 300_000)
        #expect(Self.sizes(&fixed, [[0], [10 * Self.mib], [0]]) == [300_000, 300_000, 300_000])
        var eight = WindowSizer(largest: 8 * Self.mib)
        #expect(Self.sizes(&eight, [[0], [0]]) == [8 * Self.mib, 8 * Self.mib])
    }

    @Test func growthSaturatesNearIntMax() {
        var sizer = WindowSizer(largest: Int.max, first: Int.max / 2 + 1)
        #expect(Self.sizes(&sizer, [[0], [0]]) == [Int.max, Int.max])
        var tiny = WindowSizer(largest: 0)
        #expect(tiny.size == 1 && Self.sizes(&tiny, [[5], [0]]) == [1, 1])
    }
}
