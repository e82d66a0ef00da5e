import BenchSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `verify-scale`: `retryflow verify` on the retry machine at 5, 10, 20 and 50 attempts, with every
/// guard and the HTTP rules, the same with a 30 s deadline, and the HTTP rules alone (issue 38's
/// table), each in a process of its own so its peak memory is its own: wall time, peak resident
/// memory, states, states a second and bytes stored a state. Against the explorer it replaced
/// (`RETRYFLOW_EXPLORER=reference`), run where it finishes within 60 s; once it does not at a bound,
/// it is not run at a larger one.
enum VerifyScale {
    /// One world of the table: its `verify` flags, the explorer (`RETRYFLOW_EXPLORER`), and the goal
    /// at 50 attempts, if it has one.
    struct World {
        let name: String
        let flags: [String]
        let deadline: Bool
        var explorer: String? = nil
        let goal: (seconds: Double, megabytes: Double)?
    }

    static let guards = ["--budget", "aws", "--breaker", "polly", "--http"]
    static let worlds = [
        World(name: "guards+HTTP", flags: guards, deadline: false, goal: nil),
        World(name: "guards+HTTP+30s", flags: guards, deadline: true, goal: (2, 200)),
        World(name: "HTTP", flags: ["--http"], deadline: false, goal: (0.5, .infinity)),
        // The deadline's world explored exactly from the start, without over-approximating its time
        // first: the explorer's own rate and cost a state at scale.
        World(name: "guards+HTTP+30s exact", flags: guards, deadline: true, explorer: "exact", goal: nil),
    ]

    /// What one run of `retryflow verify` cost: wall and CPU time, peak resident memory, and what the
    /// explorer says it explored (`RETRYFLOW_EXPLORER_STATS`).
    struct Run {
        var seconds: Double
        var cpuSeconds: Double
        var peakBytes: Double
        var states: Int?
        var storedBytes: Int?
        /// The exploration's own time (the process's less its start and its report).
        var exploring: Double?
        var finished: Bool
    }

