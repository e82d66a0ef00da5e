import RetryFlow

/// Compares a drawn chart (``DrawnChart``, e.g. a hand-drawn DOT file) with a table, and names every
/// place they disagree: states drawn and not in the table and the reverse, edges missing, extra or
/// pointing elsewhere, labels naming an event or guard the row does not have, and decisions whose
/// questions come in another order than the table's guards.
///
/// How a drawing is read (both of RetryFlow's chart styles, and the usual hand-drawn shapes):
/// - A node is a state when its label (or its first line) or else its name is the state's label,
///   ignoring case, spaces and punctuation (`Half Open`, `half_open` and `half-open` are alike).
/// - A node whose label ends in `?` (or a diamond that is not a state) asks a question: a guard's
///   label (`attempts left?`) or its negation (`no attempts left?`). Its edges are labelled `yes` and
///   `no`. A chain of such nodes is a decision: each question's one branch leaves it, the other asks
///   the next question, and the last question's two branches end it. A question node whose first
///   line names a state (`retry\nretryable?`) is that decision state; one reached without a name is
///   the decision whose first guard it asks.
/// - A question that asks no guard, right after a state, asks about that state's two events
///   (`error?` after `request`): yes is the event whose label shares a word with it, no the other.
/// - Any other edge label reads `event [guard] / effects`: the event (none for a decision's rows),
///   the guard, `[else]` or nothing for an unguarded row, and the effects (checked when drawn; some
///   of the row's, in its order, will do). Out of a state the table leaves on one event only, an
///   unlabelled edge is that event, and a label naming no event is what the edge does.
/// - A node that is no state, with one way out, drawn between two states a row joins (a wait the
///   code does not have) is one finding; the edge through it is read as that row.
/// - A decision's last guarded row and its `else` may be drawn either way round (`[not g] → A,
///   else → B` is `[g] → B, else → A`); the order of the other guards matters, as the first that
///   holds wins.
public enum ChartCheck {
    /// Every disagreement between `drawing` and `table`.
    public static func compare<V>(
        _ drawing: DrawnChart, with table: TransitionTable<V>
    ) -> ChartCheckResult {
        compare(drawing, with: table, mapping: [:])
    }

    /// Every disagreement between `drawing` and `table` when the nodes in `mapping` draw the states it
    /// names (the others are read by their names, as ``compare(_:with:)`` reads them).
    package static func compare<V>(
        _ drawing: DrawnChart, with table: TransitionTable<V>, mapping: [String: V.State]
    ) -> ChartCheckResult {
        var reader = DrawingReader(drawing: drawing, table: table, mapping: mapping)
        reader.read()
        return reader.result()
    }
}

/// What ``ChartCheck`` found: findings (disagreements), warnings (what it read another way), and the
/// table's rows the drawing lacks, as DOT to paste.
public struct ChartCheckResult: Hashable, Sendable {
    /// Every disagreement, in the drawing's order, then the table's rows missing from it.
    package var findings: [ChartFinding]
    /// What could not be interpreted as drawn.
    package var warnings: [String]
    /// The rows the drawing lacks, as DOT edge statements naming the drawing's nodes.
    package var missingRows: [String]

    /// Whether the drawing agrees with the table (warnings allowed).
    public var agrees: Bool { findings.isEmpty }

    /// One line per warning (`warning: …`) and per finding, then a verdict.
    public var text: String {
        var lines = warnings.map { "warning: \($0)" } + findings.map(\.description)
        lines.append(
            agrees
                ? "the drawing agrees with the table"
                : "\(findings.count) disagreement\(findings.count == 1 ? "" : "s") with the table")
        return lines.joined(separator: "\n") + "\n"
    }
}

/// One disagreement: where in the drawing, and what.
package struct ChartFinding: Hashable, Sendable, CustomStringConvertible {
    /// The drawing's line, when the finding is about something drawn.
    package var line: Int?
    /// What disagrees, naming the drawing's node or edge and the table's row.
    package var message: String

    /// `line 12: edge request -> wait "failed": …`.
    package var description: String { (line.map { "line \($0): " } ?? "") + message }
}

