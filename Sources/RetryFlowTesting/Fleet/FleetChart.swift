import Foundation
import RetryFlow

/// A line chart of a fleet simulation, as SVG written by hand (no dependency): server load, first
/// attempts offered and successes per second, with the outage shaded.
public enum FleetChart {
    /// The series drawn, with their colours.
    static let series: [(name: String, color: String, value: @Sendable (FleetReport.Second) -> Int)] = [
        ("server load", "#d1242f", { $0.serverLoad }),
        ("offered", "#6e7781", { $0.offered }),
        ("succeeded", "#1a7f37", { $0.successes }),
    ]

    /// The SVG document. `title` goes above the plot.
    public static func svg(_ report: FleetReport, title: String) -> String {
        let width = 720.0
        let height = 320.0
        let left = 56.0
        let right = 150.0
        let top = 36.0
        let bottom = 40.0
        let plotWidth = width - left - right
        let plotHeight = height - top - bottom
        let count = max(report.seconds.count, 1)
        let peak = max(1, report.seconds.map { s in series.map { $0.value(s) }.max() ?? 0 }.max() ?? 1)
        let yMax = Double(niceCeiling(peak))
        func x(_ second: Double) -> Double { left + plotWidth * second / Double(count) }
        func y(_ value: Double) -> Double { top + plotHeight * (1 - value / yMax) }
        func f(_ v: Double) -> String { String(format: "%.1f", v) }

        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
            viewBox="0 0 \(Int(width)) \(Int(height))" font-family="Helvetica, Arial, sans-serif" font-size="11">
            <rect width="100%" height="100%" fill="#ffffff"/>
            <text x="\(f(left))" y="20" font-size="13" font-weight="bold">\(ChartEscaping.html(title))</text>

            """
        let outageFrom = report.scenario.outage.lowerBound / .seconds(1)
        let outageTo = min(Double(count), report.scenario.outage.upperBound / .seconds(1))
        if outageTo > outageFrom {
            svg +=
                "<rect x=\"\(f(x(outageFrom)))\" y=\"\(f(top))\" width=\"\(f(x(outageTo) - x(outageFrom)))\" "
                + "height=\"\(f(plotHeight))\" fill=\"#fff1e5\"/>\n"
            svg += "<text x=\"\(f(x(outageFrom) + 4))\" y=\"\(f(top + 12))\" fill=\"#bc4c00\">outage</text>\n"
        }
        for tick in 0...4 {
            let value = yMax * Double(tick) / 4
            svg +=
                "<line x1=\"\(f(left))\" y1=\"\(f(y(value)))\" x2=\"\(f(left + plotWidth))\" y2=\"\(f(y(value)))\" stroke=\"#d0d7de\"/>\n"
            svg += "<text x=\"\(f(left - 6))\" y=\"\(f(y(value) + 4))\" text-anchor=\"end\">\(Int(value))</text>\n"
        }
        let step = max(1, count / 10)
        for second in stride(from: 0, through: count, by: step) {
            svg +=
                "<text x=\"\(f(x(Double(second))))\" y=\"\(f(top + plotHeight + 16))\" text-anchor=\"middle\">\(second)</text>\n"
        }
        svg += "<text x=\"\(f(left + plotWidth / 2))\" y=\"\(f(height - 6))\" text-anchor=\"middle\">seconds</text>\n"
        svg +=
            "<text x=\"14\" y=\"\(f(top + plotHeight / 2))\" text-anchor=\"middle\" "
            + "transform=\"rotate(-90 14 \(f(top + plotHeight / 2)))\">requests per second</text>\n"
        for (index, line) in series.enumerated() {
            let points = report.seconds.map { "\(f(x(Double($0.time) + 0.5))),\(f(y(Double(line.value($0)))))" }
            svg +=
                "<polyline fill=\"none\" stroke=\"\(line.color)\" stroke-width=\"2\" points=\"\(points.joined(separator: " "))\"/>\n"
            let legendY = top + 14 + Double(index) * 18
            svg +=
                "<line x1=\"\(f(left + plotWidth + 16))\" y1=\"\(f(legendY - 4))\" x2=\"\(f(left + plotWidth + 36))\" "
                + "y2=\"\(f(legendY - 4))\" stroke=\"\(line.color)\" stroke-width=\"2\"/>\n"
            svg += "<text x=\"\(f(left + plotWidth + 42))\" y=\"\(f(legendY))\">\(line.name)</text>\n"
        }
        svg += "</svg>\n"
        return svg
    }

    /// 1, 2 or 5 times a power of ten, at least `value`: round axis labels.
    static func niceCeiling(_ value: Int) -> Int {
        var power = 1
        while true {
            for factor in [1, 2, 5] where factor * power >= value { return factor * power }
            power *= 10
        }
    }
}
