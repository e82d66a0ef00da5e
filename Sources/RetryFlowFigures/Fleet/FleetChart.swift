import Foundation
import RetryFlow

/// A line chart of a fleet simulation, as SVG (``LoadChart``): server load, first attempts offered
/// and successes per second, with the outage shaded.
package enum FleetChart {
    /// The series drawn, with their colours.
    static let series: [(name: String, color: String, value: @Sendable (FleetReport.Second) -> Int)] = [
        ("server load", "#d1242f", { $0.serverLoad }),
        ("offered", "#6e7781", { $0.offered }),
        ("succeeded", "#1a7f37", { $0.successes }),
    ]

    /// The SVG document. `title` goes above the plot.
    package static func svg(_ report: FleetReport, title: String) -> String {
        LoadChart.svg(
            title: title, seconds: report.seconds.count,
            series: series.map { line in (line.name, line.color, report.seconds.map { Double(line.value($0)) }) },
            shaded: (
                report.scenario.outage.lowerBound / .seconds(1), report.scenario.outage.upperBound / .seconds(1),
                "outage"
            ))
    }
}