/// The reading of one drawing against one table.
struct DrawingReader<V: TableVocabulary> {
    typealias Table = TransitionTable<V>

    /// A drawn node, read.
    struct ReadNode {
        let node: DrawnChart.Node
        /// The state it draws, if any.
        var state: V.State?
        /// The question it asks, if any (without the `?`).
        var question: String?
        var isQuestion: Bool { question != nil }
    }

    /// One way out of a (state, event) as drawn or as the table has it: a decision list's entry.
    struct Entry {
        var condition: GuardCondition<V.Guard>
        var target: V.State
        /// Effects as written, or `nil` when the drawing shows none.
        var effects: String?
        /// The edge drawn (`nil` for the table's rows).
        var edge: DrawnChart.Edge?
        /// The table's row (`nil` for drawn entries).
        var row: Int?
    }

    struct GroupKey: Hashable {
        let state: V.State
        let event: V.Event?
    }

    let drawing: DrawnChart
    let table: Table
    /// The states nodes draw by the user's word (`--map`) or a proposed correspondence, not by name.
    let mapping: [String: V.State]
    /// The table's own vocabulary: its states (`TransitionTable.states`, a user's steps included),
    /// and the events and guards of its symbols' cases and its rows.
    let states: [V.State]
    let events: [V.Event]
    let guards: [V.Guard]
    var nodes: [String: ReadNode] = [:]
    var findings: [ChartFinding] = []
    var drawn: [GroupKey: [Entry]] = [:]
    var drawnOrder: [GroupKey] = []
    var chainsRead: Set<String> = []
    /// Nodes that are no state, drawn on an edge between two states the table joins directly (a wait
    /// the code does not have): the edge is read as going through, the node reported once.
    var steppedThrough: [String: (from: V.State, to: V.State)] = [:]
    /// Nodes that are no state and ask no question, reported once the edges are read.
    var unknownNodes: [DrawnChart.Node] = []

    init(drawing: DrawnChart, table: Table, mapping: [String: V.State] = [:]) {
        self.drawing = drawing
        self.table = table
        self.mapping = mapping
        states = table.states
        var events = Array(V.Event.allCases)
        for event in table.rows.compactMap(\.event) where !events.contains(event) { events.append(event) }
        self.events = events
        var guards = Array(V.Guard.allCases)
        for symbol in table.rows.compactMap(\.condition.guardSymbol) where !guards.contains(symbol) {
            guards.append(symbol)
        }
        self.guards = guards
    }

    // MARK: Reading

    mutating func read() {
        for node in drawing.nodes { nodes[node.id] = readNode(node) }
        for edge in drawing.edges { readEdge(edge) }
        // Questions no edge from a state led to (after a question the table answers by an event).
        for node in drawing.nodes where nodes[node.id]?.isQuestion == true && nodes[node.id]?.state == nil {
            _ = decision(asking: node.id)
        }
        // After the edges: a question drawn without a state's name is the decision it was read as.
        checkStates()
        reportUnknownNodes()
    }

    /// Each node that is no state, once: a step drawn between two states is named as the drift it is.
    mutating func reportUnknownNodes() {
        for node in unknownNodes {
            if let (from, to) = steppedThrough[node.id] {
                findings.append(
                    ChartFinding(
                        line: node.line,
                        message: "node \(node.id) \(Self.quoted(node.label)) is a step the table does not have: the "
                            + "drawing goes from '\(from.label)' through it to '\(to.label)', the table goes straight"))
                continue
            }
            let edges = drawing.edges.filter { $0.from == node.id || $0.to == node.id }.count
            findings.append(
                ChartFinding(
                    line: node.line,
                    message: "node \(node.id) \(Self.quoted(node.label)) is not a state of the table "
                        + "(its states: \(states.map(\.label).joined(separator: ", ")))"
                        + (edges > 0 ? "; its \(edges) edge\(edges == 1 ? " is" : "s are") not checked" : "")))
        }
    }

