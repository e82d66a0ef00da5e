import Foundation
import RetryFlow
import RetryFlowHTTP
import RetryFlowTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `download-resume`: a large body whose connection is cut every few MB, downloaded by
/// `URLSession.download(for:to:retry:)` (resuming), against the same body downloaded uninterrupted
/// in the same run; curl `--retry` without and with `-C -` for reference, side by side.
enum DownloadBenchmark {
    /// FlakyServer cuts a response after N bytes *of that response*, and the client's windows adapt
    /// to how fast it writes, so no script can place cuts at fixed file offsets. Instead every second
    /// response is cut after 5 MB (decimal: inside any window of 8 MiB or more, not on its edge,
    /// where a drop would cost nothing), `cuts` times; the rest are served whole. A window shrunk
    /// below 5 MB is served whole by its cut step, so the attempts are counted, not assumed.
    static func steps(cuts: Int) -> [FlakyServer.DownloadStep] {
        Array(repeating: [.serve, .cut(after: cutBytes)], count: cuts).flatMap { $0 } + [.serve]
    }

    /// Where a cut response stops: 5 MB.
    static let cutBytes = 5_000_000

    /// The window `DownloadOptions()` asks for by default (its constant is package API).
    static let defaultWindow: Int = {
        guard let window = DownloadOptions().bytesPerRequest else { preconditionFailure("no default window") }
        return window
    }()

