import Foundation
import RetryFlow

/// `retryflow-bench __validate MODE N`: the check every engine run makes before its first attempt,
/// `RetryPolicy.validate()` on the default policy, N times, synchronously (so it runs under
/// callgrind, which cannot run URLSession or the engine's tasks here). MODE `cached` validates the
/// shipped table, whose table checks passed on the first call (what a run does now); `fresh`
/// validates a table made anew from the same rows each time, so every check runs (what every run
/// did before the table kept its checks). The tables are made before the timed loop in both modes.
enum PolicyValidation {
    static func run(fresh: Bool, count: Int) throws {
        let shipped = RetryTable.retry
        var policies: [RetryPolicy] = []
        policies.reserveCapacity(count)
        for _ in 0..<count {
            var policy = RetryPolicy.default
            if fresh {
                policy.table = RetryTable(
                    name: shipped.name, initial: shipped.initial, terminals: shipped.terminals, rows: shipped.rows)
            }
            policies.append(policy)
        }
        let start = ContinuousClock.now
        for policy in policies { try policy.validate() }
        let seconds = start.duration(to: .now).inSecondsValue
        print(
            String(
                format: "%@: %.3f µs per validate()", fresh ? "fresh" : "cached",
                seconds / Double(max(count, 1)) * 1e6))
    }
}
