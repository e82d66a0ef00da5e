import Foundation
import RetryFlow
import RetryFlowCharts

/// A line chart of requests per second, as SVG written by hand (no dependency): the fleet
/// simulation's and the adaptive-throttle benchmark's load curves.
package enum LoadChart {
    /// One line: its legend, its colour, a value per second.
    package typealias Series = (name: String, color: String, values: [Double])

    /// The SVG document: `series` over `seconds`, `title` above the plot, `shaded` (from, to, label)
    /// behind it. With `logarithmic`, the y axis is in powers of ten (0 drawn at the bottom).
    package static func svg(
        title: String, seconds: Int, series: [Series], shaded: (from: Double, to: Double, label: String)? = nil,
        logarithmic: Bool = false
    ) -> String {
        let width = 720.0
        let height = 320.0
        let left = 56.0
        let right = 150.0
        let top = 36.0
        let bottom = 40.0
        let plotWidth = width - left - right
        let plotHeight = height - top - bottom
        let count = max(seconds, 1)
        let peak = max(1, Int((series.flatMap(\.values).max() ?? 1).rounded(.up)))
        let yMax = Double(logarithmic ? powerOfTenCeiling(peak) : niceCeiling(peak))
        func x(_ second: Double) -> Double { left + plotWidth * second / Double(count) }
        func scaled(_ value: Double) -> Double {
            logarithmic ? (value <= 1 ? 0 : log10(value) / log10(yMax)) : value / yMax
        }
        func y(_ value: Double) -> Double { top + plotHeight * (1 - scaled(value)) }
        func f(_ v: Double) -> String { String(format: "%.1f", v) }

        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
            viewBox="0 0 \(Int(width)) \(Int(height))" font-family="Helvetica, Arial, sans-serif" font-size="11">
            <rect width="100%" height="100%" fill="#ffffff"/>
            <text x="\(f(left))" y="20" font-size="13" font-weight="bold">\(ChartEscaping.html(title))</text>

            """
        if let shaded, min(Double(count), shaded.to) > shaded.from {
            let to = min(Double(count), shaded.to)
            svg +=
                "<rect x=\"\(f(x(shaded.from)))\" y=\"\(f(top))\" width=\"\(f(x(to) - x(shaded.from)))\" "
                + "height=\"\(f(plotHeight))\" fill=\"#fff1e5\"/>\n"
            svg += "<text x=\"\(f(x(shaded.from) + 4))\" y=\"\(f(top + 12))\" fill=\"#bc4c00\">\(shaded.label)</text>\n"
        }
        let ticks: [Double] =
            logarithmic
            ? (0...Int(log10(yMax).rounded())).map { pow(10, Double($0)) } : (0...4).map { yMax * Double($0) / 4 }
        for value in ticks {
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
        let axis = logarithmic ? "requests per second (log)" : "requests per second"
        svg +=
            "<text x=\"14\" y=\"\(f(top + plotHeight / 2))\" text-anchor=\"middle\" "
            + "transform=\"rotate(-90 14 \(f(top + plotHeight / 2)))\">\(axis)</text>\n"
        for (index, line) in series.enumerated() {
            let points = line.values.enumerated().map { "\(f(x(Double($0.offset) + 0.5))),\(f(y($0.element)))" }
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
    package static func niceCeiling(_ value: Int) -> Int {
        var power = 1
        while true {
            for factor in [1, 2, 5] where factor * power >= value { return factor * power }
            power *= 10
        }
    }

    /// The least power of ten at least `value` (and at least 10).
    static func powerOfTenCeiling(_ value: Int) -> Int {
        var power = 10
        while power < value { power *= 10 }
        return power
    }
}
