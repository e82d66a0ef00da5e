/// Reads a Mermaid `flowchart` (or `graph`) or `stateDiagram-v2` as a ``DrawnChart``, so
/// `check-chart` compares what people draw on code hosts with a table, as it does DOT.
///
/// What it reads: nodes with their labels and shapes (`{…}` is a diamond), `A --> B`, `A -- text --> B`,
/// `A -->|text| B`, chains (`A --> B --> C`) and `&` groups; in state diagrams `state "label" as id`,
/// `id : label`, `<<choice>>` (a diamond) and `A --> B : label`. The start and end marks `[*]` are
/// not states: an unlabelled `[*] --> A` only says where it starts. Styling (`classDef`, `style`,
/// `click`, `linkStyle`, `:::class`) is skipped; subgraphs and composite states are read as if their
/// nodes were outside them, with a warning, as DOT's clusters are.
package enum MermaidDrawing {
    /// Why a text is not a Mermaid chart this reader knows.
    package struct Unreadable: Error, Hashable, Sendable {
        /// What is wrong, with its line.
        package let message: String
    }

    /// Whether `text` looks like Mermaid (its first statement is a diagram type), not DOT.
    package static func isMermaid(_ text: String) -> Bool {
        guard let first = statements(of: text).first?.text else { return false }
        return diagramType(first) != nil
    }

    /// The first ```` ```mermaid ```` block of a Markdown text, with the line it starts on (its lines
    /// keep their numbers in the file), or `nil`.
    package static func firstBlock(inMarkdown text: String) -> String? {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let open = lines.firstIndex(where: { $0.trimmed.hasPrefix("```mermaid") || $0.trimmed == "~~~mermaid" })
        else { return nil }
        guard let close = lines[(open + 1)...].firstIndex(where: { $0.trimmed.hasPrefix("```") || $0.trimmed == "~~~" })
        else { return nil }
        // Blank lines in place of the rest, so a finding's line is the file's line.
        for index in lines.indices where index <= open || index >= close { lines[index] = "" }
        return lines.joined(separator: "\n")
    }

    /// The drawing `text` describes.
    package static func drawing(of text: String) throws(Unreadable) -> DrawnChart {
        let all = statements(of: text)
        guard let header = all.first, let type = diagramType(header.text) else {
            throw Unreadable(
                message: "line \(all.first?.line ?? 1): not a Mermaid flowchart or stateDiagram-v2 (it begins "
                    + "\(all.first.map { "\"\($0.text.prefix(40))\"" } ?? "empty"))")
        }
        var reader = Reader(isState: type == .state)
        for statement in all.dropFirst() { try reader.read(statement.text, line: statement.line) }
        return DrawnChart(
            name: type == .state ? "stateDiagram" : "flowchart", nodes: reader.nodes, edges: reader.edges,
            warnings: reader.warnings)
    }

    enum DiagramType { case flowchart, state }

    static func diagramType(_ header: String) -> DiagramType? {
        let word = header.split(separator: " ").first.map(String.init) ?? ""
        switch word {
        case "flowchart", "graph", "flowchart-elk": return .flowchart
        case "stateDiagram-v2", "stateDiagram": return .state
        default: return nil
        }
    }

    /// Statements with their line: one a line (or separated by `;` outside quotes), comments and
    /// blank lines dropped, a YAML front matter (`---` … `---`) skipped.
    static func statements(of text: String) -> [(text: String, line: Int)] {
        var out: [(String, Int)] = []
        var inFrontMatter = false
        var seenContent = false
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmed
            if line == "---" && (!seenContent || inFrontMatter) {
                inFrontMatter.toggle()
                seenContent = true
                continue
            }
            if inFrontMatter || line.isEmpty || line.hasPrefix("%%") { continue }
            seenContent = true
            var current = ""
            var quoted = false
            for character in line {
                if character == "\"" { quoted.toggle() }
                if character == ";" && !quoted && !Self.endsInEntity(current) {
                    if !current.trimmed.isEmpty { out.append((current.trimmed, index + 1)) }
                    current = ""
                } else {
                    current.append(character)
                }
            }
            if !current.trimmed.isEmpty { out.append((current.trimmed, index + 1)) }
        }
        return out
    }

    /// Whether `text` ends in the start of an entity (`#62`, `&amp`), whose `;` ends it, not the statement.
    static func endsInEntity(_ text: String) -> Bool {
        let tail = text.reversed().prefix { $0.isLetter || $0.isNumber }
        guard !tail.isEmpty, tail.count < text.count else { return false }
        let mark = text[text.index(text.endIndex, offsetBy: -tail.count - 1)]
        return (mark == "#" && tail.allSatisfy(\.isNumber)) || (mark == "&" && tail.allSatisfy(\.isLetter))
    }

    /// Mermaid label text as read: quotes and Markdown backticks dropped, `<br>` a line break,
    /// `#123;` and the common entities decoded.
    static func labelText(_ raw: String) -> String {
        var text = raw.trimmed
        if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") { text = String(text.dropFirst().dropLast()) }
        if text.count >= 2, text.hasPrefix("`"), text.hasSuffix("`") { text = String(text.dropFirst().dropLast()) }
        for br in ["<br/>", "<br />", "<br>", "<BR>", "\\n"] { text = text.replacing(br, with: "\n") }
        var out = ""
        var rest = Substring(text)
        while let hash = rest.firstIndex(where: { $0 == "#" || $0 == "&" }) {
            out += rest[..<hash]
            let after = rest[rest.index(after: hash)...]
            if let semicolon = after.firstIndex(of: ";"), after.distance(from: after.startIndex, to: semicolon) <= 8 {
                let code = String(after[..<semicolon])
                let named = ["quot": "\"", "amp": "&", "lt": "<", "gt": ">", "apos": "'", "nbsp": " "]
                if rest[hash] == "#", let value = UInt32(code), let scalar = Unicode.Scalar(value) {
                    out.unicodeScalars.append(scalar)
                    rest = after[after.index(after: semicolon)...]
                    continue
                }
                if rest[hash] == "&", let character = named[code] {
                    out += character
                    rest = after[after.index(after: semicolon)...]
                    continue
                }
            }
            out.append(rest[hash])
            rest = after
        }
        return (out + rest).trimmed
    }

    /// The reading, statement by statement.
    struct Reader {
        let isState: Bool
        var nodes: [DrawnChart.Node] = []
        var edges: [DrawnChart.Edge] = []
        var warnings: [String] = []
        var index: [String: Int] = [:]
        /// Whether the label of a node was given (a node first used bare takes its label later).
        var labelled: Set<String> = []
        var inNote = false

        mutating func node(_ id: String, label: String?, shape: String?, line: Int) {
            if let at = index[id] {
                if let label, !labelled.contains(id) {
                    nodes[at].label = label
                    labelled.insert(id)
                } else if let label, isState {
                    // `id : more` adds a line to a state's description.
                    nodes[at].label += "\n" + label
                }
                if let shape, nodes[at].shape.isEmpty { nodes[at].shape = shape }
                return
            }
            index[id] = nodes.count
            if label != nil { labelled.insert(id) }
            nodes.append(DrawnChart.Node(id: id, label: label ?? id, shape: shape ?? "", line: line))
        }

        mutating func read(_ statement: String, line: Int) throws(Unreadable) {
            let words = statement.split(separator: " ").map(String.init)
            let first = words.first ?? ""
            if inNote {
                if statement.lowercased().hasPrefix("end note") { inNote = false }
                return
            }
            switch first {
            case "classDef", "class", "style", "linkStyle", "click", "direction", "accTitle:", "accDescr:", "title":
                return
            case "end", "}":
                return
            case "subgraph":
                warnings.append(
                    "line \(line): subgraph \(words.dropFirst().first ?? "") is a drawn box and not a state: its "
                        + "nodes are read as if outside it")
                return
            default: break
            }
            if isState {
                try readState(statement, words: words, line: line)
            } else {
                try readFlow(statement, line: line)
            }
        }

        // MARK: stateDiagram-v2

        mutating func readState(_ statement: String, words: [String], line: Int) throws(Unreadable) {
            if words.first == "note" {
                if !statement.contains(":") { inNote = true }
                return
            }
            if statement == "--" {
                warnings.append("line \(line): a concurrent region (--) is read as part of one diagram")
                return
            }
            if words.first == "state" {
                var rest = String(statement.dropFirst("state".count)).trimmed
                if rest.hasSuffix("{") {
                    rest = String(rest.dropLast()).trimmed
                    warnings.append(
                        "line \(line): composite state \(rest) is read as if its states were outside it")
                }
                if rest.hasPrefix("\""), let close = rest.dropFirst().firstIndex(of: "\"") {
                    let label = Self.unquote(String(rest[rest.startIndex...close]))
                    let after = rest[rest.index(after: close)...].trimmed
                    guard after.hasPrefix("as ") else {
                        throw Unreadable(message: "line \(line): `state \"…\"` needs `as ID`: \(statement)")
                    }
                    node(String(after.dropFirst(3)).trimmed, label: label, shape: nil, line: line)
                    return
                }
                var id = rest
                var shape: String?
                if let mark = rest.range(of: "<<") {
                    id = String(rest[..<mark.lowerBound]).trimmed
                    let kind = rest[mark.upperBound...].prefix { $0 != ">" }
                    switch kind {
                    case "choice": shape = "diamond"
                    default: warnings.append("line \(line): <<\(kind)>> of \(id) is read as a plain state")
                    }
                }
                if let colon = id.firstIndex(of: ":") {
                    let label = MermaidDrawing.labelText(String(id[id.index(after: colon)...]))
                    id = String(id[..<colon]).trimmed
                    node(id, label: label, shape: shape, line: line)
                    return
                }
                guard !id.isEmpty else { throw Unreadable(message: "line \(line): a state without a name") }
                node(id, label: nil, shape: shape, line: line)
                return
            }
            if let arrow = statement.range(of: "-->") {
                let from = String(statement[..<arrow.lowerBound]).trimmed
                var to = String(statement[arrow.upperBound...]).trimmed
                var label = ""
                if let colon = to.firstIndex(of: ":") {
                    label = MermaidDrawing.labelText(String(to[to.index(after: colon)...]))
                    to = String(to[..<colon]).trimmed
                }
                guard !from.isEmpty, !to.isEmpty, !from.contains(" "), !to.contains(" ") else {
                    throw Unreadable(message: "line \(line): cannot read the transition \"\(statement)\"")
                }
                if to == "[*]" {
                    if !label.isEmpty {
                        warnings.append(
                            "line \(line): \(from) --> [*] : \(label) ends the diagram; its label is not checked")
                    }
                    return
                }
                if from == "[*]" && label.isEmpty {
                    node(to, label: nil, shape: nil, line: line)
                    return
                }
                node(from, label: nil, shape: nil, line: line)
                node(to, label: nil, shape: nil, line: line)
                edges.append(DrawnChart.Edge(from: from, to: to, label: label, line: line))
                return
            }
            if let colon = statement.firstIndex(of: ":") {
                let id = String(statement[..<colon]).trimmed
                guard !id.isEmpty, !id.contains(" ") else {
                    throw Unreadable(message: "line \(line): cannot read \"\(statement)\"")
                }
                node(
                    id, label: MermaidDrawing.labelText(String(statement[statement.index(after: colon)...])),
                    shape: nil,
                    line: line)
                return
            }
            guard !statement.contains(" ") else {
                throw Unreadable(message: "line \(line): cannot read \"\(statement)\"")
            }
            node(statement, label: nil, shape: nil, line: line)
        }

        static func unquote(_ text: String) -> String { MermaidDrawing.labelText(text) }

        // MARK: flowchart

        /// Node shapes, longest opening first: opening, closing, the shape read.
        static let shapes: [(open: String, close: String, shape: String)] = [
            ("(((", ")))", "doublecircle"), ("([", "])", "oval"), ("[[", "]]", "box"), ("[(", ")]", "cylinder"),
            ("((", "))", "circle"), ("{{", "}}", "hexagon"), ("[/", "/]", "parallelogram"),
            ("[\\", "\\]", "parallelogram"), ("[/", "\\]", "trapezium"), ("[\\", "/]", "trapezium"),
            ("[", "]", "box"), ("(", ")", "ellipse"), ("{", "}", "diamond"), (">", "]", "box"),
        ]

        mutating func readFlow(_ statement: String, line: Int) throws(Unreadable) {
            var scanner = Scanner(text: Array(statement))
            var previous: [String] = []
            var pendingLabel: String?
            while true {
                scanner.skipSpaces()
                var group: [String] = []
                repeat {
                    scanner.skipSpaces()
                    guard let id = try readNode(&scanner, line: line) else {
                        throw Unreadable(
                            message:
                                "line \(line): expected a node at column \(scanner.position + 1) of \"\(statement)\"")
                    }
                    group.append(id)
                    scanner.skipSpaces()
                } while scanner.take("&")
                if let label = pendingLabel {
                    for from in previous {
                        for to in group { edges.append(DrawnChart.Edge(from: from, to: to, label: label, line: line)) }
                    }
                }
                previous = group
                scanner.skipSpaces()
                if scanner.atEnd { return }
                guard let link = try readLink(&scanner, line: line, statement: statement) else {
                    throw Unreadable(
                        message: "line \(line): expected an arrow at column \(scanner.position + 1) of \"\(statement)\""
                    )
                }
                pendingLabel = link
            }
        }

        /// A node reference (`id`, `id[label]`, `id{label?}` …), registered; its id.
        mutating func readNode(_ scanner: inout Scanner, line: Int) throws(Unreadable) -> String? {
            let start = scanner.position
            while let c = scanner.peek, !c.isWhitespace, !"[({>&;|".contains(c), !scanner.startsLink {
                scanner.position += 1
            }
            let id = String(scanner.text[start..<scanner.position])
            guard !id.isEmpty else { return nil }
            if id.contains("@{") {
                throw Unreadable(message: "line \(line): the `@{ shape: … }` node syntax is not read; write id{label}")
            }
            for shape in Self.shapes where scanner.rest(startsWith: shape.open) {
                scanner.position += shape.open.count
                let labelStart = scanner.position
                var quoted = false
                while let c = scanner.peek {
                    if c == "\"" { quoted.toggle() }
                    if !quoted && scanner.rest(startsWith: shape.close) { break }
                    scanner.position += 1
                }
                guard scanner.rest(startsWith: shape.close) else {
                    throw Unreadable(message: "line \(line): node \(id)'s label is not closed with \(shape.close)")
                }
                let label = MermaidDrawing.labelText(String(scanner.text[labelStart..<scanner.position]))
                scanner.position += shape.close.count
                skipClass(&scanner)
                node(id, label: label, shape: shape.shape, line: line)
                return id
            }
            skipClass(&scanner)
            node(id, label: nil, shape: nil, line: line)
            return id
        }

        func skipClass(_ scanner: inout Scanner) {
            guard scanner.rest(startsWith: ":::") else { return }
            while let c = scanner.peek, !c.isWhitespace { scanner.position += 1 }
        }

        /// An arrow and its label (`""` when none): `-->`, `---`, `-.->`, `==>`, `-- text -->`,
        /// `-->|text|`. An arrow without a head is read as pointing right, with a warning.
        mutating func readLink(_ scanner: inout Scanner, line: Int, statement: String) throws(Unreadable) -> String? {
            _ = scanner.take("<")
            let start = scanner.position
            while let c = scanner.peek, "-=.~".contains(c) { scanner.position += 1 }
            var run = String(scanner.text[start..<scanner.position])
            guard run.count >= 2 || run == "-" else { return nil }
            var label = ""
            if let c = scanner.peek, ">ox".contains(c), !(c != ">" && scanner.peekNextIsNodeChar) {
                scanner.position += 1
                run.append(c)
            } else if !scanner.atEnd, ["--", "==", "-."].contains(run) {
                // `-- text -->`: the text runs to the closing arrow.
                let closers = run == "==" ? ["==>", "==="] : (run == "-." ? [".->", ".-"] : ["-->", "---"])
                let textStart = scanner.position
                while !scanner.atEnd && !closers.contains(where: { scanner.rest(startsWith: $0) }) {
                    scanner.position += 1
                }
                guard !scanner.atEnd else {
                    throw Unreadable(message: "line \(line): the arrow's text is not closed in \"\(statement)\"")
                }
                label = MermaidDrawing.labelText(String(scanner.text[textStart..<scanner.position]))
                let closeStart = scanner.position
                while let c = scanner.peek, "-=.>".contains(c) { scanner.position += 1 }
                run = String(scanner.text[closeStart..<scanner.position])
            }
            if !run.contains(">") {
                warnings.append("line \(line): an arrow without a head (\(run)) is read as pointing to its right")
            }
            scanner.skipSpaces()
            if scanner.take("|") {
                let textStart = scanner.position
                while let c = scanner.peek, c != "|" { scanner.position += 1 }
                guard scanner.take("|") else {
                    throw Unreadable(message: "line \(line): the arrow's |text| is not closed in \"\(statement)\"")
                }
                label = MermaidDrawing.labelText(String(scanner.text[textStart..<(scanner.position - 1)]))
            }
            return label
        }
    }

    /// A cursor over one statement's characters.
    struct Scanner {
        let text: [Character]
        var position = 0

        var atEnd: Bool { position >= text.count }
        var peek: Character? { atEnd ? nil : text[position] }
        /// Whether the character after the next one continues a name (`--o` vs `--oops`).
        var peekNextIsNodeChar: Bool {
            position + 1 < text.count && (text[position + 1].isLetter || text[position + 1].isNumber)
        }
        /// Whether an arrow starts here (`--`, `==`, `-.`, `<-`, `~~`).
        var startsLink: Bool {
            ["--", "==", "-.", "<-", "<=", "~~"].contains { rest(startsWith: $0) }
        }

        func rest(startsWith prefix: String) -> Bool {
            let characters = Array(prefix)
            guard position + characters.count <= text.count else { return false }
            return Array(text[position..<(position + characters.count)]) == characters
        }

        mutating func skipSpaces() { while let c = peek, c.isWhitespace { position += 1 } }

        mutating func take(_ prefix: String) -> Bool {
            guard rest(startsWith: prefix) else { return false }
            position += prefix.count
            return true
        }
    }
}

extension StringProtocol {
    fileprivate var trimmed: String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
