import BenchSupport
import Foundation
import RetryFlow
import RetryFlowHTTP
import RetryFlowTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `retryflow-bench __nginx PATHS N [IN-FLIGHT] [ROUNDS]`: where `data(for:retry:)`'s cost against
/// nginx goes, step by step. PATHS is a comma-separated list of ``NginxConcurrency/Side`` names
/// (`bare,handler,untimed,retry`; RetryFlowHTTP's transport
/// alone is internal to its package, out of reach of this one), each sending N GETs of a 1 KiB file, IN-FLIGHT
/// at once (default 1: sequential), in ROUNDS interleaved rounds (default 1; each round starts at
/// another path) on one session against a fresh nginx. Prints, per path, the medians of wall, CPU
/// and context switches per request and their ratios to the first path, then the median of the
/// per-round ratios (each round's pair measured seconds apart: the figure to compare paths by).
/// With one path and one round it is the thing to run under `perf record` or `strace -c`.
enum NginxPaths {
    /// With `RETRYFLOW_ROUND_TIMES` set, each round's path and its start and end on `CLOCK_MONOTONIC`
    /// are printed, the clock `perf record -k CLOCK_MONOTONIC` stamps its samples with: then
    /// `scripts/perf-by-round.py` splits one process's profile by path (two paths measured in the
    /// same process, seconds apart, rather than in two processes that drift apart).
    static let printsRoundTimes = ProcessInfo.processInfo.environment["RETRYFLOW_ROUND_TIMES"] != nil

    static func monotonicSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    static func run(_ names: String, count: Int, inFlight: Int, rounds: Int) async throws {
        var paths: [NginxConcurrency.Side] = []
        for name in names.split(separator: ",") {
            guard let path = NginxConcurrency.Side(rawValue: String(name)) else {
                let known = NginxConcurrency.Side.allCases.map(\.rawValue).joined(separator: ", ")
                throw BenchError("unknown path \(name): \(known)")
            }
            paths.append(path)
        }
        guard !paths.isEmpty, count > 0, inFlight > 0, rounds > 0 else {
            throw BenchError("usage: __nginx PATHS N [IN-FLIGHT] [ROUNDS]")
        }
        let nginx = try await NginxServer.start(
            files: ["1KiB.bin": Data(count: 1024)], configuration: .init(accessLog: false))
        defer { nginx.stop() }
        let session = HTTPBenchmarks.session(connections: max(inFlight, 6))
        let request = URLRequest(url: nginx.url("/1KiB.bin"))
        for path in paths {
            _ = try await NginxConcurrency.concurrent(
                path, session, request, count: min(count, 10 * inFlight + 20), size: 1024, inFlight: inFlight)
        }
        var measured: [NginxConcurrency.Side: [NginxConcurrency.Round]] = [:]
        for round in 0..<rounds {
            let order = paths[(round % paths.count)...] + paths[..<(round % paths.count)]
            for path in order {
                let started = monotonicSeconds()
                measured[path, default: []].append(
                    try await NginxConcurrency.concurrent(
                        path, session, request, count: count, size: 1024, inFlight: inFlight))
                if printsRoundTimes { print("round \(path.rawValue) \(started) \(monotonicSeconds())") }
            }
        }
        func perRequest(_ path: NginxConcurrency.Side, _ value: (NginxConcurrency.Round) -> Double) -> Double {
            Measure.median((measured[path] ?? []).map { value($0) / Double($0.requests) })
        }
        let first = paths[0]
        // Each path's ratio to the first path within the same round, then the median over rounds: the
        // machine drifts between rounds (bare alone moved 462–780 µs of CPU a request within an hour),
        // and a pair measured seconds apart cancels that drift; the ratio of two medians does not.
        func pairedRatio(_ path: NginxConcurrency.Side, _ value: (NginxConcurrency.Round) -> Double) -> Double {
            Measure.median(zip(measured[path] ?? [], measured[first] ?? []).map { value($0) / value($1) })
        }
        for path in paths {
            let wall = perRequest(path) { $0.seconds } * 1e6
            let cpu = perRequest(path) { $0.cpuSeconds } * 1e6
            let switches = perRequest(path) { Double($0.contextSwitches) }
            let p99 = Measure.median((measured[path] ?? []).map { $0.percentile(0.99) }) * 1e3
            print(
                String(
                    format:
                        "%@ ×%d: %7.1f µs wall (%.3f), %6.1f µs CPU (%.3f), %5.1f context switches (%.3f) per request, p99 %.2f ms; paired by round: wall %.3f, CPU %.3f",
                    path.label, inFlight, wall, wall / (perRequest(first) { $0.seconds } * 1e6), cpu,
                    cpu / (perRequest(first) { $0.cpuSeconds } * 1e6), switches,
                    switches / perRequest(first) { Double($0.contextSwitches) }, p99,
                    pairedRatio(path) { $0.seconds / Double($0.requests) },
                    pairedRatio(path) { $0.cpuSeconds / Double($0.requests) }))
        }
    }
}
