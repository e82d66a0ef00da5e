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
        ("Sun, 06 Nov 1994 08:49:47 GMT", .delay(.seconds(10))),  // IMF-fixdate, 10 s ahead
        ("Sunday, 06-Nov-94 08:49:47 GMT", .delay(.seconds(10))),  // RFC 850
        ("Sun Nov  6 08:49:47 1994", .delay(.seconds(10))),  // asctime
        ("Sun, 06 Nov 1994 08:40:00 GMT", .delay(.zero)),  // in the past: now
        ("-5", .malformed),
        ("1.5", .malformed),
        ("", .malformed),
        ("soon", .malformed),
        ("Sun, 31 Feb 1994 08:49:37 GMT", .malformed),
        ("Sun, 06 Nov 1994 08:49:37 UTC", .malformed),
        ("Sun, 06 Nov 1994 25:00:00 GMT", .malformed),
        ("Funday, 06-Nov-94 08:49:37 GMT", .malformed),
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

    @Test func formatsIMFFixdate() {
        #expect(RetryAfter.imfFixdate(Self.reference) == "Sun, 06 Nov 1994 08:49:37 GMT")
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(RetryAfter.httpDate(RetryAfter.imfFixdate(now)) == now)
    }
}