    static func run(quick: Bool) async throws -> [BenchmarkResult] {
        let size = quick ? 64 << 20 : 256 << 20
        // Decimal MB: cuts fall inside 8 MiB windows, not on their edges (where a drop costs nothing).
        let cut = quick ? 8_000_000 : 32_000_000
        let cuts = (size - 1) / cut
        let resource = FlakyServer.Resource(size: size, etag: "\"bench\"")
        let server = try FlakyServer()
        defer { server.stop() }
        let script = steps(cuts: cuts)
        for path in ["/whole", "/curl-whole"] { try server.serveDownload(resource, at: path) }
        try server.serveDownload(resource, at: "/cut", steps: script)
        for path in ["/curl-restart", "/curl-continue"] {
            try server.serveDownload(resource, at: path, steps: [.cut(after: cut)])
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "retryflow-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Cuts are the subject here, not backoff: no wait between attempts. (curl cannot retry at once:
        // its --retry-delay 0 means "the default, 1 s doubling"; it gets 1 s, its smallest constant.)
        let policy = RetryPolicy(maxAttempts: cuts + 3, backoff: .constant(.zero), jitter: .none)
        let session = HTTPBenchmarks.session()

        // A small download first, so URLSession and libcurl are loaded before anything is measured.
        let warmUp = folder.appendingPathComponent("warm-up")
        try server.serveDownload(FlakyServer.Resource(size: 1 << 20), at: "/warm-up")
        _ = try await session.download(for: URLRequest(url: server.url("/warm-up")), to: warmUp, retry: .policy(policy))

        // The resumed download first, so its memory growth is measured from a process that has not
        // yet moved hundreds of MB (the uninterrupted runs come after).
        let resumed = folder.appendingPathComponent("resumed")
        let residentBefore = Measure.residentBytes()
        Measure.resetPeakResident()
        var outcome: DownloadOutcome?
        let resumedSeconds = try await Measure.seconds {
            outcome = try await session.download(
                for: URLRequest(url: server.url("/cut")), to: resumed, retry: .policy(policy)
            ).1
        }
        let growth = Measure.peakResidentBytes() - residentBefore
        let sent = Double(server.bodyBytesSent(to: "/cut"))
        let requests = server.requests.filter { $0.path == "/cut" }.count
        let attempts = outcome?.retry.attempts.count ?? 0
        let complete = outcome?.succeeded == true && outcome?.bytesOnDisk == size
        try? FileManager.default.removeItem(at: resumed)

        // Then pairs, interleaved: uninterrupted, resumed again (on a fresh cut path, so the server
        // cuts it the same way). The machine is shared and noisy, so the wall figure is the median of
        // the pairs' ratios, the first resumed run included.
        let whole = folder.appendingPathComponent("whole")
        var wholeTimes: [Double] = []
        var resumedTimes = [resumedSeconds]
        let pairs = quick ? 2 : 3
        for pair in 0..<pairs {
            wholeTimes.append(
                try await Measure.seconds {
                    _ = try await session.download(
                        for: URLRequest(url: server.url("/whole")), to: whole, retry: .policy(policy))
                })
            try FileManager.default.removeItem(at: whole)
            guard pair < pairs - 1 else { break }
            let path = "/cut-\(pair)"
            try server.serveDownload(resource, at: path, steps: script)
            resumedTimes.append(
                try await Measure.seconds {
                    _ = try await session.download(
                        for: URLRequest(url: server.url(path)), to: resumed, retry: .policy(policy))
                })
            try FileManager.default.removeItem(at: resumed)
        }
        let wholeSeconds = Measure.median(wholeTimes)
        let wallRatio = Measure.median(zip(resumedTimes, wholeTimes).map { $0 / $1 })

        var curlNote = "curl not found"
        if let curl = Measure.which("curl") {
            func curlRun(_ path: String, _ extra: [String]) async throws -> String {
                let file = folder.appendingPathComponent(String(path.dropFirst())).path
                let (status, seconds) = try await Measure.run(
                    curl,
                    ["-s", "-o", file, "--retry", "\(cuts + 2)", "--retry-all-errors", "--retry-delay", "1"]
                        + extra + [server.url(path).absoluteString])
                let onDisk = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
                try? FileManager.default.removeItem(atPath: file)
                let ratio = Double(server.bodyBytesSent(to: path)) / Double(size)
                return String(
                    format: "%@ %.2f s, sent %.2f × file, %@",
                    status == 0 && onDisk == size ? "ok" : "FAILED (exit \(status))",
                    seconds, ratio, Measure.bytes(onDisk) + " on disk")
            }
            let plain = try await curlRun("/curl-whole", [])
            let restart = try await curlRun("/curl-restart", [])
            let resume = try await curlRun("/curl-continue", ["-C", "-"])
            curlNote = "curl uninterrupted: \(plain); curl --retry: \(restart); curl --retry -C -: \(resume)"
        }

        let sizeNote = "\(Measure.bytes(size)), every second response cut after 5 MB, up to \(cuts) times"
        let sentRatio = sent / Double(size)
        return [
            BenchmarkResult(
                name: "download-resume bytes", value: sent, unit: "bytes", baseline: "the file's size",
                baselineValue: Double(size), ratio: sentRatio, goal: "ratio <= 1.02",
                met: complete && sentRatio <= 1.02,
                note: "\(sizeNote); \(attempts) attempts, \(requests) requests, \(complete ? "complete" : "INCOMPLETE")"
            ),
            BenchmarkResult(
                name: "download-resume wall", value: Measure.median(resumedTimes), unit: "s",
                baseline: "the same download uninterrupted", baselineValue: wholeSeconds, ratio: wallRatio,
                goal: "ratio <= 1.3", met: complete && wallRatio <= 1.3,
                note: "median ratio of \(pairs) interleaved pairs; \(curlNote)"),
            BenchmarkResult(
                name: "download-resume memory", value: growth / 1_048_576, unit: "MiB", baseline: "32 MiB",
                baselineValue: 32, ratio: growth / 1_048_576 / 32, goal: "peak RSS growth <= 32 MiB",
                met: growth <= 32 * 1_048_576,
                note: "peak RSS during the resumed download minus RSS before it; "
                    + "adaptive windows (8 MiB first, up to \(Measure.bytes(defaultWindow)))"
            ),
        ]
    }

    /// `download-resume-large` (not in --quick; `--size MIB`, default 1024): a body of `size` bytes
    /// cut once per 128 MB of file, downloaded with adaptive windows (every second window cut after
    /// 5 MB, `size / 128 MB` times) and asking for the whole rest (each response cut after 128 MB), each in a fresh process (heap pages another run left behind would blur the figure),
    /// interleaved, `repetitions` times; the figure is the windowed median, the other for reference.
    /// `--quick` runs it once at 32 MiB cut every 10 MB, to check that it still runs.
    static func runLarge(size: Int, quick: Bool) async throws -> [BenchmarkResult] {
        let (size, cut, repetitions) = quick ? (32 << 20, 10_000_000, 1) : (size, largeCut, 3)
        let me = CommandLine.arguments[0]
        var runs: [Int: [LargeRun]] = [:]
        for _ in 0..<repetitions {
            for window in [defaultWindow, 0] {
                let log = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID().uuidString)")
                _ = FileManager.default.createFile(atPath: log.path, contents: nil)
                defer { try? FileManager.default.removeItem(at: log) }
                let result = try await Measure.run(
                    me, ["__download-large", "\(window)", "\(size)", "\(cut)"], output: log)
                let text = try String(contentsOf: log, encoding: .utf8)
                guard result.status == 0, let run = LargeRun(text) else {
                    throw BenchmarkFailure("__download-large \(window) \(size) \(cut) exited \(result.status): \(text)")
                }
                runs[window, default: []].append(run)
            }
        }
        func describe(_ all: [LargeRun]) -> String {
            let growth = all.map { String(format: "%.1f", $0.growth) }.joined(separator: ", ")
            let seconds = all.map { String(format: "%.2f", $0.seconds) }.joined(separator: ", ")
            let requests = all.map { String($0.requests) }.joined(separator: ", ")
            return "growth \(growth) MiB; \(seconds) s; \(all[0].attempts) attempts; \(requests) requests; sent "
                + String(format: "%.3f", all.map(\.sent).max() ?? 0) + " × file"
        }
        let windowed = runs[defaultWindow] ?? []
        let whole = runs[0] ?? []
        let median = Measure.median(windowed.map(\.growth))
        let worst = windowed.map(\.growth).max() ?? .infinity
        let complete = (windowed + whole).allSatisfy(\.complete)
        return [
            BenchmarkResult(
                name: "download-resume-large memory", value: median, unit: "MiB", baseline: "32 MiB",
                baselineValue: 32, ratio: median / 32, goal: "peak RSS growth <= 32 MiB (every run)",
                met: complete && worst <= 32,
                note: "\(Measure.bytes(size)), up to \(size / cut) cuts, "
                    + "\(complete ? "every file complete, its bytes the body's" : "INCOMPLETE"); "
                    + "adaptive windows (8 MiB first, up to \(Measure.bytes(defaultWindow))): "
                    + "\(describe(windowed)); whole rest per request: \(describe(whole))")
        ]
    }

