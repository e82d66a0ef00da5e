import Foundation
import RetryFlowTesting
import Testing

/// `retryflow fetch --hedge DELAY [--hedges N]` against a loopback server whose first answer is slow.
@Suite(.timeLimit(.minutes(2))) struct FetchHedgeTests {
    @Test func aHedgeBeatsASlowFirstAnswerWithTwoRequests() async throws {
        let server = try FlakyServer(scripts: [
            "/slow": [.status(200, body: "slow\n").delayed(by: .seconds(5)), .status(200, body: "fast\n")]
        ])
        defer { server.stop() }
        let result = try await Tool.run(["fetch", server.url("/slow").absoluteString, "--hedge", "0.1", "-v"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "fast\n")
        #expect(server.requests(to: "/slow").count == 2)
        #expect(result.stderr.contains("after 1 attempt(s), 1 hedge sent"), "\(result.stderr)")
        #expect(result.stderr.contains("hedged attempt 1: accepted"), "\(result.stderr)")
        #expect(result.stderr.contains("  copy #2 (hedge) "), "\(result.stderr)")
        #expect(result.stderr.contains(": cancelled"), "the slow copy was cancelled: \(result.stderr)")
    }

    /// `--trace` and `--report` show the copies that overlapped: the JSON has each copy's times and
    /// ending, and the report's timeline draws them in lanes, the slow one cancelled.
    @Test func theTraceAndTheReportShowTheOverlappingCopies() async throws {
        let server = try FlakyServer(scripts: [
            "/slow": [.status(200, body: "slow\n").delayed(by: .seconds(5)), .status(200, body: "fast\n")]
        ])
        defer { server.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hedge-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let trace = folder.appendingPathComponent("trace.json")
        let report = folder.appendingPathComponent("run.html")
        let result = try await Tool.run([
            "fetch", server.url("/slow").absoluteString, "--hedge", "0.1", "--trace", trace.path, "--report",
            report.path,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        struct Trace: Decodable {
            struct Race: Decodable {
                struct Copy: Decodable {
                    let number: Int
                    let start: Double
                    let end: Double
                    let ending: String
                }
                let attempt: Int
                let copies: [Copy]
                let hedges: Int
            }
            let hedging: [Race]
        }
        let races = try JSONDecoder().decode(Trace.self, from: Data(contentsOf: trace)).hedging
        #expect(races.count == 1)
        let copies = races.first?.copies ?? []
        #expect(copies.map(\.number) == [1, 2])
        #expect(copies.map(\.ending) == ["cancelled", "won"])
        #expect(races.first?.hedges == 1)
        if copies.count == 2 {
            #expect(copies[1].start >= 0.1, "the hedge went out after its delay")
            #expect(copies[1].start < copies[0].end, "the two copies overlapped")
        }
        let html = try String(contentsOf: report, encoding: .utf8)
        #expect(html.contains("<g class=\"copy cancelled\" data-attempt=\"1\" data-copy=\"1\">"))
        #expect(html.contains("<g class=\"copy won\" data-attempt=\"1\" data-copy=\"2\">"))
        #expect(html.contains("copy #2 (hedge)"))
    }

    @Test func aFastAnswerSendsOneRequest() async throws {
        let server = try FlakyServer(scripts: ["/fast": [.status(200, body: "fast\n")]])
        defer { server.stop() }
        let result = try await Tool.run(
            ["fetch", server.url("/fast").absoluteString, "--hedge", "10", "--hedges", "4"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "fast\n")
        #expect(server.requests(to: "/fast").count == 1)
        #expect(result.stderr.contains("0 hedges sent"), "\(result.stderr)")
    }

    @Test func aPostSendsOneRequest() async throws {
        let server = try FlakyServer(scripts: [
            "/post": [.status(200, body: "slow\n").delayed(by: .milliseconds(500)), .status(200, body: "fast\n")]
        ])
        defer { server.stop() }
        let result = try await Tool.run(
            ["fetch", server.url("/post").absoluteString, "-d", "order", "--hedge", "0.05", "--hedges", "2"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "slow\n")
        #expect(server.requests(to: "/post").count == 1)
        #expect(!result.stderr.contains("hedge sent"))
    }

    /// A `--policy` file written when hedging was a policy field still hedges: its `"hedging"` goes
    /// to the HTTP options, as `--hedge` does (PolicyFile).
    @Test func aPolicyFilesHedgingStillHedges() async throws {
        let server = try FlakyServer(scripts: ["/slow": [.hang, .status(200, body: "fast\n")]])
        defer { server.stop() }
        let file = try Self.policyFile(#"{"maxAttempts": 1, "hedging": {"delay": 0.1, "maxAttempts": 2}}"#)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await Tool.run([
            "fetch", server.url("/slow").absoluteString, "--policy", file.path, "--timeout", "20", "-v",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "fast\n")
        #expect(server.requests(to: "/slow").count == 2)
        #expect(result.stderr.contains("after 1 attempt(s), 1 hedge sent"), "\(result.stderr)")
    }

    /// A file's bad hedging, or hedging a download to a file, exits 2 naming the problem.
    @Test func aPolicyFilesBadHedgingExitsTwo() async throws {
        let bad = try Self.policyFile(#"{"hedging": {"delay": 0.1, "maxAttempts": 9}}"#)
        let good = try Self.policyFile(#"{"hedging": {"delay": 0.1}}"#)
        defer { for file in [bad, good] { try? FileManager.default.removeItem(at: file) } }
        let cases: [([String], String)] = [
            (["--policy", bad.path], "hedging.maxAttempts"),
            (["--policy", good.path, "-o", "/tmp/retryflow-hedge-\(UUID().uuidString)"], "\"hedging\" does not apply"),
        ]
        for (flags, message) in cases {
            let result = try await Tool.run(["fetch", "http://127.0.0.1:9/"] + flags)
            #expect(result.status == 2, "\(flags): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(flags): \(result.stderr)")
        }
    }

    /// `json` in a temporary file.
    static func policyFile(_ json: String) throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("policy-\(UUID().uuidString).json")
        try Data(json.utf8).write(to: file)
        return file
    }

    @Test func badValuesExitTwoWithAClearMessage() async throws {
        let cases: [([String], String)] = [
            (["--hedge", "-1"], "--hedge must not be negative"),
            (["--hedge", "soon"], "--hedge needs a number of seconds"),
            (["--hedge", "0.1", "--hedges", "5"], "--hedges"),
            (["--hedge", "0.1", "--hedges", "0"], "--hedges"),
            (["--hedges", "2"], "--hedges needs --hedge"),
            (["--hedge", "0.1", "-o", "/tmp/retryflow-hedge-\(UUID().uuidString)"], "--hedge does not apply"),
        ]
        for (flags, message) in cases {
            let result = try await Tool.run(["fetch", "http://127.0.0.1:9/"] + flags)
            #expect(result.status == 2, "\(flags): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(flags): \(result.stderr)")
        }
    }
}
