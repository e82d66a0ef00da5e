import Foundation
import RetryFlow
import RetryFlowHTTP
import RetryFlowTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The benchmarks that drive URLSession against FlakyServer on 127.0.0.1.
enum HTTPBenchmarks {
    static func session(connections: Int = 6) -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = connections
        configuration.timeoutIntervalForRequest = 60
        return URLSession(configuration: configuration)
    }

    /// `concurrent-flaky`: N requests at once, each 503, 503, 200 with 100 ms waits, against the
    /// ideal: 2 × 100 ms plus what bare URLSession takes for the same 3N requests without waits.
    static func concurrentFlaky(quick: Bool) async throws -> BenchmarkResult {
        let count = quick ? 50 : 1000
        var ratios: [Double] = []
        var retryTimes: [Double] = []
        var idealTimes: [Double] = []
        for repetition in 0..<(quick ? 3 : 5) {
            var scripts: [String: [FlakyServer.Step]] = [:]
            for index in 0..<count {
                scripts["/r/\(index)"] = [.status(503), .status(503), .status(200)]
                scripts["/b/\(index)"] = [.status(200)]
            }
            let server = try FlakyServer(scripts: scripts)
            defer { server.stop() }
            let policy = RetryPolicy(maxAttempts: 3, backoff: .constant(.milliseconds(100)), jitter: .none)
            let session = self.session()
            // Bare: the same 3N requests, concurrently, no waits.
            let bare = try await Measure.seconds {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<count {
                        for _ in 0..<3 {
                            group.addTask {
                                _ = try await session.data(for: URLRequest(url: server.url("/b/\(index)")))
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            }
            let retried = try await Measure.seconds {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<count {
                        group.addTask {
                            let (_, response) = try await session.data(
                                for: URLRequest(url: server.url("/r/\(index)")), retry: .policy(policy))
                            precondition(response.statusCode == 200)
                        }
                    }
                    try await group.waitForAll()
                }
            }
            let ideal = 0.2 + bare
            if repetition > 0 || quick {
                retryTimes.append(retried)
                idealTimes.append(ideal)
                ratios.append(retried / ideal)
            }
        }
        let ratio = Measure.median(ratios)
        return BenchmarkResult(
            name: "concurrent-flaky", value: Measure.median(retryTimes), unit: "s",
            baseline: "ideal: 2 × 100 ms + bare URLSession for 3N requests",
            baselineValue: Measure.median(idealTimes), ratio: ratio, goal: "ratio <= 1.2", met: ratio <= 1.2,
            note: "N = \(count), median of \(ratios.count)")
    }

    /// `seed-design`: the original snippet's design (a recursive completion handler that
    /// `usleep`s on the session's delegate queue) against RetryFlow, N requests of 2 resets then 200.
    static func seedDesign(quick: Bool) async throws -> BenchmarkResult {
        let count = quick ? 4 : 50
        var scripts: [String: [FlakyServer.Step]] = [:]
        for index in 0..<count {
            scripts["/seed/\(index)"] = [.reset, .reset, .status(200)]
            scripts["/flow/\(index)"] = [.reset, .reset, .status(200)]
        }
        let server = try FlakyServer(scripts: scripts)
        defer { server.stop() }
        let seedSession = session()
        let seedTime = await Measure.seconds {
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<count {
                    group.addTask {
                        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                            SeedSnippet.retryDataTask(
                                session: seedSession, request: URLRequest(url: server.url("/seed/\(index)")), times: 5,
                                wait: 100_000
                            ) { _, _, _ in continuation.resume() }
                        }
                    }
                }
            }
        }
        let flowSession = session()
        let policy = RetryPolicy.originalSnippet(times: 5, wait: .milliseconds(100))
        let flowTime = await Measure.seconds {
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<count {
                    group.addTask {
                        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                            let task = try! flowSession.retryDataTask(
                                with: URLRequest(url: server.url("/flow/\(index)")),
                                retry: HTTPRetryOptions(policy, rules: HTTPRetryRules(retryableStatuses: []))
                            ) { _ in continuation.resume() }
                            task.resume()
                        }
                    }
                }
            }
        }
        return BenchmarkResult(
            name: "seed-design", value: seedTime, unit: "s", baseline: "RetryFlow, same N and waits",
            baselineValue: flowTime,
            ratio: seedTime / flowTime, goal: "report", met: nil,
            note: "N = \(count); the snippet's waits serialise on the delegate queue (≈ N × 2 × 100 ms)")
    }

    /// `success-overhead`: sequential GETs that succeed at once, RetryFlow against bare `data(for:)`.
    static func successOverhead(quick: Bool) async throws -> BenchmarkResult {
        // Many short pairs, each starting with the other side than the last: on a shared machine the load
        // changes within seconds (pairs of 2,000 swung 0.9–3.0 within one run).
        let count = quick ? 100 : 400
        let server = try FlakyServer(scripts: ["/ok": [.status(200, body: "ok")]])
        defer { server.stop() }
        let session = self.session()
        let request = URLRequest(url: server.url("/ok"))
        let policy = RetryPolicy.default
        for _ in 0..<50 { _ = try await session.data(for: request) }
        var ratios: [Double] = []
        var bareTimes: [Double] = []
        var flowTimes: [Double] = []
        var cpuRatios: [Double] = [] // process CPU time: less sensitive to other processes' load
        func timed(_ body: () async throws -> Void) async throws -> (wall: Double, cpu: Double) {
            let cpu = TransportPaths.cpuSeconds()
            let wall = try await Measure.seconds { try await body() }
            return (wall, TransportPaths.cpuSeconds() - cpu)
        }
        for pair in 0..<(quick ? 3 : 45) {
            func sendBare() async throws { for _ in 0..<count { _ = try await session.data(for: request) } }
            func sendFlow() async throws {
                for _ in 0..<count { _ = try await session.data(for: request, retry: .policy(policy)) }
            }
            let bareFirst = pair.isMultiple(of: 2)
            let first = try await timed(bareFirst ? sendBare : sendFlow)
            let second = try await timed(bareFirst ? sendFlow : sendBare)
            let (bare, bareCPU) = bareFirst ? first : second
            let (flow, flowCPU) = bareFirst ? second : first
            bareTimes.append(bare)
            flowTimes.append(flow)
            ratios.append(flow / bare)
            cpuRatios.append(flowCPU / bareCPU)
        }
        let ratio = Measure.median(ratios)
        return BenchmarkResult(
            name: "success-overhead", value: Measure.median(flowTimes) / Double(count) * 1e6, unit: "µs/request",
            baseline: "bare URLSession.data(for:)", baselineValue: Measure.median(bareTimes) / Double(count) * 1e6,
            ratio: ratio,
            goal: "ratio <= 1.03", met: ratio <= 1.03,
            note: "\(count) sequential GETs, median of \(ratios.count) interleaved pairs (ratios "
                + String(
                    format: "%.3f–%.3f); CPU time ratio %.3f", ratios.min() ?? 0, ratios.max() ?? 0,
                    Measure.median(cpuRatios)))
    }

    /// `cli-startup`: a whole `retryflow fetch` process against a minimal Swift program doing one
    /// URLSession GET (compiled here with swiftc -O), and curl for reference.
    static func cliStartup(quick: Bool) async throws -> BenchmarkResult {
        let server = try FlakyServer(scripts: ["/one": [.status(200, body: "ok")]])
        defer { server.stop() }
        let url = server.url("/one").absoluteString
        // The CLI is an executable of RetryFlow's package, which a package depending on it does not
        // build: `make bench` builds it and names it here.
        guard let tool = ProcessInfo.processInfo.environment["RETRYFLOW_CLI"],
            FileManager.default.isExecutableFile(atPath: tool)
        else {
            return BenchmarkResult(
                name: "cli-startup", value: .nan, unit: "ms", baseline: "-", baselineValue: nil, ratio: nil,
                goal: "ratio <= 1.2", met: nil,
                note: "skipped: set RETRYFLOW_CLI to a release build of retryflow (make bench does)")
        }
        guard let bare = try await BareGet.build() else {
            return BenchmarkResult(
                name: "cli-startup", value: .nan, unit: "ms", baseline: "-", baselineValue: nil, ratio: nil,
                goal: "ratio <= 1.2",
                met: nil, note: "skipped: swiftc could not build the minimal GET program")
        }
        defer { try? FileManager.default.removeItem(at: URL(fileURLWithPath: bare).deletingLastPathComponent()) }
        var toolTimes: [Double] = []
        var bareTimes: [Double] = []
        var curlTimes: [Double] = []
        let curl = Measure.which("curl")
        for _ in 0..<(quick ? 5 : 30) {
            bareTimes.append(try await Measure.run(bare, [url]).seconds)
            toolTimes.append(try await Measure.run(tool, ["fetch", url]).seconds)
            if let curl { curlTimes.append(try await Measure.run(curl, ["-s", "-o", "/dev/null", url]).seconds) }
        }
        let ratio = Measure.median(toolTimes) / Measure.median(bareTimes)
        let curlNote = curl == nil ? "" : String(format: "; curl %.1f ms", Measure.median(curlTimes) * 1000)
        return BenchmarkResult(
            name: "cli-startup", value: Measure.median(toolTimes) * 1000, unit: "ms",
            baseline: "minimal Swift URLSession GET",
            baselineValue: Measure.median(bareTimes) * 1000, ratio: ratio, goal: "ratio <= 1.2", met: ratio <= 1.2,
            note: "median of \(toolTimes.count) interleaved runs\(curlNote)")
    }
}

