import BenchSupport
import Foundation
import RetryFlow
import RetryFlowHTTP
import RetryFlowTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `adaptive-throttle`: 32 clients, each sending as fast as it can, against a real nginx whose
/// `limit_req` allows a fixed rate and answers the excess 429; without and with one shared
/// ``AdaptiveRateLimiter`` (what the registry gives a host), side by side in one run.
enum AdaptiveThrottleBenchmark {
    /// nginx's rate, requests per second, and its burst (a token bucket of 20, as a cloud API's is).
    static let serverRate = 100
    static let serverBurst = 20
    static let clients = 32

    /// One second of a run.
    struct Second {
        var sent = 0
        var ok = 0
        var throttled = 0
    }

    /// What one run saw.
    struct Run {
        var seconds: [Second]
        var sent: Int { seconds.reduce(0) { $0 + $1.sent } }
        var ok: Int { seconds.reduce(0) { $0 + $1.ok } }
        var throttled: Int { seconds.reduce(0) { $0 + $1.throttled } }
        var goodput: Double { Double(ok) / Double(max(seconds.count, 1)) }
        /// 200s per second over the second half: after the cold start's first throttle and climb back.
        var lateGoodput: Double {
            let late = seconds.suffix(seconds.count / 2)
            return Double(late.reduce(0) { $0 + $1.ok }) / Double(max(late.count, 1))
        }
        var throttledShare: Double { Double(throttled) / Double(max(sent, 1)) }
    }

    static func run(quick: Bool) async throws -> [BenchmarkResult] {
        let seconds = quick ? 2 : 20
        let nginx = try await NginxServer.start(
            files: ["x": Data("ok".utf8)],
            configuration: .init(
                http: "limit_req_zone $binary_remote_addr zone=z:1m rate=\(serverRate)r/s;",
                server: "location /x { limit_req zone=z burst=\(serverBurst) nodelay; limit_req_status 429; }",
                accessLog: false))
        defer { nginx.stop() }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = clients
        let session = URLSession(configuration: configuration)
        defer { session.invalidateAndCancel() }
        let url = nginx.url("/x")

        let without = try await load(session: session, url: url, seconds: seconds, limiter: nil)
        try await Task.sleep(for: .seconds(1)) // nginx's bucket refills between the runs
        let with = try await load(session: session, url: url, seconds: seconds, limiter: AdaptiveRateLimiter(.default))
        try await Task.sleep(for: .seconds(1))
        let aws = try await load(session: session, url: url, seconds: seconds, limiter: AdaptiveRateLimiter(.aws))
        let rate = Double(serverRate)
        func g(_ value: Double) -> String { String(format: "%.1f", value) }
        let sentNote =
            "\(clients) clients, \(seconds) s, nginx limit_req \(serverRate)r/s burst=\(serverBurst) nodelay; "
            + "requests sent: \(without.sent) without, \(with.sent) with the limiter (\(aws.sent) with .aws); "
            + "goodput in the second half: \(g(with.lateGoodput)) (\(g(aws.lateGoodput)) with .aws, "
            + "\(g(without.lateGoodput)) without); whole run with .aws: \(g(aws.goodput))/s, "
            + "\(g(aws.throttledShare * 100)) % 429s"
        return [
            BenchmarkResult(
                name: "adaptive-throttle goodput", value: with.goodput, unit: "200s per second, with the limiter",
                baseline: "without the limiter", baselineValue: without.goodput, ratio: with.goodput / rate,
                goal: "≥ 0.9 × \(serverRate) (ratio: of the nginx rate)", met: with.goodput >= 0.9 * rate,
                note: sentNote),
            BenchmarkResult(
                name: "adaptive-throttle 429 share", value: with.throttledShare * 100,
                unit: "% of requests sent, with the limiter", baseline: "without the limiter",
                baselineValue: without.throttledShare * 100,
                ratio: without.throttledShare > 0 ? with.throttledShare / without.throttledShare : nil,
                goal: "≤ 10 %", met: with.throttledShare <= 0.1,
                note: "429s: \(without.throttled) without, \(with.throttled) with the limiter"),
        ]
    }

    /// `clients` loops sending GETs for `seconds`, each through `limiter` (waiting for its token)
    /// when there is one, which hears every answer as a throttle or not by HTTP's ``ThrottleRules``.
    static func load(session: URLSession, url: URL, seconds: Int, limiter: AdaptiveRateLimiter?) async throws -> Run {
        let perSecond = Locked([Second](repeating: Second(), count: seconds))
        let start = ContinuousClock.now
        let end = start.advanced(by: .seconds(seconds))
        let rules = ThrottleRules.default
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<clients {
                group.addTask {
                    while ContinuousClock.now < end {
                        if let limiter { try await limiter.acquire() }
                        let sentAt = ContinuousClock.now
                        guard sentAt < end else { break }
                        let answer: HTTPResponse
                        do {
                            let (data, response) = try await session.data(for: URLRequest(url: url))
                            answer = HTTPResponse(data: data, response: response as! HTTPURLResponse)
                        } catch {
                            limiter?.record(throttled: false)
                            continue
                        }
                        let throttled = rules.throttle(in: answer) != nil
                        limiter?.record(throttled: throttled)
                        let second = Int(start.duration(to: sentAt) / .seconds(1))
                        perSecond.withLock { seconds in
                            guard second < seconds.count else { return }
                            seconds[second].sent += 1
                            if answer.statusCode == 200 { seconds[second].ok += 1 }
                            if throttled { seconds[second].throttled += 1 }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        return Run(seconds: perSecond.withLock { $0 })
    }
}
