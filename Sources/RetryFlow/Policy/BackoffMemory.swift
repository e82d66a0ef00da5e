/// What the next delay depends on besides the retry number: the last delay (AWS's decorrelated
/// jitter grows from it) and the running value of Polly's `DecorrelatedJitterBackoffV2` formula
/// (each of its delays is the formula's growth since the one before).
///
/// Start with an empty memory and pass the same one to every
/// `RetryPolicy/delay(beforeRetry:memory:using:)` of a run; the engine keeps one per run and
/// empties it when progress resets the backoff.
package struct BackoffMemory: Hashable, Sendable {
    /// The last delay planned from this memory (`nil` before the first).
    package internal(set) var previous: Duration?
    /// Polly's `prev`: the formula's value at the last draw (0 before the first).
    var formulaValue: Double = 0

    /// An empty memory: no delay yet.
    package init() {}

    /// A memory whose last delay was `previous` (for ``Jitter/decorrelated``; Polly's formula starts over).
    package init(previous: Duration?) { self.previous = previous }
}
