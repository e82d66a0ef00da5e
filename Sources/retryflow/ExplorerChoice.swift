import Foundation
import RetryFlowCharts

/// Which explorer `verify` and `render --policy` run, from `RETRYFLOW_EXPLORER`: unset (the one they
/// use), `exact` (the retry machine under a deadline explored exactly from the start, without first
/// over-approximating its time) or `reference` (the explorer it replaced). With
/// `RETRYFLOW_EXPLORER_STATS` set, what the exploration cost goes to standard error. For the
/// `verify-scale` benchmark, which runs each in a process of its own to measure its memory; not an
/// option a user needs.
enum ExplorerChoice {
    /// Runs `work`, an exploration, with the explorer the environment names.
    static func run<V>(_ work: () throws -> ExplorationResult<V>) throws -> ExplorationResult<V> {
        let environment = ProcessInfo.processInfo.environment
        let start = ContinuousClock.now
        let result: ExplorationResult<V>
        switch environment["RETRYFLOW_EXPLORER"] {
        case "reference": result = try ExplorationEngine.$reference.withValue(true) { try work() }
        case "exact": result = try ExplorationEngine.$exactOnly.withValue(true) { try work() }
        default: result = try work()
        }
        if environment["RETRYFLOW_EXPLORER_STATS"] != nil {
            let seconds =
                Double(start.duration(to: .now).components.attoseconds) / 1e18
                + Double(start.duration(to: .now).components.seconds)
            let states = max(result.statesExplored, 1)
            Console.error(
                "explorer: \(result.statesExplored) states, \(result.transitionsExplored) transitions, "
                    + "\(result.overApproximatedStates) of them over-approximated, \(result.storedBytes) bytes stored "
                    + "(\(result.storedBytes / states) a state), \(String(format: "%.3f", seconds)) s\n")
        }
        return result
    }
}