    func readNode(_ node: DrawnChart.Node) -> ReadNode {
        let lines = Self.lines(of: node.label)
        var read = ReadNode(node: node)
        var stateLines = lines
        if let last = lines.last, last.hasSuffix("?") {
            read.question = String(last.dropLast()).trimmingSpaces
            stateLines.removeLast()
            // A state's name and its first question on one line (`retry final answer?`: Mermaid
            // flowcharts have no line breaks in a label): split where the rest is a guard.
            if stateLines.isEmpty, let question = read.question, guardMatch(question) == nil {
                let words = question.split(separator: " ")
                for count in 1..<max(words.count, 1) {
                    let head = words[..<count].joined(separator: " ")
                    let tail = words[count...].joined(separator: " ")
                    if state(named: head) != nil, guardMatch(tail) != nil {
                        stateLines = [head]
                        read.question = tail
                        break
                    }
                }
            }
        }
        if let mapped = mapping[node.id] {
            read.state = mapped
            return read
        }
        read.state =
            stateLines.first.flatMap(state(named:)) ?? (stateLines.count > 1 ? state(named: stateLines.joined()) : nil)
        if read.state == nil, read.question == nil, let named = state(named: node.label) { read.state = named }
        if read.state == nil && (read.question != nil || stateLines.isEmpty) { read.state = state(named: node.id) }
        if read.state == nil && read.question == nil {
            if node.shape.lowercased() == "diamond", guardMatch(node.label) != nil {
                read.question = node.label
            } else {
                read.state = state(named: node.id)
            }
        }
        return read
    }

    /// States drawn twice, states not drawn, and nodes that are no state and ask no question.
    mutating func checkStates() {
        var drawnStates: [V.State: [DrawnChart.Node]] = [:]
        for node in drawing.nodes {
            guard let read = nodes[node.id] else { continue }
            if let state = read.state {
                drawnStates[state, default: []].append(node)
            } else if !read.isQuestion {
                unknownNodes.append(node)
            }
        }
        for (state, drawnNodes) in drawnStates.sorted(by: { order($0.key) < order($1.key) })
        where drawnNodes.count > 1 {
            findings.append(
                ChartFinding(
                    line: drawnNodes[1].line,
                    message: "state '\(state.label)' is drawn more than once: "
                        + drawnNodes.map(\.id).joined(separator: ", ")))
        }
        for state in states where drawnStates[state] == nil && isDrawable(state) {
            findings.append(
                ChartFinding(line: nil, message: "state '\(state.label)' of the table is not in the drawing"))
        }
    }

    func isDrawable(_ state: V.State) -> Bool {
        state == table.initial || table.rows.contains { $0.from == state || $0.to == state }
    }

    mutating func readEdge(_ edge: DrawnChart.Edge) {
        guard let tail = nodes[edge.from], let head = nodes[edge.to] else { return }
        guard let state = tail.state else { return } // an unknown node (reported) or a chain's later question
        if tail.isQuestion {
            // A decision drawn as a chain of questions: read once, from its first node.
            guard chainsRead.insert(tail.node.id).inserted else { return }
            readChain(from: tail, state: state)
            return
        }
        if head.isQuestion, head.state == nil, let question = head.question, guardMatch(question) == nil,
            edge.label.isEmpty
        {
            readEventQuestion(head, question: question, from: state)
            return
        }
        let label = Self.parse(edge.label)
        var event: V.Event?
        var effects = label.effects
        if label.words.isEmpty, label.guardText == nil, let only = onlyEvent(of: state) {
            // An arrow drawn without a label, out of a state the table leaves on one event only.
            event = only
        } else if label.guardText == nil, label.effects == nil, let only = onlyEvent(of: state),
            Self.symbol(in: events, named: label.words) == nil
        {
            // Out of a state left on one event only, a label naming no event says what the arrow does.
            event = only
            effects = label.words
        } else if !label.words.isEmpty {
            guard let named = Self.symbol(in: events, named: label.words) else {
                findings.append(
                    ChartFinding(
                        line: edge.line,
                        message: "\(Self.describe(edge)): '\(label.words)' is not an event of the table "
                            + "(its events: \(events.map(\.label).joined(separator: ", ")))"))
                return
            }
            event = named
        }
        guard let condition = condition(label.guardText, edge: edge), let target = target(of: head, edge: edge) else {
            return
        }
        add(
            GroupKey(state: state, event: event),
            Entry(condition: condition, target: target, effects: effects, edge: edge))
    }

