import RetryFlow

extension TransitionTrace where Vocabulary == TransferVocabulary {
    /// Where each attempt started, in words, for a chart's caption: `resumed at 37.5 MB,
    /// restarted at 0, resumed at 40 MB`; `nil` when no attempt resumed or restarted.
    package var resumeSummary: String? {
        var parts: [String] = []
        for step in steps where step.event == .attempt && step.attempt > 1 {
            let start = step.detail.flatMap(Self.requestedStart) ?? 0
            parts.append(start > 0 ? "resumed at \(ByteCount.describe(start))" : "restarted at 0")
        }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }

    /// The `N` of an attempt step's detail `bytes=N-…` (as the transfer machine writes it).
    static func requestedStart(_ detail: String) -> Int? {
        guard detail.hasPrefix("bytes="), let dash = detail.firstIndex(of: "-") else { return nil }
        return Int(detail[detail.index(detail.startIndex, offsetBy: 6)..<dash])
    }
}

/// Byte counts for people: `512 B`, `300 kB`, `37.5 MB`, `1.2 GB` (decimal units, like curl and
/// most download tools).
package enum ByteCount {
    /// `bytes` in the largest unit that keeps it at 1 or more, with at most one decimal.
    package static func describe(_ bytes: Int) -> String {
        let units = ["B", "kB", "MB", "GB", "TB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        if unit == 0 { return "\(bytes) B" }
        let rounded = (value * 10).rounded() / 10
        let text = rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
        return "\(text) \(units[unit])"
    }
}
