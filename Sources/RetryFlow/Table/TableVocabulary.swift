/// The words of one table, named once: its states, events, guards, effects and the reasons a run
/// ends. The table, its rows, its trace and its machine's steps all take this one type.
///
/// A machine names its vocabulary in one line with ``TableWords``:
///
/// ```swift
/// typealias LightWords = TableWords<Light, Tick, Nothing, Nothing, Nothing>
/// let table = TransitionTable<LightWords>(…)
/// ```
///
/// A caseless enum of your own with the five typealiases conforms as well.
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

/// A vocabulary made of five symbol types, in the order a row reads: state, event, guard, effect,
/// reason. Never made; it only names a table's words (`RetryVocabulary` is
/// `TableWords<RetryState, RetryEvent, RetryGuard, RetryEffect, StopReason>`).
public enum TableWords<
    State: TableSymbol, Event: TableSymbol, Guard: TableSymbol, Effect: TableSymbol, Reason: TableSymbol
>: TableVocabulary {}
