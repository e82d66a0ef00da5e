import Foundation
import RetryFlow
import RetryFlowSnippets
import RetryFlowGraphviz

/// `retryflow render`: the shipped machine's chart, optionally with a run drawn over it.
enum RenderCommand {
    static let specs = [
        OptionSpec("--style"), OptionSpec("--format"), OptionSpec("-o", "--output"), OptionSpec("--trace"),
        OptionSpec("--table"),
        OptionSpec("-h", "--help", value: false),
    ]

    static let help = """
        usage: retryflow render [--style state|flowchart] [--format FORMAT] [-o FILE] [--trace TRACE.json]

        Draws the retry machine from the same transition table the engine executes.
          --style STYLE     state (UML state diagram) or flowchart (default flowchart)
          --format FORMAT   dot, mermaid, markdown, or a Graphviz format: svg, png, pdf, json, plain …
                            (default: from -o's extension, else dot)
          -o, --output FILE write to FILE (atomically) instead of stdout
          --trace FILE      draw a run's trace (JSON from fetch/simulate --trace) over the chart
          --table NAME      retryflow (default), or an original snippet: swift-snippet, objc-snippet
        With --trace and format html (-o run.html), writes a web page that steps through the run.
        Binary formats (png, pdf) are not written to a terminal.
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        guard let args = try CommandLineArguments.forCommand(arguments, specs: specs, command: "render", help: help) else { return 0 }
        let style = ChartStyle(rawValue: try args.choice("--style", ["state", "flowchart"]) ?? "flowchart")!
        let output = args.value("--output")
        if let output { try AtomicFile.checkWritable(output, option: "-o") }
        let format = args.value("--format")?.lowercased()
            ?? output.map { URL(fileURLWithPath: $0).pathExtension.lowercased() }.flatMap { $0.isEmpty ? nil : ($0 == "mmd" ? "mermaid" : ($0 == "md" ? "markdown" : $0)) }
            ?? "dot"

        let table = try args.choice("--table", ["retryflow", "swift-snippet", "objc-snippet"]) ?? "retryflow"
        var overlay: TraceOverlay?
        var trace: RetryTrace?
        if args.has("--trace") && table != "retryflow" { throw UsageError("--trace draws on the retryflow table only") }
        if let path = args.value("--trace") {
            guard let data = FileManager.default.contents(atPath: path) else { throw UsageError("--trace \(path): cannot read the file") }
            let decoded: RetryTrace
            do { decoded = try JSONDecoder().decode(RetryTrace.self, from: data) } catch {
                throw UsageError("--trace \(path): not a RetryFlow trace (\(PolicyOptions.describe(error)))")
            }
            let problems = decoded.inconsistencies(with: RetryTable.retry)
            guard problems.isEmpty else {
                throw UsageError("--trace \(path): the trace does not match the retry table: \(problems.joined(separator: "; "))")
            }
            overlay = TraceOverlay(trace: decoded, table: .retry)
            trace = decoded
        }

        let data: Data
        switch format {
        case "html", "htm":
            guard let trace, let output, let path = args.value("--trace") else {
                throw UsageError("an html report needs --trace TRACE.json and -o FILE.html")
            }
            try TraceFiles.checkReportName(output, option: "-o")
            try TraceFiles.writeReport(trace, title: URL(fileURLWithPath: path).lastPathComponent, to: output)
            return 0
        case "mermaid", "markdown":
            guard overlay == nil else { throw UsageError("--trace draws on DOT-based formats, not \(format)") }
            data = Data(Self.text(of: table, format: format, style: style).utf8)
        case "dot", "gv":
            data = Data(Self.dot(of: table, style: style, overlay: overlay).utf8)
        default:
            let available = Graphviz.availableFormats
            guard available.contains(format) else {
                throw UsageError("unknown --format \"\(format)\"; use dot, mermaid, markdown or one of: \(available.joined(separator: ", "))")
            }
            if output == nil && Console.stdoutIsTerminal && ["png", "pdf", "gif", "jpg", "jpeg", "bmp", "ico", "webp", "tif", "tiff"].contains(format) {
                throw UsageError("refusing to write binary \(format.uppercased()) to a terminal; use -o FILE or redirect stdout")
            }
            do {
                data = try Graphviz.render(dot: Self.dot(of: table, style: style, overlay: overlay), format: format)
            } catch {
                throw OperationFailed("rendering failed: \(error)")
            }
        }
        if let output { try AtomicFile.write(data, to: output) } else { Console.output(data) }
        return 0
    }

    /// DOT for the named table (the teaching tables come from RetryFlowSnippets).
    private static func dot(of table: String, style: ChartStyle, overlay: TraceOverlay?) -> String {
        switch table {
        case "swift-snippet": DOTChart.render(TransitionTable.swiftSnippet, style: style)
        case "objc-snippet": DOTChart.render(TransitionTable.objcSnippet, style: style)
        default: DOTChart.render(RetryTable.retry, style: style, overlay: overlay)
        }
    }

    /// Mermaid or Markdown for the named table.
    private static func text(of table: String, format: String, style: ChartStyle) -> String {
        func render<S, E, G, F, R>(_ table: TransitionTable<S, E, G, F, R>) -> String {
            format == "mermaid" ? MermaidChart.render(table, style: style) : MarkdownTable.render(table)
        }
        switch table {
        case "swift-snippet": return render(TransitionTable.swiftSnippet)
        case "objc-snippet": return render(TransitionTable.objcSnippet)
        default: return render(RetryTable.retry)
        }
    }
}
