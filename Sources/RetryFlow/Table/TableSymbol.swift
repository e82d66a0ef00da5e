/// A name in a transition table: a state, an event, a guard or an effect.
///
/// Symbols are plain enums whose raw values are the labels drawn on the chart, so the words a
/// reader sees on the flowchart are exactly the words the engine looks up.
///
/// ```swift
/// enum Light: String, TableSymbol { case red, green }
/// ```
public protocol TableSymbol: RawRepresentable, CaseIterable, Hashable, Sendable, Codable
where RawValue == String, AllCases: Sendable {}

extension TableSymbol {
    /// The text drawn on charts for this symbol (its raw value).
    public var label: String { rawValue }
}