    static func run(quick: Bool) async throws -> [BenchmarkResult] {
        guard let tool = ProcessInfo.processInfo.environment["RETRYFLOW_CLI"],
            FileManager.default.isExecutableFile(atPath: tool)
        else {
            return [
                BenchmarkResult(
                    name: "verify-scale", value: .nan, unit: "s", baseline: "-", baselineValue: nil, ratio: nil,
                    goal: "-", met: nil,
                    note: "skipped: set RETRYFLOW_CLI to a release build of retryflow (make bench does)")
            ]
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("retryflow-verify-scale-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let deadlinePolicy = folder.appendingPathComponent("deadline.json").path
        try Data(#"{"deadline": 30}"#.utf8).write(to: URL(fileURLWithPath: deadlinePolicy))
        var results: [BenchmarkResult] = []
        for world in worlds {
            var oldGaveUp = false
            for attempts in quick ? [5, 50] : [5, 10, 20, 50] {
                let arguments =
                    ["verify", "--max-attempts", "\(attempts)"] + world.flags
                    + (world.deadline ? ["--policy", deadlinePolicy] : [])
                var runs: [Run] = []
                for _ in 0..<(quick ? 1 : 3) {
                    runs.append(try await measure(tool, arguments, explorer: world.explorer, limit: 60, folder: folder))
                }
                let new = runs.sorted { $0.seconds < $1.seconds }[runs.count / 2]
                var old: Run?
                if !oldGaveUp && !quick && world.explorer == nil {
                    let run = try await measure(tool, arguments, explorer: "reference", limit: 60, folder: folder)
                    if run.finished { old = run } else { oldGaveUp = true }
                }
                let states = new.states ?? 0
                func rate(_ run: Run) -> Int { Int(Double(run.states ?? 0) / (run.exploring ?? run.seconds)) }
                var note =
                    "\(states) states, \(rate(new)) states/s exploring (\(String(format: "%.3f", new.exploring ?? .nan)) s), "
                    + "peak \(Measure.bytes(Int(new.peakBytes))), "
                    + "\(new.storedBytes.map { "\($0 / max(states, 1))" } ?? "?") B stored a state, "
                    + "cpu \(String(format: "%.2f", new.cpuSeconds)) s; median of \(runs.count)"
                if let old {
                    let oldStates = old.states ?? 0
                    note +=
                        "; old: \(oldStates) states, \(rate(old)) states/s exploring, peak "
                        + "\(Measure.bytes(Int(old.peakBytes))), \(Int(old.peakBytes) / max(oldStates, 1)) B of peak a state"
                } else if world.explorer != nil {
                    note += "; the old explorer is measured in the rows above"
                } else if !quick {
                    note += "; old: not run (did not finish within 60 s at this bound or a smaller one)"
                }
                let goal = attempts == 50 ? world.goal : nil
                let met = goal.map { new.seconds <= $0.seconds && new.peakBytes <= $0.megabytes * 1e6 }
                results.append(
                    BenchmarkResult(
                        name: "verify-scale \(attempts) \(world.name)", value: new.seconds, unit: "s",
                        baseline: "old explorer", baselineValue: old?.seconds,
                        ratio: old.map { new.seconds / $0.seconds },
                        goal: goal.map {
                            $0.megabytes.isFinite
                                ? "≤ \(String(format: "%g", $0.seconds)) s, ≤ \(Int($0.megabytes)) MB"
                                : "≤ \(String(format: "%g", $0.seconds)) s"
                        } ?? "report",
                        met: met, note: note))
            }
        }
        return results
    }

    /// Runs `tool arguments` in a process of its own, killed after `limit` seconds, with the explorer
    /// `explorer` (`RETRYFLOW_EXPLORER`), and reads its resource use (`wait4`) and its explorer's
    /// figures (its standard error).
    static func measure(_ tool: String, _ arguments: [String], explorer: String?, limit: Double, folder: URL)
        async throws -> Run
    {
        var environment = ProcessInfo.processInfo.environment
        environment["RETRYFLOW_EXPLORER_STATS"] = "1"
        environment["RETRYFLOW_EXPLORER"] = explorer
        let log = folder.appendingPathComponent("verify-\(UUID()).txt")
        let start = ContinuousClock.now
        let child = try ChildProcess.spawn(
            tool, arguments, environment: environment, output: .file(log.path), error: .standardOutput)
        let pid = child.pid
        let (status, usage) = await withCheckedContinuation { continuation in
            let ended = DispatchSemaphore(value: 0)
            let decided = DispatchSemaphore(value: 0)
            // The limit, on a thread of its own: the child is killed if it has not ended by then. It
            // is reaped only after this has decided, so the signal cannot reach a recycled pid.
            Thread.detachNewThread {
                if ended.wait(timeout: .now() + limit) == .timedOut { kill(pid, SIGKILL) }
                decided.signal()
            }
            Thread.detachNewThread {
                var info = siginfo_t()
                while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
                ended.signal()
                decided.wait()
                var status: Int32 = 0
                var usage = rusage()
                while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
                continuation.resume(returning: (status, usage))
            }
        }
        let seconds = start.duration(to: .now).inSecondsValue
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        func number(after word: String) -> Int? {
            guard let range = text.range(of: word) else { return nil }
            return Int(text[range.upperBound...].prefix { $0.isNumber })
        }
        // The explorer's own line: "explorer: S states, T transitions, O of them over-approximated,
        // B bytes stored (…)". The old explorer does not count what it stores.
        let line = text.components(separatedBy: "\n").first { $0.hasPrefix("explorer: ") } ?? ""
        let states = number(after: "explorer: ") ?? number(after: "explored ")
        let stored = line.components(separatedBy: ", ").first { $0.contains("bytes stored") }
            .flatMap { Int($0.prefix { $0.isNumber }) }
        let exploring = line.components(separatedBy: ", ").last.flatMap {
            Double($0.prefix { $0.isNumber || $0 == "." })
        }
        let cpu =
            Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
            + Double(usage.ru_stime.tv_usec) / 1e6
        // Signalled (killed at the limit) or failed: not finished.
        let finished = status & 0x7f == 0 && seconds < limit
        return Run(
            seconds: seconds, cpuSeconds: cpu, peakBytes: Double(usage.ru_maxrss) * 1024, states: states,
            storedBytes: explorer == "reference" ? nil : stored, exploring: exploring, finished: finished)
    }
}