    /// The one event the table leaves `state` on, when it has no other way out (no completion rows).
    func onlyEvent(of state: V.State) -> V.Event? {
        let rows = table.rows.filter { $0.from == state }
        guard let event = rows.first?.event, rows.allSatisfy({ $0.event == event }) else { return nil }
        return event
    }

    /// The events the table leaves `state` on, in the table's order.
    func events(of state: V.State) -> [V.Event] {
        var out: [V.Event] = []
        for row in table.rows where row.from == state {
            if let event = row.event, !out.contains(event) { out.append(event) }
        }
        return out
    }

    /// Whether `question` names `event`: a word of the question (`error?`) is a word of the event's
    /// label (`connection error`).
    static func asks(_ question: String, about event: V.Event) -> Bool {
        let asked = Set(words(of: question))
        return words(of: event.label).contains { asked.contains($0) }
            || words(of: event.rawValue).contains {
                asked.contains($0)
            }
    }

    /// Lowercased words of two letters or more.
    static func words(of text: String) -> [String] {
        text.lowercased().split { !($0.isLetter || $0.isNumber) }.map(String.init).filter { $0.count > 1 }
    }

    /// A question that names no guard, asked right after `state`: its branches are the state's events
    /// (`error?` after `request`: yes is `connection error`, no the other event, `any response`).
    mutating func readEventQuestion(_ node: ReadNode, question: String, from state: V.State) {
        guard chainsRead.insert(node.node.id).inserted else { return }
        let stateEvents = events(of: state)
        let named = stateEvents.filter { Self.asks(question, about: $0) }
        var yes: DrawnChart.Edge?
        var no: DrawnChart.Edge?
        for edge in drawing.edges where edge.from == node.node.id {
            switch Self.parse(edge.label).branch {
            case true?: if yes == nil { yes = edge } else { return unreadable(node, "two yes branches") }
            case false?: if no == nil { no = edge } else { return unreadable(node, "two no branches") }
            case nil: return unreadable(node, "a branch labelled \(Self.quoted(edge.label)), not yes or no")
            }
        }
        guard let yes, let no else { return unreadable(node, "no \(yes == nil ? "yes" : "no") branch") }
        // The question names one of two events: yes is that one, no the other.
        guard stateEvents.count == 2, named.count == 1, let asked = named.first,
            let other = stateEvents.first(where: { $0 != asked })
        else {
            findings.append(
                ChartFinding(
                    line: node.node.line,
                    message: "decision node \(node.node.id) asks '\(question)?', which is not a guard of the table "
                        + "(its guards: \(guards.map(\.label).joined(separator: ", "))) nor one of the two events "
                        + "'\(state.label)' is left on (its events there: "
                        + "\(stateEvents.map(\.label).joined(separator: ", ")))"))
            return
        }
        for (edge, event) in [(yes, asked), (no, other)] {
            guard let head = nodes[edge.to], let target = target(of: head, edge: edge, from: state) else { continue }
            add(
                GroupKey(state: state, event: event),
                Entry(condition: .always, target: target, effects: Self.parse(edge.label).effects, edge: edge))
        }
    }

