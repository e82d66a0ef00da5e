import Foundation
import RetryFlow
import RetryFlowCharts
import RetryFlowHTTP

/// A run on a time axis, for ``RunReport``: each attempt a bar (from the step that began it to
/// the step that ended it), each wait a gap with its length and why. Derived from the steps alone,
/// so any machine whose trace numbers its attempts gets one. A hedged run's copies get a lane each
/// under the bars, side by side in time, so their overlap shows.
struct RunTimeline: Hashable, Sendable {
    /// One copy of a hedged attempt, in the run's time.
    struct Copy: Hashable, Sendable {
        /// The retry attempt it belongs to, and its number in that attempt's race (from 1).
        let attempt: Int
        let number: Int
        let start: Duration
        let end: Duration
        /// `won`, `final`, `failed` or `cancelled`.
        let ending: String
        let detail: String?
    }

    struct Bar: Hashable, Sendable {
        let attempt: Int
        let start: Duration
        let end: Duration
        /// How it ended, in words (the event and detail of the step that ended it).
        let outcome: String
        /// Whether another attempt followed it.
        let retried: Bool
    }

    struct Wait: Hashable, Sendable {
        let start: Duration
        let end: Duration
        let length: Duration
        let why: String
    }

    let bars: [Bar]
    let waits: [Wait]
    let copies: [Copy]
    let total: Duration

    /// `races[i]` is the race of the i-th attempt (a hedged run's `RetryOutcome.hedging`); its copies'
    /// times are from the race's start, which is the attempt bar's.
    init(_ steps: [RunReport.Step], races: [HedgingRecord] = []) {
        var bars: [Bar] = []
        let attempts = Array(Set(steps.map(\.attempt).filter { $0 > 0 })).sorted()
        for attempt in attempts {
            guard let first = steps.firstIndex(where: { $0.attempt == attempt }) else { continue }
            let ender = first + 1 < steps.count ? steps[first + 1] : nil
            var outcome = ender.map { "\($0.what) → \($0.toLabel)" } ?? "still running when the trace ended"
            if let detail = ender?.detail { outcome += ": " + detail }
            bars.append(
                Bar(
                    attempt: attempt, start: steps[first].at, end: ender?.at ?? steps[first].at, outcome: outcome,
                    retried: attempt != attempts.last))
        }
        var waits: [Wait] = []
        for (index, step) in steps.enumerated() {
            guard let delay = step.delay else { continue }
            // The last delay decided within an attempt is the wait taken (a Retry-After read on
            // the failure is followed by the wait it led to).
            let laterInAttempt = steps[(index + 1)...].prefix { $0.attempt == step.attempt }
            guard !laterInAttempt.contains(where: { $0.delay != nil }) else { continue }
            let next = index + 1 < steps.count ? steps[index + 1].at : step.at + delay
            let attemptDetails = steps.filter { $0.attempt == step.attempt }.compactMap(\.detail)
            let why =
                step.detail ?? (attemptDetails.contains { $0.contains("Retry-After") } ? "Retry-After" : "backoff")
            waits.append(Wait(start: step.at, end: min(step.at + delay, max(next, step.at)), length: delay, why: why))
        }
        self.bars = bars
        self.waits = waits
        copies = zip(bars, races).flatMap { bar, race in
            race.attempts.map { copy in
                Copy(
                    attempt: bar.attempt, number: copy.number, start: bar.start + copy.start, end: bar.start + copy.end,
                    ending: copy.ending.rawValue, detail: copy.detail)
            }
        }
        total = ([steps.last?.at ?? .zero] + waits.map(\.end) + copies.map(\.end)).max() ?? .zero
    }

    /// How many lanes the copies take: one for each copy number.
    var lanes: Int { copies.map(\.number).max() ?? 0 }

