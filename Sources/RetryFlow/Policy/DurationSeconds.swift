extension Duration {
    /// This duration in seconds, as a `Double` (for formulas, JSON and display).
    package var inSeconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) * 1e-18
    }

    /// The longest duration any policy field accepts (about 31 years); beyond it arithmetic could overflow.
    package static let policyLimit: Duration = .seconds(1_000_000_000)

    /// Converts a number of seconds, refusing NaN, infinities, negatives and absurdly large values
    /// with an error that names `field`.
    ///
    /// ```swift
    /// let delay = try Duration(validatingSeconds: 0.5, field: "backoff.base")
    /// ```
    package init(validatingSeconds seconds: Double, field: String) throws(RetryPolicyError) {
        guard seconds.isFinite else { throw RetryPolicyError(field: field, problem: "must be a finite number of seconds (got \(seconds))") }
        guard seconds >= 0 else { throw RetryPolicyError(field: field, problem: "must not be negative (got \(seconds))") }
        guard seconds <= Duration.policyLimit.inSeconds else {
            throw RetryPolicyError(field: field, problem: "is too large (got \(seconds) s; at most \(Duration.policyLimit.inSeconds) s)")
        }
        self = .nanoseconds(Int64((seconds * 1e9).rounded()))
    }

    /// A short human form: `0 s`, `250 ms`, `1.5 s`, `2 min 5 s`.
    package var shortDescription: String {
        let s = inSeconds
        if s == 0 { return "0 s" }
        if s < 1 {
            let ms = s * 1000
            return ms == ms.rounded() ? "\(Int(ms)) ms" : "\(Self.trim(ms, digits: 1)) ms"
        }
        if s < 120 { return "\(Self.trim(s, digits: 3)) s" }
        let minutes = Int(s / 60)
        return "\(minutes) min \(Self.trim(s - Double(minutes * 60), digits: 1)) s"
    }

    private static func trim(_ value: Double, digits: Int) -> String {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let rounded = (value * scale).rounded() / scale
        if rounded == rounded.rounded() { return String(Int(rounded)) }
        var text = String(rounded)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }
}