    /// A decision drawn as questions with yes and no branches, as a decision list.
    mutating func readChain(from first: ReadNode, state: V.State) {
        var node = first
        var visited: Set<String> = []
        let key = GroupKey(state: state, event: nil)
        while visited.insert(node.node.id).inserted, let question = node.question {
            chainsRead.insert(node.node.id)
            guard let (asked, negated) = guardMatch(question) else {
                findings.append(
                    ChartFinding(
                        line: node.node.line,
                        message: "decision node \(node.node.id) asks '\(question)?', which is not a guard of the table "
                            + "(its guards: \(guards.map(\.label).joined(separator: ", ")))"))
                return
            }
            let outs = drawing.edges.filter { $0.from == node.node.id }
            var yes: DrawnChart.Edge?
            var no: DrawnChart.Edge?
            for edge in outs {
                switch Self.parse(edge.label).branch {
                case true?: if yes == nil { yes = edge } else { return unreadable(node, "two yes branches") }
                case false?: if no == nil { no = edge } else { return unreadable(node, "two no branches") }
                case nil: return unreadable(node, "a branch labelled \(Self.quoted(edge.label)), not yes or no")
                }
            }
            guard let yes, let no else { return unreadable(node, "no \(yes == nil ? "yes" : "no") branch") }
            let whenYes: GuardCondition<V.Guard> = negated ? .unless(asked) : .when(asked)
            let whenNo: GuardCondition<V.Guard> = negated ? .when(asked) : .unless(asked)
            guard let yesNode = nodes[yes.to], let noNode = nodes[no.to] else { return }
            let yesGoesOn = yesNode.isQuestion && yesNode.state == nil
            let noGoesOn = noNode.isQuestion && noNode.state == nil
            switch (yesGoesOn, noGoesOn) {
            case (true, true):
                return unreadable(node, "both branches ask another question (a decision of the table is one chain)")
            case (false, true):
                guard let target = target(of: yesNode, edge: yes, from: state) else { return }
                add(key, Entry(condition: whenYes, target: target, effects: Self.parse(yes.label).effects, edge: yes))
                node = noNode
            case (true, false):
                guard let target = target(of: noNode, edge: no, from: state) else { return }
                add(key, Entry(condition: whenNo, target: target, effects: Self.parse(no.label).effects, edge: no))
                node = yesNode
            case (false, false):
                // The last question: yes leaves on the guard, no is the rest (or, when yes leads nowhere
                // the table knows, no leaves on the guard's negation).
                let yesTarget = target(of: yesNode, edge: yes, from: state)
                let noTarget = target(of: noNode, edge: no, from: state)
                if let yesTarget {
                    add(
                        key,
                        Entry(condition: whenYes, target: yesTarget, effects: Self.parse(yes.label).effects, edge: yes))
                }
                if let noTarget {
                    add(
                        key,
                        Entry(
                            condition: yesTarget == nil ? whenNo : .always, target: noTarget,
                            effects: Self.parse(no.label).effects, edge: no))
                }
                return
            }
        }
    }

    mutating func unreadable(_ node: ReadNode, _ problem: String) {
        findings.append(
            ChartFinding(line: node.node.line, message: "decision node \(node.node.id) cannot be read: \(problem)"))
    }

    mutating func add(_ key: GroupKey, _ entry: Entry) {
        if drawn[key] == nil { drawnOrder.append(key) }
        drawn[key, default: []].append(entry)
    }

    /// The state an edge enters: its head's, or for a question drawn without a state's name, the
    /// decision whose first guard it asks.
    mutating func target(of head: ReadNode, edge: DrawnChart.Edge, from: V.State? = nil) -> V.State? {
        if let state = head.state { return state }
        guard head.isQuestion else { return steppingThrough(head, from: from ?? nodes[edge.from]?.state) }
        return decision(asking: head.node.id)
    }

    /// The state after a node that is no state (reported), when it has one way out, to a state, and
    /// the table goes from the edge's tail straight there: the drawing adds a step (a wait the code
    /// does not have), and the edge is read as the row it draws.
    mutating func steppingThrough(_ node: ReadNode, from: V.State?) -> V.State? {
        let outs = drawing.edges.filter { $0.from == node.node.id }
        guard let from, outs.count == 1, let out = outs.first, let next = nodes[out.to], next.node.id != node.node.id,
            let to = next.state, table.rows.contains(where: { $0.from == from && $0.to == to })
        else { return nil }
        steppedThrough[node.node.id] = (from, to)
        return to
    }

    /// The decision state a question node without a state's name stands for (the one whose first
    /// guard it asks), its chain read once; `nil`, reported once, when there is none.
    mutating func decision(asking id: String) -> V.State? {
        guard let head = nodes[id], let question = head.question else { return nil }
        if let state = head.state { return state }
        guard chainsRead.insert(id).inserted else { return nil }
        guard let asked = guardMatch(question)?.guard else {
            findings.append(
                ChartFinding(
                    line: head.node.line,
                    message: "decision node \(id) asks '\(question)?', which is not a guard of the table (its guards: "
                        + "\(guards.map(\.label).joined(separator: ", ")); its events: "
                        + "\(events.map(\.label).joined(separator: ", ")))"))
            return nil
        }
        let decisions = states.filter { state in
            table.isDecision(state) && table.rows.first { $0.from == state }?.condition.guardSymbol == asked
        }
        guard decisions.count == 1, let decision = decisions.first else {
            findings.append(
                ChartFinding(
                    line: head.node.line,
                    message: "decision node \(id) asks '\(question)?', which no decision of the table asks first"))
            return nil
        }
        nodes[id]?.state = decision
        if let read = nodes[id] { readChain(from: read, state: decision) }
        return decision
    }

