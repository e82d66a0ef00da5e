import CGraphviz
import Foundation
import RetryFlow
import RetryFlowCharts

extension Graphviz {
    /// A DOT file as Graphviz's own parser (cgraph) reads it, as a `DrawnChart`: every node with
    /// its label and shape, every edge in the order written, the line each was written on, and a
    /// warning for each construct that is read another way (HTML labels, clusters, an undirected
    /// graph). `ChartCheck.compare(_:with:)` then compares it with a table.
    ///
    /// - Throws: ``GraphvizError`` of kind `syntax` when the text does not parse.
    public static func drawing(of dot: String) throws(GraphvizError) -> DrawnChart {
        let located = DOTSourceLines(dot)
        return try withContext { (_) throws(GraphvizError) -> DrawnChart in
            let graph = try parse(dot)
            defer { rf_close(graph) }
            var warnings: [String] = []
            if rf_is_directed(graph) == 0 {
                warnings.append(
                    "the graph is undirected ('graph', not 'digraph'): each edge is read from the node written first "
                        + "to the one written second")
            }
            clusters(of: graph) { name in
                warnings.append(
                    "line \(located.line(ofSubgraph: name).map(String.init) ?? "?"): subgraph \(name) is a cluster, "
                        + "a drawn box and not a state: its nodes are read as if outside it")
            }
            var nodes: [DrawnChart.Node] = []
            var edges: [(seq: UInt, edge: DrawnChart.Edge)] = []
            var edgeOccurrences: [String: Int] = [:]
            var node = rf_first_node(graph)
            while let current = node {
                let name = String(cString: rf_name(UnsafeMutableRawPointer(current)))
                let line = located.line(ofNode: name)
                var label = attribute(current, "label") ?? "\\N"
                if isHTML(current, "label") {
                    warnings.append(
                        "line \(line.map(String.init) ?? "?"): node \(name) has an HTML label, read as its text "
                            + "without tags")
                    label = strippingTags(label)
                }
                label = label.replacingOccurrences(of: "\\N", with: name)
                nodes.append(
                    DrawnChart.Node(id: name, label: label, shape: attribute(current, "shape") ?? "", line: line))
                var edge = rf_first_out(graph, current)
                while let e = edge {
                    let tail = String(cString: rf_name(UnsafeMutableRawPointer(rf_tail(e))))
                    let head = String(cString: rf_name(UnsafeMutableRawPointer(rf_head(e))))
                    let pair = tail + "\u{0}" + head
                    let occurrence = edgeOccurrences[pair, default: 0]
                    edgeOccurrences[pair] = occurrence + 1
                    let edgeLine = located.line(ofEdge: tail, head, occurrence: occurrence)
                    var edgeLabel = attribute(e, "label") ?? ""
                    if isHTML(e, "label") {
                        warnings.append(
                            "line \(edgeLine.map(String.init) ?? "?"): edge \(tail) -> \(head) has an HTML label, read "
                                + "as its text without tags")
                        edgeLabel = strippingTags(edgeLabel)
                    }
                    edges.append(
                        (
                            UInt(rf_seq(UnsafeMutableRawPointer(e))),
                            DrawnChart.Edge(from: tail, to: head, label: edgeLabel, line: edgeLine)
                        ))
                    edge = rf_next_out(graph, e)
                }
                node = rf_next_node(graph, current)
            }
            return DrawnChart(
                name: String(cString: rf_name(UnsafeMutableRawPointer(graph))), nodes: nodes,
                edges: edges.sorted { $0.seq < $1.seq }.map(\.edge), warnings: warnings)
        }
    }

    private static func attribute(_ object: UnsafeMutableRawPointer, _ name: String) -> String? {
        rf_get(object, name).map { String(cString: $0) }
    }

    private static func attribute(_ node: UnsafeMutablePointer<Agnode_t>, _ name: String) -> String? {
        attribute(UnsafeMutableRawPointer(node), name)
    }

    private static func attribute(_ edge: UnsafeMutablePointer<Agedge_t>, _ name: String) -> String? {
        attribute(UnsafeMutableRawPointer(edge), name)
    }

    private static func isHTML(_ object: UnsafeMutablePointer<Agnode_t>, _ name: String) -> Bool {
        guard let value = rf_get(UnsafeMutableRawPointer(object), name) else { return false }
        return rf_is_html(UnsafeMutablePointer(mutating: value)) != 0
    }

    private static func isHTML(_ object: UnsafeMutablePointer<Agedge_t>, _ name: String) -> Bool {
        guard let value = rf_get(UnsafeMutableRawPointer(object), name) else { return false }
        return rf_is_html(UnsafeMutablePointer(mutating: value)) != 0
    }

