import Foundation
import RetryFlowCharts

/// Which explorer `verify` and `render --policy` run, from `RETRYFLOW_EXPLORER`: unset (the one they
/// use), `exact` (the retry machine under a deadline explored exactly from the start, without first
/// over-approximating its time) or `reference` (the explorer it replaced). For the `verify-scale`
/// benchmark, which runs each in a process of its own to measure its memory; not an option a user needs.
enum ExplorerChoice {
    /// Runs `work` with the explorer the environment names.
    static func run<T>(_ work: () throws -> T) throws -> T {
        switch ProcessInfo.processInfo.environment["RETRYFLOW_EXPLORER"] {
        case "reference": try ExplorationEngine.$reference.withValue(true) { try work() }
        case "exact": try ExplorationEngine.$exactOnly.withValue(true) { try work() }
        default: try work()
        }
    }
}
