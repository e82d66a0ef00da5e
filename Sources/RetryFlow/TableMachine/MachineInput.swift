/// What a driver hands a machine: one value that carries its payload (`.failed(decision, detail:)`),
/// and names the table event it stands for.
///
/// A machine whose events carry nothing can use its event enum itself:
/// `extension Light.Event: MachineInput { public var event: Self { self } }`.
public protocol MachineInput: Sendable {
    /// The table's event vocabulary.
    associatedtype Event: TableSymbol
    /// The event this input stands for: the key of the row lookup.
    var event: Event { get }
    /// Words kept in the trace for this input (an error, already redacted), if any.
    var detail: String? { get }
}

extension MachineInput {
    /// No words, unless an input says otherwise.
    public var detail: String? { nil }
}
