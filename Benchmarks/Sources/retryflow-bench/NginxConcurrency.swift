import BenchSupport
import Foundation
import RetryFlow
import RetryFlowHTTP
import RetryFlowTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `nginx-concurrency`: what users feel. A real nginx (another process, on 127.0.0.1) serves a 1 KiB
/// and a 100 KiB file; 10,000 GETs with 64 in flight go through `data(for:retry:)` and through bare
/// `URLSession.data(for:)` on the same session, in interleaved rounds, with `wrk` on the same URL as
/// the server's ceiling; then sequential GETs, the same two ways. Every figure is this process's
/// (the client's): nginx's CPU is not counted on either side.
enum NginxConcurrency {
    /// How a round sends its GETs: the two sides of the benchmark, and the steps between them that
    /// `__nginx` times to say where the difference goes (`NginxPaths`).
    enum Side: String, CaseIterable {
        /// `URLSession.data(for:)`.
        case bare
        /// RetryFlow's `data(for:retry: .default)`, as users call it (30 s default attempt timeout).
        case retry
        /// `dataTask` with a completion handler, made and resumed on the caller's thread: the answer
        /// comes through the session's delegate queue (where `data(for:)` is called back inline).
        case handler
        /// `data(for:retry:)` without the default attempt timeout (no timer armed).
        case untimed

        /// The sides the benchmark runs: RetryFlow, bare `data(for:)` (the requests/s and p99 goals),
        /// and the completion-handler transport alone, the floor under any client that cannot use
        /// `data(for:)`'s inline completion (the CPU and sequential goals; docs/benchmarks.md).
        static let benchmarked: [Side] = [.bare, .handler, .retry]

        /// The sides in round `round`'s order: each round starts one further along, so no side always
        /// follows the same one.
        static func order(ofRound round: Int) -> [Side] {
            let start = round % benchmarked.count
            return Array(benchmarked[start...] + benchmarked[..<start])
        }

        var label: String {
            switch self {
            case .bare: "bare data(for:)"
            case .retry: "data(for:retry:)"
            case .handler: "completion handler"
            case .untimed: "data(for:retry:) untimed"
            }
        }
    }

    /// What one round of one side measured.
    struct Round {
        var seconds: Double
        /// Every request's latency, in seconds, sorted.
        var latencies: [Double]
        var cpuSeconds: Double
        var contextSwitches: Int
        /// Threads of this process that ran during the round (their context switch counts moved).
        var threadsRan: Int
        /// Context switches during the round, by thread name (`/proc/self/task/*/comm`).
        var switchesByThread: [String: Int]
        /// How late a task sleeping 5 ms at a time woke during the round, in seconds, sorted: how
        /// free the threads Swift's tasks run on stayed (`LatenessProbe`).
        var lateness: [Double]

        var requests: Int { latencies.count }
        var perSecond: Double { Double(requests) / seconds }
        func percentile(_ p: Double) -> Double { Self.percentile(p, of: latencies) }

        /// The `p` quantile of sorted `values` (nearest rank); 0 for none.
        static func percentile(_ p: Double, of values: [Double]) -> Double {
            guard !values.isEmpty else { return 0 }
            return values[max(0, min(values.count - 1, Int((Double(values.count) * p).rounded(.up)) - 1))]
        }
    }

    /// The files served: name and size.
    static let files = [("1KiB", 1024), ("100KiB", 100 * 1024)]
    /// Requests in flight at once (the session may open as many connections to the host).
    static let inFlight = 64

