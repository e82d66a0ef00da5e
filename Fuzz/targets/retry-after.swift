import Foundation
import RetryFlow
import RetryFlowHTTP

/// Retry-After (delay-seconds and the three HTTP-date forms) and the excerpt quoted in verdicts:
/// no trap, a delay never negative nor beyond the input limit, IMF-fixdate round trips.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = fuzzText(data, size)
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    if case .delay(let delay) = RetryAfter.parse(text, now: now) {
        require(delay >= .zero && delay <= .seconds(999_999_999_999), "delay \(delay) for \(text.debugDescription)")
    }
    if let date = RetryAfter.httpDate(text, now: now) {
        let year =
            Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "GMT")!, from: date).year ?? 0
        if (1000...9999).contains(year) {
            let formatted = RetryAfter.imfFixdate(date)
            require(RetryAfter.httpDate(formatted, now: now) == date, "\(text.debugDescription) -> \(formatted)")
        }
    }
    let shown = HeaderValueText.shown(text)
    require(shown.count <= HeaderValueText.limit + 40, "quoted value too long")
    require(
        !shown.unicodeScalars.contains { [.control, .format].contains($0.properties.generalCategory) },
        "control or format character quoted: \(shown.debugDescription)")
    return 0
}
