import Foundation

/// Parses the rate-limit headers servers send besides Retry-After, so a retry waits until the
/// server's quota is back, never earlier:
///
/// - `RateLimit-Reset` / `X-RateLimit-Reset`: delay-seconds (`30`) or a Unix timestamp
///   (`1796000000`), told apart by size: a value that would mean ten years or more is a timestamp,
///   and a timestamp in the past means now.
/// - The IETF draft fields (draft-ietf-httpapi-ratelimit-headers): `RateLimit: "default";r=0;t=30`
///   (and the older `RateLimit: limit=100, remaining=0, reset=30`), with `RateLimit-Policy:
///   "default";q=100;w=60` giving the window when the quota is spent but no reset is given.
///
/// Pure functions: the current time comes in as `now`.
///
/// ```swift
/// RateLimitHeaders.parseReset("30", now: .now)              // .delay(.seconds(30)), as seconds
/// RateLimitHeaders.parseReset("1796000000", now: .now)      // a Unix timestamp: the time until then
/// RateLimitHeaders.parseField("\"default\";r=0;t=12", policy: nil)  // .seconds(12)
/// ```
package enum RateLimitHeaders {
    /// Values at or above this many seconds (ten years) are Unix timestamps, not delays.
    package static let timestampThreshold: Int64 = 315_360_000

    /// What a reset header asks for.
    package enum Reset: Hashable, Sendable {
        /// Wait this long; `timestamp` says whether the value was read as a Unix time.
        case delay(Duration, timestamp: Bool)
        /// Not a number of seconds or a timestamp; ignored.
        case malformed
    }

    /// The wait a `RateLimit-Reset`-style value asks for at `now`.
    package static func parseReset(_ value: String, now: Date) -> Reset {
        let text = value.trimmingCharacters(in: .whitespaces)
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), !parts[0].isEmpty,
            parts.allSatisfy({ $0.utf8.allSatisfy { $0 >= 48 && $0 <= 57 } }), parts.count == 1 || !parts[1].isEmpty
        else { return .malformed }
        // More digits than any real timestamp: a clear ask to wait "forever" (the policy's cap ends the run).
        guard parts[0].count <= 15, let whole = Int64(parts[0]) else { return .delay(longest, timestamp: true) }
        let fraction = parts.count == 2 ? Double("0." + parts[1]) ?? 0 : 0
        guard whole >= timestampThreshold else {
            return .delay(checkedDuration(seconds: Double(whole) + fraction), timestamp: false)
        }
        let seconds = Double(whole) + fraction - now.timeIntervalSince1970
        return .delay(seconds > 0 ? checkedDuration(seconds: seconds, roundingUp: true) : .zero, timestamp: true)
    }

    /// The wait an IETF `RateLimit` field asks for, or `nil` when it asks for none (quota left,
    /// or nothing understood). With several quotas, the longest spent one decides. `policy` is
    /// the `RateLimit-Policy` field, read for its window `w` when a spent quota gives no reset.
    package static func parseField(_ field: String, policy: String?) -> Duration? {
        let windows = Dictionary(
            (policy.map(items) ?? []).compactMap { item in item.params["w"].map { (item.name, $0) } },
            uniquingKeysWith: { first, _ in first })
        var parsed = items(field)
        // The older draft: one quota spread over dictionary members (limit=…, remaining=…, reset=…).
        if parsed.contains(where: { ["limit", "remaining", "reset"].contains($0.name) }) {
            var merged: [String: Int64] = [:]
            for item in parsed {
                if let value = item.value {
                    merged[item.name == "remaining" ? "r" : item.name == "reset" ? "t" : item.name] = value
                }
            }
            parsed = [Item(name: "", value: nil, params: merged)]
        }
        var longest: Duration?
        for item in parsed {
            let remaining = item.params["r"]
            guard remaining == nil || remaining == 0 else { continue } // quota left: this one asks for no wait
            guard let seconds = item.params["t"] ?? (remaining == 0 ? windows[item.name] ?? windows.values.max() : nil)
            else { continue }
            let wait = checkedDuration(seconds: Double(seconds))
            longest = max(longest ?? .zero, wait)
        }
        return longest
    }

    /// The longest wait any parser reports (about 31,700 years): beyond every policy's cap.
    static let longest: Duration = .inputLimit

    /// `seconds` as a Duration, clamped to `0...longest` (through the package's one checked
    /// conversion), so no later arithmetic can overflow.
    static func checkedDuration(seconds: Double, roundingUp: Bool = false) -> Duration {
        guard !seconds.isNaN, seconds > 0 else { return .zero }
        return Duration.checkedSeconds(seconds, rounding: roundingUp ? .up : .toNearestOrAwayFromZero) ?? longest
    }

    /// One member of a structured-field list: `"name";a=1;b=2` or `name=1`.
    private struct Item {
        var name: String
        var value: Int64?
        var params: [String: Int64]
    }

    /// A forgiving reader of the structured-field lists these headers use (RFC 8941): members
    /// split on commas, parameters on semicolons; integers only, anything else skipped.
    private static func items(_ field: String) -> [Item] {
        field.split(separator: ",").compactMap { member in
            let pieces = member.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let head = pieces.first, !head.isEmpty else { return nil }
            var item = Item(name: "", value: nil, params: [:])
            if let equals = head.firstIndex(of: "=") {
                item.name = String(head[..<equals]).lowercased()
                item.value = integer(head[head.index(after: equals)...])
            } else {
                item.name = head.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
            for piece in pieces.dropFirst() {
                guard let equals = piece.firstIndex(of: "="), let value = integer(piece[piece.index(after: equals)...])
                else { continue }
                item.params[piece[..<equals].lowercased()] = value
            }
            return item
        }
    }

    /// A non-negative sf-integer (at most 15 digits, as RFC 8941 allows), else `nil`.
    private static func integer(_ text: Substring) -> Int64? {
        let digits = text.trimmingCharacters(in: .whitespaces)
        guard !digits.isEmpty, digits.count <= 15, digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return Int64(digits)
    }
}
