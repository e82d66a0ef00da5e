import Foundation
import RetryFlowTesting
import Testing

/// `--report FILE.html` on simulate, fetch and render: the page is written, and secrets stay out.
@Suite(.timeLimit(.minutes(2))) struct ReportOptionTests {
    @Test func simulateFetchAndRenderWriteReports() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("retryflow-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let report = folder.appendingPathComponent("run.html").path
        let trace = folder.appendingPathComponent("run.json").path
        let simulated = try await Tool.run(
            ["simulate", "--outcomes", "reset,200", "--jitter", "none", "--report", report, "--trace", trace])
        #expect(simulated.status == 0, "\(simulated.stderr)")
        let page = try String(contentsOfFile: report, encoding: .utf8)
        #expect(page.contains("<dt>stop reason</dt><dd>succeeded</dd>"))
        #expect(page.contains("&quot;maxAttempts&quot; : 3"), "the policy that ran")
        #expect(
            page.contains("<tr id=\"step_11\">") && !page.contains("<tr id=\"step_12\">"),
            "twelve steps: two tries, each with start or woke, token granted and admitted, and the budget and wait between"
        )

        let rendered = folder.appendingPathComponent("rendered.html").path
        let render = try await Tool.run(["render", "--trace", trace, "-o", rendered])
        #expect(render.status == 0, "\(render.stderr)")
        #expect(try String(contentsOfFile: rendered, encoding: .utf8).contains("<tr id=\"step_7\">"))
    }

    @Test func fetchReportKeepsSecretsOut() async throws {
        let server = try FlakyServer(scripts: ["/secret": [.status(503), .status(200, body: "ok")]])
        defer { server.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("retryflow-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let report = folder.appendingPathComponent("fetch.html").path
        var url = URLComponents(url: server.url("/secret"), resolvingAgainstBaseURL: false)!
        url.user = "alice"
        url.password = "hunter2"
        url.queryItems = [URLQueryItem(name: "token", value: "s3cret")]
        let result = try await Tool.run(
            [
                "fetch", url.string!, "-H", "Authorization: Bearer t0psecret", "--delay", "0.01", "--jitter", "none",
                "--report", report,
            ])
        #expect(result.status == 0, "\(result.stderr)")
        let page = try String(contentsOfFile: report, encoding: .utf8)
        #expect(page.contains("token=***"))
        #expect(page.contains("<tr id=\"step_5\">"), "both attempts are in the page")
        for secret in ["hunter2", "s3cret", "t0psecret", "alice"] { #expect(!page.contains(secret), "\(secret)") }

        // -u puts the credentials in a header, never in the URL: still nowhere in the page.
        let basic = folder.appendingPathComponent("basic.html").path
        let withUser = try await Tool.run(
            [
                "fetch", server.url("/secret").absoluteString, "-u", "bob:pa55word", "--delay", "0.01", "--jitter",
                "none",
                "--report", basic,
            ])
        let basicPage = try String(contentsOfFile: basic, encoding: .utf8)
        #expect(withUser.status != 2, "\(withUser.stderr)")
        for secret in ["bob", "pa55word", "Ym9iOnBhNTV3b3Jk"] { #expect(!basicPage.contains(secret), "\(secret)") }
    }

    @Test func aReportNeedsAnHTMLName() async throws {
        let bad = try await Tool.run(["simulate", "--outcomes", "200", "--report", "/tmp/run.txt"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("--report /tmp/run.txt: use a .html file name"))
        let noTrace = try await Tool.run(["render", "-o", "/tmp/run.html"])
        #expect(noTrace.status == 2)
        #expect(noTrace.stderr.contains("an html report needs --trace"))
    }
}
