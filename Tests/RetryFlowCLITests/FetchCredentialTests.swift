import Foundation
import RetryFlowTesting
import Testing

/// `fetch --oauth2-bearer TOKEN --auth-refresh CMD` against a server that answers 401 unless it
/// sees the right bearer token (issue 21's three cases), and the token kept out of every output.
@Suite(.timeLimit(.minutes(2))) struct FetchCredentialTests {
    static func server() throws -> FlakyServer {
        let server = try FlakyServer(scripts: ["/me": [.status(200, body: "hello\n")]])
        server.requireAuthorization("Bearer good-token", for: "/me")
        return server
    }

    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("retryflow-auth-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func aRefreshThenOkSendsTheNewTokenAndKeepsBothOutOfTheTraceAndReport() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let trace = folder.appendingPathComponent("trace.json").path
        let report = folder.appendingPathComponent("report.html").path
        let chart = folder.appendingPathComponent("chart.dot").path
        let result = try await Tool.run([
            "fetch", server.url("/me").absoluteString, "--oauth2-bearer", "old-token", "--auth-refresh",
            "echo good-token; echo ignored", "--trace", trace, "--report", report, "--trace-chart", chart,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "hello\n")
        #expect(
            server.requests(to: "/me").map { $0.header("Authorization") } == ["Bearer old-token", "Bearer good-token"])
        let traced = try String(contentsOfFile: trace, encoding: .utf8)
        let reported = try String(contentsOfFile: report, encoding: .utf8)
        let charted = try String(contentsOfFile: chart, encoding: .utf8)
        // Drawn over the policy's own table: the step is a node of the chart, and the run passed it,
        // leaving by its exits (`current` for the first send, `refreshed` for the resend).
        #expect(charted.contains("\"check credential\" ["), "the chart has the step's node")
        #expect(charted.contains("refreshed / reset backoff, ask limiter"), "the chart has the step's exits")
        #expect(
            traced.contains("check credential") && traced.contains("\"current\"") && traced.contains("\"refreshed\""),
            "the step and its exits are traced")
        #expect(reported.contains("check credential"), "the report shows the step")
        for (what, text) in [("trace", traced), ("report", reported), ("chart", charted), ("stderr", result.stderr)] {
            #expect(!text.contains("old-token") && !text.contains("good-token"), "no token in the \(what)")
        }
    }

    @Test func aRefreshCommandThatFailsExitsOneNamingIt() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let result = try await Tool.run([
            "fetch", server.url("/me").absoluteString, "--oauth2-bearer", "old-token", "--auth-refresh",
            "echo leaked-secret; exit 3",
        ])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("refresh failed"))
        #expect(result.stderr.contains("the --auth-refresh command exited with status 3"))
        #expect(!result.stderr.contains("leaked-secret"), "a failed command's output is never shown")
        #expect(server.requests(to: "/me").count == 1, "nothing is resent after a failed refresh")
    }

    @Test func aRefreshThatReturnsAUselessTokenEndsBoundedWithExitOne() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let result = try await Tool.run([
            "fetch", server.url("/me").absoluteString, "--oauth2-bearer", "old-token", "--auth-refresh",
            "echo useless-token",
        ])
        #expect(result.status == 1, "\(result.stderr)")
        // The first send and one resend per refresh of the run (2), then the 401 is the answer.
        #expect(
            server.requests(to: "/me").map { $0.header("Authorization") } == [
                "Bearer old-token", "Bearer useless-token", "Bearer useless-token",
            ])
        #expect(!result.stderr.contains("useless-token"))
    }

    @Test func aRefreshCommandAloneRunsBeforeTheFirstSend() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let result = try await Tool.run([
            "fetch", server.url("/me").absoluteString, "--auth-refresh", "echo good-token",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(server.requests(to: "/me").map { $0.header("Authorization") } == ["Bearer good-token"])
    }

    @Test func aBearerTokenAloneIsSentAndBadOnesAreRefused() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let ok = try await Tool.run(["fetch", server.url("/me").absoluteString, "--oauth2-bearer", "good-token"])
        #expect(ok.status == 0 && ok.stdout == "hello\n", "\(ok.stderr)")
        let both = try await Tool.run([
            "fetch", server.url("/me").absoluteString, "--oauth2-bearer", "x", "-u", "a:b",
        ])
        #expect(both.status == 2 && both.stderr.contains("not both"))
        let spaced = try await Tool.run(["fetch", server.url("/me").absoluteString, "--oauth2-bearer", "a b"])
        #expect(spaced.status == 2 && spaced.stderr.contains("--oauth2-bearer needs a token"))
        #expect(!spaced.stderr.contains("a b"))
    }
}
