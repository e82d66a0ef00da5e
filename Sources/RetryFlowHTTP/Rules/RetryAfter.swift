import Foundation

/// Parses the `Retry-After` header (RFC 9110 §10.2.3): delay-seconds, or an HTTP-date in any of the
/// three forms recipients must accept (§5.6.7): IMF-fixdate, RFC 850 and asctime.
///
/// A pure function: the current time comes in as `now`.
///
/// ```swift
/// RetryAfter.parse("120", now: .now)                           // .delay(.seconds(120))
/// RetryAfter.parse("Sun, 06 Nov 1994 08:49:37 GMT", now: .now) // .delay(.zero): a past date
/// RetryAfter.parse("soon", now: .now)                          // .malformed
/// ```
package enum RetryAfter {
    /// What a Retry-After value asks for.
    package enum Parsed: Hashable, Sendable {
        /// Wait this long (zero for a date in the past).
        case delay(Duration)
        /// Not a Retry-After value; the policy's backoff applies instead.
        case malformed
    }

    /// The delay `value` asks for, measured from `now`. Never more than about 31,700 years
    /// (`Duration.inputLimit`): a larger ask, in digits or as a far-future date, is saturated to
    /// it, still a clear "wait forever" that the policy's `maxRetryAfter` refuses.
    package static func parse(_ value: String, now: Date) -> Parsed {
        let text = value.trimmingCharacters(in: .whitespaces)
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) {
            // Leading zeros carry no size: 0000000000005 is 5 s.
            let digits = text.drop(while: { $0 == "0" })
            guard digits.count <= 12, let seconds = Int64(digits.isEmpty ? "0" : String(digits)) else {
                return .delay(Duration.inputLimit)
            }
            return .delay(min(.seconds(seconds), Duration.inputLimit))
        }
        guard let date = httpDate(text, now: now) else { return .malformed }
        let seconds = date.timeIntervalSince(now)
        guard seconds > 0 else { return .delay(.zero) }
        let limit = Duration.inputLimit
        return .delay(Duration.checkedSeconds(min(seconds, limit.inSeconds), rounding: .up) ?? limit)
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let shortDays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let longDays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

    /// An HTTP-date in any of the three forms, or `nil`. `now` resolves RFC 850's two-digit years.
    package static func httpDate(_ text: String, now: Date = Date()) -> Date? {
        let words = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
        if words.count == 6, words[0].hasSuffix(","), shortDays.contains(String(words[0].dropLast())),
            words[5] == "GMT",
            let day = number(words[1], digits: 2...2), let month = months.firstIndex(of: words[2]),
            let year = number(words[3], digits: 4...4), let time = clock(words[4])
        {
            return date(year: year, month: month + 1, day: day, time: time)
        }
        // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT
        if words.count == 4, words[0].hasSuffix(","), longDays.contains(String(words[0].dropLast())), words[3] == "GMT"
        {
            let parts = words[1].split(separator: "-").map(String.init)
            if parts.count == 3, let day = number(parts[0], digits: 2...2), let month = months.firstIndex(of: parts[1]),
                let twoDigit = number(parts[2], digits: 2...2), let time = clock(words[2])
            {
                return date(year: fullYear(twoDigit, now: now), month: month + 1, day: day, time: time)
            }
        }
        // asctime: Sun Nov  6 08:49:37 1994
        if words.count == 5, shortDays.contains(words[0]), let month = months.firstIndex(of: words[1]),
            let day = number(words[2], digits: 1...2), let time = clock(words[3]),
            let year = number(words[4], digits: 4...4)
        {
            return date(year: year, month: month + 1, day: day, time: time)
        }
        return nil
    }

    /// `date` as an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the form servers should send.
    package static func imfFixdate(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "GMT")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday], from: date)
        func two(_ n: Int?) -> String { n.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
        let weekday = shortDays[((c.weekday ?? 1) + 5) % 7] // Calendar: 1 = Sunday
        return
            "\(weekday), \(two(c.day)) \(months[(c.month ?? 1) - 1]) \(c.year ?? 1970) \(two(c.hour)):\(two(c.minute)):\(two(c.second)) GMT"
    }

    /// RFC 9110 §5.6.7: a two-digit year that would be more than 50 years in the future is in the past century.
    private static func fullYear(_ twoDigit: Int, now: Date) -> Int {
        let thisYear =
            Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "GMT")!, from: now).year ?? 2000
        var year = (thisYear / 100) * 100 + twoDigit
        if year > thisYear + 50 { year -= 100 }
        return year
    }

    /// A field of only ASCII digits, as many as the grammar says (`Int` alone would take `-999`
    /// or `+6`: the date fuzzer found a year -999 accepted).
    private static func number(_ text: String, digits: ClosedRange<Int>) -> Int? {
        guard digits.contains(text.utf8.count), text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return Int(text)
    }

    private static func clock(_ text: String) -> (Int, Int, Int)? {
        let parts = text.split(separator: ":").map(String.init)
        guard parts.count == 3,
            let h = number(parts[0], digits: 2...2), let m = number(parts[1], digits: 2...2),
            let s = number(parts[2], digits: 2...2),
            (0...23).contains(h), (0...59).contains(m), (0...60).contains(s)
        else { return nil }
        return (h, m, s)
    }

    private static func date(year: Int, month: Int, day: Int, time: (Int, Int, Int)) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "GMT")!
        // Second 60 is a leap second wherever RFC 9110's grammar puts it (`second = 2DIGIT`,
        // "00:00:00 - 23:59:60", §5.6.7; urllib3 and cpython's email.utils accept 08:49:60 too):
        // read it as second 59 plus one, so the day check below still sees the day it was sent on.
        let leap = time.2 == 60
        let components = DateComponents(
            year: year, month: month, day: day, hour: time.0, minute: time.1, second: leap ? 59 : time.2)
        guard let date = calendar.date(from: components),
            calendar.component(.day, from: date) == day // rejects 31 Feb and friends
        else { return nil }
        return leap ? date.addingTimeInterval(1) : date
    }
}
