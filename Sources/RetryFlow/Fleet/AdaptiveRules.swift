/// What a run tells an adaptive rate limiter. Its events carry nothing but their time.
extension AdaptiveEvent: MachineInput {
    /// The event this input stands for: itself.
    package var event: AdaptiveEvent { self }
}

/// The adaptive limiter's specialisation of ``TableMachine``: the token bucket, the measured send
/// rate and the CUBIC curve, in seconds since the limiter began. Times come in with the inputs; no
/// clock is read.
package struct AdaptiveRules: MachineRules {
    package typealias Vocabulary = AdaptiveVocabulary

    package let options: AdaptiveRateLimiterOptions
    /// Tokens in the bucket (as of ``lastRefill``).
    package private(set) var tokens: Double = 0
    /// The bucket's size.
    package private(set) var capacity: Double
    /// Tokens per second.
    package private(set) var fillRate: Double
    /// The rate the CUBIC curve last worked out (before the 2 × measured cap).
    package private(set) var calculatedRate: Double = 0
    package private(set) var meter: SendRateMeter
    package private(set) var cubic: CubicCurve
    /// Every token ever put in the bucket (refills and returns, before the capacity's cap): a
    /// reserved token is due once this reaches the credit it was reserved at, however fast the
    /// bucket filled meanwhile. Capped refills only happen once every reservation is paid.
    package private(set) var credited: Double = 0
    /// When the rate last dropped (`cubic drop`), in seconds; `nil` before any.
    private var lastDrop: Double?
    /// When the bucket was last refilled, in seconds.
    private var lastRefill: Double = 0
    private var now: Double = 0

    /// A limiter at its start: the bucket empty, at the minimum fill rate and capacity, the curve's
    /// top at 0 (so its first growth is from nothing, as in every peer).
    package init(options: AdaptiveRateLimiterOptions) {
        self.options = options
        self.capacity = options.minimumCapacity
        self.fillRate = options.minimumFillRate
        self.meter = SendRateMeter(smoothing: options.smoothing, bucketWidth: options.bucketWidth)
        self.cubic = CubicCurve(beta: options.beta, scaleConstant: options.scaleConstant)
    }

    package mutating func receive(_ input: AdaptiveEvent, at time: Duration) {
        now = time.inSeconds
    }

    package func holds(_ guardSymbol: AdaptiveGuard) -> Bool {
        switch guardSymbol {
        // A nanosecond's slack: a wait is rounded up to whole nanoseconds, and the refill after it
        // must not come out a hair short of the token it waited for (another wait of 1 ns).
        case .tokenAvailable: tokens >= options.requestCost - 1e-9
        case .droppedThisBucket:
            options.dropsOncePerBucket && lastDrop.map { now - $0 < options.bucketWidth.inSeconds } == true
        }
    }

    /// The row planning a wait shows it: the token its `take token` (after `plan wait`) left the
    /// bucket short of, at the fill rate, exactly what `plan wait` answered.
    package func traced(_ row: Row) -> (attempt: Int, delay: Duration?) {
        (0, row.effects.contains(.planWait) ? Duration.checkedSeconds(-tokens / fillRate, rounding: .up) : nil)
    }

    package mutating func perform(_ effect: AdaptiveEffect, of row: Row) -> AdaptiveAction? {
        switch effect {
        case .grant: return .grant
        case .planWait:
            let missing = options.requestCost - tokens
            return .wait(missing / fillRate, dueAtCredit: credited + missing)
        case .refill:
            let earned = max(0, now - lastRefill) * fillRate
            tokens = min(capacity, tokens + earned)
            credited += earned
            lastRefill = max(lastRefill, now)
        case .takeToken: tokens -= options.requestCost
        case .returnToken:
            tokens = min(capacity, tokens + options.requestCost)
            credited += options.requestCost
        case .measureRate: meter.record(at: now)
        case .cubicGrowth: calculatedRate = cubic.rate(at: now)
        case .cubicDrop:
            // Once enabled, the rate sent at is what the bucket let through, if that was lower.
            let sentAt = row.from == .disabled ? meter.rate : min(meter.rate, fillRate)
            calculatedRate = cubic.throttle(sendingAt: sentAt, at: now)
            lastDrop = now
        case .setFillRate:
            let rate = min(calculatedRate, options.maxRateScale * meter.rate)
            fillRate = max(rate, options.minimumFillRate)
            capacity = max(rate, options.minimumCapacity)
            tokens = min(tokens, capacity)
        }
        return nil
    }
}

extension AdaptiveRules {
    /// Seconds from `time` until the bucket has been credited `credit` tokens at the present fill
    /// rate (zero when it has): how long a token reserved at that credit still has to wait. A
    /// question, not an event: nothing changes.
    package func secondsUntil(credit: Double, at time: Double) -> Double {
        let projected = credited + max(0, time - lastRefill) * fillRate
        return max(0, credit - projected) / fillRate
    }
}

/// The adaptive limiter's machine: the one core running `TransitionTable.adaptive` with its rules.
package typealias AdaptiveMachine = TableMachine<AdaptiveRules>
