import Foundation

/// Starts a thread of our own named `name` (at most 15 bytes reach Linux) that runs `body`: the
/// package's threads that must not be Swift's (`CallThreads`, the real clock's timer).
///
/// Named from inside on Linux: `Thread.name` did not reach the kernel here, so such threads showed
/// up in profiles and /proc/self/task under the name of the thread that started them.
package func startNamedThread(_ name: String, _ body: @escaping @Sendable () -> Void) {
    let thread = Thread {
        #if os(Linux)
            try? String(name.prefix(15)).write(toFile: "/proc/thread-self/comm", atomically: false, encoding: .utf8)
        #endif
        body()
    }
    thread.name = name
    thread.start()
}
