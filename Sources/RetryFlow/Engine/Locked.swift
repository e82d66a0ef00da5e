import Foundation

/// A value behind a lock, for the few places where tasks share mutable state: the package's one
/// lock type. (`Synchronization.Mutex` needs macOS 15; this keeps the package's macOS 13 floor.)
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// A lock that guards fields kept beside it (`Locked(())`): no inout access to the empty value,
    /// which ThreadSanitizer's exclusivity checks report as a race with the object's header.
    package func whileLocked<R>(_ body: () throws -> R) rethrows -> R where Value == Void {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
