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
    static func run(quick: Bool) async throws -> [BenchmarkResult] {
        let size = quick ? 64 << 20 : 256 << 20
        let cut = quick ? 8 << 20 : 32 << 20
        let cuts = (size - 1) / cut
        let resource = FlakyServer.Resource(size: size, etag: "\"bench\"")
        let server = try FlakyServer()
        defer { server.stop() }
        for path in ["/whole", "/curl-whole"] { try server.serveDownload(resource, at: path) }
        for path in ["/cut", "/curl-restart", "/curl-continue"] {
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
        _ = try await session.download(for: URLRequest(url: server.url("/warm-up")), to: warmUp, retry: policy)

        // The resumed download first, so its memory growth is measured from a process that has not
        // yet moved hundreds of MB (the uninterrupted runs come after).
        let resumed = folder.appendingPathComponent("resumed")
        let residentBefore = Measure.residentBytes()
        Measure.resetPeakResident()
        var outcome: DownloadOutcome?
        let resumedSeconds = try await Measure.seconds {
            outcome = try await session.download(for: URLRequest(url: server.url("/cut")), to: resumed, retry: policy).1
        }
        let growth = Measure.peakResidentBytes() - residentBefore
        let sent = Double(server.bodyBytesSent(to: "/cut"))
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
                    _ = try await session.download(for: URLRequest(url: server.url("/whole")), to: whole, retry: policy)
                })
            try FileManager.default.removeItem(at: whole)
            guard pair < pairs - 1 else { break }
            let path = "/cut-\(pair)"
            try server.serveDownload(resource, at: path, steps: [.cut(after: cut)])
            resumedTimes.append(
                try await Measure.seconds {
                    _ = try await session.download(for: URLRequest(url: server.url(path)), to: resumed, retry: policy)
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
                    seconds, ratio, ByteCount.describe(onDisk) + " on disk")
            }
            let plain = try await curlRun("/curl-whole", [])
            let restart = try await curlRun("/curl-restart", [])
            let resume = try await curlRun("/curl-continue", ["-C", "-"])
            curlNote = "curl uninterrupted: \(plain); curl --retry: \(restart); curl --retry -C -: \(resume)"
        }

        let sizeNote = "\(ByteCount.describe(size)) cut every \(ByteCount.describe(cut)) (\(cuts) cuts)"
        let sentRatio = sent / Double(size)
        return [
            BenchmarkResult(
                name: "download-resume bytes", value: sent, unit: "bytes", baseline: "the file's size",
                baselineValue: Double(size), ratio: sentRatio, goal: "ratio <= 1.02",
                met: complete && sentRatio <= 1.02,
                note: "\(sizeNote); \(attempts) attempts, \(complete ? "complete" : "INCOMPLETE")"),
            BenchmarkResult(
                name: "download-resume wall", value: Measure.median(resumedTimes), unit: "s",
                baseline: "the same download uninterrupted", baselineValue: wholeSeconds, ratio: wallRatio,
                goal: "ratio <= 1.3", met: complete && wallRatio <= 1.3,
                note: "median ratio of \(pairs) interleaved pairs; \(curlNote)"),
            BenchmarkResult(
                name: "download-resume memory", value: growth / 1_048_576, unit: "MiB", baseline: "32 MiB",
                baselineValue: 32, ratio: growth / 1_048_576 / 32, goal: "peak RSS growth <= 32 MiB",
                met: growth <= 32 * 1_048_576, note: "peak RSS during the resumed download minus RSS before it"),
        ]
    }
}
