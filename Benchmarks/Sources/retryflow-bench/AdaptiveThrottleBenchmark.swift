import BenchSupport
import Foundation
import RetryFlow
import RetryFlowHTTP
import RetryFlowTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `adaptive-throttle`: 32 clients, each calling `URLSession.data(for:retry:)` back to back, against a
/// real nginx whose `limit_req` allows a fixed rate and answers the excess 429. The limiter is one
/// shared ``AdaptiveRateLimiter`` in `HTTPRetryOptions.guards` (what a user sets for a host): the engine
/// asks it before every try and tells it of every answer, throttles by the HTTP rules. Nothing here
/// asks or tells the limiter by hand.
///
/// In the same run, before the clients, the floor: one perfectly paced client that knows the server's
/// rate and sends exactly that (open loop, bare `data(for:)`): the most 200s a client can get from this
/// nginx on this machine. Then the same 32 clients without a limiter, with it (`.default`), and with
/// `.aws` for reference. Every request is counted by nginx itself (its own access log, `$msec $status`),
/// so retries, and any re-send libcurl makes on its own, are counted as sent.
enum AdaptiveThrottleBenchmark {
    /// nginx's rate, requests per second, and its burst (a token bucket of 20, as a cloud API's is).
    static let serverRate = 100
    static let serverBurst = 20
    static let clients = 32

    /// One second of a phase, as nginx logged it.
    struct Second {
        var sent = 0
        var ok = 0
        var throttled = 0
    }

    /// The shared limiter at the end of one second of a phase, read through its public properties.
    struct LimiterSample {
        var fillRate: Double
        var measuredRate: Double
        var tokens: Double
    }

    /// What one phase saw.
    struct Phase {
        var name: String
        var seconds: [Second]
        /// Calls of `data(for:retry:)` that returned, and that threw (gave up, or ran out of time).
        var returned = 0
        var threw = 0
        /// The limiter, second by second (none without one).
        var limiter: [LimiterSample] = []
        var sent: Int { seconds.reduce(0) { $0 + $1.sent } }
        var ok: Int { seconds.reduce(0) { $0 + $1.ok } }
        var throttled: Int { seconds.reduce(0) { $0 + $1.throttled } }
        /// 200s per second over the whole phase.
        var goodput: Double { Double(ok) / Double(max(seconds.count, 1)) }
        /// 200s per second over the second half (the last 10 s of 20): after the cold start.
        var lateGoodput: Double {
            let late = seconds.suffix(seconds.count / 2)
            return Double(late.reduce(0) { $0 + $1.ok }) / Double(max(late.count, 1))
        }
        var throttledShare: Double { Double(throttled) / Double(max(sent, 1)) }
        /// 429s in the first second: the cold start, while the limiter (disabled until the first
        /// throttle) lets every client send and the answers already in flight come back 429.
        var firstSecondThrottled: Int { seconds.first?.throttled ?? 0 }
        /// The first second whose 200s reached `rate`, if any: how long the cold start lasted.
        func firstSecond(reaching rate: Double) -> Int? { seconds.firstIndex { Double($0.ok) >= rate } }
    }

