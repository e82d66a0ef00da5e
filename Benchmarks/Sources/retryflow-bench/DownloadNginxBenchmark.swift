import BenchSupport
import Foundation
import RetryFlow
import RetryFlowHTTP
import RetryFlowTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `download-nginx`: a 200 MB file from a real nginx (Debian's nginx-light, on 127.0.0.1), side by
/// side with curl in the same run: uncut; behind ``CuttingProxy`` aborting every connection after
/// 7 MB (RetryFlow with its default download policy, against its own uncut time and `curl --retry
/// -C -`); and a first connection that trickles after 2 MB, ended by a speed limit.
enum DownloadNginxBenchmark {
    static let cutBytes = 7_000_000
    static let trickleAfter = 2_000_000

    static func run(quick: Bool) async throws -> [BenchmarkResult] {
        let size = quick ? 32_000_000 : 200_000_000
        let cuts = (size - 1) / cutBytes
        let nginx = try await NginxServer.start(configuration: NginxServer.Configuration(accessLog: false))
        defer { nginx.stop() }
        try writeFile(size: size, to: nginx.root.appendingPathComponent("big.bin"))
        try writeFile(size: 1 << 20, to: nginx.root.appendingPathComponent("warm-up.bin"))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "retryflow-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("big.bin")
        let session = HTTPBenchmarks.session()
        func retryFlow(_ url: URL, options: DownloadOptions = DownloadOptions()) async throws -> (
            Double, DownloadOutcome
        ) {
            var outcome: DownloadOutcome?
            let seconds = try await Measure.seconds {
                outcome = try await session.downloadOutcome(
                    for: URLRequest(url: url), to: file, retry: .policy(.download), options: options,
                    clock: ContinuousClock())
            }
            let done = outcome?.succeeded == true && (try? fileSize(file)) == size
            try? FileManager.default.removeItem(at: file)
            guard let outcome, done else { throw BenchmarkFailure("RetryFlow did not complete \(url.path)") }
            return (seconds, outcome)
        }
        guard let curl = Measure.which("curl") else { throw BenchmarkFailure("curl not found") }
        func curlRun(_ url: URL, _ extra: [String]) async throws -> (seconds: Double, ok: Bool, onDisk: Int) {
            let (status, seconds) = try await Measure.run(curl, ["-s", "-o", file.path] + extra + [url.absoluteString])
            let onDisk = (try? fileSize(file)) ?? 0
            try? FileManager.default.removeItem(at: file)
            return (seconds, status == 0 && onDisk == size, onDisk)
        }

        // Warm-up: URLSession, libcurl and nginx's file cache loaded before anything is measured.
        _ = try await session.download(
            for: URLRequest(url: nginx.url("/warm-up.bin")), to: folder.appendingPathComponent("w"),
            retry: .policy(.download))
        _ = try await curlRun(nginx.url("/big.bin"), [])

        // Memory: the first uncut run, from a process that has not yet moved hundreds of MB.
        let residentBefore = Measure.residentBytes()
        Measure.resetPeakResident()
        var uncut = [try await retryFlow(nginx.url("/big.bin")).0]
        let growth = Measure.peakResidentBytes() - residentBefore

        // Uncut, cut and curl interleaved, so load from other work falls on every side alike.
        let repetitions = quick ? 1 : 5
        var curlUncut: [Double] = []
        var bareUncut: [Double] = []
        var bareSynced: [Double] = []
        var cut: [Double] = []
        var cutAttempts: [Int] = []
        var sentRatios: [Double] = []
        for repetition in 0..<repetitions {
            curlUncut.append(try await curlRun(nginx.url("/big.bin"), []).seconds)
            for syncs in [false, true] {
                guard
                    let bare = await BareURLSessionDownload.run(
                        nginx.url("/big.bin"), to: file, configuration: session.configuration, syncs: syncs),
                    (try? fileSize(file)) == size
                else { throw BenchmarkFailure("bare URLSession did not complete /big.bin") }
                try? FileManager.default.removeItem(at: file)
                if syncs { bareSynced.append(bare) } else { bareUncut.append(bare) }
            }
            if repetition > 0 { uncut.append(try await retryFlow(nginx.url("/big.bin")).0) }
            let proxy = try CuttingProxy.start(to: nginx.port, plan: [.cut(after: cutBytes)])
            defer { proxy.stop() }
            let (seconds, outcome) = try await retryFlow(proxy.url("/big.bin"))
            cut.append(seconds)
            cutAttempts.append(outcome.retry.attempts.count)
            sentRatios.append(Double(proxy.bytesSent) / Double(size))
        }

        // curl --retry -C - through the same cuts (1 s between tries, its smallest constant wait).
        let curlProxy = try CuttingProxy.start(to: nginx.port, plan: [.cut(after: cutBytes)])
        let curlCut = try await curlRun(
            curlProxy.url("/big.bin"),
            ["--retry", "\(cuts + 2)", "--retry-all-errors", "--retry-delay", "1", "--retry-max-time", "20", "-C", "-"])
        let curlCutSent = Double(curlProxy.bytesSent) / Double(size)
        curlProxy.stop()

        // A first connection that trickles (1,000 B/s) after 2 MB, ended by the speed limit.
        let limit = DownloadOptions.SpeedLimit(bytesPerSecond: 100_000, window: .seconds(2))
        let trickle = CuttingProxy.Plan.trickle(after: trickleAfter, bytesPerSecond: 1_000)
        let stallProxy = try CuttingProxy.start(to: nginx.port, plan: [trickle, .pass])
        let (stalled, stallOutcome) = try await retryFlow(
            stallProxy.url("/big.bin"), options: DownloadOptions(speedLimit: limit))
        stallProxy.stop()
        let curlStallProxy = try CuttingProxy.start(to: nginx.port, plan: [trickle, .pass])
        let curlStall = try await curlRun(
            curlStallProxy.url("/big.bin"),
            ["--speed-limit", "100000", "--speed-time", "2", "--retry", "3", "--retry-delay", "1", "-C", "-"])
        let curlStallSent = Double(curlStallProxy.bytesSent) / Double(size)
        curlStallProxy.stop()

        let uncutSeconds = Measure.median(uncut)
        let curlSeconds = Measure.median(curlUncut)
        let bareSeconds = Measure.median(bareUncut)
        let bareSyncedSeconds = Measure.median(bareSynced)
        let cutSeconds = Measure.median(cut)
        let cutBudget = 1.5 * uncutSeconds + 0.1 * Double(cuts)
        let sent = sentRatios.max() ?? .nan
        let label = "\(Measure.bytes(size)) from nginx"
        func describe(_ run: (seconds: Double, ok: Bool, onDisk: Int), sent: Double) -> String {
            String(
                format: "%@ %.2f s, sent %.2f × file, %@ on disk", run.ok ? "ok" : "FAILED", run.seconds, sent,
                Measure.bytes(run.onDisk))
        }
        return [
            // The goal reads against the floor, not curl: a bare URLSession data task that writes and
            // syncs as RetryFlow does costs the same (corelibs hands every 16 KiB chunk to the delegate
            // queue), so 1.3 × curl is out of any URLSession client's reach (issue 37, docs/benchmarks.md).
            BenchmarkResult(
                name: "download-nginx uncut", value: uncutSeconds, unit: "s",
                baseline: "bare URLSession data task writing each chunk, then fsync (the floor)",
                baselineValue: bareSyncedSeconds, ratio: uncutSeconds / bareSyncedSeconds, goal: "ratio <= 1.3",
                met: uncutSeconds <= 1.3 * bareSyncedSeconds,
                note: "\(label), median of \(uncut.count) interleaved; the floor of any URLSession client that syncs "
                    + "before installing, as RetryFlow does: "
                    + bareSynced.map { String(format: "%.2f", $0) }.joined(separator: ", ")
                    + String(
                        format: " s; without the fsync %.2f × curl (which does not sync): ", bareSeconds / curlSeconds)
                    + bareUncut.map { String(format: "%.2f", $0) }.joined(separator: ", ") + " s"),
            BenchmarkResult(
                name: "download-nginx uncut, curl", value: uncutSeconds, unit: "s", baseline: "curl -o, same file",
                baselineValue: curlSeconds, ratio: uncutSeconds / curlSeconds, goal: "report", met: nil,
                note: "RetryFlow " + uncut.map { String(format: "%.2f", $0) }.joined(separator: ", ") + " s, curl "
                    + curlUncut.map { String(format: "%.2f", $0) }.joined(separator: ", ") + " s"),
            BenchmarkResult(
                name: "download-nginx memory", value: growth / 1_048_576, unit: "MiB", baseline: "32 MiB",
                baselineValue: 32, ratio: growth / 1_048_576 / 32, goal: "peak RSS growth <= 32 MiB",
                met: growth <= 32 * 1_048_576, note: "peak RSS during the first uncut download minus RSS before it"),
            BenchmarkResult(
                name: "download-nginx cut", value: cutSeconds, unit: "s",
                baseline: "1.5 × uncut + 0.1 s × \(cuts) cuts", baselineValue: cutBudget, ratio: cutSeconds / cutBudget,
                goal: "ratio <= 1", met: cutSeconds <= cutBudget,
                note: "every connection closed after 7 MB (FIN: each byte sent is read), RetryPolicy.download; "
                    + cut.map { String(format: "%.2f", $0) }.joined(separator: ", ") + " s; attempts "
                    + cutAttempts.map(String.init).joined(separator: ", ") + "; curl --retry -C -: "
                    + describe(curlCut, sent: curlCutSent)),
            BenchmarkResult(
                name: "download-nginx bytes", value: sent, unit: "× file", baseline: "the file's size",
                baselineValue: 1, ratio: sent, goal: "ratio <= 1.02", met: sent <= 1.02,
                note: "bytes the proxy sent towards the client (headers included), the worst cut run"),
            BenchmarkResult(
                name: "download-nginx stall", value: stalled, unit: "s", baseline: "curl, same stall",
                baselineValue: curlStall.seconds, ratio: stalled / curlStall.seconds, goal: "report", met: nil,
                note: "first connection trickles at 1,000 B/s after 2 MB; speed limit 100,000 B/s over 2 s; "
                    + "RetryFlow \(stallOutcome.retry.attempts.count) attempts, resumed at byte "
                    + "\(stallOutcome.ranges.last?.requestedFrom ?? 0); curl --speed-limit --retry -C -: "
                    + describe(curlStall, sent: curlStallSent)),
        ]
    }

    /// Writes `size` bytes of FlakyServer's generated body to `url`, in slices.
    static func writeFile(size: Int, to url: URL) throws {
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        let resource = FlakyServer.Resource(size: size)
        var offset = 0
        while offset < size {
            let end = min(size, offset + 4 << 20)
            try handle.write(contentsOf: resource.bytes(offset..<end))
            offset = end
        }
    }

    static func fileSize(_ url: URL) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
    }
}