    /// The timeline as inline SVG: a time axis, bars with `<title>`s (their outcome on hover),
    /// and labelled wait gaps.
    var svg: String {
        let width = 760.0
        let left = 10.0
        let right = 20.0
        let barTop = 28.0
        let barHeight = 26.0
        let span = max(total.inSeconds, 1e-9)
        func x(_ t: Duration) -> Double { left + (width - left - right) * t.inSeconds / span }
        func f(_ value: Double) -> String { String(format: "%.1f", value) }
        let h = ChartEscaping.html
        let laneTop = 100.0
        let laneHeight = 16.0
        let height = 110 + Double(lanes) * laneHeight + (lanes > 0 ? 6 : 0)
        var out = [
            "<svg class=\"timeline\" viewBox=\"0 0 \(f(width)) \(f(height))\" role=\"img\" "
                + "data-left=\"\(f(left))\" data-width=\"\(f(width - left - right))\" data-span=\"\(span)\" "
                + "aria-label=\"timeline: \(bars.count) attempt(s), \(waits.count) wait(s) over \(h(total.shortDescription))\">"
        ]
        out.append("<line class=\"axis\" x1=\"\(f(left))\" y1=\"70\" x2=\"\(f(width - right))\" y2=\"70\"/>")
        let step = Self.tickStep(span)
        var tick = 0.0
        // A run that took no time has one tick, at 0.
        while tick <= span * (1 + 1e-9) && (tick == 0 || total > .zero) {
            let t = Duration.seconds(tick)
            let anchor = tick == 0 ? "start" : "middle"
            out.append("<line class=\"tick\" x1=\"\(f(x(t)))\" y1=\"70\" x2=\"\(f(x(t)))\" y2=\"75\"/>")
            out.append(
                "<text class=\"tick\" x=\"\(f(x(t)))\" y=\"88\" text-anchor=\"\(anchor)\">\(h(t.shortDescription))</text>"
            )
            tick += step
        }
        for wait in waits {
            let x1 = x(wait.start)
            let x2 = max(x(wait.end), x1 + 1)
            let text = "wait \(wait.length.shortDescription) (\(wait.why))"
            // The label must fit its gap (about 6 units a character at 11 px), or it runs over the
            // next bar: shortened as far as needed; the whole text is in the title (shown on hover).
            let length = wait.length.shortDescription
            let label = [text, "wait \(length) (…)", length].first { Double($0.count) * 6 <= x2 - x1 } ?? ""
            out.append("<g class=\"wait\"><title>\(h(text))</title>")
            out.append(
                "<line x1=\"\(f(x1))\" y1=\"\(f(barTop + barHeight / 2))\" x2=\"\(f(x2))\" y2=\"\(f(barTop + barHeight / 2))\"/>"
            )
            out.append(
                "<text x=\"\(f((x1 + x2) / 2))\" y=\"\(f(barTop - 8))\" text-anchor=\"middle\">\(h(label))</text></g>")
        }
        for bar in bars {
            let x1 = x(bar.start)
            let w = max(x(bar.end) - x1, 6)
            let kind = bar.retried ? "retried" : "last"
            out.append(
                "<g class=\"attempt \(kind)\" data-attempt=\"\(bar.attempt)\" data-start=\"\(bar.start.inSeconds)\">")
            out.append(
                "<title>attempt \(bar.attempt), \(h(bar.start.shortDescription))–\(h(bar.end.shortDescription)): \(h(bar.outcome))</title>"
            )
            out.append(
                "<rect x=\"\(f(x1))\" y=\"\(f(barTop))\" width=\"\(f(w))\" height=\"\(f(barHeight))\" rx=\"3\"/>")
            // A bar near the axis's end is labelled leftwards, so its number is not cut off.
            let anchor = x1 + 40 > width - right ? "x=\"\(f(x1 + w))\" text-anchor=\"end\"" : "x=\"\(f(x1 + 2))\""
            out.append(
                "<text \(anchor) y=\"\(f(barTop + barHeight + 12))\">#\(bar.attempt)\(bar.retried ? " ✗" : "")</text></g>"
            )
        }
        // A hedged attempt's copies, a lane each: copy n of every race in lane n.
        for copy in copies {
            let x1 = x(copy.start)
            let w = max(x(copy.end) - x1, 3)
            let y = laneTop + Double(copy.number - 1) * laneHeight
            let kind = copy.number > 1 ? " (hedge)" : ""
            let words = copy.detail.map { ": \($0)" } ?? ""
            out.append(
                "<g class=\"copy \(copy.ending)\" data-attempt=\"\(copy.attempt)\" data-copy=\"\(copy.number)\">")
            out.append(
                "<title>attempt \(copy.attempt), copy #\(copy.number)\(kind), \(h(copy.start.shortDescription))–"
                    + "\(h(copy.end.shortDescription)): \(copy.ending)\(h(words))</title>")
            out.append(
                "<rect x=\"\(f(x1))\" y=\"\(f(y))\" width=\"\(f(w))\" height=\"\(f(laneHeight - 5))\" rx=\"2\"/></g>")
        }
        for lane in 0..<lanes {
            let y = laneTop + Double(lane) * laneHeight + laneHeight - 6
            out.append("<text class=\"lane\" x=\"\(f(width - right + 2))\" y=\"\(f(y))\">#\(lane + 1)</text>")
        }
        // Where the step-through is, drawn over the bars; the script moves it (hidden without JavaScript).
        out.append(
            "<line id=\"timeline-now\" class=\"marker\" x1=\"\(f(left))\" y1=\"14\" x2=\"\(f(left))\" y2=\"70\"/>")
        out.append("</svg>")
        return out.joined(separator: "\n")
    }

    /// A round tick interval (1, 2 or 5 times a power of ten seconds) giving 3 to 7 ticks over `span`.
    static func tickStep(_ span: Double) -> Double {
        let raw = span / 5
        let power = pow(10, (log10(raw)).rounded(.down))
        for multiple in [1.0, 2, 5, 10] where raw <= multiple * power { return multiple * power }
        return 10 * power
    }
}