    /// One cut per 128 MB of the large figure's file (decimal, so the whole rest's cuts fall inside
    /// a window rather than on its edge, where a drop would cost nothing).
    static let largeCut = 128_000_000

    /// One large download in this process (`__download-large WINDOW SIZE CUT`, 0 for no window),
    /// printed as `growth-MiB seconds attempts complete sent-ratio requests`.
    static func largeRun(window: Int, size: Int, cut: Int) async throws -> String {
        let resource = FlakyServer.Resource(size: size, etag: "\"bench\"")
        let server = try FlakyServer()
        defer { server.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "retryflow-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let policy = RetryPolicy(maxAttempts: size / cut + 3, backoff: .constant(.zero), jitter: .none)
        let session = HTTPBenchmarks.session()
        let options = DownloadOptions(bytesPerRequest: window > 0 ? window : nil)
        let warmUp = folder.appendingPathComponent("warm-up")
        try server.serveDownload(FlakyServer.Resource(size: 1 << 20), at: "/warm-up")
        _ = try await session.download(
            for: URLRequest(url: server.url("/warm-up")), to: warmUp, retry: .policy(policy), options: options)

        try server.serveDownload(
            resource, at: "/file", steps: window > 0 ? steps(cuts: size / cut) : [.cut(after: cut)])
        let file = folder.appendingPathComponent("file")
        let before = Measure.residentBytes()
        Measure.resetPeakResident()
        var outcome: DownloadOutcome?
        let seconds = try await Measure.seconds {
            outcome = try await session.download(
                for: URLRequest(url: server.url("/file")), to: file, retry: .policy(policy), options: options
            ).1
        }
        let growth = (Measure.peakResidentBytes() - before) / 1_048_576
        let matches = (try? await resource.firstDifference(fromFileAt: file)) == .some(nil)
        let complete = outcome?.succeeded == true && outcome?.bytesOnDisk == size && matches
        let sent = Double(server.bodyBytesSent(to: "/file")) / Double(size)
        return String(
            format: "%.2f %.3f %d %d %.4f %d", growth, seconds, outcome?.retry.attempts.count ?? 0, complete ? 1 : 0,
            sent, server.requests.filter { $0.path == "/file" }.count)
    }

    /// What `__download-large` printed.
    struct LargeRun {
        var growth: Double
        var seconds: Double
        var attempts: Int
        var complete: Bool
        var sent: Double
        var requests: Int

        init?(_ text: String) {
            let fields = text.split(whereSeparator: \.isWhitespace)
            guard fields.count == 6, let growth = Double(fields[0]), let seconds = Double(fields[1]),
                let attempts = Int(fields[2]), let sent = Double(fields[4]), let requests = Int(fields[5])
            else { return nil }
            (self.growth, self.seconds, self.attempts, complete, self.sent, self.requests) =
                (growth, seconds, attempts, fields[3] == "1", sent, requests)
        }
    }
}