    static func run(quick: Bool) async throws -> [BenchmarkResult] {
        var contents: [String: Data] = [:]
        for (name, size) in files { contents["\(name).bin"] = Data((0..<size).map { UInt8(truncatingIfNeeded: $0) }) }
        let nginx = try await NginxServer.start(files: contents, configuration: .init(accessLog: false))
        defer { nginx.stop() }
        // One session for both sides: the same configuration, the same pool of warm connections.
        let session = HTTPBenchmarks.session(connections: inFlight)
        let count = quick ? 640 : 10_000
        // 7 rounds, not 3: with 3, one full run's 1 KiB CPU ratio went from 1.17 to 1.20 within the hour
        // and its rounds spread over 1.04–1.25; the median of 7 pairs moves less (docs/benchmarks.md).
        let rounds = quick ? 1 : 7
        var results: [BenchmarkResult] = []
        for (name, size) in files {
            let request = URLRequest(url: nginx.url("/\(name).bin"))
            // Warm-up: every connection opened and every path run before anything is timed.
            for side in Side.benchmarked { _ = try await concurrent(side, session, request, count: 640, size: size) }
            var measured: [Side: [Round]] = [:]
            for round in 0..<rounds {
                for side in Side.order(ofRound: round) {
                    measured[side, default: []].append(
                        try await concurrent(side, session, request, count: count, size: size))
                }
            }
            let ceiling = try await wrk(nginx.url("/\(name).bin"), seconds: quick ? 1 : 3)
            results += figures(file: name, count: count, measured: measured, wrk: ceiling)
        }
        results.append(try await sequential(session, URLRequest(url: nginx.url("/1KiB.bin")), quick: quick))
        return results
    }

    /// `count` GETs of `request`, `inFlight` at once (each of `inFlight` tasks sends its share in turn).
    static func concurrent(
        _ side: Side, _ session: URLSession, _ request: URLRequest, count: Int, size: Int, inFlight: Int = inFlight
    ) async throws -> Round {
        let threadsBefore = ThreadCensus.now()
        let cpuBefore = TransportPaths.cpuSeconds()
        let switchesBefore = TransportPaths.contextSwitches()
        let probe = LatenessProbe()
        let start = ContinuousClock.now
        var latencies: [Double] = []
        latencies.reserveCapacity(count)
        try await withThrowingTaskGroup(of: [Double].self) { group in
            for worker in 0..<inFlight {
                group.addTask {
                    var mine: [Double] = []
                    mine.reserveCapacity(count / inFlight + 1)
                    for _ in stride(from: worker, to: count, by: inFlight) {
                        let sent = ContinuousClock.now
                        let (data, status) = try await get(side, session, request)
                        mine.append(sent.duration(to: .now).inSecondsValue)
                        guard status == 200, data.count == size else {
                            throw BenchError("unexpected answer: HTTP \(status), \(data.count) bytes")
                        }
                    }
                    return mine
                }
            }
            for try await mine in group { latencies += mine }
        }
        let seconds = start.duration(to: .now).inSecondsValue
        let lateness = await probe.stop()
        let cpu = TransportPaths.cpuSeconds() - cpuBefore
        let switches = TransportPaths.contextSwitches() - switchesBefore
        let threads = ThreadCensus.now().since(threadsBefore)
        return Round(
            seconds: seconds, latencies: latencies.sorted(), cpuSeconds: cpu, contextSwitches: switches,
            threadsRan: threads.ran, switchesByThread: threads.switchesByName, lateness: lateness)
    }

