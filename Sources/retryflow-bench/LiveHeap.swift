import Foundation

/// What each parked task holds on the heap, by allocation size: active only when
/// `scripts/live-heap.c` is preloaded (its functions are then found by name), silent otherwise.
enum LiveHeap {
    private typealias Snapshot = @convention(c) () -> Void
    private typealias Report = @convention(c) (Int) -> Void

    /// Remembers the live allocations now.
    static func snapshot() {
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), "live_heap_snapshot").map {
            unsafeBitCast($0, to: Snapshot.self)
        }?()
    }

    /// Prints, on standard error, what was added since ``snapshot()``, per task.
    static func report(tasks: Int) {
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), "live_heap_report").map { unsafeBitCast($0, to: Report.self) }?(
            tasks)
    }
}
