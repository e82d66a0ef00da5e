import Foundation
import RetryFlow
import RetryFlowHTTP

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `retryflow fetch URL -o FILE`: the body streams into `FILE.part`, each cut attempt resumes
/// where it stopped, and the file is renamed to FILE once every byte is there. Its own flags live
/// here: `-C -`, `--sha256`, `--speed-limit`, `--speed-time`.
enum FetchDownload {
    static let specs = [
        OptionSpec("-C", "--continue-at"), OptionSpec("--sha256"), OptionSpec("--speed-limit"),
        OptionSpec("--speed-time"), OptionSpec("--trace-transfer"),
    ]

    static let help = """
          With -o, the body streams into FILE.part and is renamed to FILE when complete; a cut
          attempt resumes with Range/If-Range; on failure FILE.part is kept for a later -C -.
          -C, --continue-at -     continue from the size of FILE (or FILE.part) left by an earlier run
          --sha256 HEX            the SHA-256 FILE must have; a mismatch fails and removes it
          --speed-limit BYTES     an attempt slower than BYTES/s for --speed-time is a stall: retried,
                                  resuming (default off)
          --speed-time SECONDS    how long the rate may stay below --speed-limit (default 30)
          --trace-transfer FILE   write the transfer trace (each attempt's byte range) as JSON;
                                  draw it with 'retryflow render --machine transfer --trace FILE'

        """

    /// The download options the flags ask for; throws for flags that need `-o` when it is absent
    /// or that are malformed.
    static func options(from args: CommandLineArguments) throws(UsageError) -> DownloadOptions {
        let output = args.value("--output")
        for flag in ["--continue-at", "--sha256", "--speed-limit", "--speed-time", "--trace-transfer"]
        where args.has(flag) && output == nil {
            throw UsageError("\(flag) needs -o FILE (a download to a file)")
        }
        var options = DownloadOptions()
        if let offset = args.value("--continue-at") {
            guard offset == "-" else {
                throw UsageError("--continue-at takes '-' (continue from the file's size), got \"\(offset)\"")
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

    /// Runs the download; returns the exit status and the retry run (for --trace and --verbose).
    static func run(
        _ request: URLRequest, to path: String, options: DownloadOptions, policy: RetryPolicy, rules: HTTPRetryRules,
        configuration: URLSessionConfiguration, reporter: ProgressReporter, args: CommandLineArguments
    ) async throws -> (Int32, RetryOutcome<HTTPResponse>) {
        let line = DownloadProgressLine(enabled: Console.stderrIsTerminal)
        let (stream, progress) = AsyncStream<DownloadProgress>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let display = Task { for await update in stream { line.show(update) } }
        let outcome: DownloadOutcome
        do {
            outcome = try await URLSession(configuration: configuration).downloadOutcome(
                for: request, to: URL(fileURLWithPath: path), retry: policy, options: options, rules: rules,
                clock: ContinuousClock(), onTransition: { step in line.interrupt { reporter.record(step) } },
                progress: progress)
        } catch let problem as DownloadProblem {
            throw OperationFailed("\(problem)")
        }
        await display.value
        line.clear()
        if let tracePath = args.value("--trace-transfer") { try writeTransferTrace(outcome.transfer, to: tracePath) }

        let attempts = outcome.retry.attempts.count
        let took = outcome.retry.duration.shortDescription
        if outcome.succeeded {
            let resumed = outcome.transfer.resumeSummary.map { " (\($0))" } ?? ""
            let size = ByteCount.describe(outcome.bytesOnDisk)
            let status = outcome.response?.statusCode ?? 0
            Console.error("fetch: HTTP \(status), \(size) in \(path) after \(attempts) attempt(s) in \(took)\(resumed)")
            return (0, outcome.retry)
        }
        Console.error(Console.paint("fetch: \(DownloadError(outcome: outcome))", .bad))
        if outcome.bytesOnDisk > 0 && outcome.transferState != .complete {
            Console.error("fetch: run again with -C - to continue from byte \(outcome.bytesOnDisk)")
        }
        return (1, outcome.retry)
    }

    static func writeTransferTrace(_ trace: TransferTrace, to path: String) throws(OperationFailed) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(trace) else { throw OperationFailed("cannot encode the transfer trace") }
        try AtomicFile.write(data + Data("\n".utf8), to: path)
    }
}
