import Foundation
import RetryFlow
import RetryFlowSnippets
import RetryFlowGraphviz
import RetryFlowHTTP

/// `retryflow render`: a shipped machine's chart, optionally with a run drawn over it.
enum RenderCommand {
    static let specs = [
        OptionSpec("--machine"), OptionSpec("--table"), OptionSpec("--style"), OptionSpec("--format"),
        OptionSpec("-o", "--output"), OptionSpec("--trace"),
        OptionSpec("-h", "--help", value: false),
    ]

    static let help = """
        usage: retryflow render [--machine retry|transfer] [--style state|flowchart] [--format FORMAT] [-o FILE]
                                [--trace TRACE.json] [--table NAME]

        Draws a machine from the same transition table the engine executes.
          --machine NAME    retry (default), or transfer (what a download does with its bytes)
          --style STYLE     state (UML state diagram) or flowchart (default flowchart)
          --format FORMAT   dot, mermaid, markdown, or a Graphviz format: svg, png, pdf, json, plain …
                            (default: from -o's extension, else dot)
          -o, --output FILE write to FILE (atomically) instead of stdout
          --trace FILE      draw a run's trace over the chart (JSON from fetch/simulate --trace, or
                            from fetch --trace-transfer for --machine transfer)
          --table NAME      for the retry machine: retryflow (default), or an original snippet's table
                            retold: swift-snippet, objc-snippet
        Binary formats (png, pdf) are not written to a terminal.
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        guard let args = try CommandLineArguments.forCommand(arguments, specs: specs, command: "render", help: help) else { return 0 }
        let machine = try args.choice("--machine", ["retry", "transfer"]) ?? "retry"
        let table = try args.choice("--table", ["retryflow", "swift-snippet", "objc-snippet"]) ?? "retryflow"
        if table != "retryflow" {
            guard machine == "retry" else {
                throw UsageError("--table names a retry table; it does not go with --machine \(machine)")
            }
            if args.has("--trace") { throw UsageError("--trace draws on the retryflow table only") }
        }
        switch (machine, table) {
        case ("transfer", _):
            return try render(TransferTable.transfer, machine: "transfer", args: args) { (trace: TransferTrace) in
                trace.resumeSummary
            }
        case (_, "swift-snippet"):
            return try render(TransitionTable.swiftSnippet, machine: "swift-snippet", args: args) { _ in nil }
        case (_, "objc-snippet"):
            return try render(TransitionTable.objcSnippet, machine: "objc-snippet", args: args) { _ in nil }
        default:
            return try render(RetryTable.retry, machine: "retry", args: args) { (_: RetryTrace) in nil }
        }
    }

    /// Draws `table` (and a run of it from `--trace`, captioned with `caption`'s extra words).
    private static func render<S, E, G, F, R>(
        _ table: TransitionTable<S, E, G, F, R>, machine: String, args: CommandLineArguments,
        caption: (TransitionTrace<S, E, G>) -> String?
    ) throws -> Int32 {
        let style = ChartStyle(rawValue: try args.choice("--style", ["state", "flowchart"]) ?? "flowchart")!
        let output = args.value("--output")
        if let output { try AtomicFile.checkWritable(output, option: "-o") }
        let format = args.value("--format")?.lowercased()
            ?? output.map { URL(fileURLWithPath: $0).pathExtension.lowercased() }.flatMap { $0.isEmpty ? nil : ($0 == "mmd" ? "mermaid" : ($0 == "md" ? "markdown" : $0)) }
            ?? "dot"

        var overlay: TraceOverlay?
        if let path = args.value("--trace") {
            guard let data = FileManager.default.contents(atPath: path) else { throw UsageError("--trace \(path): cannot read the file") }
            let trace: TransitionTrace<S, E, G>
            do { trace = try JSONDecoder().decode(TransitionTrace<S, E, G>.self, from: data) } catch {
                let why = PolicyOptions.describe(error)
                throw UsageError("--trace \(path): not a RetryFlow trace of the \(machine) machine (\(why))")
            }
            let problems = trace.inconsistencies(with: table)
            guard problems.isEmpty else {
                let why = problems.joined(separator: "; ")
                throw UsageError("--trace \(path): the trace does not match the \(machine) table: \(why)")
            }
            overlay = TraceOverlay(trace: trace, table: table)
            if let extra = caption(trace) { overlay?.caption += " · " + extra }
        }

        let data: Data
        switch format {
        case "mermaid", "markdown":
            guard overlay == nil else { throw UsageError("--trace draws on DOT-based formats, not \(format)") }
            let text = format == "mermaid" ? MermaidChart.render(table, style: style) : MarkdownTable.render(table)
            data = Data(text.utf8)
        case "dot", "gv":
            data = Data(DOTChart.render(table, style: style, overlay: overlay).utf8)
        default:
            let available = Graphviz.availableFormats
            guard available.contains(format) else {
                throw UsageError("unknown --format \"\(format)\"; use dot, mermaid, markdown or one of: \(available.joined(separator: ", "))")
            }
            if output == nil && Console.stdoutIsTerminal && ["png", "pdf", "gif", "jpg", "jpeg", "bmp", "ico", "webp", "tif", "tiff"].contains(format) {
                throw UsageError("refusing to write binary \(format.uppercased()) to a terminal; use -o FILE or redirect stdout")
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
