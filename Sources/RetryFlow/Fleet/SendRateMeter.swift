import Foundation

/// The send rate AWS's adaptive mode measures: responses are counted in buckets of a fixed width
/// (0.5 s); when one lands in a later bucket than the last, the count over the buckets passed is
/// the newest rate, smoothed into the measured one (0.8 new, 0.2 old).
///
/// botocore's `RateClocker` (`retries/adaptive.py`); the first bucket starts at the whole second
/// the limiter began in, as there and in aws-sdk-go-v2.
package struct SendRateMeter: Hashable, Sendable {
    package let smoothing: Double
    /// Buckets per second (2 for 0.5 s).
    package let scale: Double
    /// The measured rate, requests per second (0 until a second bucket is reached).
    package private(set) var rate: Double = 0
    private var lastBucket: Double
    private var count: Double = 0

    package init(smoothing: Double, bucketWidth: Duration, start: Double = 0) {
        self.smoothing = smoothing
        self.scale = 1 / bucketWidth.inSeconds
        self.lastBucket = start.rounded(.down)
    }

    /// Counts `amount` responses at `time` (seconds); returns the measured rate.
    @discardableResult
    package mutating func record(at time: Double, amount: Double = 1) -> Double {
        let bucket = (time * scale).rounded(.down) / scale
        count += amount
        if bucket > lastBucket {
            let current = count / (bucket - lastBucket)
            rate = current * smoothing + rate * (1 - smoothing)
            count = 0
            lastBucket = bucket
        }
        return rate
    }
}
