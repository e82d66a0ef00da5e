/// The words of one table, named once: its states, events, guards, effects and the reasons a run
/// ends. The table, its rows, its trace and its machine's steps all take this one type.
///
/// A machine declares its vocabulary as a caseless enum:
///
/// ```swift
/// enum LightVocabulary: TableVocabulary {
///     typealias State = Light
///     typealias Event = Tick
///     typealias Guard = Nothing
///     typealias Effect = Nothing
///     typealias Reason = Nothing
/// }
/// let table = TransitionTable<LightVocabulary>(…)
/// ```
public protocol TableVocabulary: Sendable {
    /// The states rows leave and enter.
    associatedtype State: TableSymbol
    /// The events that trigger rows.
    associatedtype Event: TableSymbol
    /// The guards rows test.
    associatedtype Guard: TableSymbol
    /// The effects rows carry.
    associatedtype Effect: TableSymbol
    /// Why a run ends, named on every row entering a terminal.
    associatedtype Reason: TableSymbol
}
