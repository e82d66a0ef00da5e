import BenchSupport
import Foundation
import RetryFlow
import RetryFlowHTTP
import RetryFlowTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `deadline-under-load`: how late a deadline ends a run on a loaded machine. 200 runs at once,
/// each with a 300 ms deadline, against a server in another process that accepts and never answers
/// (so only the deadline can end them), while two CPU hogs (`yes`) hold the cores. Reported: how
/// far past 300 ms each run returned to its caller (wall clock), p50, p99 and max; the baseline is
/// the same number of plain `Task.sleep(for: 300 ms)` under the same load, the floor any timer sees.
enum DeadlineUnderLoad {
    static let deadline = Duration.milliseconds(300)

    /// The child process's side (`retryflow-bench __hang-server SECONDS`): a FlakyServer whose one
    /// path hangs, its URL on stdout, for `seconds` at most (it also ends when its parent does).
    static func serveHanging(seconds: Int) async throws {
        let server = try FlakyServer(scripts: ["/hang": [.hang]])
        FileHandle.standardOutput.write(Data((server.url("/hang").absoluteString + "\n").utf8))
        let parent = getppid()
        for _ in 0..<seconds * 10 where getppid() == parent {
            try await Task.sleep(for: .milliseconds(100))
        }
        server.stop()
    }

    static func run(quick: Bool) async throws -> [BenchmarkResult] {
        let runs = quick ? 50 : 200
        let repetitions = quick ? 1 : 3
        let (server, url) = try startHangingServer()
        defer { kill(server.pid, SIGKILL) }
        let hogs = try (0..<2).map { _ in try startHog() }
        defer {
            for hog in hogs { kill(hog.pid, SIGKILL) }
        }
        var late: [Double] = []
        var sleepLate: [Double] = []
        for _ in 0..<repetitions {
            late += try await overshoots(runs: runs, url: url)
            sleepLate += await sleepOvershoots(count: runs)
        }
        late.sort()
        sleepLate.sort()
        let goals: [(String, (([Double]) -> Double), Double)] = [
            ("p50", { percentile($0, 0.5) }, .infinity), ("p99", { percentile($0, 0.99) }, 50),
            ("max", { $0.last ?? .nan }, 250),
        ]
        return goals.map { label, pick, goal in
            let value = pick(late)
            let baseline = pick(sleepLate)
            return BenchmarkResult(
                name: "deadline-under-load \(label)", value: value, unit: "ms past the 300 ms deadline",
                baseline: "Task.sleep(300 ms) under the same load", baselineValue: baseline,
                ratio: baseline > 0 ? value / baseline : nil, goal: goal.isFinite ? "<= \(Int(goal)) ms" : "-",
                met: goal.isFinite ? value <= goal : nil,
                note: "\(runs) concurrent runs x \(repetitions), hanging server in another process, 2 CPU hogs")
        }
    }

    /// How far past the deadline each of `runs` concurrent runs returned, in ms.
    static func overshoots(runs: Int, url: URL) async throws -> [Double] {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = runs
        configuration.timeoutIntervalForRequest = 30
        configuration.urlCache = nil // an ended attempt's data task is cancelled, its connection freed
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        let policy = RetryPolicy(
            maxAttempts: 3, backoff: .constant(.milliseconds(20)), jitter: .none, deadline: deadline)
        return try await withThrowingTaskGroup(of: Double.self) { group in
            for _ in 0..<runs {
                group.addTask {
                    let start = ContinuousClock.now
                    let outcome = try await session.retryOutcome(for: URLRequest(url: url), retry: .policy(policy))
                    let took = start.duration(to: .now)
                    guard outcome.reason == .deadlineExceeded else {
                        throw BenchmarkFailure("ended by \(outcome.reason)")
                    }
                    return (took - deadline).inSecondsValue * 1000
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    /// How late `count` concurrent 300 ms sleeps wake, in ms: the timer floor under this load.
    static func sleepOvershoots(count: Int) async -> [Double] {
        await withTaskGroup(of: Double.self) { group in
            for _ in 0..<count {
                group.addTask {
                    let start = ContinuousClock.now
                    try? await Task.sleep(for: deadline)
                    return (start.duration(to: .now) - deadline).inSecondsValue * 1000
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
    }

    static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
    }

    /// This binary again as `__hang-server`, and the URL it prints.
    static func startHangingServer() throws -> (ChildProcess, URL) {
        let pipe = Pipe()
        let process = try ChildProcess.spawn(
            CommandLine.arguments[0], ["__hang-server", "600"],
            output: .descriptor(pipe.fileHandleForWriting.fileDescriptor))
        try? pipe.fileHandleForWriting.close()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = pipe.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw BenchmarkFailure("the hanging server printed no URL") }
            line += chunk
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let url = URL(string: text) else { throw BenchmarkFailure("bad URL from the server: \(text)") }
        return (process, url)
    }

    /// One CPU hog: `yes` writing to /dev/null, as a loaded CI box or laptop has.
    static func startHog() throws -> ChildProcess {
        guard let yes = Measure.which("yes") else { throw BenchmarkFailure("no yes on PATH") }
        return try ChildProcess.spawn(yes, [])
    }
}
