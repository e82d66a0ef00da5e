import Foundation
import RetryFlow
import Testing

/// A scripted error, so tests can tell attempts apart.
struct Boom: Error, Equatable, CustomStringConvertible {
    var n: Int
    var description: String { "boom \(n)" }
}

/// A value shared across tasks in a test: the package's one lock type.
typealias Shared = Locked

extension Locked {
    func update<R>(_ body: (inout Value) -> R) -> R { withLock(body) }
    var current: Value { withLock { $0 } }
}

/// Counts attempts across tasks.
typealias Counter = Locked<Int>
extension Locked where Value == Int {
    convenience init() { self.init(0) }
    func next() -> Int {
        withLock {
            $0 += 1
            return $0
        }
    }
}
