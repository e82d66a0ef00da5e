import Foundation
import Testing

/// `check-chart`, `verify` and `render --policy` from the command line: their exit statuses and output.
@Suite(.timeLimit(.minutes(2))) struct CheckChartAndVerifyTests {
    static func temporary(_ name: String, _ text: String) throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("\(UUID().uuidString)-\(name)")
        try Data(text.utf8).write(to: file)
        return file
    }

    @Test func ourOwnChartChecksCleanAndExitsZero() async throws {
        for machine in [
            "retry", "budget", "breaker", "adaptive", "hedge", "credential", "transfer", "swift-snippet",
            "objc-snippet",
        ] {
            for style in ["state", "flowchart"] {
                let chart = try await Tool.run(["render", "--machine", machine, "--style", style])
                let file = try Self.temporary("chart.dot", chart.stdout)
                defer { try? FileManager.default.removeItem(at: file) }
                let result = try await Tool.run(["check-chart", file.path, "--machine", machine])
                #expect(result.status == 0, "\(machine) \(style): \(result.stdout)\(result.stderr)")
                #expect(result.stdout == "the drawing agrees with the table\n")
            }
        }
    }

    @Test func aDisagreementExitsOneAndSuggestsTheMissingRows() async throws {
        let chart = try await Tool.run(["render", "--machine", "objc-snippet", "--style", "state"])
        let edited = chart.stdout.split(separator: "\n").filter { !$0.contains("\"request\" -> \"retry\"") }
            .joined(separator: "\n")
        let file = try Self.temporary("edited.dot", edited)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await Tool.run(["check-chart", file.path, "--machine", "objc-snippet", "--suggest"])
        #expect(result.status == 1)
        #expect(
            result.stdout == """
                missing: the table's row request --connection error--> retry has no edge in the drawing
                1 disagreement with the table
                // the table's rows the drawing lacks:
                  "request" -> "retry" [label="connection error"];

                """)
    }

    @Test func anUnreadableFileExitsTwo() async throws {
        let garbage = try Self.temporary("garbage.dot", "digraph { a -> ")
        defer { try? FileManager.default.removeItem(at: garbage) }
        let result = try await Tool.run(["check-chart", garbage.path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("not a DOT graph Graphviz can read"), "\(result.stderr)")
        let missing = try await Tool.run(["check-chart", "/nonexistent/chart.dot"])
        #expect(missing.status == 2)
        #expect(try await Tool.run(["check-chart"]).status == 2)
    }

    @Test func verifyPrintsTheBoundAndTheStatesExploredForEveryMachine() async throws {
        for machine in [
            "retry", "budget", "breaker", "adaptive", "hedge", "credential", "transfer", "swift-snippet",
            "objc-snippet",
        ] {
            let result = try await Tool.run(["verify", "--machine", machine])
            #expect(result.status == 0, "\(machine): \(result.stdout)\(result.stderr)")
            #expect(result.stdout.hasPrefix("verify "))
            #expect(result.stdout.contains(" states, "), "\(result.stdout)")
            #expect(!result.stdout.contains("FAIL"))
        }
        let retry = try await Tool.run(["verify", "--max-attempts", "5", "--budget", "aws", "--http"])
        #expect(retry.status == 0)
        #expect(retry.stdout.contains("attempts ≤ 5 (the policy's maxAttempts)"))
        #expect(retry.stdout.contains("reachable    admission --[retry budget exhausted] / finish--> failure"))
        #expect(retry.stdout.contains("reachable    retry --[final answer] / finish--> answered"))
        #expect(try await Tool.run(["verify", "--machine", "breaker", "--policy", "x.json"]).status == 2)
        let tooDeep = try await Tool.run(["verify", "--machine", "adaptive", "--max-attempts", "7"])
        #expect(tooDeep.status == 2 && tooDeep.stderr.contains("--max-attempts"), "\(tooDeep.stderr)")
    }

    @Test func renderAPolicyDrawsOnlyItsRows() async throws {
        let policy = try Self.temporary("policy.json", "{}")
        defer { try? FileManager.default.removeItem(at: policy) }
        let result = try await Tool.run(["render", "--policy", policy.path, "--no-cancel", "--style", "state"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.contains("\"budget\""))
        #expect(!result.stdout.contains("deadline"))
        #expect(result.stdout.contains("\"retry\" -> \"wait\""))
        let mermaid = try await Tool.run(["render", "--policy", policy.path, "--format", "mermaid"])
        #expect(mermaid.status == 2)
    }
}
