import Foundation
import RetryFlow
import RetryFlowCharts
import RetryFlowGraphviz

/// Chart label escaping: any text, quoted for DOT, parses back through Graphviz's cgraph as one
/// edge with the same label (line breaks as DOT's `\n`, control characters as spaces).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = fuzzText(data, size)
    let dot = "digraph fuzz {\n  a -> b [label=\(ChartEscaping.dotQuoted(text))];\n}\n"
    guard let structure = try? Graphviz.structure(of: dot) else {
        require(false, "cgraph refused the escaped label of \(text.debugDescription): \(dot)")
        return 0
    }
    require(structure.nodes.sorted() == ["a", "b"], "nodes \(structure.nodes) for \(text.debugDescription)")
    require(structure.edges.count == 1, "edges \(structure.edges) for \(text.debugDescription)")
    let label = structure.edges.first?.label ?? ""
    // Compared scalar by scalar: String's == would forgive a different but equivalent encoding.
    require(
        Array(unescape(label).unicodeScalars) == Array(expected(text).unicodeScalars),
        "label \(label.debugDescription) for \(text.debugDescription)")
    return 0
}

/// What Graphviz draws for a DOT label: `\\` is a backslash, `\n` a line break, `&amp;` an
/// ampersand. Scalar by scalar: a combining mark after `&amp;` must not hide the entity.
func unescape(_ label: String) -> String {
    let scalars = Array(label.unicodeScalars)
    let amp = Array("&amp;".unicodeScalars)
    var out = String.UnicodeScalarView()
    var index = 0
    while index < scalars.count {
        let scalar = scalars[index]
        if scalar == "\\", index + 1 < scalars.count {
            let next = scalars[index + 1]
            out.append(contentsOf: next == "n" ? "\n".unicodeScalars : String(next).unicodeScalars)
            index += 2
        } else if scalar == "&", Array(scalars[index..<min(index + amp.count, scalars.count)]) == amp {
            out.append("&")
            index += amp.count
        } else {
            out.append(scalar)
            index += 1
        }
    }
    return String(out)
}

/// The text as the label should read: every line break one `\n`, control and format characters spaces.
func expected(_ text: String) -> String {
    var out = ""
    var previousWasCR = false
    for scalar in text.unicodeScalars {
        defer { previousWasCR = scalar == "\r" }
        switch scalar {
        case "\r", "\u{2028}", "\u{2029}", "\u{85}": out += "\n"
        case "\n": if !previousWasCR { out += "\n" }
        default:
            let category = scalar.properties.generalCategory
            if category == .control || category == .format { out += " " } else { out.unicodeScalars.append(scalar) }
        }
    }
    return out
}