/// The floor for a Swift program fetching one URL on Linux: compiled once with swiftc -O.
enum BareGet {
    static let source = """
        import Foundation
        #if canImport(FoundationNetworking)
        import FoundationNetworking
        #endif
        let done = DispatchSemaphore(value: 0)
        var status: Int32 = 1
        URLSession.shared.dataTask(with: URL(string: CommandLine.arguments[1])!) { data, _, error in
            if let data, error == nil { FileHandle.standardOutput.write(data); status = 0 }
            done.signal()
        }.resume()
        done.wait()
        exit(status)
        """

    /// Compiles the bare GET into a folder of this run's own: a fixed path was shared by concurrent
    /// runs (and users) and reused a binary built from an older source.
    static func build() async throws -> String? {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "retryflow-bench-bare-get-\(UUID().uuidString)")
        let binary = folder.appendingPathComponent("bare-get").path
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("main.swift")
        try Data(source.utf8).write(to: file)
        guard let swiftc = Measure.which("swiftc") else { return nil }
        let result = try await Measure.run(swiftc, ["-O", "-swift-version", "5", file.path, "-o", binary])
        return result.status == 0 ? binary : nil
    }
}

/// A faithful re-implementation of the original snippet's design, for the `seed-design` benchmark
/// only: it re-issues itself from its completion handler and `usleep`s there, on the delegate queue.
enum SeedSnippet {
    static func retryDataTask(
        session: URLSession, request: URLRequest, times: Int, wait: useconds_t,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) {
        session.dataTask(with: request) { data, response, error in
            if error != nil, times > 0 {
                usleep(wait)
                retryDataTask(
                    session: session, request: request, times: times - 1, wait: wait,
                    completionHandler: completionHandler)
            } else {
                completionHandler(data, response, error)
            }
        }.resume()
    }
}
