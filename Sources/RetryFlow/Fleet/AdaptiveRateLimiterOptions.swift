/// The numbers of an ``AdaptiveRateLimiter``. Defaults are AWS's published constants, the same in
/// botocore (`retries/adaptive.py`, `throttling.py`, `bucket.py`), aws-sdk-go-v2
/// (`aws/retry/adaptive_ratelimit.go`) and smithy-swift (`ClientSideRateLimiter.swift`).
public struct AdaptiveRateLimiterOptions: Hashable, Sendable {
    /// How much a throttle keeps of the rate sent at (CUBIC's β): 0.7.
    package var beta: Double
    /// CUBIC's scale constant C: 0.4.
    package var scaleConstant: Double
    /// Weight of the newest bucket in the measured send rate: 0.8.
    package var smoothing: Double
    /// Width of a measurement bucket: 0.5 s.
    package var bucketWidth: Duration
    /// The lowest fill rate, tokens per second: 0.5.
    package var minimumFillRate: Double
    /// The lowest capacity, tokens: 1 (so a request of cost 1 always fits).
    package var minimumCapacity: Double
    /// A new rate is at most this many times the measured send rate: 2.
    package var maxRateScale: Double
    /// Tokens a send costs: 1.
    package var requestCost: Double
    /// Whether throttles less than one bucket width after a drop are counted (measured) but drop
    /// the rate no further: a burst of 429s to requests already in flight is one congestion event,
    /// as TCP treats the losses of one window. On by default; off in ``aws`` (every peer drops on
    /// each throttle, so 32 requests in flight answered 429 take the rate to its floor).
    package var dropsOncePerBucket: Bool

    /// Makes options; every number has AWS's value (and a burst of throttles drops the rate once).
    package init(
        beta: Double = 0.7, scaleConstant: Double = 0.4, smoothing: Double = 0.8,
        bucketWidth: Duration = .milliseconds(500), minimumFillRate: Double = 0.5, minimumCapacity: Double = 1,
        maxRateScale: Double = 2, requestCost: Double = 1, dropsOncePerBucket: Bool = true
    ) {
        self.beta = beta
        self.scaleConstant = scaleConstant
        self.smoothing = smoothing
        self.bucketWidth = bucketWidth
        self.minimumFillRate = minimumFillRate
        self.minimumCapacity = minimumCapacity
        self.maxRateScale = maxRateScale
        self.requestCost = requestCost
        self.dropsOncePerBucket = dropsOncePerBucket
    }

    /// RetryFlow's default: AWS's numbers, and a burst of throttles drops the rate once.
    public static let `default` = AdaptiveRateLimiterOptions()

    /// AWS's adaptive mode exactly: β 0.7, C 0.4, smoothing 0.8, 0.5 s buckets, at least 0.5
    /// tokens/s and a capacity of 1, a new rate at most 2 × the measured one, 1 token a request,
    /// and a drop on every throttle.
    public static let aws = AdaptiveRateLimiterOptions(dropsOncePerBucket: false)

    /// Throws ``RetryPolicyError`` naming the bad field.
    package func validate() throws(RetryPolicyError) {
        func check(_ value: Double, _ field: String, _ ok: Bool, _ rule: String) throws(RetryPolicyError) {
            guard value.isFinite, ok else {
                throw RetryPolicyError(field: "adaptive.\(field)", problem: "\(rule) (got \(value))")
            }
        }
        try check(beta, "beta", beta > 0 && beta < 1, "must be more than 0 and less than 1")
        try check(scaleConstant, "scaleConstant", scaleConstant > 0, "must be more than 0")
        try check(smoothing, "smoothing", smoothing > 0 && smoothing <= 1, "must be more than 0 and at most 1")
        try check(minimumFillRate, "minimumFillRate", minimumFillRate > 0, "must be more than 0")
        try check(requestCost, "requestCost", requestCost > 0, "must be more than 0")
        try check(
            minimumCapacity, "minimumCapacity", minimumCapacity >= requestCost,
            "must be at least the request cost, or a send could never be paid")
        try check(maxRateScale, "maxRateScale", maxRateScale >= 1, "must be at least 1")
        guard bucketWidth > .zero, bucketWidth <= .seconds(60) else {
            throw RetryPolicyError(field: "adaptive.bucketWidth", problem: "must be more than 0 s and at most 60 s")
        }
    }
}
