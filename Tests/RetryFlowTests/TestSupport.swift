import Foundation
import RetryFlow
import Testing

/// A scripted error, so tests can tell attempts apart.
struct Boom: Error, Equatable, CustomStringConvertible {
    var n: Int
    var description: String { "boom \(n)" }
}

/// A value shared across tasks in a test.
final class Shared<Value: Sendable>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func update<R>(_ body: (inout Value) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
    var current: Value { update { $0 } }
}

/// Counts attempts across tasks.
typealias Counter = Shared<Int>
extension Shared where Value == Int {
    convenience init() { self.init(0) }
    func next() -> Int { update { $0 += 1; return $0 } }
}
