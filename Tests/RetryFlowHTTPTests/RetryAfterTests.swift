import Foundation
import RetryFlowHTTP
import Testing

@Suite struct RetryAfterTests {
    // Sun, 06 Nov 1994 08:49:37 GMT
    static let reference = Date(timeIntervalSince1970: 784_111_777)

    @Test(arguments: [
        ("120", RetryAfter.Parsed.delay(.seconds(120))),
        ("0", .delay(.zero)),
        ("  7 ", .delay(.seconds(7))),
        ("Sun, 06 Nov 1994 08:49:47 GMT", .delay(.seconds(10))), // IMF-fixdate, 10 s ahead
        ("Sunday, 06-Nov-94 08:49:47 GMT", .delay(.seconds(10))), // RFC 850
        ("Sun Nov  6 08:49:47 1994", .delay(.seconds(10))), // asctime
        ("Sun, 06 Nov 1994 08:40:00 GMT", .delay(.zero)), // in the past: now
        ("-5", .malformed),
        ("1.5", .malformed),
        ("", .malformed),
        ("soon", .malformed),
        ("Sun, 31 Feb 1994 08:49:37 GMT", .malformed),
        ("Sun, 06 Nov 1994 08:49:37 UTC", .malformed),
        ("Sun, 06 Nov 1994 25:00:00 GMT", .malformed),
        ("Funday, 06-Nov-94 08:49:37 GMT", .malformed),
        // Found by the retry-after fuzzer: signs are not digits (a year -999 was a date in 1000 BC).
        ("Fri, 31 Dec -999 23:59:59 GMT", .malformed),
        ("Sun, +6 Nov 1994 08:49:37 GMT", .malformed),
        ("Sun, 06 Nov 1994 +8:49:37 GMT", .malformed),
        ("Sunday, 06-Nov-+4 08:49:37 GMT", .malformed),
        ("Sun Nov +6 08:49:37 1994", .malformed),
    ])
    func parses(value: String, expected: RetryAfter.Parsed) {
        #expect(RetryAfter.parse(value, now: Self.reference) == expected, "\(value)")
    }

    @Test func hugeDelaysAreStillAnAskTheCapRefuses() {
        guard case .delay(let delay) = RetryAfter.parse("99999999999999999999", now: Self.reference) else {
            Issue.record("should be a delay")
            return
        }
        #expect(delay > .seconds(1_000_000))
    }

    /// Found twice: a date ~292 years ahead trapped converting seconds to nanoseconds.
    @Test(arguments: ["Fri, 31 Dec 9999 23:59:59 GMT", "Sat, 01 Jan 2320 00:00:00 GMT", "Fri Dec 31 23:59:59 9999"])
    func farFutureDatesAreExactDelaysNotTraps(value: String) throws {
        let exact = try #require(RetryAfter.httpDate(value)).timeIntervalSince(Self.reference)
        guard case .delay(let delay) = RetryAfter.parse(value, now: Self.reference) else {
            Issue.record("should be a delay")
            return
        }
        #expect((delay.inSeconds - exact).magnitude <= 1, "\(delay) for \(exact) s")
        #expect(delay > .seconds(10_000_000_000))
    }

    @Test func leadingZerosCarryNoSize() {
        #expect(RetryAfter.parse("0000000000005", now: Self.reference) == .delay(.seconds(5)))
        #expect(RetryAfter.parse("000", now: Self.reference) == .delay(.zero))
        #expect(RetryAfter.parse("9999999999999", now: Self.reference) == .delay(.seconds(999_999_999_999)))
    }

    @Test func leapSecondIsValidInAnyMinute() {
        let leap = RetryAfter.httpDate("Sat, 31 Dec 2016 23:59:60 GMT")
        #expect(leap == RetryAfter.httpDate("Sun, 01 Jan 2017 00:00:00 GMT"))
        #expect(leap != nil)
        // RFC 9110 §5.6.7's grammar allows second 60 in any minute; urllib3 (whose Retry-After
        // dates go through cpython's email.utils.parsedate_tz) accepts Sun, 06 Nov 1994 08:49:60 GMT.
        #expect(
            RetryAfter.httpDate("Sun, 06 Nov 1994 08:49:60 GMT") == RetryAfter.httpDate("Sun, 06 Nov 1994 08:50:00 GMT")
        )
        #expect(RetryAfter.httpDate("Sunday, 06-Nov-94 08:49:60 GMT", now: .init(timeIntervalSince1970: 0)) != nil)
        #expect(RetryAfter.httpDate("Sun Nov  6 08:49:60 1994") == RetryAfter.httpDate("Sun Nov  6 08:50:00 1994"))
        #expect(RetryAfter.httpDate("Sun, 06 Nov 1994 08:49:61 GMT") == nil, "61 is no second")
        // urllib3 test/test_retry.py, test_respect_retry_after_header_sleep: at 2019-06-03 11:00:00
        // UTC, "Mon, 03 Jun 2019 11:30:12 GMT" sleeps 1812 s; the same minute's leap second, 1860 s (11:31:00).
        let urllib3Now = Date(timeIntervalSince1970: 1_559_559_600)
        #expect(RetryAfter.parse("Mon, 03 Jun 2019 11:30:12 GMT", now: urllib3Now) == .delay(.seconds(1812)))
        #expect(RetryAfter.parse("Mon, 03 Jun 2019 11:30:60 GMT", now: urllib3Now) == .delay(.seconds(1860)))
    }

    /// Two-digit years are read against the `now` given, not the wall clock.
    @Test func twoDigitYearsFollowNow() throws {
        let in1994 = RetryAfter.httpDate("Sunday, 06-Nov-94 08:49:37 GMT", now: Self.reference)
        #expect(in1994 == Self.reference)
        // Seen from 2150, "94" is 2194 (not more than 50 years ahead), whatever today's date.
        let from2150 = Date(timeIntervalSince1970: 5_681_606_400)
        let in2194 = try #require(RetryAfter.httpDate("Sunday, 06-Nov-94 08:49:37 GMT", now: from2150))
        #expect((in2194.timeIntervalSince(Self.reference) / 86_400 / 365.2425 - 200).magnitude < 0.01)
    }

    @Test func formatsIMFFixdate() {
        #expect(RetryAfter.imfFixdate(Self.reference) == "Sun, 06 Nov 1994 08:49:37 GMT")
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(RetryAfter.httpDate(RetryAfter.imfFixdate(now)) == now)
    }
}
