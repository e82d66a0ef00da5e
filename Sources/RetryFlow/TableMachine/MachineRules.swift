/// What a machine adds to its table: the facts its guards read and what its effects mean. The core
/// (``TableMachine``) does everything else: lookup, completion rows, the trace, collecting actions.
///
/// The rules see only what the rows give them, in this order for each row taken: ``receive(_:at:)``
/// with the input (event rows only; so an event row's own guard reads the facts as they were before
/// its input), then ``perform(_:of:)`` for each effect in order. Completion rows then read
/// what those produced. No step is hidden: whatever a guard reads comes from an input or an effect
/// drawn on the chart.
///
/// The rules name their table's vocabulary (``TableVocabulary``); Swift infers the input and the
/// action from ``receive(_:at:)`` and ``perform(_:of:)``:
///
/// ```swift
/// struct CounterRules: MachineRules {
///     typealias Vocabulary = CounterWords
///     var count = 0
///     mutating func receive(_ input: CounterEvent, at time: Duration) {}   // an event enum that is its own input
///     func holds(_ guardSymbol: CounterGuard) -> Bool { count >= 3 }      // [three counted]
///     mutating func perform(_ effect: CounterEffect, of row: Row) -> CounterAction? {
///         count += 1
///         return nil
///     }
/// }
/// ```
public protocol MachineRules: Sendable {
    /// The table's words: its states, events, guards, effects and reasons.
    associatedtype Vocabulary: TableVocabulary
    /// What the driver delivers: an event with its payload.
    associatedtype Input: MachineInput where Input.Event == Vocabulary.Event
    /// What the driver must do, with its values; an effect makes at most one.
    associatedtype Action: Sendable

    /// Takes in an input's payload and time, as its row is taken (before that row's effects).
    mutating func receive(_ input: Input, at time: Duration)
    /// Whether `guardSymbol` holds, from facts received or produced by effects.
    func holds(_ guardSymbol: Vocabulary.Guard) -> Bool
    /// Performs `effect` of `row` (updating facts) and returns the action the driver must take, if any.
    mutating func perform(_ effect: Vocabulary.Effect, of row: Transition<Vocabulary>) -> Action?
    /// What the trace step of `row` shows, read from the facts once its effects are performed: the
    /// count current after it (the retry machine's attempt number) and the delay the row decided (the
    /// retry machine's wait). `(0, nil)` unless implemented.
    func traced(_ row: Transition<Vocabulary>) -> (attempt: Int, delay: Duration?)
}

extension MachineRules {
    /// A row of this machine's table.
    public typealias Row = Transition<Vocabulary>
    /// This machine's table.
    package typealias Table = TransitionTable<Vocabulary>
    /// This machine's trace.
    package typealias Trace = TransitionTrace<Vocabulary>

    /// No count and no delay on the trace.
    public func traced(_ row: Row) -> (attempt: Int, delay: Duration?) { (0, nil) }
}