    /// The condition a bracketed guard names: `nil` (reported) when it names no guard of the table.
    mutating func condition(_ text: String?, edge: DrawnChart.Edge) -> GuardCondition<V.Guard>? {
        guard let text, !text.isEmpty, Self.normalized(text) != "else" else { return .always }
        if let (symbol, negated) = guardMatch(text) { return negated ? .unless(symbol) : .when(symbol) }
        findings.append(
            ChartFinding(
                line: edge.line,
                message: "\(Self.describe(edge)): [\(text)] is not a guard of the table "
                    + "(its guards: \(guards.map(\.label).joined(separator: ", ")))"))
        return nil
    }

    /// The guard `text` asks, and whether it asks its negation (`no attempts left`, `not retryable`).
    func guardMatch(_ text: String) -> (guard: V.Guard, negated: Bool)? {
        let key = Self.normalized(text)
        guard !key.isEmpty else { return nil }
        for symbol in guards {
            if key == Self.normalized(symbol.label) || key == Self.normalized(symbol.rawValue) {
                return (symbol, false)
            }
        }
        for symbol in guards {
            if key == Self.normalized(symbol.negatedLabel) || key == Self.normalized("not " + symbol.label) {
                return (symbol, true)
            }
        }
        return nil
    }

    func state(named text: String) -> V.State? { Self.symbol(in: states, named: text) }

    // MARK: Comparing

    /// The table's rows as decision lists, per (state, event), in table order.
    func tableGroups() -> (groups: [GroupKey: [Entry]], order: [GroupKey]) {
        var groups: [GroupKey: [Entry]] = [:]
        var order: [GroupKey] = []
        for (index, row) in table.rows.enumerated() {
            let key = GroupKey(state: row.from, event: row.event)
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(
                Entry(
                    condition: row.condition, target: row.to, effects: row.effects.map(\.label).joined(separator: ", "),
                    row: index))
        }
        return (groups, order)
    }

    /// The drawn list spelled like the table's: `[…, [not g] → A, else → B]` is `[…, [g] → B, else → A]`,
    /// so when both end in `g` and an else, the drawing's last pair takes the table's polarity.
    static func aligned(_ entries: [Entry], to expected: [Entry]) -> [Entry] {
        guard entries.count >= 2, expected.count >= 2, entries[entries.count - 1].condition == .always,
            expected[expected.count - 1].condition == .always,
            let g = entries[entries.count - 2].condition.guardSymbol,
            expected[expected.count - 2].condition.guardSymbol == g,
            entries[entries.count - 2].condition != expected[expected.count - 2].condition
        else { return entries }
        var out = entries
        let guarded = entries[entries.count - 2]
        let last = entries[entries.count - 1]
        out[out.count - 2] = Entry(
            condition: expected[expected.count - 2].condition, target: last.target, effects: last.effects,
            edge: last.edge, row: last.row)
        out[out.count - 1] = Entry(
            condition: .always, target: guarded.target, effects: guarded.effects, edge: guarded.edge, row: guarded.row)
        return out
    }

