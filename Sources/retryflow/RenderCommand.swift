import Foundation
import RetryFlow
import RetryFlowGraphviz
import RetryFlowHTTP
import RetryFlowSnippets

/// `retryflow render`: a shipped machine's chart (retry, budget, breaker, adaptive or transfer), optionally with a
/// run drawn over it.
enum RenderCommand {
    static let specs = [
        OptionSpec("--machine"), OptionSpec("--table"), OptionSpec("--style"), OptionSpec("--format"),
        OptionSpec("-o", "--output"), OptionSpec("--trace"), OptionSpec("-h", "--help", value: false),
    ]

    static let help = """
        usage: retryflow render [--machine NAME] [--style state|flowchart] [--format FORMAT] [-o FILE]
                                [--trace TRACE.json]

        Draws a machine from the same transition table the engine executes.
          --machine NAME    retry (default), budget (the shared retry budget), breaker (the circuit breaker),
                            adaptive (the adaptive rate limiter), transfer (what a download does with its
                            bytes), or an original snippet retold as a table: swift-snippet, objc-snippet
                            (--table is another name for it; --table retryflow means retry)
          --style STYLE     state (UML state diagram) or flowchart (default flowchart)
          --format FORMAT   dot, mermaid, markdown, or a Graphviz format: svg, png, pdf, json, plain …
                            (default: from -o's extension, else dot)
          -o, --output FILE write to FILE (atomically) instead of stdout (- is stdout)
          --trace FILE      draw a run's trace (JSON, e.g. from fetch/simulate --trace, or fetch
                            --trace-transfer for transfer) over the chart; it must be a trace of the
                            machine drawn
        With --trace and format html (-o run.html), writes a web page that steps through the run.
        Binary formats (png, pdf) are not written to a terminal.
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        guard let args = try CommandLineArguments.forCommand(arguments, specs: specs, command: "render", help: help)
        else { return 0 }
        let names = ["retry", "budget", "breaker", "adaptive", "transfer", "swift-snippet", "objc-snippet"]
        if args.has("--machine") && args.has("--table") { throw UsageError("give --machine or --table, not both") }
        let machine =
            try args.choice("--machine", names)
            ?? args.choice("--table", ["retryflow"] + names).map { $0 == "retryflow" ? "retry" : $0 } ?? "retry"
        switch machine {
        case "budget": return try render(BudgetTable.budget, machine: machine, args: args)
        case "breaker": return try render(BreakerTable.breaker, machine: machine, args: args)
        case "adaptive": return try render(AdaptiveTable.adaptive, machine: machine, args: args)
        case "transfer":
            // A download's trace also says how often it resumed: the chart's caption and the report carry it.
            return try render(TransferTable.transfer, machine: machine, args: args) { $0.resumeSummary }
        case "swift-snippet": return try render(TransitionTable.swiftSnippet, machine: machine, args: args)
        case "objc-snippet": return try render(TransitionTable.objcSnippet, machine: machine, args: args)
        default: return try render(RetryTable.retry, machine: machine, args: args)
        }
    }

    /// Draws `table` (and a run of it from `--trace`, with `summary`'s words in its caption and report).
    private static func render<S, E, G, F, R>(
        _ table: TransitionTable<S, E, G, F, R>, machine: String, args: CommandLineArguments,
        summary: (TransitionTrace<S, E, G>) -> String? = { _ in nil }
    ) throws -> Int32 {
        let style = ChartStyle(rawValue: try args.choice("--style", ["state", "flowchart"]) ?? "flowchart")!
        let output = args.value("--output").flatMap { $0 == "-" ? nil : $0 } // `-o -` is stdout, as in curl
        if let output { try AtomicFile.checkWritable(output, option: "-o") }
        let format =
            args.value("--format")?.lowercased()
            ?? output.map { URL(fileURLWithPath: $0).pathExtension.lowercased() }.flatMap {
                $0.isEmpty ? nil : ($0 == "mmd" ? "mermaid" : ($0 == "md" ? "markdown" : $0))
            }
            ?? "dot"

        var overlay: TraceOverlay?
        var trace: TransitionTrace<S, E, G>?
        if let path = args.value("--trace") {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw UsageError("--trace \(path): cannot read the file")
            }
            let decoded: TransitionTrace<S, E, G>
            do { decoded = try JSONDecoder().decode(TransitionTrace<S, E, G>.self, from: data) } catch {
                throw UsageError(
                    "--trace \(path): not a RetryFlow trace of the \(machine) machine (\(PolicyOptions.describe(error)))"
                )
            }
            let problems = decoded.inconsistencies(with: table)
            guard problems.isEmpty else {
                throw UsageError(
                    "--trace \(path): the trace does not match the \(machine) table: \(problems.joined(separator: "; "))"
                )
            }
            overlay = TraceOverlay(trace: decoded, table: table)
            if let extra = summary(decoded) { overlay?.caption += " · " + extra }
            trace = decoded
        }

        let data: Data
        switch format {
        case "html", "htm":
            guard let trace, let output, let path = args.value("--trace") else {
                throw UsageError("an html report needs --trace TRACE.json and -o FILE.html")
            }
            try TraceFiles.checkReportName(output, option: "-o")
            let facts = summary(trace).map { [RunReport.Fact("transfer", $0)] } ?? []
            try TraceFiles.writeReport(
                trace, of: table, title: URL(fileURLWithPath: path).lastPathComponent, facts: facts, to: output)
            return 0
        case "mermaid", "markdown":
            guard overlay == nil else { throw UsageError("--trace draws on DOT-based formats, not \(format)") }
            data = Data(
                (format == "mermaid" ? MermaidChart.render(table, style: style) : MarkdownTable.render(table)).utf8)
        case "dot", "gv":
            data = Data(DOTChart.render(table, style: style, overlay: overlay).utf8)
        default:
            let available = Graphviz.availableFormats
            guard available.contains(format) else {
                throw UsageError(
                    "unknown --format \"\(format)\"; use dot, mermaid, markdown or one of: \(available.joined(separator: ", "))"
                )
            }
            if output == nil && Console.stdoutIsTerminal
                && ["png", "pdf", "gif", "jpg", "jpeg", "bmp", "ico", "webp", "tif", "tiff"].contains(format)
            {
                throw UsageError(
                    "refusing to write binary \(format.uppercased()) to a terminal; use -o FILE or redirect stdout")
            }
            do {
                data = try Graphviz.render(dot: DOTChart.render(table, style: style, overlay: overlay), format: format)
            } catch {
                throw OperationFailed("rendering failed: \(error)")
            }
        }
        if let output { try AtomicFile.write(data, to: output) } else { Console.output(data) }
        return 0
    }
}
