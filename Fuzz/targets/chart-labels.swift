import Foundation
import RetryFlow
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
    require(unescape(label) == expected(text), "label \(label.debugDescription) for \(text.debugDescription)")
    return 0
}

/// What Graphviz draws for a DOT label: `\\` is a backslash, `\n` a line break, `&amp;` an ampersand.
func unescape(_ label: String) -> String {
    var out = ""
    var scalars = label.unicodeScalars.makeIterator()
    while let scalar = scalars.next() {
        if scalar == "\\", let next = scalars.next() {
            out += next == "n" ? "\n" : String(next)
        } else {
            out.unicodeScalars.append(scalar)
        }
    }
    return out.replacingOccurrences(of: "&amp;", with: "&")
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
