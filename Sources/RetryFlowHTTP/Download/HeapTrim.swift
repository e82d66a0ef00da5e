#if canImport(Glibc)
    import Glibc
#endif

/// Gives the heap's free pages back to the system between two windows of a download, on glibc.
///
/// URLSession on Linux allocates each body chunk on whichever Dispatch worker runs its work
/// queue, and glibc gives each such thread its own arena; an arena keeps the pages a window's
/// backlog of chunks once filled, so over a long download the resident size grows with the number
/// of arenas touched (4 GiB in 8 MiB windows: 32–43 MiB, against 10 MiB with one arena;
/// docs/benchmarks.md). Between windows the backlog is empty, so `malloc_trim(0)` returns nearly
/// all of it. Looked up by name: Swift's Glibc module does not export `<malloc.h>`, and musl and
/// Darwin have no such call (nothing is done there).
enum HeapTrim {
    private typealias Trim = @convention(c) (Int) -> Int32

    #if canImport(Glibc)
        private static let trim: Trim? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim").map {
            unsafeBitCast($0, to: Trim.self)
        }
    #else
        private static let trim: Trim? = nil
    #endif

    /// Returns free heap pages to the system (a no-op where `malloc_trim` does not exist).
    static func release() { _ = trim?(0) }
}