    func result() -> ChartCheckResult {
        var findings = self.findings
        var missing: [Int] = []
        let (groups, order) = tableGroups()
        // What the drawing has that the table does not, in the drawing's order.
        for key in drawnOrder where groups[key] == nil {
            for entry in drawn[key] ?? [] {
                guard let edge = entry.edge else { continue }
                let what =
                    key.event.map { "no row from '\(key.state.label)' on '\($0.label)'" }
                    ?? "no row leaving '\(key.state.label)' without an event ('\(key.state.label)' is not a decision)"
                findings.append(ChartFinding(line: edge.line, message: "\(Self.describe(edge)): the table has \(what)"))
            }
        }
        for key in order {
            let expected = groups[key] ?? []
            guard let drawnEntries = drawn[key].map({ Self.aligned($0, to: expected) }) else {
                missing += expected.compactMap(\.row)
                continue
            }
            findings += compare(drawnEntries, expected, key: key, missing: &missing)
        }
        // What is drawn, in the drawing's order; then what the table has and the drawing lacks.
        findings = findings.enumerated().sorted { a, b in
            switch (a.element.line, b.element.line) {
            case (let x?, let y?): x != y ? x < y : a.offset < b.offset
            case (.some, nil): true
            case (nil, .some): false
            case (nil, nil): a.offset < b.offset
            }
        }.map(\.element)
        for row in missing.sorted() {
            findings.append(
                ChartFinding(line: nil, message: "missing: the table's row \(describe(row)) has no edge in the drawing")
            )
        }
        return ChartCheckResult(
            findings: findings, warnings: drawing.warnings, missingRows: missing.sorted().map(suggestion))
    }

    func compare(_ drawn: [Entry], _ expected: [Entry], key: GroupKey, missing: inout [Int]) -> [ChartFinding] {
        var found: [ChartFinding] = []
        let place = key.event.map { "'\(key.state.label)' on '\($0.label)'" } ?? "decision '\(key.state.label)'"
        let drawnGuards = drawn.compactMap(\.condition.guardSymbol)
        let expectedGuards = expected.compactMap(\.condition.guardSymbol)
        let common = drawnGuards.filter(expectedGuards.contains)
        if common != expectedGuards.filter(drawnGuards.contains) {
            found.append(
                ChartFinding(
                    line: drawn.first?.edge?.line,
                    message: "\(place): the drawing asks \(Self.list(common)) in that order, the table "
                        + "\(Self.list(expectedGuards.filter(drawnGuards.contains))) (the first that holds wins, so the "
                        + "order matters)"))
        }
        var alwaysSeen = false
        for entry in drawn {
            guard let edge = entry.edge else { continue }
            let match: Entry?
            switch entry.condition {
            case .always:
                if alwaysSeen {
                    found.append(
                        ChartFinding(
                            line: edge.line,
                            message: "\(Self.describe(edge)): a second unguarded way out of \(place); the table "
                                + "takes one"))
                    continue
                }
                alwaysSeen = true
                match = expected.first { $0.condition == .always }
            case .when(let g), .unless(let g):
                match = expected.first { $0.condition.guardSymbol == g }
            }
            guard let match, let row = match.row else {
                let what = entry.condition == .always ? "an unguarded row" : "a row testing [\(entry.condition.label)]"
                found.append(
                    ChartFinding(
                        line: edge.line, message: "\(Self.describe(edge)): \(place) has no \(what) in the table"))
                continue
            }
            if match.condition != entry.condition {
                found.append(
                    ChartFinding(
                        line: edge.line,
                        message: "\(Self.describe(edge)): leaves on [\(entry.condition.label)], the table's row on "
                            + "[\(match.condition.label)]: \(describe(row))"))
            } else if match.target != entry.target {
                found.append(
                    ChartFinding(
                        line: edge.line,
                        message: "\(Self.describe(edge)): goes to '\(entry.target.label)', the table's row goes to "
                            + "'\(match.target.label)': \(describe(row))"))
            } else if let effects = entry.effects, !effects.isEmpty,
                !Self.effects(effects, areSomeOf: match.effects ?? "")
            {
                found.append(
                    ChartFinding(
                        line: edge.line,
                        message: "\(Self.describe(edge)): does \(Self.quoted(effects)), the table's row does "
                            + "\(Self.quoted(match.effects ?? "nothing")): \(describe(row))"))
            }
        }
        for entry in expected {
            let drawnIt = drawn.contains { d in
                switch entry.condition {
                case .always: d.condition == .always
                case .when, .unless: d.condition.guardSymbol == entry.condition.guardSymbol
                }
            }
            if !drawnIt, let row = entry.row { missing.append(row) }
        }
        return found
    }

