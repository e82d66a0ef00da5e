import Foundation
import RetryFlow
import RetryFlowCharts
import RetryFlowGraphviz
import RetryFlowHTTP

/// Writes a run's trace (JSON), its chart (the flowchart with the run drawn over it) and its report
/// (a web page stepping through the run): what fetch, simulate, demo and render share.
enum TraceFiles {
    /// `--report FILE.html`, for every command that runs something.
    static let reportSpec = OptionSpec("--report")
    /// The help line, its description starting at `column` like the command's other options.
    static func reportHelp(column: Int) -> String {
        let option = "  --report FILE.html"
        return option + String(repeating: " ", count: max(column - option.count, 1))
            + "write a web page that steps through the run over the chart\n"
    }

    /// Checks `--report`'s file before the run, so a bad name fails at once (exit 2).
    static func checkReport(_ args: CommandLineArguments) throws(UsageError) {
        guard let path = args.value("--report") else { return }
        try checkReportName(path, option: "--report")
    }

    static func checkReportName(_ path: String, option: String) throws(UsageError) {
        guard ["html", "htm"].contains(URL(fileURLWithPath: path).pathExtension.lowercased()) else {
            throw UsageError("\(option) \(path): use a .html file name")
        }
        try AtomicFile.checkWritable(path, option: option)
    }

    /// Writes the run's report when `--report` was given.
    static func writeReport(
        _ trace: RetryTrace, title: String, reason: StopReason? = nil, policy: RetryPolicy? = nil,
        races: [HedgingRecord] = [], args: CommandLineArguments
    ) throws(OperationFailed) {
        guard let path = args.value("--report") else { return }
        try writeReport(trace, title: title, reason: reason, policy: policy, races: races, to: path)
    }

    static func writeReport(
        _ trace: RetryTrace, title: String, reason: StopReason? = nil, policy: RetryPolicy? = nil,
        races: [HedgingRecord] = [], to path: String
    ) throws(OperationFailed) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let policyText = policy.flatMap { try? encoder.encode($0) }.map { String(decoding: $0, as: UTF8.self) }
        // Over the policy's own table: a run with the credential steps (fetch --auth-refresh) is drawn on their rows.
        // The page opens on the policy's chart, as `render --policy` draws it (its world, the default one).
        let ran = policy ?? .default
        try writeReport(
            trace, of: ran.table, title: title,
            facts: reason.map { [RunReport.Fact("stop reason", $0.rawValue)] } ?? [], policy: policyText, races: races,
            coverage: RetryExploration.explore(policy: ran, world: RetryWorld()), to: path)
    }

    /// Writes a report of any machine's trace over its table (`render --machine budget --trace T -o X.html`).
    static func writeReport<V>(
        _ trace: TransitionTrace<V>, of table: TransitionTable<V>, title: String,
        facts: [RunReport.Fact] = [], policy: String? = nil, races: [HedgingRecord] = [],
        coverage: ExplorationResult<V>? = nil, to path: String
    ) throws(OperationFailed) {
        do {
            let report = try RunReport(
                table: table, trace: trace, title: title, facts: facts, policy: policy, races: races,
                coverage: coverage)
            try AtomicFile.write(Data(report.html.utf8), to: path)
        } catch let error as GraphvizError {
            throw OperationFailed("cannot draw \(path): \(error)")
        } catch let error as OperationFailed {
            throw error
        } catch {
            throw OperationFailed("\(error)")
        }
    }

    static func writeTrace(_ trace: RetryTrace, races: [HedgingRecord] = [], to path: String) throws(OperationFailed) {
        // The HTTP form: the trace plus OpenTelemetry's http.request.resend_count on later attempts,
        // and a hedged run's copies.
        guard let data = try? HTTPTraceJSON.encode(trace, races: races) else {
            throw OperationFailed("cannot encode the trace")
        }
        try AtomicFile.write(data + Data("\n".utf8), to: path)
    }

    /// The chart's format from the file's extension (`.svg`, `.png`, `.pdf`, `.dot`).
    static func chartFormat(for path: String, option: String) throws(UsageError) -> String {
        let ext = URL(fileURLWithPath: path).pathExtension.lowercased()
        guard ["svg", "png", "pdf", "dot", "json"].contains(ext) else {
            throw UsageError("\(option) \(path): use a .svg, .png, .pdf or .dot file name")
        }
        return ext
    }

    static func writeChart(_ trace: RetryTrace, to path: String, format: String, table: RetryTable = .retry)
        throws(OperationFailed)
    {
        let dot = DOTChart.render(table, style: .flowchart, overlay: TraceOverlay(trace: trace, table: table))
        if format == "dot" {
            try AtomicFile.write(Data(dot.utf8), to: path)
            return
        }
        do {
            try AtomicFile.write(try Graphviz.render(dot: dot, format: format), to: path)
        } catch let error as GraphvizError {
            throw OperationFailed("cannot render \(path): \(error)")
        } catch {
            throw OperationFailed("\(error)")
        }
    }
}
