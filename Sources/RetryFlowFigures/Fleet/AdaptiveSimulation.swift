import Foundation
import RetryFlow
import RetryFlowTestSupport

/// Clients sending as fast as they can against a rate-limited server, on a ``ManualClock``, with
/// or without one shared ``AdaptiveRateLimiter`` (the real one): `retryflow simulate --clients N
/// --server-rate R [--adaptive]`.
///
/// Discrete events, one at a time: each client offers a request as soon as its last one is done,
/// asks the limiter (when there is one) and, when told to wait, sends when its reserved token is due
/// (waking as a run's `token wait` does, so sooner or later than first told as the rate changes); a throttled
/// request is sent again the same way. The server is nginx's `limit_req` (rate R, burst B,
/// no delay): a request is refused 429 when its excess, which drains at R per second and grows by
/// one per accepted request, would pass B. Deterministic: no randomness, no threads.
///
/// ```swift
/// let report = try AdaptiveSimulation.run(.init(clients: 32, serverRate: 100, adaptive: true))
/// print(report.text)
/// ```
package enum AdaptiveSimulation {
    /// Who sends, against what.
    package struct Scenario: Hashable, Sendable {
        /// How many clients (1-1000).
        package var clients: Int
        /// What the server accepts, requests per second.
        package var serverRate: Double
        /// How many requests above the rate the server accepts at once (nginx's `burst`).
        package var burst: Int
        /// How long the clients send.
        package var duration: Duration
        /// From send to answer.
        package var latency: Duration
        /// Whether the clients share an adaptive limiter.
        package var adaptive: Bool
        /// The limiter's options.
        package var limiter: AdaptiveRateLimiterOptions

        /// A scenario; by default 32 clients against 100 requests/s with a burst of 20, 10 ms a
        /// request, for 20 s, without the limiter.
        package init(
            clients: Int = 32, serverRate: Double = 100, burst: Int = 20, duration: Duration = .seconds(20),
            latency: Duration = .milliseconds(10), adaptive: Bool = false,
            limiter: AdaptiveRateLimiterOptions = .default
        ) {
            self.clients = clients
            self.serverRate = serverRate
            self.burst = burst
            self.duration = duration
            self.latency = latency
            self.adaptive = adaptive
            self.limiter = limiter
        }

        /// Throws ``RetryPolicyError`` naming the first field that cannot work.
        package func validate() throws(RetryPolicyError) {
            try limiter.validate()
            guard (1...1000).contains(clients) else {
                throw RetryPolicyError(field: "clients", problem: "must be from 1 to 1000 (got \(clients))")
            }
            guard serverRate.isFinite, serverRate >= 0.1, serverRate <= 100_000 else {
                throw RetryPolicyError(field: "server-rate", problem: "must be from 0.1 to 100000 (got \(serverRate))")
            }
            guard (0...100_000).contains(burst) else {
                throw RetryPolicyError(field: "burst", problem: "must be from 0 to 100000 (got \(burst))")
            }
            guard duration > .zero, duration <= .seconds(600) else {
                throw RetryPolicyError(field: "duration", problem: "must be more than 0 s and at most 600 s")
            }
            guard latency >= .milliseconds(1), latency <= .seconds(10) else {
                throw RetryPolicyError(field: "latency", problem: "must be from 1 ms to 10 s")
            }
        }
    }

    /// One second.
    package struct Second: Hashable, Sendable {
        /// Its start, in whole seconds.
        package var time: Int
        /// New requests the clients wanted to send.
        package var offered = 0
        /// Requests that reached the server (throttled ones sent again count again).
        package var sent = 0
        /// Of those, answered 429.
        package var throttled = 0
        /// Sends the limiter made wait (each wait once).
        package var delayed = 0
        /// Answered 200.
        package var succeeded = 0
    }

    /// What a simulation saw.
    package struct Report: Hashable, Sendable {
        /// The scenario run.
        package let scenario: Scenario
        /// Every second of the run.
        package let seconds: [Second]

        /// 200s per second over the run.
        package var goodput: Double { Double(seconds.reduce(0) { $0 + $1.succeeded }) / Double(max(seconds.count, 1)) }
        /// 429s ÷ requests sent.
        package var throttledShare: Double {
            Double(seconds.reduce(0) { $0 + $1.throttled }) / Double(max(seconds.reduce(0) { $0 + $1.sent }, 1))
        }

        /// The per-second table and a summary, as `retryflow simulate --server-rate` prints them.
        package var text: String {
            let header = ["second", "offered", "sent", "throttled", "delayed", "succeeded"]
            var rows = [header]
            for s in seconds {
                rows.append([s.time, s.offered, s.sent, s.throttled, s.delayed, s.succeeded].map(String.init))
            }
            let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
            var text = ""
            for row in rows {
                let cells = row.indices.map { String(repeating: " ", count: widths[$0] - row[$0].count) + row[$0] }
                text += "  " + cells.joined(separator: "  ") + "\n"
            }
            let sent = seconds.reduce(0) { $0 + $1.sent }
            let limiter = scenario.adaptive ? "with the adaptive limiter" : "without a limiter"
            return text
                + "  \(scenario.clients) clients \(limiter) against \(Self.number(scenario.serverRate)) requests/s "
                + "(burst \(scenario.burst)): \(sent) sent, goodput \(Self.number(goodput))/s "
                + "(\(Self.number(goodput / scenario.serverRate * 100)) % of the rate), "
                + "\(Self.number(throttledShare * 100)) % throttled\n"
        }

        static func number(_ value: Double) -> String { String(format: "%.1f", value) }
    }

    /// Runs `scenario`.
    package static func run(_ scenario: Scenario) throws(RetryPolicyError) -> Report {
        try scenario.validate()
        let clock = ManualClock()
        let limiter = scenario.adaptive ? try AdaptiveRateLimiter(scenario.limiter, clock: clock) : nil
        let end = scenario.duration
        var seconds = (0..<Int((scenario.duration / .seconds(1)).rounded(.up))).map { Second(time: $0) }
        func count(_ time: Duration, _ change: (inout Second) -> Void) {
            let index = Int(time / .seconds(1))
            if index < seconds.count { change(&seconds[index]) }
        }
        var server = LimitReq(rate: scenario.serverRate, burst: Double(scenario.burst))
        // Every client has one event pending: ask (to send a request) or answered (its response).
        var events = EventQueue()
        for client in 0..<scenario.clients { events.push(Event(at: .zero, client: client, kind: .offer)) }
        while let event = events.pop(), event.at < end {
            clock.advance(to: ManualClock.Instant(offset: event.at))
            switch event.kind {
            case .offer:
                count(event.at) { $0.offered += 1 }
                events.push(Event(at: event.at, client: event.client, kind: .ask))
            case .ask:
                if let limiter, case (.wait, let reservation?) = limiter.reserve() {
                    count(event.at) { $0.delayed += 1 }
                    let wake = limiter.nextWake(for: reservation, now: event.at, latest: nil)
                    events.push(Event(at: wake ?? event.at, client: event.client, kind: .tokenWait(reservation)))
                    continue
                }
                events.push(Event(at: event.at, client: event.client, kind: .send))
            case .tokenWait(let reservation):
                if let wake = limiter?.nextWake(for: reservation, now: event.at, latest: nil) {
                    events.push(Event(at: wake, client: event.client, kind: .tokenWait(reservation)))
                } else {
                    events.push(Event(at: event.at, client: event.client, kind: .send))
                }
            case .send:
                let accepted = server.accept(at: event.at.inSeconds)
                count(event.at) { second in
                    second.sent += 1
                    if accepted { second.succeeded += 1 } else { second.throttled += 1 }
                }
                events.push(Event(at: event.at + scenario.latency, client: event.client, kind: .answered(accepted)))
            case .answered(let accepted):
                limiter?.record(throttled: !accepted)
                // A throttled request is sent again; an answered one makes way for the next.
                let next: Event.Kind = accepted ? .offer : .ask
                events.push(Event(at: event.at, client: event.client, kind: next))
            }
        }
        return Report(scenario: scenario, seconds: seconds)
    }

    /// The run's load curves as SVG (``LoadChart``): sent, succeeded, throttled and delayed per second.
    package static func chart(_ report: Report) -> String {
        let s = report.scenario
        let limiter = s.adaptive ? "adaptive limiter" : "no limiter"
        return LoadChart.svg(
            title: "\(s.clients) clients vs \(Report.number(s.serverRate)) requests/s (burst \(s.burst)) · \(limiter)",
            seconds: report.seconds.count,
            series: [
                ("sent", "#d1242f", report.seconds.map { Double($0.sent) }),
                ("succeeded", "#1a7f37", report.seconds.map { Double($0.succeeded) }),
                ("throttled", "#bc4c00", report.seconds.map { Double($0.throttled) }),
                ("delayed", "#6e7781", report.seconds.map { Double($0.delayed) }),
            ], logarithmic: true)
    }

    /// nginx's `limit_req ... nodelay` (ngx_http_limit_req_module): the excess drains at `rate`;
    /// a request is accepted when the excess it adds stays within `burst`.
    struct LimitReq {
        let rate: Double
        let burst: Double
        var excess = 0.0
        var last: Double?

        mutating func accept(at time: Double) -> Bool {
            guard let last else {
                self.last = time // the first request makes the zone's node, with no excess
                return true
            }
            // A hair of slack: nginx counts in whole milliseconds and thousandths of a request, so a
            // request exactly 1 / rate after the last one is accepted there too.
            let next = max(0, excess - rate * (time - last) + 1)
            guard next <= burst + 1e-9 else { return false }
            excess = next
            self.last = time
            return true
        }
    }

    struct Event {
        enum Kind: Hashable {
            case offer
            /// Ask the limiter for a token (at once without one).
            case ask
            /// Waiting for a reserved token.
            case tokenWait(TokenReservation)
            case send
            case answered(Bool)
        }

        let at: Duration
        let client: Int
        let kind: Kind
        var order = 0
    }

    /// The pending events, earliest first (ties: the first pushed): a binary heap.
    struct EventQueue {
        private var heap: [Event] = []
        private var pushed = 0

        mutating func push(_ event: Event) {
            var event = event
            event.order = pushed
            pushed += 1
            heap.append(event)
            var child = heap.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard Self.before(heap[child], heap[parent]) else { break }
                heap.swapAt(child, parent)
                child = parent
            }
        }

        mutating func pop() -> Event? {
            guard !heap.isEmpty else { return nil }
            heap.swapAt(0, heap.count - 1)
            let first = heap.removeLast()
            var parent = 0
            while true {
                let left = 2 * parent + 1
                let right = left + 1
                var smallest = parent
                if left < heap.count, Self.before(heap[left], heap[smallest]) { smallest = left }
                if right < heap.count, Self.before(heap[right], heap[smallest]) { smallest = right }
                guard smallest != parent else { return first }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }

        static func before(_ a: Event, _ b: Event) -> Bool { (a.at, a.order) < (b.at, b.order) }
    }
}
