import Foundation
import RetryFlow
import RetryFlowTestSupport

/// The SRE book's client-side throttling ("Handling Overload"): a client that counts its requests
/// and the backend's accepts over the last two minutes rejects a new request itself with probability
/// `max(0, (requests − K·accepts) / (requests + 1))`, K = 2. Beside it, the real
/// ``AdaptiveRateLimiter`` in the same scenario, failing fast instead of waiting
/// (``RateLimitedBehavior/fail``), so both columns count requests the client refused itself.
///
/// The scenario: requests offered evenly at `load` times what the server accepts (100 a second,
/// nginx's `limit_req` with a burst of 10), answers 10 ms later, for three minutes on a
/// ``ManualClock``; the shares are those of the last minute, once both have settled.
package enum ClientThrottling {
    /// A curve of the figure.
    package enum Series: String, CaseIterable, Sendable {
        /// The formula fed the steady state's counts (no simulation).
        case formula
        /// The formula applied request by request, as a client would.
        case sreThrottler = "sre-throttler"
        /// The real adaptive limiter, refusing a request it would make wait.
        case adaptiveLimiter = "adaptive-limiter"
    }

    /// One point: shares of the requests offered.
    package struct Point: Hashable, Sendable {
        /// Requests offered ÷ what the server accepts.
        package var load: Double
        /// Which curve.
        package var series: Series
        /// Refused by the client itself.
        package var clientRejected: Double
        /// Sent and refused by the server (429).
        package var serverRejected: Double
        /// Sent and accepted.
        package var accepted: Double

        /// A point (the tests read them back from a CSV).
        package init(load: Double, series: Series, clientRejected: Double, serverRejected: Double, accepted: Double) {
            self.load = load
            self.series = series
            self.clientRejected = clientRejected
            self.serverRejected = serverRejected
            self.accepted = accepted
        }
    }

    /// The SRE book's K: a client sends up to twice what the backend accepts.
    package static let k = 2.0
    /// What the server accepts, requests a second.
    static let capacity = 100.0
    /// The window the SRE throttler counts over, seconds.
    static let window = 120
    /// How long the scenario runs, and the part of it measured, seconds.
    static let duration = 180
    static let measuredFrom = 120.0
    /// From send to answer, seconds.
    static let latency = 0.010

    /// The loads plotted: a quarter to four times what the server accepts.
    package static let loads = (1...16).map { Double($0) / 4 }

    /// The SRE book's reject probability.
    package static func rejectProbability(requests: Double, accepts: Double) -> Double {
        max(0, (requests - k * accepts) / (requests + 1))
    }

    /// One point of `series` at `load`.
    package static func point(_ series: Series, load: Double, seed: UInt64) throws -> Point {
        switch series {
        case .formula:
            let requests = load * capacity * Double(window)
            let accepts = min(load, 1) * capacity * Double(window)
            let p = rejectProbability(requests: requests, accepts: accepts)
            let accepted = min(1, 1 / load)
            return Point(
                load: load, series: series, clientRejected: p, serverRejected: max(0, 1 - p - accepted),
                accepted: min(accepted, 1 - p))
        case .sreThrottler, .adaptiveLimiter:
            return try simulate(series, load: load, seed: seed)
        }
    }

    enum Event {
        case offer
        case answered(accepted: Bool)
    }

    static func simulate(_ series: Series, load: Double, seed: UInt64) throws -> Point {
        let clock = ManualClock()
        let limiter = series == .adaptiveLimiter ? try AdaptiveRateLimiter(.default, clock: clock) : nil
        var server = AdaptiveSimulation.LimitReq(rate: capacity, burst: 10)
        var random = SeededRandom(seed: seed)
        // Per-second counts over the run, for the SRE throttler's trailing window.
        var requests = [Double](repeating: 0, count: duration + 1)
        var accepts = [Double](repeating: 0, count: duration + 1)
        var windowStart = 0
        var windowRequests = 0.0
        var windowAccepts = 0.0
        var offered = 0.0
        var clientRejected = 0.0
        var serverRejected = 0.0
        var accepted = 0.0
        var queue = EventHeap<Event>()
        let gap = 1 / (load * capacity)
        var sent = 0
        queue.push(.offer, at: 0)
        while let (now, event) = queue.pop() {
            clock.advance(to: ManualClock.Instant(offset: .seconds(now)))
            let second = Int(now)
            let measured = now >= measuredFrom
            switch event {
            case .offer:
                sent += 1
                if Double(sent) * gap < Double(duration) { queue.push(.offer, at: Double(sent) * gap) }
                if measured { offered += 1 }
                let refused: Bool
                if let limiter {
                    if case .wait = limiter.ask() {
                        limiter.withdraw()
                        refused = true
                    } else {
                        refused = false
                    }
                } else {
                    // The window's sums, kept as it slides: a second leaves as a new one enters.
                    while windowStart <= second - window {
                        windowRequests -= requests[windowStart]
                        windowAccepts -= accepts[windowStart]
                        windowStart += 1
                    }
                    let p = rejectProbability(requests: windowRequests, accepts: windowAccepts)
                    requests[second] += 1
                    windowRequests += 1
                    refused = random.unitDraw() < p
                }
                if refused {
                    if measured { clientRejected += 1 }
                    continue
                }
                let ok = server.accept(at: now)
                if measured {
                    if ok { accepted += 1 } else { serverRejected += 1 }
                }
                queue.push(.answered(accepted: ok), at: now + latency)
            case .answered(let ok):
                limiter?.record(throttled: !ok)
                if ok && second <= duration {
                    accepts[second] += 1
                    windowAccepts += 1
                }
            }
        }
        let total = max(offered, 1)
        return Point(
            load: load, series: series, clientRejected: clientRejected / total, serverRejected: serverRejected / total,
            accepted: accepted / total)
    }
}
