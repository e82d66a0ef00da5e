import RetryFlow

/// A run's trace as a table for people: virtual or real time, attempt, what happened, the move,
/// and the delay or detail. `retryflow simulate` prints this; the docs embed it.
///
/// ```
///   time      attempt  event                        move                 delay / detail
///   0 ms      -        start                        idle → breaker
///   0 ms      1        admitted                     breaker → request
///   0 ms      1        failed                       request → retry      HTTP 503 …
/// ```
public enum Timeline {
    /// The trace's steps, one per line, then the total time and the final state. Each step reads as
    /// `table` labels the row it took (`TransitionTable.label(of:)`): pass the policy's table when it
    /// has rows of its own.
    public static func render(_ trace: RetryTrace, of table: RetryTable = .retry, reason: StopReason? = nil) -> String {
        var rows: [[String]] = [["time", "attempt", "event", "move", "delay / detail"]]
        for step in trace.steps {
            let what = table.label(of: step)
            var note = ""
            if let delay = step.delay {
                note = step.to == .wait ? "wait \(delay.shortDescription)" : "retry after \(delay.shortDescription)"
            }
            if let detail = step.detail { note += (note.isEmpty ? "" : "; ") + detail }
            rows.append([
                step.at.shortDescription, step.attempt == 0 ? "-" : "\(step.attempt)", what,
                "\(step.from.label) → \(step.to.label)", note,
            ])
        }
        let widths = (0..<4).map { column in rows.map { $0[column].count }.max() ?? 0 }
        var lines = rows.map { row in
            var line = "  "
            for column in 0..<4 {
                line += row[column] + String(repeating: " ", count: widths[column] - row[column].count + 2)
            }
            return (line + row[4]).trimmingTrailingSpaces()
        }
        if let last = trace.steps.last {
            var summary = "  total \(last.at.shortDescription), final state: \(last.to.label)"
            if let reason { summary += " (\(reason.rawValue))" }
            lines.append(summary)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var text = self
        while text.hasSuffix(" ") { text.removeLast() }
        return text
    }
}