    static func figures(file: String, count: Int, measured: [Side: [Round]], wrk: WrkResult?) -> [BenchmarkResult] {
        let bare = measured[.bare] ?? []
        let retry = measured[.retry] ?? []
        let handler = measured[.handler] ?? []
        let pairs = Array(zip(bare, retry))
        func ratios(_ value: (Round) -> Double) -> [Double] { pairs.map { value($0.1) / value($0.0) } }
        func floorRatios(_ value: (Round) -> Double) -> [Double] {
            zip(handler, retry).map { value($0.1) / value($0.0) }
        }
        func median(_ rounds: [Round], _ value: (Round) -> Double) -> Double { Measure.median(rounds.map(value)) }
        func range(_ values: [Double]) -> String {
            String(format: "%.3f–%.3f", values.min() ?? .nan, values.max() ?? .nan)
        }
        let perRequestCPU = { (r: Round) in r.cpuSeconds / Double(r.requests) * 1e6 }
        let perRequestSwitches = { (r: Round) in Double(r.contextSwitches) / Double(r.requests) }
        let p50 = { (r: Round) in r.percentile(0.50) * 1e3 }
        let p99 = { (r: Round) in r.percentile(0.99) * 1e3 }
        let late50 = { (r: Round) in Round.percentile(0.50, of: r.lateness) * 1e3 }
        let late99 = { (r: Round) in Round.percentile(0.99, of: r.lateness) * 1e3 }
        let lateMax = { (r: Round) in (r.lateness.last ?? 0) * 1e3 }
        let setting =
            "\(count) GETs of \(file), \(inFlight) in flight, one session; median of \(pairs.count) interleaved rounds"
        let rps = ratios(\.perSecond)
        let p99Ratios = ratios(p99)
        let p50Ratios = ratios(p50)
        let cpuRatios = ratios(perRequestCPU)
        let rpsRatio = Measure.median(rps)
        let p99Ratio = Measure.median(p99Ratios)
        let cpuRatio = Measure.median(cpuRatios)
        let cpuFloorRatios = floorRatios(perRequestCPU)
        let cpuFloorRatio = Measure.median(cpuFloorRatios)
        let ceiling =
            wrk.map {
                String(
                    format: "; wrk -c%d: %.0f/s, p50 %.2f ms, p99 %.2f ms, %.1f µs CPU/request", inFlight,
                    $0.perSecond, $0.p50 * 1e3, $0.p99 * 1e3, $0.cpuPerRequest * 1e6)
            } ?? "; wrk not found"
        func threadNote(_ rounds: [Round]) -> String {
            var total: [String: Int] = [:]
            for round in rounds { total.merge(round.switchesByThread, uniquingKeysWith: +) }
            let requests = Double(rounds.reduce(0) { $0 + $1.requests })
            let top = total.sorted { $0.value > $1.value }.prefix(4)
            return top.map { String(format: "%@ %.1f", $0.key, Double($0.value) / requests) }.joined(separator: ", ")
        }
        let threads = String(
            format: "threads that ran %.0f (bare %.0f); context switches/request %.2f (bare %.2f): %@ (bare: %@)",
            median(retry) { Double($0.threadsRan) }, median(bare) { Double($0.threadsRan) },
            median(retry, perRequestSwitches), median(bare, perRequestSwitches), threadNote(retry), threadNote(bare))
        return [
            BenchmarkResult(
                name: "nginx-concurrency \(file) requests/s", value: median(retry, \.perSecond), unit: "requests/s",
                baseline: "bare URLSession.data(for:), same session", baselineValue: median(bare, \.perSecond),
                ratio: rpsRatio, goal: "ratio >= 0.95", met: rpsRatio >= 0.95,
                note: "\(setting) (ratios \(range(rps)))\(ceiling)"),
            BenchmarkResult(
                name: "nginx-concurrency \(file) p99", value: median(retry, p99), unit: "ms",
                baseline: "bare URLSession.data(for:), same session", baselineValue: median(bare, p99),
                ratio: p99Ratio, goal: "ratio <= 1.10", met: p99Ratio <= 1.10,
                note: String(
                    format: "%@ (ratios %@); p50 %.2f ms, bare %.2f ms, ratio %.3f", setting, range(p99Ratios),
                    median(retry, p50), median(bare, p50), Measure.median(p50Ratios))),
            BenchmarkResult(
                name: "nginx-concurrency \(file) other tasks' lateness p99", value: median(retry, late99),
                unit: "ms", baseline: "the same while bare data(for:) runs", baselineValue: median(bare, late99),
                ratio: nil, goal: "report", met: nil,
                note: String(
                    format:
                        "a task sleeping 5 ms at a time during each round, how late it woke: p50 %.2f ms (bare %.2f), max %.1f ms (bare %.1f); what CallThreads buys (URLSession's blocking calls off Swift's threads)",
                    median(retry, late50), median(bare, late50), median(retry, lateMax), median(bare, lateMax))),
            BenchmarkResult(
                name: "nginx-concurrency \(file) CPU", value: median(retry, perRequestCPU), unit: "µs CPU/request",
                baseline: "the completion-handler transport alone (the floor), same session",
                baselineValue: median(handler, perRequestCPU), ratio: cpuFloorRatio, goal: "ratio <= 1.10",
                met: cpuFloorRatio <= 1.10,
                note: String(
                    format:
                        "%@ (ratios %@), user + system of every thread; bare data(for:) %.0f µs, ratio %.3f (%@); %@",
                    setting, range(cpuFloorRatios), median(bare, perRequestCPU), cpuRatio, range(cpuRatios), threads)),
        ]
    }

