/// The breaker's health over the last sampling duration: calls and failures in ten rolling
/// buckets (as Polly does), so old outcomes leave the window a tenth of it at a time.
package struct SamplingWindow: Hashable, Sendable {
    private struct Bucket: Hashable, Sendable {
        var start: Duration
        var calls = 0
        var failures = 0
    }

    /// The window's length.
    package let duration: Duration
    private let bucketLength: Duration
    private var buckets: [Bucket] = []

    /// An empty window `duration` long.
    package init(duration: Duration) {
        self.duration = duration
        self.bucketLength = duration / 10
        buckets.reserveCapacity(11)
    }

    /// Counts one call at `time`.
    package mutating func record(failed: Bool, at time: Duration) {
        evict(at: time)
        if let last = buckets.indices.last, time < buckets[last].start + bucketLength {
            buckets[last].calls += 1
            if failed { buckets[last].failures += 1 }
        } else {
            buckets.append(Bucket(start: time, calls: 1, failures: failed ? 1 : 0))
        }
    }

    /// Calls and failures still inside the window at `time`.
    package func health(at time: Duration) -> (calls: Int, failures: Int) {
        var calls = 0
        var failures = 0
        for bucket in buckets where bucket.start + duration > time {
            calls += bucket.calls
            failures += bucket.failures
        }
        return (calls, failures)
    }

    /// Forgets everything (the breaker closes afresh).
    package mutating func clear() { buckets.removeAll(keepingCapacity: true) }

    private mutating func evict(at time: Duration) {
        buckets.removeAll { $0.start + duration <= time }
    }
}