    static func run(quick: Bool) async throws -> [BenchmarkResult] {
        let seconds = quick ? 2 : 20
        let log = FileManager.default.temporaryDirectory.appendingPathComponent(
            "retryflow-adaptive-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        let nginx = try await NginxServer.start(
            files: ["x": Data("ok".utf8)],
            configuration: .init(
                http: "limit_req_zone $binary_remote_addr zone=z:1m rate=\(serverRate)r/s; "
                    + "log_format rate '$msec $status';",
                server: "location /x { limit_req zone=z burst=\(serverBurst) nodelay; limit_req_status 429; "
                    + "access_log \(log.path) rate; }",
                accessLog: false))
        defer { nginx.stop() }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = clients
        let session = URLSession(configuration: configuration)
        defer { session.invalidateAndCancel() }
        let request = URLRequest(url: nginx.url("/x"))

        var phases: [Phase] = []
        var spans: [(start: Double, name: String)] = []
        func settle() async throws { try await Task.sleep(for: .seconds(1)) } // nginx's bucket refills
        spans.append((Date().timeIntervalSince1970, "paced"))
        try await paced(session: session, request: request, seconds: seconds)
        try await settle()
        for (name, limiter) in [
            ("without", nil), ("with", try AdaptiveRateLimiter(.default)), ("aws", try AdaptiveRateLimiter(.aws)),
        ] as [(String, AdaptiveRateLimiter?)] {
            var options = HTTPRetryOptions.default
            options.guards.limiter = limiter
            spans.append((Date().timeIntervalSince1970, name))
            let sampler = limiter.map { limiter in Task { await sample(limiter, seconds: seconds) } }
            let calls = try await clients(session: session, request: request, options: options, seconds: seconds)
            phases.append(
                Phase(
                    name: name, seconds: [], returned: calls.returned, threw: calls.threw,
                    limiter: await sampler?.value ?? []))
            try await settle()
        }
        // nginx writes each line as it answers; every phase has ended and settled by now (a call cut
        // at the end of the drain may still be logged in its own phase's span, after its last second).
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        var perPhase = Dictionary(
            uniqueKeysWithValues: spans.map { ($0.name, [Second](repeating: Second(), count: seconds)) })
        for line in lines {
            let fields = line.split(separator: " ")
            guard fields.count == 2, let time = Double(fields[0]), let status = Int(fields[1]),
                let span = spans.last(where: { $0.start <= time })
            else { continue }
            let second = Int(time - span.start)
            guard second < seconds else { continue }
            perPhase[span.name]![second].sent += 1
            if status == 200 { perPhase[span.name]![second].ok += 1 }
            if status == 429 { perPhase[span.name]![second].throttled += 1 }
        }
        let floor = Phase(name: "paced", seconds: perPhase["paced"]!)
        for index in phases.indices { phases[index].seconds = perPhase[phases[index].name]! }
        let (without, with, aws) = (phases[0], phases[1], phases[2])
        if let path = ProcessInfo.processInfo.environment["RETRYFLOW_ADAPTIVE_SERIES"] {
            try Data(series([floor] + phases).utf8).write(to: URL(fileURLWithPath: path))
        }

        let rate = Double(serverRate)
        func g(_ value: Double) -> String { String(format: "%.1f", value) }
        func pct(_ value: Double) -> String { String(format: "%.1f %%", value * 100) }
        let setup =
            "\(clients) clients calling data(for:retry:) for \(seconds) s, one shared limiter in "
            + "HTTPRetryOptions.guards; nginx limit_req \(serverRate)r/s burst=\(serverBurst) nodelay; counted by nginx"
        return [
            BenchmarkResult(
                name: "adaptive-throttle goodput", value: with.lateGoodput,
                unit: "200s per second over the last half, with the limiter",
                baseline: "a perfectly paced client at \(serverRate)/s (the floor)", baselineValue: floor.lateGoodput,
                ratio: with.lateGoodput / rate, goal: "≥ 0.95 × \(serverRate) (ratio: of the nginx rate)",
                met: with.lateGoodput >= 0.95 * rate,
                note: "\(setup); last half: paced \(g(floor.lateGoodput)), with \(g(with.lateGoodput)), "
                    + "without \(g(without.lateGoodput)), .aws \(g(aws.lateGoodput)); whole run: paced "
                    + "\(g(floor.goodput)), with \(g(with.goodput)), without \(g(without.goodput)), .aws \(g(aws.goodput)); "
                    + "with: \(climb(with, goal: 0.95 * rate)); .aws: \(climb(aws, goal: 0.95 * rate))"
            ),
            BenchmarkResult(
                name: "adaptive-throttle 429 share", value: with.throttledShare * 100,
                unit: "% of requests sent, with the limiter", baseline: "without the limiter",
                baselineValue: without.throttledShare * 100,
                ratio: without.throttledShare > 0 ? with.throttledShare / without.throttledShare : nil,
                goal: "≤ 10 %", met: with.throttledShare <= 0.1,
                note: "requests sent (429s): with \(with.sent) (\(with.throttled), \(with.firstSecondThrottled) in the "
                    + "first second), without \(without.sent) (\(without.throttled)), .aws \(aws.sent) "
                    + "(\(aws.throttled), \(pct(aws.throttledShare))), paced \(floor.sent) (\(floor.throttled)); "
                    + "calls returned/threw: with \(with.returned)/\(with.threw), without "
                    + "\(without.returned)/\(without.threw)"),
            BenchmarkResult(
                name: "adaptive-throttle floor", value: floor.lateGoodput,
                unit: "200s per second over the last half, perfectly paced", baseline: "nginx limit_req rate",
                baselineValue: rate, ratio: floor.lateGoodput / rate, goal: "report (the goal is met only above it)",
                met: nil,
                note: "one client sending exactly \(serverRate)/s (a request every \(1000 / serverRate) ms, open loop, "
                    + "bare data(for:)); \(floor.throttled) of its \(floor.sent) requests were 429s; "
                    + "\(g(without.lateGoodput)) 200s/s reached 32 clients without a limiter"),
        ]
    }

