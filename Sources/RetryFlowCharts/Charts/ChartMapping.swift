import RetryFlow

/// Why a `--map` cannot be used: it names a node the drawing lacks or a state the table lacks.
package struct ChartMapError: Error, Hashable, Sendable {
    /// What is wrong, naming it.
    package let message: String

    /// An error saying `message`.
    package init(message: String) { self.message = message }
}

extension ChartCheck {
    /// `--map drawn=state,…` read against the drawing and the table: a node by its id (or, failing
    /// that, its label), a state by its label or raw value, ignoring case, spaces and punctuation.
    package static func mapping<V>(
        _ text: String, drawing: DrawnChart, table: TransitionTable<V>
    ) throws(ChartMapError) -> [String: V.State] {
        var mapping: [String: V.State] = [:]
        for item in text.split(separator: ",") {
            let parts = item.split(separator: "=", maxSplits: 1).map {
                String($0.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
            }
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw ChartMapError(message: "--map: \"\(item)\" is not NODE=STATE")
            }
            let node =
                drawing.nodes.first { $0.id == parts[0] }
                ?? {
                    let labelled = drawing.nodes.filter { $0.label == parts[0] }
                    return labelled.count == 1 ? labelled.first : nil
                }()
            guard let node else {
                throw ChartMapError(
                    message: "--map: the drawing has no node \"\(parts[0])\" (its nodes: "
                        + "\(drawing.nodes.map(\.id).joined(separator: ", ")))")
            }
            guard let state = DrawingReader<V>.symbol(in: table.states, named: parts[1]) else {
                throw ChartMapError(
                    message: "--map: \"\(parts[1])\" is not a state of the table (its states: "
                        + "\(table.states.map(\.label).joined(separator: ", ")))")
            }
            guard mapping[node.id] == nil else {
                throw ChartMapError(message: "--map: node \"\(node.id)\" is mapped twice")
            }
            mapping[node.id] = state
        }
        return mapping
    }
}
