import BenchSupport
import Foundation
import RetryFlow
import RetryFlowCharts
import RetryFlowGraphviz
import RetryFlowHTTP
import RetryFlowTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Benchmarks of the engine's waits and of in-process rendering.
enum EngineBenchmarks {
    /// `render-in-process`: a run drawn over the flowchart, to SVG through libgvc at the layout
    /// cached for the process (``ChartLayout``), against spawning `dot -Tsvg` on the same DOT.
    static func renderInProcess(quick: Bool) async throws -> BenchmarkResult {
        let table = RetryTable.retry
        // A real run's trace, as users have them (they receive traces from runs, never build one): a 503
        // after 20 ms, the default wait, then a 200, simulated on a manual clock.
        let trace = try await Simulation.run(
            outcomes: [
                ScriptedOutcome(.status(503, retryAfter: nil), duration: .milliseconds(20)),
                ScriptedOutcome(.status(200, retryAfter: nil), duration: .milliseconds(20)),
            ], retry: .policy(.default)
        ).trace
        let dot = DOTChart.render(table, style: .flowchart, overlay: TraceOverlay(trace: trace, table: table))
        let layout = try ChartLayout.cached(table, style: .flowchart)
        _ = try layout.render(dot: dot)
        let batch = 25
        let freshNote = String(
            format: "a fresh layout each time: %.2f ms",
            try Measure.blockingSeconds { for _ in 0..<batch { _ = try Graphviz.render(dot: dot, format: "svg") } }
                / Double(batch) * 1000)
        func cachedBatch() throws -> Double {
            try Measure.blockingSeconds { for _ in 0..<batch { _ = try layout.render(dot: dot) } } / Double(batch)
        }
        guard let dotProgram = Measure.which("dot") else {
            return BenchmarkResult(
                name: "render-in-process", value: try cachedBatch() * 1000, unit: "ms/render",
                baseline: "spawning dot -Tsvg",
                baselineValue: nil, ratio: nil, goal: "ratio <= 1/15", met: nil,
                note: "baseline skipped: the dot program is not installed (apt-get install graphviz); \(freshNote)")
        }
        // A file of this run's own (a fixed name was shared by concurrent runs), removed after.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "retryflow-bench-\(UUID().uuidString).dot")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(dot.utf8).write(to: file)
        // Interleaved: one spawn, then a batch of cached renders, so both see the same machine load.
        var spawned: [Double] = []
        var cached: [Double] = []
        for _ in 0..<(quick ? 5 : 40) {
            spawned.append(try await Measure.run(dotProgram, ["-Tsvg", file.path]).seconds)
            cached.append(try cachedBatch())
        }
        let baseline = Measure.median(spawned)
        let value = Measure.median(cached)
        let ratio = value / baseline
        return BenchmarkResult(
            name: "render-in-process", value: value * 1000, unit: "ms/render", baseline: "spawning dot -Tsvg",
            baselineValue: baseline * 1000, ratio: ratio, goal: "ratio <= 1/15 (0.067)", met: ratio <= 1.0 / 15,
            note: "median of \(cached.count) batches of \(batch) renders at the cached layout, interleaved with "
                + "\(spawned.count) spawns; \(freshNote)")
    }

    /// `wait-precision`: how late (never early) the engine's waits end on the real clock: 50 ms
    /// backoff waits, and Retry-After waits of 1 s.
    static func waitPrecision(quick: Bool) async throws -> [BenchmarkResult] {
        let waits = quick ? 10 : 200
        let policy = RetryPolicy(
            maxAttempts: waits + 1, backoff: .constant(.milliseconds(50)), maxDelay: .seconds(1), jitter: .none)
        let starts = Starts()
        _ = try await Retry(policy).outcome { _ -> Int in
            starts.add(ContinuousClock.now)
            throw URLError(.networkConnectionLost)
        }
        let backoffOvershoots = starts.gaps().map { ($0 - 0.050) * 1000 }

        let retryAfters = quick ? 1 : 20
        let raStarts = Starts()
        let request = URLRequest(url: URL(string: "http://simulated.invalid/")!)
        let raPolicy = RetryPolicy(maxAttempts: retryAfters + 1, backoff: .constant(.milliseconds(50)), jitter: .none)
        _ = try await HTTPRetryRun.outcome(for: request, retry: .policy(raPolicy), clock: ContinuousClock()) { _ in
            raStarts.add(ContinuousClock.now)
            let response = HTTPURLResponse(
                url: request.url!, statusCode: 503, httpVersion: nil, headerFields: ["Retry-After": "1"])!
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
                note:
                    "\(backoffOvershoots.count) waits of 50 ms; max \(String(format: "%.2f", backoffOvershoots.max() ?? 0)) ms; \(early) early of \(all.count)"
            ),
            BenchmarkResult(
                name: "wait-precision-retry-after", value: raMedian, unit: "ms overshoot (median)",
                baseline: "Retry-After: 1",
                baselineValue: 0, ratio: nil, goal: "median <= 2 ms, 0 early",
                met: raMedian <= 2 && raOvershoots.allSatisfy { $0 >= 0 },
                note:
                    "\(raOvershoots.count) Retry-After waits of 1 s; max \(String(format: "%.2f", raOvershoots.max() ?? 0)) ms"
            ),
        ]
    }
}

/// A benchmark that could not run, with why.
struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
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
