import Foundation
import RetryFlow
import RetryFlowHTTP

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `retryflow fetch URL -o FILE`: the body streams into `FILE.part`, each cut attempt resumes
/// where it stopped, and the file is renamed to FILE once every byte is there. curl's download
/// flags (`-C -`, `--speed-limit`, `--speed-time`) are rows of ``CurlOptions``; retryflow's own
/// (`--sha256`, `--trace-transfer`) are here. What is printed, and the exit status, are
/// ``FetchCommand``'s, the same for a download as for any fetch.
enum FetchDownload {
    static let specs = [OptionSpec("--sha256"), OptionSpec("--trace-transfer")]

    static let help = """
          With -o or -O, the body streams into FILE.part and is renamed to FILE when complete; a cut
          attempt resumes with Range/If-Range; on failure FILE.part is kept for a later -C -. An
          attempt has no time limit unless --timeout sets one: a stalled one ends by the idle timeout
          (60 s, or --connect-timeout) or --speed-limit, and the next resumes.
          --sha256 HEX            the SHA-256 FILE must have; a mismatch fails and removes it
          --trace-transfer FILE   write the transfer trace (each attempt's byte range) as JSON;
                                  draw it with 'retryflow render --machine transfer --trace FILE'

        """

    /// The download options the flags ask for; throws for flags that need a streamed download
    /// when there is none (no -o/-O, or -I) or that are malformed.
    static func options(from args: CommandLineArguments, streamed: Bool) throws(UsageError) -> DownloadOptions {
        for flag in ["--continue-at", "--sha256", "--speed-limit", "--speed-time", "--trace-transfer"]
        where args.has(flag) && !streamed {
            throw UsageError(
                "\(flag) needs -o FILE or -O (a download to a regular file, not a device such as /dev/null; -I downloads no body)"
            )
        }
        var options = DownloadOptions()
        if let offset = args.value("--continue-at") {
            guard offset == "-" else {
                throw UsageError("--continue-at takes '-' (continue from the file's size), got \"\(offset)\"")
            }
            guard !args.has("--include") else {
                // FILE would start with a head: its size is not the body's, so it cannot be continued.
                throw UsageError("-C - continues the body in FILE; it does not go with -i/--include")
            }
            options.resumeExisting = true
        }
        if let hex = args.value("--sha256") {
            let digits = Set("0123456789abcdefABCDEF")
            guard hex.count == 64, hex.allSatisfy({ digits.contains($0) }) else {
                throw UsageError("--sha256 needs 64 hexadecimal digits, got \"\(hex)\"")
            }
            options.expectedSHA256 = hex.lowercased()
        }
        let limit = try args.integer("--speed-limit", in: 1...Int(Int32.max))
        let time = try args.seconds("--speed-time")
        if time == .zero { throw UsageError("--speed-time must be more than 0") }
        if limit != nil || time != nil {
            // curl: --speed-time alone means a floor of 1 byte/s; --speed-limit alone, 30 s.
            options.speedLimit = .init(bytesPerSecond: limit ?? 1, window: time ?? .seconds(30))
        }
        if let path = args.value("--trace-transfer") { try AtomicFile.checkWritable(path, option: "--trace-transfer") }
        return options
    }

    /// Runs the download (a live progress line on a terminal unless silent), and writes
    /// --trace-transfer. Reporting and the exit status are the caller's.
    static func run(
        _ request: URLRequest, to path: String, retry options: HTTPRetryOptions, download: DownloadOptions,
        configuration: URLSessionConfiguration, reporter: ProgressReporter?, args: CommandLineArguments
    ) async throws -> DownloadOutcome {
        let line = DownloadProgressLine(enabled: reporter != nil && Console.stderrIsTerminal)
        let (stream, progress) = AsyncStream<DownloadProgress>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let display = Task { for await update in stream { line.show(update) } }
        var options = options
        if let reporter { options.onTransition = { step in line.interrupt { reporter.record(step) } } }
        let outcome: DownloadOutcome
        do {
            // URLSession.download applies no default per-attempt timeout (HTTPRetryRules.defaultAttemptTimeout
            // is for answers held in memory): a large file may take hours; a stall is what ends an attempt.
            outcome = try await URLSession(configuration: configuration).downloadOutcome(
                for: request, to: URL(fileURLWithPath: path), retry: options, options: download, progress: progress)
        } catch let problem as DownloadProblem {
            throw OperationFailed("\(problem)")
        }
        await display.value
        line.clear()
        if let tracePath = args.value("--trace-transfer") { try writeTransferTrace(outcome.transfer, to: tracePath) }
        return outcome
    }

    /// Puts what curl would write in FILE once the download is over and returns -w's
    /// `%{size_download}`: a complete file stays (with -i, the final response's head is put
    /// before it); a final answer that is not the file (a 404's words) is written like any body
    /// when `verdict` says so; otherwise nothing is written and FILE.part stays to continue.
    static func place(
        _ download: DownloadOutcome, at path: String, verdict: FetchExit, include: Bool
    ) throws(OperationFailed) -> Int {
        // The bytes this run put in the file: from the lowest offset an attempt wrote at.
        let written = download.ranges.compactMap(\.wroteFrom).min().map { max(0, download.bytesOnDisk - $0) }
        if download.succeeded {
            if include, let response = download.response {
                try AtomicFile.prepend(Data(FetchCommand.head(of: response).utf8), to: path)
            }
            return written ?? 0
        }
        guard let answer = download.retry.value, written == nil else { return written ?? 0 }
        guard verdict.writesBody else { return 0 }
        var data = include ? Data(FetchCommand.head(of: answer.response).utf8) : Data()
        data += answer.data
        try AtomicFile.write(data, to: path)
        return answer.data.count
    }

    static func writeTransferTrace(_ trace: TransferTrace, to path: String) throws(OperationFailed) {
        guard let data = try? TraceJSON.encode(trace, formatting: [.prettyPrinted, .sortedKeys]) else {
            throw OperationFailed("cannot encode the transfer trace")
        }
        try AtomicFile.write(data + Data("\n".utf8), to: path)
    }
}
