/// Up to ``capacity`` values held inline: the rows one machine step takes and the actions it
/// returns. A fixed-size value, so a step allocates nothing; ``TransitionTable/validate()`` rejects a
/// table whose step could need more.
///
/// It is a collection: `for action in step.produced { … }`, `step.produced.count`. Package-only: a
/// performance device, not API (``MachineStep/actions`` is an array).
@usableFromInline
package struct StepBuffer<Element>: RandomAccessCollection {
    /// The most values one step holds: rows taken, and actions produced.
    @usableFromInline package static var capacity: Int { 6 }

    // `@usableFromInline` (not private) so the machine core, inlined into other modules, can fill it.
    @usableFromInline var e0: Element?
    @usableFromInline var e1: Element?
    @usableFromInline var e2: Element?
    @usableFromInline var e3: Element?
    @usableFromInline var e4: Element?
    @usableFromInline var e5: Element?
    @usableFromInline var filled = 0

    /// How many values there are.
    @inlinable package var count: Int { filled }

    /// No values.
    @inlinable package init() {}

    /// Appends `element`. Validation keeps a step within capacity, so overflowing is a bug in an
    /// unvalidated table: it stops the program rather than drop an action silently.
    @inlinable @inline(__always)
    mutating func append(_ element: Element) {
        switch filled {
        case 0: e0 = element
        case 1: e1 = element
        case 2: e2 = element
        case 3: e3 = element
        case 4: e4 = element
        case 5: e5 = element
        default: preconditionFailure("more than \(Self.capacity) values in one step: validate() the table")
        }
        filled += 1
    }

    /// Iterates the values in order. Its own type, not `IndexingIterator`: the standard library's
    /// iterator is destroyed through its generic value witness, which reads every slot's metadata
    /// (35 instructions a step for the transfer's actions, which carry strings; docs/benchmarks.md).
    @usableFromInline
    package struct Iterator: IteratorProtocol {
        @usableFromInline let buffer: StepBuffer
        @usableFromInline var position = 0

        @inlinable init(_ buffer: StepBuffer) { self.buffer = buffer }

        /// The next value, if any.
        @inlinable
        package mutating func next() -> Element? {
            guard position < buffer.filled else { return nil }
            defer { position += 1 }
            return buffer[position]
        }
    }

    /// An iterator over the values in order.
    @inlinable package func makeIterator() -> Iterator { Iterator(self) }

    /// The first position.
    @inlinable package var startIndex: Int { 0 }
    /// One past the last position.
    @inlinable package var endIndex: Int { filled }

    /// The value at `index`.
    @inlinable
    package subscript(index: Int) -> Element {
        precondition(index >= 0 && index < filled, "step buffer index out of range")
        switch index {
        case 0: return e0!
        case 1: return e1!
        case 2: return e2!
        case 3: return e3!
        case 4: return e4!
        default: return e5!
        }
    }
}

extension StepBuffer: Sendable where Element: Sendable {}

extension StepBuffer: Equatable where Element: Equatable {
    /// Equal when they hold equal values in the same order.
    @usableFromInline package static func == (lhs: Self, rhs: Self) -> Bool { lhs.elementsEqual(rhs) }
}

extension StepBuffer: Hashable where Element: Hashable {
    /// Hashes the values in order.
    @usableFromInline package func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for element in self { hasher.combine(element) }
    }
}

extension StepBuffer: CustomStringConvertible {
    /// The values, like an array's description.
    @usableFromInline package var description: String {
        "[" + map { String(describing: $0) }.joined(separator: ", ") + "]"
    }
}
