import RetryFlow

/// Escaping of label text, so that any state, event or guard name (custom tables take user text)
/// stays inside its label: it can neither end the string nor add attributes or statements.
package enum ChartEscaping {
    /// A DOT double-quoted string, quotes included. Backslashes are doubled (so `\N`, `\l` and
    /// friends lose their meaning), quotes escaped, `&` written `&amp;` (Graphviz reads HTML
    /// entities in every label, so `&lt;` would otherwise draw `<`), any line break becomes DOT's
    /// `\n`, and other control characters become spaces. Non-ASCII text is kept (DOT is UTF-8).
    package static func dotQuoted(_ text: String) -> String {
        var out = "\""
        var previousWasCR = false
        for scalar in text.unicodeScalars {
            defer { previousWasCR = scalar == "\r" }
            switch scalar {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "&": out += "&amp;"
            case "\r": out += "\\n"
            case "\n": if !previousWasCR { out += "\\n" }
            case "\u{2028}", "\u{2029}", "\u{85}": out += "\\n"
            default:
                if scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format {
                    out += " "
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// Text safe inside a Mermaid label: letters, digits, spaces and plain punctuation are kept;
    /// everything else (quotes, `#`, `;`, `:`, brackets, `<`, `>`, `&`, `|`, non-ASCII) becomes
    /// Mermaid's `#NNN;` character code, and line breaks become spaces.
    package static func mermaidText(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar == "\n" || scalar == "\r" || scalar.properties.generalCategory == .control {
                out += " "
            } else if scalar.isASCII
                && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                    || " _.,/?!+-*=()".unicodeScalars.contains(scalar))
            {
                out.unicodeScalars.append(scalar)
            } else {
                out += "#\(scalar.value);"
            }
        }
        return out
    }

    /// A piece of an SVG/HTML id from a node name, one-to-one (two names never share an id, so a
    /// page can address each node): ASCII letters and digits kept; `?` becomes `_q` (a decision's
    /// diamond, `retry?1` is `retry_q1`); a space becomes `_`, unless a `q` or `x` follows it (then
    /// `_q` or `_x` would read as an escape) and it is written like anything else: `_x`, its code
    /// in lowercase hex, and a closing `_` only when a hex digit or `_` comes next (`half-open` is
    /// `half_x2dopen`, `half-ace` is `half_x2d_ace`). No `-`: Graphviz writes it as `&#45;` in SVG.
    /// Reading back: `_q` is `?`, `_x` takes the hex digits after it and one `_` closing them,
    /// any other `_` is a space.
    package static func elementIDPart(_ text: String) -> String {
        var out = ""
        let scalars = Array(text.unicodeScalars)
        var openHex = false
        for (index, scalar) in scalars.enumerated() {
            let piece: String
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9": piece = String(scalar)
            case "?": piece = "_q"
            case " " where index + 1 == scalars.count || !["q", "x"].contains(scalars[index + 1]): piece = "_"
            default: piece = "_x" + String(scalar.value, radix: 16)
            }
            // Hex digits run on until something that is neither one nor `_`, so a digit or an
            // escape right after them needs the closing `_`.
            if openHex, let first = piece.unicodeScalars.first,
                first == "_" || ("0"..."9").contains(first)
                    || ("a"..."f").contains(first)
            {
                out += "_"
            }
            out += piece
            openHex = piece.hasPrefix("_x")
        }
        return out
    }

    /// Text safe in HTML, SVG and XML, as element content or a quoted attribute value: `& < > " '`
    /// become entities (`package`: run reports and fleet charts use it).
    package static func html(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
