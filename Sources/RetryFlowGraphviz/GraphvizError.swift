/// A rendering failure, carrying Graphviz's own message and what to do about it.
public struct GraphvizError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: String, Hashable, Sendable {
        /// The DOT text did not parse.
        case syntax
        /// The output format is not offered by the installed plugins.
        case unknownFormat
        /// The layout engine is not available (plugins not registered).
        case layoutUnavailable
        /// The Graphviz library could not be loaded (it is opened on first use, not linked).
        case unavailable
        /// Layout or rendering failed for another reason.
        case renderFailed
    }

    /// What went wrong.
    public let kind: Kind
    /// Graphviz's message (or ours, naming the problem and the way out).
    public let message: String

    /// `Graphviz syntax error: syntax error in line 1 near '}'`.
    public var description: String { "Graphviz \(kind.rawValue): \(message)" }
}
