import Foundation
import RetryFlow
import RetryFlowCharts
import RetryFlowGraphviz
import RetryFlowSnippets
import RetryFlowTesting

/// The step-through pages of docs/runs/, linked from docs/linear-iteration.md: the two original
/// snippets' tables on a typical run, and RetryFlow's machine on the guide's example runs.
/// `make docs` (RETRYFLOW_REGENERATE_TEACHING_PAGES=1) writes them; a test compares them.
enum TeachingPages {
    static let directory = ShippedDiagrams.directory.deletingLastPathComponent()
        .appendingPathComponent("docs").appendingPathComponent("runs")

    static let regenerateCommand = "make docs"

    /// Every page, by file name.
    static func pages() async throws -> [(name: String, html: String)] {
        [
            ("swift-snippet.html", try swiftSnippetPage()),
            ("objc-snippet.html", try objcSnippetPage()),
            (
                "retryflow-reset-503-200.html",
                try await simulated(
                    "reset,503,200", policy: RetryPolicy(jitter: .none),
                    title: "RetryFlow: reset, 503, then 200 (retryflow simulate --outcomes reset,503,200 --jitter none)"
                )
            ),
            (
                "retryflow-deadline.html",
                try await simulated(
                    "503:after=0.4", policy: RetryPolicy(maxAttempts: 10, jitter: .none, deadline: .seconds(2)),
                    title: "RetryFlow: slow 503s against a 2 s deadline "
                        + "(retryflow simulate --outcomes 503:after=0.4 --attempts 10 --deadline 2 --jitter none)")
            ),
        ]
    }

    /// The Swift original with `times: 2, wait: 200 ms`: two failures, then data. Its waits are
    /// `usleep` on the session's delegate queue.
    static func swiftSnippetPage() throws -> String {
        typealias Trace = TransitionTrace<SwiftSnippetVocabulary>
        let blocked = "usleep(200_000) in the completion handler: the delegate queue runs nothing else meanwhile"
        let trace = Trace(steps: [
            .init(from: .idle, event: .start, condition: .always, to: .request, at: .zero, attempt: 1),
            .init(
                from: .request, event: .failed, condition: .always, to: .retry, at: .milliseconds(40), attempt: 1,
                detail: "connection reset"),
            .init(
                from: .retry, event: nil, condition: .always, to: .usleepOnDelegateQueue, at: .milliseconds(40),
                attempt: 1, delay: .milliseconds(200), detail: blocked),
            .init(
                from: .usleepOnDelegateQueue, event: .woke, condition: .always, to: .request, at: .milliseconds(240),
                attempt: 2),
            .init(
                from: .request, event: .failed, condition: .always, to: .retry, at: .milliseconds(280), attempt: 2,
                detail: "connection reset"),
            .init(
                from: .retry, event: nil, condition: .always, to: .usleepOnDelegateQueue, at: .milliseconds(280),
                attempt: 2, delay: .milliseconds(200), detail: blocked),
            .init(
                from: .usleepOnDelegateQueue, event: .woke, condition: .always, to: .request, at: .milliseconds(480),
                attempt: 3),
            .init(
                from: .request, event: .completed, condition: .always, to: .success, at: .milliseconds(520),
                attempt: 3, detail: "HTTP 200: data, response (any status would do: error == nil)"),
        ])
        return try RunReport(
            table: .swiftSnippet, trace: trace, title: "The original retryDataTask: two resets, then data",
            policy: "times: 2, wait: 200_000 µs (usleep), every error retried, cancellation included"
        ).html
    }

    /// The Objective-C original with `retryCount: 2`: two connection resets, retried at once, then a
    /// 503, which `sendAsynchronousRequest` reports as a response without an error, so the original
    /// calls its success path (`completion`). Its `failure()` is reached only by transport errors.
    static func objcSnippetPage() throws -> String {
        typealias Trace = TransitionTrace<ObjCSnippetVocabulary>
        var steps: [Trace.Step] = [
            .init(from: .idle, event: .start, condition: .always, to: .request, at: .zero, attempt: 1)
        ]
        for attempt in 1...2 {
            let at = Duration.milliseconds(30 * attempt)
            steps.append(
                .init(
                    from: .request, event: ObjCSnippetEvent(.transportError("connection reset")), condition: .always,
                    to: .retry, at: at, attempt: attempt, detail: "connection reset"))
            steps.append(
                .init(from: .retry, event: nil, condition: .always, to: .request, at: at, attempt: attempt + 1))
        }
        steps.append(
            .init(
                from: .request, event: ObjCSnippetEvent(.status(503)), condition: .always, to: .success,
                at: .milliseconds(90), attempt: 3,
                detail: "HTTP 503 Service Unavailable: no connection error, so completion(response, data) is called"))
        return try RunReport(
            table: .objcSnippet, trace: Trace(steps: steps),
            title: "The original downloadAndRetry: reset, reset, then a 503 it calls success",
            policy: "retryCount: 2, no wait between attempts; an HTTP status is never an error to it"
        ).html
    }

    static func simulated(_ outcomes: String, policy: RetryPolicy, title: String) async throws -> String {
        let outcome = try await Simulation.run(
            outcomes: try ScriptedOutcome.parseList(outcomes), retry: .policy(policy))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        // Opens on the policy's chart, as the reports of `simulate --report` do. The exploration is seconds
        // of a debug build's CPU: on a thread of its own, not the tests' shared pool.
        let coverage = await runOnOwnThread { RetryExploration.explore(policy: policy, world: RetryWorld()) }
        return try RunReport(
            table: .retry, trace: outcome.trace, title: title, facts: [.init("stop reason", outcome.reason.rawValue)],
            policy: String(decoding: try encoder.encode(policy), as: UTF8.self),
            coverage: coverage
        ).html
    }

    /// Writes every page (used by `make docs`).
    static func writeAll() async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (name, html) in try await pages() {
            try Data(html.utf8).write(to: directory.appendingPathComponent(name), options: .atomic)
        }
    }
}
