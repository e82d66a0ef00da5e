import Foundation
import RetryFlow
import RetryFlowGraphviz
import RetryFlowHTTP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Benchmarks of the engine's waits and of in-process rendering.
enum EngineBenchmarks {
    /// `render-in-process`: flowchart DOT to SVG through libgvc, against spawning `dot -Tsvg`.
    static func renderInProcess(quick: Bool) async throws -> BenchmarkResult {
        let dot = DOTChart.render(RetryTable.retry, style: .flowchart)
        let renders = quick ? 50 : 200
        _ = try Graphviz.render(dot: dot, format: "svg")
        let inProcess = try Measure.seconds { for _ in 0..<renders { _ = try Graphviz.render(dot: dot, format: "svg") } } / Double(renders)
        guard let dotProgram = Measure.which("dot") else {
            return BenchmarkResult(
                name: "render-in-process", value: inProcess * 1000, unit: "ms/render", baseline: "spawning dot -Tsvg",
                baselineValue: nil, ratio: nil, goal: "ratio <= 1/15", met: nil,
                note: "baseline skipped: the dot program is not installed (apt-get install graphviz)")
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("retryflow-bench.dot")
        try Data(dot.utf8).write(to: file)
        var spawned: [Double] = []
        for _ in 0..<(quick ? 10 : 40) { spawned.append(try await Measure.run(dotProgram, ["-Tsvg", file.path]).seconds) }
        let baseline = Measure.median(spawned)
        let ratio = inProcess / baseline
        return BenchmarkResult(
            name: "render-in-process", value: inProcess * 1000, unit: "ms/render", baseline: "spawning dot -Tsvg",
            baselineValue: baseline * 1000, ratio: ratio, goal: "ratio <= 1/15 (0.067)", met: ratio <= 1.0 / 15,
            note: "mean of \(renders) in-process renders; median of \(spawned.count) spawns")
    }

    /// `wait-precision`: how late (never early) the engine's waits end on the real clock: 50 ms
    /// backoff waits, and Retry-After waits of 1 s.
    static func waitPrecision(quick: Bool) async throws -> [BenchmarkResult] {
        let waits = quick ? 40 : 200
        let policy = RetryPolicy(maxAttempts: waits + 1, backoff: .constant(.milliseconds(50)), maxDelay: .seconds(1), jitter: .none)
        let starts = Starts()
        _ = try await Retry(policy).outcome { _ -> Int in
            starts.add(ContinuousClock.now)
            throw URLError(.networkConnectionLost)
        }
        let backoffOvershoots = starts.gaps().map { ($0 - 0.050) * 1000 }

        let retryAfters = quick ? 5 : 20
        let raStarts = Starts()
        let request = URLRequest(url: URL(string: "http://simulated.invalid/")!)
        let raPolicy = RetryPolicy(maxAttempts: retryAfters + 1, backoff: .constant(.milliseconds(50)), jitter: .none)
        _ = try await HTTPRetryRun.outcome(for: request, retry: raPolicy, clock: ContinuousClock()) { _ in
            raStarts.add(ContinuousClock.now)
            let response = HTTPURLResponse(url: request.url!, statusCode: 503, httpVersion: nil, headerFields: ["Retry-After": "1"])!
            return HTTPResponse(data: Data(), response: response)
        }
        let raOvershoots = raStarts.gaps().map { ($0 - 1.0) * 1000 }
        let all = backoffOvershoots + raOvershoots
        let early = all.filter { $0 < 0 }.count
        let median = Measure.median(backoffOvershoots)
        let raMedian = Measure.median(raOvershoots)
        return [
            BenchmarkResult(
                name: "wait-precision", value: median, unit: "ms overshoot (median)", baseline: "the scheduled time",
                baselineValue: 0, ratio: nil, goal: "median <= 2 ms, 0 early", met: median <= 2 && early == 0,
                note: "\(backoffOvershoots.count) waits of 50 ms; max \(String(format: "%.2f", backoffOvershoots.max() ?? 0)) ms; \(early) early of \(all.count)"),
            BenchmarkResult(
                name: "wait-precision-retry-after", value: raMedian, unit: "ms overshoot (median)", baseline: "Retry-After: 1",
                baselineValue: 0, ratio: nil, goal: "median <= 2 ms, 0 early", met: raMedian <= 2 && raOvershoots.allSatisfy { $0 >= 0 },
                note: "\(raOvershoots.count) Retry-After waits of 1 s; max \(String(format: "%.2f", raOvershoots.max() ?? 0)) ms"),
        ]
    }

    /// `waiting-memory`: resident memory per retry parked in a wait (10,000 at once).
    static func waitingMemory(quick: Bool) async throws -> BenchmarkResult {
        let count = quick ? 2_000 : 10_000
        let policy = RetryPolicy(maxAttempts: 2, backoff: .constant(.seconds(60)), maxDelay: .seconds(60), jitter: .none)
        let parked = Starts()
        let (allParked, signal) = AsyncStream.makeStream(of: Void.self)
        var engine = Retry(policy)
        engine.onRetry = { _ in
            parked.add(ContinuousClock.now)
            if parked.count == count { signal.yield() }
        }
        let before = Measure.residentBytes()
        let runs = (0..<count).map { _ in
            Task { [engine] in _ = try? await engine.outcome { _ -> Int in throw URLError(.networkConnectionLost) } }
        }
        var iterator = allParked.makeAsyncIterator()
        _ = await iterator.next()
        try await Task.sleep(for: .milliseconds(200))  // let the last runs reach their sleep
        let after = Measure.residentBytes()
        for run in runs { run.cancel() }
        for run in runs { await run.value }
        let perWait = (after - before) / Double(count)
        return BenchmarkResult(
            name: "waiting-memory", value: perWait / 1024, unit: "KB per waiting retry", baseline: "-", baselineValue: nil,
            ratio: nil, goal: "<= 4 KB", met: perWait <= 4096,
            note: "\(count) retries parked in a 60 s wait; RSS \(Int(before / 1_048_576)) → \(Int(after / 1_048_576)) MiB")
    }
}

/// Instants collected from concurrent callbacks.
final class Starts: Sendable {
    private let instants = Locked<[ContinuousClock.Instant]>([])

    func add(_ instant: ContinuousClock.Instant) { instants.withLock { $0.append(instant) } }

    var count: Int { instants.withLock { $0.count } }

    /// Seconds between consecutive instants.
    func gaps() -> [Double] {
        instants.withLock { instants in zip(instants, instants.dropFirst()).map { $0.duration(to: $1).inSecondsValue } }
    }
}
