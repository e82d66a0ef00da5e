import Foundation
import RetryFlow
import RetryFlowCharts
import RetryFlowGraphviz
import RetryFlowHTTP
import RetryFlowSnippets

/// `retryflow render`: a shipped machine's chart (retry, budget, breaker, adaptive or transfer), optionally with a
/// run drawn over it.
enum RenderCommand {
    static let specs =
        [
            OptionSpec("--machine"), OptionSpec("--table"), OptionSpec("--style"), OptionSpec("--format"),
            OptionSpec("-o", "--output"), OptionSpec("--trace"), OptionSpec("-h", "--help", value: false),
        ] + ExplorationOptions.specs

    static var help: String {
        """
        usage: retryflow render [--machine NAME] [--style state|flowchart] [--format FORMAT] [-o FILE]
                                [--trace TRACE.json] [--policy FILE.json …]

        Draws a machine from the same transition table the engine executes.
          --machine NAME    the machine drawn (--table is another name for it; --table retryflow means retry):
        \(MachineRegistry.all.map { "                    \($0.name): \($0.summary)" }.joined(separator: "\n"))
          --style STYLE     state (UML state diagram) or flowchart (default flowchart)
          --format FORMAT   dot, mermaid, markdown, or a Graphviz format: svg, png, pdf, json, plain …
                            (default: from -o's extension, else dot)
          -o, --output FILE write to FILE (atomically) instead of stdout (- is stdout)
          --trace FILE      draw a run's trace (JSON, e.g. from fetch/simulate --trace, or fetch
                            --trace-transfer for transfer) over the chart; it must be a trace of the
                            machine drawn
        The chart of one policy: with --policy (and the other flags below), only the rows `retryflow verify`
        finds reachable under it are drawn, and a state every run passes in no time by its one way out is
        drawn as part of the edges through it (the default policy comes down to request, retry and wait).
        \(ExplorationOptions.help)
        With --trace and format html (-o run.html), writes a web page that steps through the run.
        Binary formats (png, pdf) are not written to a terminal.
        """
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        guard let args = try CommandLineArguments.forCommand(arguments, specs: specs, command: "render", help: help)
        else { return 0 }
        return try MachineRegistry.chosen(args).render(args)
    }

    /// Draws `table` (and a run of it from `--trace`, with `summary`'s words in its caption and report;
    /// a download's trace says how often it resumed), or with `coverage` only the rows it reached.
    static func render<V>(
        _ table: TransitionTable<V>, machine: String, args: CommandLineArguments,
        coverage: ExplorationResult<V>? = nil, summary: (TransitionTrace<V>) -> String? = { _ in nil }
    ) throws -> Int32 {
        if coverage != nil, args.has("--trace") {
            throw UsageError("--trace draws a run over the whole chart; it does not go with --policy")
        }
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
        var trace: TransitionTrace<V>?
        if let path = args.value("--trace") {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw UsageError("--trace \(path): cannot read the file")
            }
            let decoded: TransitionTrace<V>
            do { decoded = try TraceJSON.decode(data) } catch {
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

        let dot =
            coverage.map { DOTChart.render(table, style: style, coverage: $0) }
            ?? DOTChart.render(table, style: style, overlay: overlay)
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
            guard coverage == nil else {
                throw UsageError("a policy's chart is drawn in DOT-based formats, not \(format)")
            }
            data = Data(
                (format == "mermaid" ? MermaidChart.render(table, style: style) : MarkdownTable.render(table)).utf8)
        case "dot", "gv":
            data = Data(dot.utf8)
        default:
            let available = Graphviz.availableFormats
            // None at all: Graphviz itself is missing, which the render below reports by name.
            guard available.isEmpty || available.contains(format) else {
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
                data = try Graphviz.render(dot: dot, format: format)
            } catch {
                throw OperationFailed("rendering failed: \(error)")
            }
        }
        if let output { try AtomicFile.write(data, to: output) } else { Console.output(data) }
        return 0
    }
}
