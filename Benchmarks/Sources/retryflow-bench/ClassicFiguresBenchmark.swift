import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `classic-figures`: `retryflow teach all`, the three classic figures at full size (contention: 19
/// client counts × 5 algorithms × 100 runs; load: 11 failure rates × 4 fleets; throttling: 16 loads
/// × 3 curves), in a process of its own, from start to the last file written. Goal: ≤ 30 s (issue 39).
enum ClassicFiguresBenchmark {
    static func run(quick: Bool) async throws -> [BenchmarkResult] {
        guard let tool = ProcessInfo.processInfo.environment["RETRYFLOW_CLI"],
            FileManager.default.isExecutableFile(atPath: tool)
        else {
            return [
                BenchmarkResult(
                    name: "classic-figures", value: .nan, unit: "s", baseline: "-", baselineValue: nil, ratio: nil,
                    goal: "≤ 30 s", met: nil,
                    note: "skipped: set RETRYFLOW_CLI to a release build of retryflow (make bench does)")
            ]
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("retryflow-figures-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        var times: [Double] = []
        var cpu: [Double] = []
        for _ in 0..<(quick ? 1 : 3) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = ["teach", "all", "--output", folder.path]
            process.standardOutput = FileHandle.nullDevice
            let start = ContinuousClock.now
            let cpuBefore = childrenCPUSeconds()
            try process.run()
            process.waitUntilExit()
            let elapsed = ContinuousClock.now - start
            cpu.append(childrenCPUSeconds() - cpuBefore)
            guard process.terminationStatus == 0 else {
                throw BenchmarkFailure("retryflow teach all exited \(process.terminationStatus)")
            }
            times.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
        }
        let median = times.sorted()[times.count / 2]
        let load =
            (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3)
            .joined(separator: " ") ?? "?"
        return [
            BenchmarkResult(
                name: "classic-figures", value: median, unit: "s", baseline: "-", baselineValue: nil, ratio: nil,
                goal: "≤ 30 s", met: median <= 30,
                note:
                    "retryflow teach all, median of \(times.count) (\(times.map { String(format: "%.1f", $0) }.joined(separator: ", ")) s); "
                    + "CPU \(cpu.map { String(format: "%.1f", $0) }.joined(separator: ", ")) s; load \(load)"
            )
        ]
    }

    /// User and system time of the finished children so far (the load does not inflate it as it does wall time).
    static func childrenCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
