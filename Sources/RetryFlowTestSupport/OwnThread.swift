import Foundation

/// Runs `work` on a new thread of its own and suspends until it returns its result: how async code
/// (a test especially) computes for long, or makes a blocking call, without holding one of the
/// threads Swift's tasks run on.
///
/// Why it matters: on Linux the cooperative pool has as many threads as cores (two on a 2-core
/// machine), and every test of a `swift test` run shares them. A test that hashed 40 MiB there
/// held both threads for tens of seconds on a loaded machine, and every timer, continuation and
/// deadline of every other test waited behind it (docs/reliability.md, "The loaded machine").
/// A thread of its own is time-sliced by the kernel instead, so the pool keeps running.
///
/// ```swift
/// let digest = try await runOnOwnThread { try FlakyServer.Resource.sha256Now(ofFileAt: file) }
/// #expect(digest == expected) // expectations stay on the test's task
/// ```
///
/// Keep `#expect` and `Issue.record` out of `work`: they belong to the test's task; hand results
/// back instead.
public func runOnOwnThread<T: Sendable, Failure: Error>(
    _ work: @escaping @Sendable () throws(Failure) -> T
) async throws(Failure) -> T {
    let result: Result<T, Failure> = await withCheckedContinuation { continuation in
        Thread.detachNewThread {
            do throws(Failure) {
                continuation.resume(returning: .success(try work()))
            } catch {
                continuation.resume(returning: .failure(error))
            }
        }
    }
    return try result.get()
}
