import RetryFlow

/// A table's rows as a Markdown table (`from | event | guard | to | effects | reason`), for READMEs and
/// docs; generated, so it cannot drift from the code.
public enum MarkdownTable {
    /// The Markdown table of `table`'s rows, in lookup order.
    public static func render<V>(_ table: TransitionTable<V>) -> String {
        func cell(_ text: String) -> String { text.replacingPipes() }
        var lines = ["| from | event | guard | to | effects | reason |", "|---|---|---|---|---|---|"]
        for (index, row) in table.rows.enumerated() {
            let guardText = table.isElse(row: index) ? "(else)" : row.condition.label
            let cells = [
                row.from.label, row.event?.label ?? "", guardText, row.to.label,
                row.effects.map(\.label).joined(separator: ", "), row.reason?.label ?? "",
            ]
            lines.append("| " + cells.map(cell).joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension String {
    fileprivate func replacingPipes() -> String {
        var out = ""
        for character in self {
            switch character {
            case "|": out += "\\|"
            case "\n", "\r": out += " "
            default: out.append(character)
            }
        }
        return out
    }
}
