/// What a budget's step tells the run that asked: the answer to `retry asked`, made by the `grant`
/// and `deny` effects of the row taken. Other inputs answer nothing.
package enum BudgetAction: Hashable, Sendable {
    /// The retry may go: the bucket took its cost (`take tokens`, on the same row).
    case grant
    /// The retry is refused: the bucket cannot pay for it.
    case deny
}
