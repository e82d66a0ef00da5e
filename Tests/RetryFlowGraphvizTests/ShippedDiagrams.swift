import Foundation
import RetryFlow
import RetryFlowSnippets
import RetryFlowGraphviz
import RetryFlowHTTP
import RetryFlowTesting

/// The charts committed in `diagrams/`, generated from the shipped table. The drift test compares
/// them with the files; `make diagrams` (RETRYFLOW_REGENERATE_DIAGRAMS=1) writes them.
enum ShippedDiagrams {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("diagrams")

    static let regenerateCommand = "make diagrams"

    /// The example run drawn over the chart: fail, fail, succeed, on the manual clock.
    static func exampleTrace() async throws -> RetryTrace {
        let clock = ManualClock()
        let policy = RetryPolicy(
            maxAttempts: 3, backoff: .exponential(base: .milliseconds(500), multiplier: 2), jitter: .none)
        let outcome = try await clock.runAdvancing {
            try await Retry(policy, clock: clock).outcome { attempt -> String in
                if attempt.number < 3 { throw ExampleError(attempt: attempt.number) }
                return "200 OK"
            }
        }
        return outcome.trace
    }

    struct ExampleError: Error, CustomStringConvertible {
        let attempt: Int
        var description: String { "connection reset (scripted, attempt \(attempt))" }
    }

    /// Every text file of `diagrams/`, by name.
    static func textFiles() async throws -> [(name: String, text: String)] {
        let table = RetryTable.retry
        let trace = try await exampleTrace()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let traceJSON = String(decoding: try encoder.encode(trace), as: UTF8.self) + "\n"
        let overlay = TraceOverlay(trace: trace, table: table)
        return [
            ("retryflow-state.dot", DOTChart.render(table, style: .state)),
            ("retryflow-flowchart.dot", DOTChart.render(table, style: .flowchart)),
            ("retryflow-state.mmd", MermaidChart.render(table, style: .state)),
            ("retryflow-flowchart.mmd", MermaidChart.render(table, style: .flowchart)),
            ("retryflow-table.md", MarkdownTable.render(table)),
            ("example-fail-fail-succeed.trace.json", traceJSON),
            ("example-fail-fail-succeed.dot", DOTChart.render(table, style: .flowchart, overlay: overlay)),
            ("swift-snippet-flowchart.dot", DOTChart.render(TransitionTable.swiftSnippet, style: .flowchart)),
            ("objc-snippet-flowchart.dot", DOTChart.render(TransitionTable.objcSnippet, style: .flowchart)),
            ("transfer-state.dot", DOTChart.render(TransferTable.transfer, style: .state)),
            ("transfer-table.md", MarkdownTable.render(TransferTable.transfer)),
        ]
    }

    /// Images rendered from the DOT files: (image name, DOT file it comes from, format).
    static let images: [(name: String, source: String, format: String)] = [
        ("retryflow-state.svg", "retryflow-state.dot", "svg"),
        ("retryflow-state.png", "retryflow-state.dot", "png"),
        ("retryflow-flowchart.svg", "retryflow-flowchart.dot", "svg"),
        ("retryflow-flowchart.png", "retryflow-flowchart.dot", "png"),
        ("example-fail-fail-succeed.svg", "example-fail-fail-succeed.dot", "svg"),
        ("example-fail-fail-succeed.png", "example-fail-fail-succeed.dot", "png"),
        ("swift-snippet-flowchart.svg", "swift-snippet-flowchart.dot", "svg"),
        ("objc-snippet-flowchart.svg", "objc-snippet-flowchart.dot", "svg"),
        ("transfer-state.svg", "transfer-state.dot", "svg"),
    ]

    /// Writes every file (used by `make diagrams`).
    static func writeAll() async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let texts = try await textFiles()
        for (name, text) in texts {
            try Data(text.utf8).write(to: directory.appendingPathComponent(name), options: .atomic)
        }
        for image in images {
            let dot = texts.first { $0.name == image.source }!.text
            try Graphviz.render(dot: dot, format: image.format).write(to: directory.appendingPathComponent(image.name), options: .atomic)
        }
    }
}
