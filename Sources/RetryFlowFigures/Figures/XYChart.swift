import Foundation
import RetryFlowCharts

/// A line chart of numbers against numbers, as SVG written by hand (no dependency): the classic
/// figures' curves (``ClassicFigures``). ``LoadChart`` draws seconds on x; this draws any scale.
package enum XYChart {
    /// One line: its legend, its colour, its points in order of x.
    package typealias Series = (name: String, color: String, points: [(x: Double, y: Double)])

    /// The SVG document: `series` on axes from 0 to a round number past the largest x and y.
    /// `yMax` fixes the y axis's top instead (a share, say: 1).
    package static func svg(
        title: String, xLabel: String, yLabel: String, series: [Series], yMax fixedTop: Double? = nil
    ) -> String {
        let width = 720.0
        let height = 360.0
        let left = 64.0
        let right = 160.0
        let top = 36.0
        let bottom = 44.0
        let plotWidth = width - left - right
        let plotHeight = height - top - bottom
        let xs = series.flatMap { $0.points.map(\.x) }
        let ys = series.flatMap { $0.points.map(\.y) }
        let xMax = roundCeiling(xs.max() ?? 1)
        let yMax = fixedTop ?? roundCeiling(ys.max() ?? 1)
        func x(_ value: Double) -> Double { left + plotWidth * value / xMax }
        func y(_ value: Double) -> Double { top + plotHeight * (1 - value / yMax) }
        func f(_ v: Double) -> String { String(format: "%.1f", v) }

        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
            viewBox="0 0 \(Int(width)) \(Int(height))" font-family="Helvetica, Arial, sans-serif" font-size="11">
            <rect width="100%" height="100%" fill="#ffffff"/>
            <text x="\(f(left))" y="20" font-size="13" font-weight="bold">\(ChartEscaping.html(title))</text>

            """
        for k in 0...4 {
            let value = yMax * Double(k) / 4
            svg +=
                "<line x1=\"\(f(left))\" y1=\"\(f(y(value)))\" x2=\"\(f(left + plotWidth))\" y2=\"\(f(y(value)))\" stroke=\"#d0d7de\"/>\n"
            svg += "<text x=\"\(f(left - 6))\" y=\"\(f(y(value) + 4))\" text-anchor=\"end\">\(label(value))</text>\n"
        }
        for k in 0...5 {
            let value = xMax * Double(k) / 5
            svg +=
                "<text x=\"\(f(x(value)))\" y=\"\(f(top + plotHeight + 16))\" text-anchor=\"middle\">\(label(value))</text>\n"
        }
        svg +=
            "<text x=\"\(f(left + plotWidth / 2))\" y=\"\(f(height - 8))\" text-anchor=\"middle\">\(ChartEscaping.html(xLabel))</text>\n"
        svg +=
            "<text x=\"14\" y=\"\(f(top + plotHeight / 2))\" text-anchor=\"middle\" "
            + "transform=\"rotate(-90 14 \(f(top + plotHeight / 2)))\">\(ChartEscaping.html(yLabel))</text>\n"
        for (index, line) in series.enumerated() {
            let points = line.points.map { "\(f(x($0.x))),\(f(y(min($0.y, yMax))))" }
            svg +=
                "<polyline fill=\"none\" stroke=\"\(line.color)\" stroke-width=\"2\" points=\"\(points.joined(separator: " "))\"/>\n"
            let legendY = top + 14 + Double(index) * 18
            svg +=
                "<line x1=\"\(f(left + plotWidth + 16))\" y1=\"\(f(legendY - 4))\" x2=\"\(f(left + plotWidth + 36))\" "
                + "y2=\"\(f(legendY - 4))\" stroke=\"\(line.color)\" stroke-width=\"2\"/>\n"
            svg +=
                "<text x=\"\(f(left + plotWidth + 42))\" y=\"\(f(legendY))\">\(ChartEscaping.html(line.name))</text>\n"
        }
        return svg + "</svg>\n"
    }

    /// 1, 2 or 5 times a power of ten (or a fraction of one), at least `value`: round axis ends.
    package static func roundCeiling(_ value: Double) -> Double {
        guard value > 0, value.isFinite else { return 1 }
        var power = 1e-3
        while true {
            for factor in [1.0, 2, 5] where factor * power >= value * (1 - 1e-12) { return factor * power }
            power *= 10
        }
    }

    /// A tick label: whole numbers bare, others with what decimals they need.
    static func label(_ value: Double) -> String {
        if value == value.rounded() { return String(Int(value)) }
        var text = String(format: "%.3f", value)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }

    /// Colours that tell five lines apart, in order.
    package static let palette = ["#d1242f", "#8250df", "#1a7f37", "#bc4c00", "#0969da", "#6e7781"]
}