    /// Whether the effects drawn (`a, b`) are the row's, or some of them in its order: a drawing may
    /// name only the effect that matters to its reader (`retryDataTask(times - 1)`).
    static func effects(_ drawn: String, areSomeOf row: String) -> Bool {
        let rowEffects = row.split(separator: ",").map { normalized(String($0)) }
        var rest = rowEffects[...]
        for effect in drawn.split(separator: ",").map({ normalized(String($0)) }) {
            guard let at = rest.firstIndex(of: effect) else {
                return normalized(drawn) == normalized(row)
            }
            rest = rest[(at + 1)...]
        }
        return true
    }

    /// A row as the charts label it: `retry --[else] / sleep--> wait`.
    func describe(_ row: Int) -> String {
        "\(table.rows[row].from.label) --\(table.label(ofRow: row))--> \(table.rows[row].to.label)"
    }

    /// A row the drawing lacks, as a DOT edge between the drawing's own nodes.
    func suggestion(_ row: Int) -> String {
        let transition = table.rows[row]
        func id(_ state: V.State) -> String {
            let node = drawing.nodes.first { nodes[$0.id]?.state == state && nodes[$0.id]?.isQuestion == false }
            return ChartEscaping.dotQuoted(node?.id ?? state.rawValue)
        }
        return
            "\(id(transition.from)) -> \(id(transition.to)) [label=\(ChartEscaping.dotQuoted(table.label(ofRow: row)))];"
    }

    // MARK: Text

    static func normalized(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.lowercased().unicodeScalars.filter { $0.properties.isAlphabetic || ("0"..."9").contains($0) }))
    }

    static func symbol<T: TableSymbol>(in symbols: [T], named text: String) -> T? {
        let key = normalized(text)
        guard !key.isEmpty else { return nil }
        return symbols.first { normalized($0.label) == key || normalized($0.rawValue) == key }
    }

    func order(_ state: V.State) -> Int { states.firstIndex(of: state) ?? states.count }

    /// A label's lines: DOT's `\n`, `\l` and `\r` escapes and real line breaks all end one.
    static func lines(of label: String) -> [String] {
        var text = label
        for escape in ["\\n", "\\l", "\\r"] { text = text.replacing(escape, with: "\n") }
        return text.split(separator: "\n").map { String($0).trimmingSpaces }.filter { !$0.isEmpty }
    }

    /// An edge label read: a yes/no branch, the event's words, the bracketed guard, the effects.
    static func parse(_ raw: String) -> (branch: Bool?, words: String, guardText: String?, effects: String?) {
        var label = lines(of: raw).joined(separator: " ")
        // A trace overlay's count (`failed ×2`).
        if let times = label.lastIndex(of: "×"), label.index(after: times) < label.endIndex,
            label[label.index(after: times)...].allSatisfy(\.isNumber),
            times == label.startIndex || label[label.index(before: times)] == " "
        {
            label = String(label[..<times])
        }
        var head = label
        var effects: String?
        if let slash = label.firstRange(of: "/") {
            head = String(label[..<slash.lowerBound])
            effects = String(label[slash.upperBound...]).trimmingSpaces
        }
        var guardText: String?
        if let open = head.firstIndex(of: "["), let close = head[open...].firstIndex(of: "]") {
            guardText = String(head[head.index(after: open)..<close]).trimmingSpaces
            head.removeSubrange(open...close)
        }
        let words = head.trimmingSpaces
        let first = normalized(String(words.split(separator: " ").first ?? ""))
        let branch: Bool? =
            ["yes", "y", "true"].contains(first) ? true : (["no", "n", "false"].contains(first) ? false : nil)
        return (branch, words, guardText, effects)
    }

    static func describe(_ edge: DrawnChart.Edge) -> String {
        "edge \(edge.from) -> \(edge.to)" + (edge.label.isEmpty ? "" : " \(quoted(edge.label))")
    }

    static func quoted(_ text: String) -> String { "\"" + text.replacing("\n", with: "\\n") + "\"" }

    static func list(_ guards: [V.Guard]) -> String { guards.map { "[\($0.label)]" }.joined(separator: ", ") }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }

}
