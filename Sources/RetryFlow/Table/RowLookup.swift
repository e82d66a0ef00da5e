/// Which rows can apply where the machine stands, worked out once when a table is made, so a
/// machine step scans only those: the event rows leaving its state and, after a row into a decision,
/// that decision's completion rows. Both lists keep table order, so the first row whose guard holds
/// is the table's first, as the lookup rule says.
///
/// The machine stands at a *slot*: 0 before any row (the initial state), `1 + i` after row `i` (the
/// state row `i` enters). Everything is in one flat array of row numbers, so copying a table retains
/// one buffer and a lookup reads plain integers: for each slot, four bounds (its event rows' start
/// and end, its completion rows' start and end, as positions in the same array), then the lists.
@usableFromInline
package struct RowLookup: Sendable {
    @usableFromInline
    package let storage: [Int]

    /// The lookup of `rows`, for a table starting in `initial`.
    init<Vocabulary>(rows: [Transition<Vocabulary>], initial: Vocabulary.State) {
        let states = [initial] + rows.map(\.to)
        var storage = [Int](repeating: 0, count: 4 * states.count)
        for (slot, state) in states.enumerated() {
            storage[4 * slot] = storage.count
            storage += rows.indices.filter { rows[$0].from == state && rows[$0].event != nil }
            storage[4 * slot + 1] = storage.count
            storage[4 * slot + 2] = storage.count
            // Completion rows are followed after a row, never before the first input.
            if slot > 0 {
                storage += rows.indices.filter { rows[$0].from == state && rows[$0].event == nil }
            }
            storage[4 * slot + 3] = storage.count
        }
        self.storage = storage
    }

    /// Where slot `slot`'s four bounds start in ``storage``: what a machine keeps between steps, so a
    /// lookup multiplies nothing.
    @inlinable
    package static func entry(ofSlot slot: Int) -> Int {
        // `&*`: a slot is at most the row count, and `storage` already holds four integers per slot.
        4 &* slot
    }

    /// Positions in ``storage`` of the event rows leaving the state whose slot starts at `entry`.
    @inlinable
    package func eventRows(at entry: Int) -> Range<Int> {
        // Unchecked bounds: `init` wrote each start before its end. `&+`: `entry` is a slot's start,
        // so `entry + 3` is within `storage` (the subscript still checks).
        Range(uncheckedBounds: (storage[entry], storage[entry &+ 1]))
    }

    /// Positions in ``storage`` of the completion rows to follow at `entry` (empty unless a row
    /// entered a decision).
    @inlinable
    package func completionRows(at entry: Int) -> Range<Int> {
        Range(uncheckedBounds: (storage[entry &+ 2], storage[entry &+ 3]))
    }
}