    /// The floor: a client that knows the rate, sending one request every `1 / serverRate` s on the
    /// real clock whether or not the previous one has been answered.
    static func paced(session: URLSession, request: URLRequest, seconds: Int) async throws {
        let clock = ContinuousClock()
        let start = clock.now
        let interval = Duration.seconds(1) / serverRate
        await withTaskGroup(of: Void.self) { group in
            for tick in 0..<(seconds * serverRate) {
                try? await clock.sleep(until: start.advanced(by: interval * tick), tolerance: nil)
                group.addTask { _ = try? await session.data(for: request) }
            }
        }
    }

    /// `clients` loops, each calling `data(for:retry: options)` back to back until `seconds` have
    /// passed, as a user's workers would (no deadline). Calls still running `drain` after that (waiting
    /// for a token from a limiter that a cold start took to its floor) are cancelled. Returns how many
    /// calls returned and threw.
    static func clients(
        session: URLSession, request: URLRequest, options: HTTPRetryOptions, seconds: Int,
        drain: Duration = .seconds(5)
    ) async throws -> (returned: Int, threw: Int) {
        let end = ContinuousClock.now.advanced(by: .seconds(seconds))
        let counts = Locked((returned: 0, threw: 0))
        await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<clients {
                group.addTask {
                    while ContinuousClock.now < end {
                        do {
                            _ = try await session.data(for: request, retry: options)
                            counts.withLock { $0.returned += 1 }
                        } catch {
                            counts.withLock { $0.threw += 1 }
                        }
                    }
                    return true
                }
            }
            group.addTask {
                try? await Task.sleep(until: end.advanced(by: drain), clock: .continuous)
                return false
            }
            var running = clients
            while let client = await group.next() {
                if client { running -= 1 }
                // The drain is over, or every client is done (then the timer's sleep is cut short).
                if !client || running == 0 { group.cancelAll() }
            }
        }
        return counts.withLock { $0 }
    }

    /// The limiter's fill rate, measured rate and tokens at the end of each of `seconds` seconds.
    static func sample(_ limiter: AdaptiveRateLimiter, seconds: Int) async -> [LimiterSample] {
        let start = ContinuousClock.now
        var samples: [LimiterSample] = []
        for second in 1...seconds {
            try? await Task.sleep(until: start.advanced(by: .seconds(second)), clock: .continuous)
            samples.append(
                LimiterSample(fillRate: limiter.fillRate, measuredRate: limiter.measuredRate, tokens: limiter.tokens))
        }
        return samples
    }

    /// Each phase's seconds as CSV, for a chart of the load curves: nginx's counts, then the limiter's
    /// fill rate, measured rate and tokens at the end of the second (empty without a limiter).
    static func series(_ phases: [Phase]) -> String {
        var text = "phase,second,sent,ok,throttled,fill_rate,measured_rate,tokens\n"
        for phase in phases {
            for (second, counts) in phase.seconds.enumerated() {
                let limiter = second < phase.limiter.count ? phase.limiter[second] : nil
                let bucket = limiter.map { String(format: "%.2f,%.2f,%.2f", $0.fillRate, $0.measuredRate, $0.tokens) }
                text += "\(phase.name),\(second),\(counts.sent),\(counts.ok),\(counts.throttled),\(bucket ?? ",,")\n"
            }
        }
        return text
    }

    /// The limiter's fill rate at a few seconds of `phase`, and the first second at the goal's rate.
    static func climb(_ phase: Phase, goal: Double) -> String {
        let marks = [1, 5, 10, 15, phase.limiter.count].filter { $0 >= 1 && $0 <= phase.limiter.count }
        let fills = Array(Set(marks)).sorted().map { String(format: "%d s %.3g", $0, phase.limiter[$0 - 1].fillRate) }
        let reached = phase.firstSecond(reaching: goal).map { "second \($0 + 1)" } ?? "never"
        return "fill rate (requests/s) at \(fills.joined(separator: ", ")); first second with ≥ \(Int(goal)) 200s: "
            + reached
    }
}
