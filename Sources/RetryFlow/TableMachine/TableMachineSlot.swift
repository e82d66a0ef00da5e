extension TableMachine {
    /// Where the machine stands in its table's lookup (``RowLookup``): 0 before any row, `1 + i`
    /// after row `i`. The explorer reads a position's state and the last row taken from it without
    /// comparing labels.
    @inlinable package var slot: Int { entry / RowLookup.entry(ofSlot: 1) }
}
