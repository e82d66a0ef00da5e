import Foundation
import RetryFlow
import RetryFlowTestSupport

extension FleetReport {
    /// The per-second table and the summary, as `retryflow simulate --clients` prints them.
    package var text: String {
        let header = [
            "second", "offered", "retries", "refused: budget", "refused: breaker", "server load", "succeeded", "failed",
        ]
        var rows = [header]
        for s in seconds {
            rows.append(
                [
                    s.time, s.offered, s.retries, s.refusedByBudget, s.refusedByBreaker, s.serverLoad, s.successes,
                    s.failures,
                ]
                .map(String.init))
        }
        let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        var text = ""
        for row in rows {
            let cells = row.indices.map { String(repeating: " ", count: widths[$0] - row[$0].count) + row[$0] }
            text += "  " + cells.joined(separator: "  ") + "\n"
        }
        return text + summary + "\n"
    }

    /// Two lines: amplification overall and during the outage, refusals, recovery.
    package var summary: String {
        let all = totals
        let outage = "\(scenario.outage.lowerBound.shortDescription)–\(scenario.outage.upperBound.shortDescription)"
        return """
              \(all.offered) first attempts, \(all.serverLoad) requests reached the server: amplification \
            \(Self.two(amplification)), during the outage (\(outage)) \(Self.two(amplificationDuringOutage))
              refused: \(all.refusedByBudget) retries by the budget, \(all.refusedByBreaker) attempts by the breaker; \
            \(all.successes) succeeded, \(all.failures) failed; recovered \(timeToRecover.shortDescription) after the server healed
            """
    }

    static func two(_ value: Double) -> String { String(format: "%.2f", value) }
}