    /// Calls `visit` with the name of every cluster (a subgraph named `cluster…`), at any depth.
    private static func clusters(of graph: UnsafeMutablePointer<Agraph_t>, _ visit: (String) -> Void) {
        var sub = rf_first_subgraph(graph)
        while let current = sub {
            let name = String(cString: rf_name(UnsafeMutableRawPointer(current)))
            if name.hasPrefix("cluster") { visit(name) }
            clusters(of: current, visit)
            sub = rf_next_subgraph(current)
        }
    }

    /// HTML-like label text without its tags, entities decoded, breaks as `\n`.
    private static func strippingTags(_ html: String) -> String {
        var out = ""
        var inTag = false
        var tag = ""
        for character in html {
            if character == "<" {
                inTag = true
                tag = ""
            } else if character == ">" {
                inTag = false
                if tag.lowercased().hasPrefix("br") { out += "\\n" }
            } else if inTag {
                tag.append(character)
            } else {
                out.append(character)
            }
        }
        return out.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&amp;", with: "&")
    }
}

/// Where nodes, edges and subgraphs are written in DOT text: cgraph keeps no line numbers, so the
/// text is scanned for its statements' names (quoted or bare, outside attribute lists and comments).
/// A finding then names the line a person wrote.
struct DOTSourceLines {
    /// Each statement's names and edge operators, with their line: `a -> b [label=x]` gives `a`, `->`, `b`.
    private var tokens: [(text: String, line: Int)] = []

    init(_ dot: String) {
        var line = 1
        var index = dot.startIndex
        var bracketDepth = 0
        func peek(_ offset: Int = 0) -> Character? {
            var i = index
            for _ in 0..<offset {
                guard i < dot.endIndex else { return nil }
                i = dot.index(after: i)
            }
            return i < dot.endIndex ? dot[i] : nil
        }
        func advance() {
            if dot[index] == "\n" { line += 1 }
            index = dot.index(after: index)
        }
        while index < dot.endIndex {
            let c = dot[index]
            if c == "/" && peek(1) == "/"
                || c == "#" && (index == dot.startIndex || dot[dot.index(before: index)] == "\n")
            {
                while index < dot.endIndex && dot[index] != "\n" { advance() }
            } else if c == "/" && peek(1) == "*" {
                advance()
                advance()
                while index < dot.endIndex && !(dot[index] == "*" && peek(1) == "/") { advance() }
                if index < dot.endIndex {
                    advance()
                    advance()
                }
            } else if c == "\"" {
                let start = line
                var text = ""
                advance()
                while index < dot.endIndex && dot[index] != "\"" {
                    if dot[index] == "\\", let next = peek(1) {
                        advance()
                        text.append(next == "\"" ? "\"" : "\\")
                        if next != "\"" { text.append(next) }
                    } else {
                        text.append(dot[index])
                    }
                    advance()
                }
                if index < dot.endIndex { advance() }
                if bracketDepth == 0 { tokens.append((text, start)) }
            } else if c == "[" {
                bracketDepth += 1
                advance()
            } else if c == "]" {
                bracketDepth = max(0, bracketDepth - 1)
                advance()
            } else if c == "-" && (peek(1) == ">" || peek(1) == "-") {
                if bracketDepth == 0 { tokens.append(("->", line)) }
                advance()
                advance()
            } else if c.isLetter || c.isNumber || c == "_" || c == "." || c == "-" {
                var text = ""
                let start = line
                while index < dot.endIndex,
                    dot[index].isLetter || dot[index].isNumber || dot[index] == "_" || dot[index] == "."
                {
                    text.append(dot[index])
                    advance()
                }
                if text.isEmpty { advance() } else if bracketDepth == 0 { tokens.append((text, start)) }
            } else if c == "=" {
                // `name = value` outside brackets (a graph attribute): the value is no node.
                advance()
                if bracketDepth == 0, !tokens.isEmpty { tokens.append(("=", line)) }
            } else {
                advance()
            }
        }
    }

    /// The line a node's name first appears on as a statement's name (not an attribute's value).
    func line(ofNode name: String) -> Int? {
        for (i, token) in tokens.enumerated() where token.text == name {
            if i > 0, tokens[i - 1].text == "=" { continue }
            if i + 1 < tokens.count, tokens[i + 1].text == "=" { continue }
            return token.line
        }
        return nil
    }

    /// The line of the `occurrence`-th edge written from `tail` to `head` (chains `a -> b -> c` count each link).
    func line(ofEdge tail: String, _ head: String, occurrence: Int) -> Int? {
        var seen = 0
        for i in tokens.indices.dropLast(2)
        where tokens[i].text == tail && tokens[i + 1].text == "->" && tokens[i + 2].text == head {
            if seen == occurrence { return tokens[i + 2].line }
            seen += 1
        }
        return nil
    }

    /// The line a subgraph's name is written on.
    func line(ofSubgraph name: String) -> Int? {
        for i in tokens.indices.dropFirst() where tokens[i].text == name && tokens[i - 1].text == "subgraph" {
            return tokens[i].line
        }
        return nil
    }
}