    /// Sequential GETs (one at a time), in interleaved rounds of 100 each way.
    static func sequential(_ session: URLSession, _ request: URLRequest, quick: Bool) async throws -> BenchmarkResult {
        let count = quick ? 50 : 100
        var times: [Side: [Double]] = [:]
        var cpu: [Side: [Double]] = [:]
        var ratios: [Double] = []
        var cpuRatios: [Double] = []
        var bareRatios: [Double] = []
        for side in Side.benchmarked { for _ in 0..<20 { _ = try await get(side, session, request) } }
        for round in 0..<(quick ? 2 : 31) {
            var pair: [Side: (Double, Double)] = [:]
            for side in Side.order(ofRound: round) {
                let cpuBefore = TransportPaths.cpuSeconds()
                let seconds = try await Measure.seconds {
                    for _ in 0..<count { _ = try await get(side, session, request) }
                }
                let used = TransportPaths.cpuSeconds() - cpuBefore
                pair[side] = (seconds, used)
                times[side, default: []].append(seconds / Double(count) * 1e6)
                cpu[side, default: []].append(used / Double(count) * 1e6)
            }
            ratios.append(pair[.retry]!.0 / pair[.handler]!.0)
            cpuRatios.append(pair[.retry]!.1 / pair[.handler]!.1)
            bareRatios.append(pair[.retry]!.0 / pair[.bare]!.0)
        }
        let ratio = Measure.median(ratios)
        return BenchmarkResult(
            name: "nginx-concurrency sequential", value: Measure.median(times[.retry] ?? []), unit: "µs/request",
            baseline: "the completion-handler transport alone (the floor), same session",
            baselineValue: Measure.median(times[.handler] ?? []), ratio: ratio, goal: "ratio <= 1.05",
            met: ratio <= 1.05,
            note: String(
                format:
                    "%d sequential GETs of 1KiB, median of %d interleaved rounds (ratios %.3f–%.3f); CPU %.1f µs/request (floor %.1f), ratio %.3f; bare data(for:) %.1f µs/request, ratio %.3f",
                count, ratios.count, ratios.min() ?? .nan, ratios.max() ?? .nan, Measure.median(cpu[.retry] ?? []),
                Measure.median(cpu[.handler] ?? []), Measure.median(cpuRatios), Measure.median(times[.bare] ?? []),
                Measure.median(bareRatios)))
    }

    private static let untimedRules: HTTPRetryRules = {
        var rules = HTTPRetryRules.default
        rules.defaultAttemptTimeout = nil
        return rules
    }()

    /// One GET one way: its body and status.
    static func get(_ side: Side, _ session: URLSession, _ request: URLRequest) async throws -> (Data, Int) {
        switch side {
        case .bare:
            let (data, response) = try await session.data(for: request)
            return (data, (response as? HTTPURLResponse)?.statusCode ?? 0)
        case .retry:
            let (data, response) = try await session.data(for: request, retry: .default)
            return (data, response.statusCode)
        case .handler:
            return (try await TransportPaths.completion(session, request), 200)
        case .untimed:
            let (data, response) = try await session.data(
                for: request, retry: HTTPRetryOptions(.default, rules: untimedRules))
            return (data, response.statusCode)
        }
    }

    /// What `wrk` measured: the server's ceiling on this machine with the same number of connections.
    struct WrkResult {
        var perSecond: Double
        var p50: Double
        var p99: Double
        var cpuPerRequest: Double
    }

    /// `wrk -t2 -c64 -d<seconds>s --latency URL`, or nil when wrk is not installed.
    static func wrk(_ url: URL, seconds: Int) async throws -> WrkResult? {
        guard let wrk = Measure.which("wrk") else { return nil }
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("retryflow-wrk-\(UUID()).txt")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let childrenBefore = childrenCPUSeconds()
        let (status, _) = try await Measure.run(
            wrk, ["-t2", "-c\(inFlight)", "-d\(seconds)s", "--latency", url.absoluteString], output: output)
        let cpu = childrenCPUSeconds() - childrenBefore
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        guard status == 0, let parsed = parseWrk(text) else {
            throw BenchError("wrk failed (status \(status)): \(text)")
        }
        return WrkResult(
            perSecond: parsed.perSecond, p50: parsed.p50, p99: parsed.p99, cpuPerRequest: cpu / parsed.requests)
    }

