import Foundation
import RetryFlow
import RetryFlowGraphviz
import RetryFlowHTTP

/// Writes a run's trace (JSON) and its chart (the flowchart with the run drawn over it).
enum TraceFiles {
    static func writeTrace(_ trace: RetryTrace, to path: String) throws(OperationFailed) {
        // The HTTP form: the trace plus OpenTelemetry's http.request.resend_count on later attempts.
        guard let data = try? HTTPTraceJSON.encode(trace) else { throw OperationFailed("cannot encode the trace") }
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

    static func writeChart(_ trace: RetryTrace, to path: String, format: String) throws(OperationFailed) {
        let dot = DOTChart.render(RetryTable.retry, style: .flowchart, overlay: TraceOverlay(trace: trace, table: .retry))
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
