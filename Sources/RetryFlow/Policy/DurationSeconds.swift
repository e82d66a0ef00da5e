extension Duration {
    /// This duration in seconds, as a `Double` (for formulas, JSON and display).
    package var inSeconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) * 1e-18
    }

    /// The longest duration any policy field accepts (about 31 years), and the longest delay ever
    /// planned: a delay field beyond it saturates to it; the other fields refuse more.
    package static let policyLimit: Duration = .seconds(1_000_000_000)

    /// Converts a number of seconds, refusing NaN, infinities, negatives and absurdly large values
    /// with an error that names `field`.
    ///
    /// ```swift
    /// let delay = try Duration(validatingSeconds: 0.5, field: "backoff.base")
    /// ```
    package init(validatingSeconds seconds: Double, field: String) throws(RetryPolicyError) {
        guard seconds.isFinite else {
            throw RetryPolicyError(field: field, problem: "must be a finite number of seconds (got \(seconds))")
        }
        guard seconds >= 0 else {
            throw RetryPolicyError(field: field, problem: "must not be negative (got \(seconds))")
        }
        guard let duration = Duration.checkedSeconds(seconds, limit: .policyLimit) else {
            throw RetryPolicyError(
                field: field, problem: "is too large (got \(seconds) s; at most \(Duration.policyLimit.inSeconds) s)")
        }
        self = duration
    }

    /// Converts a number of seconds for a delay field, refusing NaN, infinities and negatives with an
    /// error that names `field`, and saturating anything beyond ``policyLimit`` to it (a delay of
    /// 1e10 s waits about 31 years, as tenacity and Polly wait their largest value rather than fail).
    package init(saturatingSeconds seconds: Double, field: String) throws(RetryPolicyError) {
        self = try Duration(validatingSeconds: min(seconds, Duration.policyLimit.inSeconds), field: field)
    }

    /// The longest duration ever read from outside input (999,999,999,999 s, about 31,700 years): a
    /// Retry-After asking for more is saturated to it, a trace step beyond it is refused.
    package static let inputLimit: Duration = .seconds(999_999_999_999)

    /// The one conversion of a number of seconds from outside (headers, JSON, arguments, formulas)
    /// into a `Duration`: `nil` for NaN, infinities, negatives and anything beyond `limit` (at most
    /// ``inputLimit``), so no value can trap on an integer overflow.
    package static func checkedSeconds(
        _ seconds: Double, limit: Duration = .inputLimit,
        rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero
    ) -> Duration? {
        guard seconds.isFinite, seconds >= 0, seconds <= min(limit, inputLimit).inSeconds else { return nil }
        // Nanoseconds fit an Int64 up to ~9.2e9 s; beyond that, sub-second precision is gone from
        // the Double anyway, so whole seconds are exact enough.
        if seconds < 9e9 { return .nanoseconds(Int64((seconds * 1e9).rounded(rule))) }
        return .seconds(Int64(seconds.rounded(rule)))
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

    /// Reads back what ``shortDescription`` writes (`420 ms`, `1.5 s`, `5 min 1 s`) through
    /// ``checkedSeconds(_:limit:rounding:)``: `nil` for anything else, NaN, infinities and negatives
    /// included, so text from a file can never trap.
    package init?(shortDescription text: String) {
        let words = text.split(separator: " ")
        guard !words.isEmpty, words.count.isMultiple(of: 2) else { return nil }
        var seconds = 0.0
        for index in stride(from: 0, to: words.count, by: 2) {
            guard let value = Double(words[index]), value.isFinite, value >= 0 else { return nil }
            switch words[index + 1] {
            case "ms": seconds += value / 1000
            case "s": seconds += value
            case "min": seconds += value * 60
            default: return nil
            }
        }
        guard let duration = Duration.checkedSeconds(seconds) else { return nil }
        self = duration
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
