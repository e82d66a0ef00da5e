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
