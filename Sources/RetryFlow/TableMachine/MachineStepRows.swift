extension MachineStep {
    /// How many rows the step took (the input's row, then each completion row).
    @inlinable package var rowCount: Int { rows.count }

    /// Whether the `index`-th row taken is one with this event, guard and target: how the explorer
    /// finds which of a table's rows a step took without building its trace.
    @inlinable
    package func row(
        _ index: Int, is event: Vocabulary.Event?, _ condition: GuardCondition<Vocabulary.Guard>,
        to state: Vocabulary.State
    ) -> Bool {
        rows[index].to == state && rows[index].event == event && rows[index].condition == condition
    }
}
