/// A response header's value as a verdict's words quote it. The server chooses those bytes and
/// the words reach terminals (progress and summary lines), traces and charts: control and
/// formatting characters (an ESC starting a terminal sequence, a bidi override) become `?`, and a
/// long value is cut, its size kept, so a 10 KB header cannot flood every line that names it.
package enum HeaderValueText {
    /// How many characters of a value are shown before it is cut.
    package static let limit = 64

    /// `value`, safe to print: at most ``limit`` characters, no control or formatting characters.
    package static func shown(_ value: String) -> String {
        var shown = String.UnicodeScalarView()
        for (index, scalar) in value.unicodeScalars.enumerated() {
            guard index < limit else { return String(shown) + "… (\(value.utf8.count) bytes)" }
            let category = scalar.properties.generalCategory
            shown.append(category == .control || category == .format ? "?" : scalar)
        }
        return String(shown)
    }
}
