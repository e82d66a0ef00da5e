import Foundation

/// TCP CUBIC's window curve, as AWS's adaptive mode uses it for a send rate: after a throttle at
/// rate W_max the rate drops to β·W_max, then grows as C·(t − K)³ + W_max, where t is the time since
/// the throttle and K = ∛(W_max·(1 − β) ÷ C) is when the curve is back at W_max.
///
/// botocore's `CubicCalculator` (`retries/throttling.py`), with time in seconds since the limiter began.
package struct CubicCurve: Hashable, Sendable {
    package let beta: Double
    package let scaleConstant: Double
    /// The rate sent at when the last throttle came (0 before any).
    package private(set) var maxRate: Double
    /// When the last throttle came, in seconds (0 before any: the limiter's start).
    package private(set) var lastThrottle: Double
    /// Seconds after the throttle at which the curve is back at ``maxRate``.
    package private(set) var zeroPoint: Double

    package init(beta: Double, scaleConstant: Double, maxRate: Double = 0, lastThrottle: Double = 0) {
        self.beta = beta
        self.scaleConstant = scaleConstant
        self.maxRate = maxRate
        self.lastThrottle = lastThrottle
        self.zeroPoint = 0
        self.zeroPoint = Self.zeroPoint(maxRate: maxRate, beta: beta, scaleConstant: scaleConstant)
    }

    package static func zeroPoint(maxRate: Double, beta: Double, scaleConstant: Double) -> Double {
        cbrt(maxRate * (1 - beta) / scaleConstant)
    }

    /// The rate the curve allows at `time` (seconds).
    package func rate(at time: Double) -> Double {
        let t = time - lastThrottle - zeroPoint
        return scaleConstant * t * t * t + maxRate
    }

    /// A throttle at `time` while sending at `rate`: the curve restarts there; returns β·rate.
    package mutating func throttle(sendingAt rate: Double, at time: Double) -> Double {
        restart(maxRate: rate, at: time)
        return rate * beta
    }

    /// Restarts the curve at `time` with its top at `maxRate` (what a throttle does; tests set up
    /// peers' tables with it).
    package mutating func restart(maxRate: Double, at time: Double) {
        self.maxRate = maxRate
        self.zeroPoint = Self.zeroPoint(maxRate: maxRate, beta: beta, scaleConstant: scaleConstant)
        self.lastThrottle = time
    }
}
