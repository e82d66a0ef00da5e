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

    /// The Objective-C snippet redrawn in its own words (docs/drawn): the correspondence is printed
    /// with a ready --map line, which checks the same drawing without guessing.
    @Test func aDrawingInItsOwnWordsPrintsTheCorrespondenceAndAgrees() async throws {
        let drawn = DocsDriftTests.root.appendingPathComponent("docs/drawn")
        let map = "--map 'start=idle,send=request,completion=success,failure=failure'"
        for file in ["objc-redrawn.dot", "objc-redrawn.mmd"] {
            let path = drawn.appendingPathComponent(file).path
            let result = try await Tool.run(["check-chart", path, "--machine", "objc-snippet"])
            #expect(result.status == 0, "\(file): \(result.stdout)\(result.stderr)")
            #expect(result.stdout.hasPrefix("correspondence found from the structure (5 of 5 drawn links agree"))
            #expect(result.stdout.contains("\n  start → idle\n  send → request\n  completion → success\n"))
            #expect(result.stdout.hasSuffix("\n\(map)\nthe drawing agrees with the table\n"), "\(result.stdout)")
            let confirmed = try await Tool.run([
                "check-chart", path, "--machine", "objc-snippet", "--map",
                "start=idle,send=request,completion=success,failure=failure",
            ])
            #expect(confirmed.status == 0 && confirmed.stdout == "the drawing agrees with the table\n")
        }
        // The first mermaid block of a Markdown page.
        let page = try Self.temporary(
            "page.md",
            "# downloadAndRetry\n\n```mermaid\n"
                + (try String(contentsOf: drawn.appendingPathComponent("objc-redrawn.mmd"), encoding: .utf8))
                + "```\n")
        defer { try? FileManager.default.removeItem(at: page) }
        let fromMarkdown = try await Tool.run(["check-chart", page.path, "--machine", "objc-snippet"])
        #expect(fromMarkdown.status == 0 && fromMarkdown.stdout.hasSuffix("the drawing agrees with the table\n"))
    }

    @Test func somethingElseDrawnSaysSoInOneLineAndBadMapsExitTwo() async throws {
        let other = try Self.temporary(
            "login.mmd",
            "flowchart TD\n  form[login] -- submit --> check{ok?}\n  check -- yes --> home\n"
                + "  check -- no --> tries{three tries?}\n  tries -- yes --> locked\n  tries -- no --> form\n"
                + "  home -- logout --> form\n")
        defer { try? FileManager.default.removeItem(at: other) }
        for machine in ["objc-snippet", "swift-snippet", "retry"] {
            let result = try await Tool.run(["check-chart", other.path, "--machine", machine])
            #expect(result.status == 1)
            #expect(result.stdout.hasPrefix("no plausible correspondence between the drawing and "), "\(result.stdout)")
            #expect(result.stdout.filter { $0 == "\n" }.count == 1)
        }
        let unknownNode = try await Tool.run(["check-chart", other.path, "--map", "nowhere=idle"])
        #expect(unknownNode.status == 2 && unknownNode.stderr.contains("the drawing has no node \"nowhere\""))
        let unknownState = try await Tool.run(["check-chart", other.path, "--map", "form=sleeping"])
        #expect(unknownState.status == 2 && unknownState.stderr.contains("\"sleeping\" is not a state of the table"))
        let badMermaid = try Self.temporary("bad.mmd", "flowchart TD\n  a[never closed --> b\n")
        defer { try? FileManager.default.removeItem(at: badMermaid) }
        let unreadable = try await Tool.run(["check-chart", badMermaid.path])
        #expect(unreadable.status == 2)
        #expect(unreadable.stderr.contains("not a Mermaid chart check-chart can read (line 2: node a's label"))
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
