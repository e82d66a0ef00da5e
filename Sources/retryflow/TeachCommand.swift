import Foundation
import RetryFlow
import RetryFlowFigures
import RetryFlowTestSupport

/// `retryflow teach`: the classic retry figures (AWS 2015, Brooker 2022, the SRE book) regenerated
/// by the engine, as CSV and SVG (docs/figures.md explains each).
enum TeachCommand {
    static let specs = [
        OptionSpec("-o", "--output"), OptionSpec("--runs"), OptionSpec("--seed"),
        OptionSpec("-h", "--help", value: false),
    ]

    static let figures = ClassicFigures.Figure.allCases.map(\.rawValue) + ["all"]

    static let help = """
        usage: retryflow teach [contention|load|throttling|all] [--output DIR] [--runs N] [--seed N]

        Regenerates the figures every retry lesson cites, from RetryFlow's own code on a virtual clock,
        seeded (the same options give the same bytes), as CSV and SVG (default: all of them):
          contention   AWS "Exponential Backoff And Jitter" (2015): N clients (10 to 190) update one
                       record under optimistic concurrency; calls and time until all land, for no wait,
                       exponential backoff, and full, equal and decorrelated jitter (RetryPolicy's delays)
          load         Brooker "Fixing retries with token buckets and circuit breakers" (2022): load on
                       a server and success against its failure rate, for no retry, 3 retries, the retry
                       budget and the breaker (the real RetryBudget and CircuitBreaker, in the fleet simulation)
          throttling   the SRE book's client-side throttling, max(0, (requests − 2·accepts)/(requests + 1)),
                       beside the real AdaptiveRateLimiter in the same scenario
          -o, --output DIR   the folder to write into (made if missing; default retryflow-figures)
          --runs N           runs each contention point averages (default 100, AWS's)
          --seed N           the seed of every draw (default 1)
        docs/figures.md shows them with their formulas; `make docs` regenerates docs/figures/.
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        guard
            let args = try CommandLineArguments.forCommand(
                arguments, specs: specs, command: "teach", help: help, positionals: true)
        else { return 0 }
        guard args.positionals.count <= 1 else {
            throw UsageError("teach takes one figure, got \"\(args.positionals.joined(separator: " "))\"")
        }
        let name = args.positionals.first ?? "all"
        guard figures.contains(name) else {
            throw UsageError("teach: unknown figure \"\(name)\" (use \(figures.joined(separator: ", ")))")
        }
        let chosen = name == "all" ? ClassicFigures.Figure.allCases : [ClassicFigures.Figure(rawValue: name)!]
        let runs = try args.integer("--runs", in: 1...10_000) ?? ClassicFigures.defaultRuns
        let seed: UInt64
        if let text = args.value("--seed") {
            guard let value = UInt64(text) else {
                throw UsageError("--seed needs a whole number from 0, got \"\(text)\"")
            }
            seed = value
        } else {
            seed = 1
        }
        let folder = args.value("--output") ?? "retryflow-figures"
        try makeFolder(folder)
        for figure in chosen {
            for file in try await ClassicFigures.files(figure, runs: runs, seed: seed) {
                let path = (folder as NSString).appendingPathComponent(file.name)
                try AtomicFile.write(Data(file.contents.utf8), to: path)
                Console.output("wrote \(path)\n")
            }
        }
        return 0
    }

    /// Makes `folder` when it is missing (its parent must exist); refuses a file in its place.
    static func makeFolder(_ folder: String) throws(UsageError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw UsageError("--output \(folder): is not a folder") }
            guard FileManager.default.isWritableFile(atPath: folder) else {
                throw UsageError("--output \(folder): folder is not writable")
            }
            return
        }
        let parent = URL(fileURLWithPath: folder).deletingLastPathComponent().path
        guard FileManager.default.fileExists(atPath: parent, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw UsageError("--output \(folder): folder \(parent) does not exist")
        }
        do { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false) } catch {
            throw UsageError("--output \(folder): cannot make it (\(error.localizedDescription))")
        }
    }
}
