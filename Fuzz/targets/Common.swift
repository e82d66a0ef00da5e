import Foundation

/// The bytes libFuzzer hands over, as text (invalid UTF-8 becomes U+FFFD, as any reader here would).
func fuzzText(_ data: UnsafePointer<UInt8>, _ size: Int) -> String {
    String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
}

/// A failed invariant: libFuzzer saves the input as a crash reproducer.
func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError("invariant broken: \(message())") }
}

/// Runs async work to completion from libFuzzer's synchronous callback.
func blocking(_ body: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task {
        await body()
        done.signal()
    }
    done.wait()
}