    /// Reads wrk's `--latency` report: requests, requests/s, and the 50 % and 99 % latencies in seconds.
    static func parseWrk(_ text: String) -> (requests: Double, perSecond: Double, p50: Double, p99: Double)? {
        var requests: Double?
        var perSecond: Double?
        var p50: Double?
        var p99: Double?
        func seconds(_ word: Substring) -> Double? {
            for (suffix, scale) in [("us", 1e-6), ("ms", 1e-3), ("s", 1.0)] where word.hasSuffix(suffix) {
                return Double(word.dropLast(suffix.count)).map { $0 * scale }
            }
            return nil
        }
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ")
            guard let first = words.first else { continue }
            if first == "50%", words.count > 1 { p50 = seconds(words[1]) }
            if first == "99%", words.count > 1 { p99 = seconds(words[1]) }
            if first == "Requests/sec:", words.count > 1 { perSecond = Double(words[1]) }
            if words.count > 2, words[1] == "requests", words[2] == "in" { requests = Double(first) }
        }
        guard let requests, let perSecond, let p50, let p99 else { return nil }
        return (requests, perSecond, p50, p99)
    }

    /// User + system CPU seconds of this process's waited-for children (wrk, once it has ended).
    static func childrenCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}

/// A task that sleeps 5 ms again and again, from its start to ``stop()``, and records how late it
/// wakes each time: an unrelated task's view of how free the threads Swift's tasks run on are while
/// requests are in flight (a blocked thread there delays every task queued behind it).
final class LatenessProbe: Sendable {
    private let overshoots = Locked<[Double]>([])
    private let task: Task<Void, Never>

    init() {
        let overshoots = self.overshoots
        task = Task.detached {
            while !Task.isCancelled {
                let due = ContinuousClock.now.advanced(by: .milliseconds(5))
                do { try await Task.sleep(until: due, clock: .continuous) } catch { return }
                let late = due.duration(to: .now).inSecondsValue
                overshoots.withLock { $0.append(late) }
            }
        }
    }

    /// Ends the probe; every wake's lateness in seconds, sorted.
    func stop() async -> [Double] {
        task.cancel()
        await task.value
        return overshoots.withLock { $0 }.sorted()
    }
}

/// This process's threads and their context switch counts (`/proc/self/task`; empty elsewhere): which
/// threads a path wakes, and how often, where `getrusage` gives only the process's total.
struct ThreadCensus {
    /// Per thread id: its name and its voluntary + involuntary context switches so far.
    var threads: [Int: (name: String, switches: Int)] = [:]

    static func now() -> ThreadCensus {
        var census = ThreadCensus()
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        for tid in tasks.compactMap(Int.init) {
            guard let status = try? String(contentsOfFile: "/proc/self/task/\(tid)/status", encoding: .utf8) else {
                continue
            }
            var name = "?"
            var switches = 0
            for line in status.split(separator: "\n") {
                if line.hasPrefix("Name:") { name = line.dropFirst(5).trimmingCharacters(in: .whitespaces) }
                if line.hasPrefix("voluntary_ctxt_switches:") || line.hasPrefix("nonvoluntary_ctxt_switches:") {
                    switches += Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
            census.threads[tid] = (name, switches)
        }
        return census
    }

    /// Threads that ran since `earlier` (new ones, or ones whose switch count moved), and their
    /// switches by name (numbers stripped, so a pool's threads add up under one name).
    func since(_ earlier: ThreadCensus) -> (ran: Int, switchesByName: [String: Int]) {
        var ran = 0
        var byName: [String: Int] = [:]
        for (tid, thread) in threads {
            let moved = thread.switches - (earlier.threads[tid]?.switches ?? 0)
            guard moved > 0 else { continue }
            ran += 1
            let name = String(thread.name.filter { !$0.isNumber })
                .trimmingCharacters(in: CharacterSet(charactersIn: ".-_ "))
            byName[name.isEmpty ? "?" : name, default: 0] += moved
        }
        return (ran, byName)
    }
}

/// A benchmark that could not run as planned, in words.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
