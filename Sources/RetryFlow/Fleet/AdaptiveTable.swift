/// Where an ``AdaptiveRateLimiter`` stands. The raw values are the node labels on its chart.
package enum AdaptiveState: String, TableSymbol {
    /// The bucket is not consulted: every send goes out at once, and responses are only measured
    /// (AWS's adaptive mode, until the first throttle).
    case disabled
    /// A throttle was seen: every send takes a token from the bucket, which fills at the CUBIC rate.
    case enabled
    /// A send was asked and the bucket refilled; the limiter decides whether a token is there. A
    /// decision: never rested in.
    case acquiring
    /// A throttle came while enabled and was measured; the limiter decides whether it is a new
    /// congestion event (drop) or part of the last one. A decision: never rested in.
    case dropping
}

/// What happens to a limiter. Each comes from a run sharing it (or a caller of its own API).
package enum AdaptiveEvent: String, TableSymbol {
    /// An attempt wants to go out (first attempts and retries alike).
    case sendAsked = "send asked"
    /// A response that is not a throttle (any answer or transport error): the rate may grow.
    case answered
    /// A throttle (429, 503 with Retry-After, an AWS throttling code): the rate drops by β.
    case throttled
    /// A send that was granted a token due later will not be made (its run fails fast, or the wait
    /// would cross its deadline): the token goes back.
    case sendWithdrawn = "send withdrawn"
}

/// The questions a limiter asks.
package enum AdaptiveGuard: String, TableSymbol {
    /// The bucket, just refilled, holds the request's cost.
    case tokenAvailable = "token available"
    /// The rate already dropped less than one measurement bucket (0.5 s) ago, and the options
    /// count a burst of throttles as one (``AdaptiveRateLimiterOptions/default``; ``AdaptiveRateLimiterOptions/aws`` does not).
    case droppedThisBucket = "dropped this bucket"

    /// `[no token]`, `[not dropped this bucket]`.
    package var negatedLabel: String {
        switch self {
        case .tokenAvailable: "no token"
        case .droppedThisBucket: "not dropped this bucket"
        }
    }
}

/// What a limiter's rows do, each one formula of AWS's adaptive mode.
package enum AdaptiveEffect: String, TableSymbol {
    /// Answer the send: go.
    case grant
    /// Answer the send: go after (cost − tokens) ÷ fill rate, when the token it takes is earned.
    case planWait = "plan wait"
    /// Add what the fill rate earned since the last refill, never above the capacity.
    case refill
    /// Take the request's cost from the bucket: below zero when the token is reserved ahead of its
    /// time, so sends queue in the order they asked, each paced at the fill rate.
    case takeToken = "take token"
    /// Give a withdrawn send's cost back to the bucket.
    case returnToken = "return token"
    /// Count the response in its 0.5 s bucket; a new bucket smooths the measured rate (0.8).
    case measureRate = "measure rate"
    /// CUBIC growth: rate = C·(t − K)³ + W_max, t since the last throttle.
    case cubicGrowth = "cubic growth"
    /// CUBIC drop: W_max = the rate sent at (measured, or the fill rate if lower once enabled),
    /// K recomputed, rate = β·W_max.
    case cubicDrop = "cubic drop"
    /// Fill rate = max(min(rate, 2 × measured), 0.5/s); capacity = max(that rate, 1).
    case setFillRate = "set fill rate"
}

/// The words of an adaptive rate limiter's table: its states, events, guards, effects and the reasons a run ends.
package typealias AdaptiveVocabulary = TableWords<
    AdaptiveState, AdaptiveEvent, AdaptiveGuard, AdaptiveEffect, PerpetualReason
>

/// An adaptive rate limiter's transition table.
package typealias AdaptiveTable = TransitionTable<AdaptiveVocabulary>

extension TransitionTable where Vocabulary == AdaptiveVocabulary {
    // The rows line up in columns like the chart; the formatter would close them up.
    // swift-format-ignore
    /// AWS's adaptive client-side rate limiting, as data: what ``AdaptiveRateLimiter`` executes and
    /// `retryflow render --machine adaptive` draws.
    ///
    /// A perpetual machine (no terminal state). A response updates the rate in any state (the
    /// measured rate is kept from the start, so the first throttle drops from a real rate); only
    /// `enabled` makes sends pay; a send with no token yet reserves the next one (the bucket goes
    /// below zero) and is told when it is due. The `acquiring` decision reads the tokens its row's `refill` produced;
    /// `dropping`'s `[dropped this bucket]` reads the time of the last `cubic drop` and of the throttle.
    package static let adaptive = AdaptiveTable(
        name: "AdaptiveRateLimiter",
        initial: .disabled,
        terminals: [],
        rows: [
            // event            from              guard                      to              do (effects), ends (reason)
            .on(.sendAsked,     from: .disabled,                             to: .disabled,  do: .grant),
            .on(.answered,      from: .disabled,                             to: .disabled,  do: .measureRate, .cubicGrowth, .refill, .setFillRate),
            .on(.throttled,     from: .disabled,                             to: .enabled,   do: .measureRate, .cubicDrop, .refill, .setFillRate),

            .on(.sendAsked,     from: .enabled,                              to: .acquiring, do: .refill),
            .completion(        from: .acquiring, .when(.tokenAvailable),    to: .enabled,   do: .takeToken, .grant),
            // No token yet: the send reserves the next one and is told when it is due (one wait a send,
            // first come first served, rather than a crowd asking again at the same instant).
            .completion(        from: .acquiring,                            to: .enabled,   do: .planWait, .takeToken),
            .on(.answered,      from: .enabled,                              to: .enabled,   do: .measureRate, .cubicGrowth, .refill, .setFillRate),
            .on(.throttled,     from: .enabled,                              to: .dropping,  do: .measureRate),
            .on(.sendWithdrawn, from: .enabled,                              to: .enabled,   do: .refill, .returnToken),
            // Nothing was taken while disabled.
            .on(.sendWithdrawn, from: .disabled,                             to: .disabled),
            // The other answers to sends made before the drop: one congestion event, as in TCP, not
            // one drop each (AWS drops on every throttle: 32 in flight take the rate to 0.7³²).
            .completion(        from: .dropping,  .when(.droppedThisBucket), to: .enabled),
            .completion(        from: .dropping,                             to: .enabled,   do: .cubicDrop, .refill, .setFillRate),
        ]
    )
}
