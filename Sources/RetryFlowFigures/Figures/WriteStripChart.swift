import Foundation
import RetryFlowCharts

/// When each write reached the server, one row per algorithm, as SVG: AWS's picture of clients
/// retrying in clusters (no jitter) or spread out (jitter).
package enum WriteStripChart {
    /// The SVG document: a tick per write in `rows`, on a common axis of milliseconds.
    package static func svg(title: String, rows: [(name: String, color: String, writes: [Double])]) -> String {
        let width = 720.0
        let left = 100.0
        let right = 20.0
        let top = 36.0
        let rowHeight = 34.0
        let height = top + rowHeight * Double(rows.count) + 40
        let plotWidth = width - left - right
        let xMax = XYChart.roundCeiling(rows.flatMap(\.writes).max() ?? 1)
        func x(_ value: Double) -> Double { left + plotWidth * value / xMax }
        func f(_ v: Double) -> String { String(format: "%.1f", v) }
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
            viewBox="0 0 \(Int(width)) \(Int(height))" font-family="Helvetica, Arial, sans-serif" font-size="11">
            <rect width="100%" height="100%" fill="#ffffff"/>
            <text x="\(f(left))" y="20" font-size="13" font-weight="bold">\(ChartEscaping.html(title))</text>

            """
        for (index, row) in rows.enumerated() {
            let y = top + rowHeight * Double(index)
            svg +=
                "<text x=\"\(f(left - 8))\" y=\"\(f(y + rowHeight / 2 + 4))\" text-anchor=\"end\">\(row.name)</text>\n"
            svg +=
                "<line x1=\"\(f(left))\" y1=\"\(f(y + rowHeight - 2))\" x2=\"\(f(left + plotWidth))\" y2=\"\(f(y + rowHeight - 2))\" stroke=\"#d0d7de\"/>\n"
            let ticks = row.writes.map { "M\(f(x($0))) \(f(y + 6))v\(f(rowHeight - 12))" }
            svg += "<path d=\"\(ticks.joined())\" stroke=\"\(row.color)\" stroke-opacity=\"0.5\"/>\n"
        }
        let axisY = top + rowHeight * Double(rows.count)
        for k in 0...5 {
            let value = xMax * Double(k) / 5
            svg +=
                "<text x=\"\(f(x(value)))\" y=\"\(f(axisY + 16))\" text-anchor=\"middle\">\(XYChart.label(value))</text>\n"
        }
        svg +=
            "<text x=\"\(f(left + plotWidth / 2))\" y=\"\(f(height - 6))\" text-anchor=\"middle\">milliseconds since the clients started</text>\n"
        return svg + "</svg>\n"
    }
}
