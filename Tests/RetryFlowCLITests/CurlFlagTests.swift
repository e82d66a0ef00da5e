import Foundation
import RetryFlowTesting
import Testing

/// fetch's curl flags: every one malformed exits 2 naming it; what each does; the exit status
/// following the machine; secrets never printed; completion and the man page.
@Suite(.timeLimit(.minutes(2))) struct CurlFlagTests {
    static let url = "http://127.0.0.1:9/x"
    static let fast = ["--delay", "0.02", "--jitter", "none"]

    static let malformed: [(arguments: [String], message: String)] = [
        (["-w"], "option -w needs a value"),
        (["--write-out", "%{nope}"], "-w: unknown variable %{nope}"),
        (["-w", "%{http_code"], "-w: \"%{\" without a closing \"}\""),
        (["-u", "alice"], "-u/--user needs USER:PASSWORD"),
        (["-u"], "option -u needs a value"),
        (["-A", "a\nb"], "--user-agent: a header value cannot contain line breaks"),
        (["-e", "x\ry"], "--referer: a header value cannot contain line breaks"),
        (["--connect-timeout", "soon"], "--connect-timeout needs a number of seconds"),
        (["--connect-timeout", "0"], "--connect-timeout must be more than 0"),
        (["--max-time", "0"], "--max-time must be more than 0"),
        (["--connect-timeout", "-3"], "--connect-timeout must not be negative"),
        (["--max-filesize", "12x"], "--max-filesize needs a number of bytes"),
        (["--max-filesize", "-1"], "--max-filesize needs a number of bytes"),
        (["--max-filesize", "99999999999999999G"], "--max-filesize is too large"),
        (["--attempt-header", "Bad Name"], "--attempt-header needs a header name"),
        (["--attempt-header="], "--attempt-header needs a header name"),
        (["-f", "--fail=yes"], "option --fail takes no value"),
        (["-k"], "-k: refused: retryflow never weakens TLS checks"),
        (["-fsk"], "-k: refused"),
        (["--insecure"], "--insecure: refused"),
        (["--cookie", "a=b"], "--cookie: a curl option not supported by retryflow"),
        (["-b", "a=b"], "-b: a curl option not supported by retryflow"),
        (["-sx", "proxy:1"], "-x: a curl option not supported by retryflow"),
        (["-fsZ"], "unknown option -Z"),
        (
            ["--doh-url", "x"],
            "unknown option --doh-url for 'retryflow fetch' (see 'retryflow fetch --help'; a curl option not listed there is not supported by retryflow)"
        ),
        (["-I", "-d", "x"], "-I/--head sends HEAD; it cannot go with -d/--data"),
        (["-o", "/tmp/x", "-O"], "give -o FILE or -O, not both"),
        (["-o", "a", "-o", "b"], "option -o is given more than once"),
    ]

    /// The steps of a trace fetch wrote with --trace, as JSON objects.
    static func steps(of trace: URL) throws -> [[String: Any]] {
        let document = try JSONSerialization.jsonObject(with: Data(contentsOf: trace)) as? [String: Any]
        return try #require(document?["steps"] as? [[String: Any]])
    }

    /// A fresh path for a trace file in the temporary folder.
    static func tracePath() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("retryflow-trace-\(UUID().uuidString).json")
    }

    @Test(arguments: malformed.indices)
    func malformedFlagExitsTwoNamingIt(index: Int) async throws {
        let (arguments, message) = Self.malformed[index]
        let result = try await Tool.run(["fetch", Self.url] + arguments)
        #expect(result.status == 2, "\(arguments): status \(result.status), stderr \(result.stderr)")
        #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func aBadURLIsNamedWithoutItsPassword() async throws {
        let result = try await Tool.run(["fetch", "ftp://alice:s3cret@127.0.0.1/x"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("bad URL \"ftp://127.0.0.1/x\""), "\(result.stderr)")
        #expect(!result.stderr.contains("s3cret"))
    }

    @Test func remoteNameNeedsAFileName() async throws {
        let result = try await Tool.run(["fetch", "http://127.0.0.1:9/", "-O"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("-O: the URL http://127.0.0.1:9/ has no file name"))
        let sneaky = try await Tool.run(["fetch", "http://127.0.0.1:9/x/..%2F..%2Fetc%2Fpasswd", "-O"])
        #expect(sneaky.status == 2 && sneaky.stderr.contains("has no file name"), "\(sneaky.stderr)")
    }

    @Test func remoteNameWritesIntoTheCurrentFolder() async throws {
        let server = try FlakyServer(scripts: ["/files/report.txt": [.status(200, body: "report")]])
        defer { server.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("retryflow-O-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await Tool.run(["fetch", "-sO", server.url("/files/report.txt").absoluteString], in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try String(contentsOf: folder.appendingPathComponent("report.txt"), encoding: .utf8) == "report")
        #expect(result.stdout.isEmpty)
    }

    @Test func exitStatusFollowsTheMachineAndTheSummarySaysWhy() async throws {
        let server = try FlakyServer(scripts: [
            "/orders": [.status(503, body: "busy")], "/ok": [.status(200, body: "ok")],
            "/gone": [.status(404, body: "gone")],
        ])
        defer { server.stop() }
        let post = try await Tool.run(["fetch", server.url("/orders").absoluteString, "-d", "{}"] + Self.fast)
        #expect(post.status == 0, "a POST's 503, not retried, ends the run in answered, as a 404 does")
        #expect(post.stdout == "busy", "the server's answer is printed, as curl does")
        #expect(post.stderr.contains("exit 0: the run ended in answered (final answer)"), "\(post.stderr)")
        let failPost = try await Tool.run(
            ["fetch", "-sS", "-f", server.url("/orders").absoluteString, "-d", "{}"] + Self.fast)
        #expect(failPost.status == 1 && failPost.stdout.isEmpty, "-f makes it a failure, for scripts")
        #expect(failPost.stderr.contains("HTTP 503 Service Unavailable is a failure"), "\(failPost.stderr)")
        let ok = try await Tool.run(["fetch", server.url("/ok").absoluteString] + Self.fast)
        #expect(ok.status == 0 && ok.stderr.contains("exit 0: the run ended in success"))
        let gone = try await Tool.run(["fetch", server.url("/gone").absoluteString] + Self.fast)
        #expect(gone.status == 0 && gone.stderr.contains("exit 0: the run ended in answered (final answer)"))
        let trace = Self.tracePath()
        defer { try? FileManager.default.removeItem(at: trace) }
        let failed = try await Tool.run(
            ["fetch", "-f", server.url("/gone").absoluteString, "--trace", trace.path] + Self.fast)
        #expect(failed.status == 1 && failed.stdout.isEmpty)
        let why = "exit 1: the run ended in failure (not retryable): -f/--fail and HTTP 404 (body not written)"
        #expect(failed.stderr.contains(why), "\(failed.stderr)")
        // -f is a rule of the machine (failing statuses), not a later check: the trace ends in failure too.
        let steps = try Self.steps(of: trace)
        #expect(steps.last?["to"] as? String == "failure", "\(steps.last ?? [:])")
        let quiet = try await Tool.run(["fetch", "-s", server.url("/ok").absoluteString] + Self.fast)
        #expect(quiet.stderr.isEmpty && quiet.stdout == "ok")
    }

    @Test func maxFileSizeIsARuleOfTheMachine() async throws {
        let server = try FlakyServer(scripts: ["/big": [.status(200, body: "0123456789")]])
        defer { server.stop() }
        let trace = Self.tracePath()
        defer { try? FileManager.default.removeItem(at: trace) }
        let result = try await Tool.run(
            ["fetch", "--max-filesize", "4", server.url("/big").absoluteString, "--trace", trace.path] + Self.fast)
        #expect(result.status == 1 && result.stdout.isEmpty)
        #expect(result.stderr.contains("exit 1: the run ended in failure (not retryable)"), "\(result.stderr)")
        #expect(result.stderr.contains("gave up (not retryable) after 1 attempt"), "\(result.stderr)")
        #expect(result.stderr.contains("the body has 10 bytes, more than the 4 allowed"), "\(result.stderr)")
        let steps = try Self.steps(of: trace)
        #expect(steps.last?["to"] as? String == "failure", "the trace agrees with the exit status")
        #expect(server.requests(to: "/big").count == 1, "not retried")
    }

    @Test func retryAllErrorsRetriesWhatTheDefaultsDoNot() async throws {
        let server = try FlakyServer(scripts: [
            "/a": [.status(404), .status(200, body: "ok")], "/b": [.status(404), .status(200, body: "ok")],
        ])
        defer { server.stop() }
        let plain = try await Tool.run(["fetch", "-sf", server.url("/a").absoluteString] + Self.fast)
        #expect(plain.status == 1 && server.requests(to: "/a").count == 1)
        let all = try await Tool.run(
            ["fetch", "-sf", "--retry-all-errors", server.url("/b").absoluteString] + Self.fast)
        #expect(
            all.status == 0 && all.stdout == "ok" && server.requests(to: "/b").count == 2,
            "with -f, a 404 is an error to retry")
    }

    @Test func credentialsNeverReachTracesChartsOrProgress() async throws {
        let server = try FlakyServer(scripts: ["/p": [.status(503), .status(500), .status(200, body: "ok")]])
        defer { server.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("retryflow-u-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let trace = folder.appendingPathComponent("t.json")
        let chart = folder.appendingPathComponent("c.dot")
        let result = try await Tool.run(
            [
                "fetch", "-v", "-u", "alice:s3cret", server.url("/p").absoluteString, "--trace", trace.path,
                "--trace-chart", chart.path,
            ]
                + Self.fast)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(server.requests(to: "/p").allSatisfy { $0.header("Authorization") == "Basic YWxpY2U6czNjcmV0" })
        let written = try String(contentsOf: trace, encoding: .utf8) + String(contentsOf: chart, encoding: .utf8)
        for secret in ["s3cret", "YWxpY2U6czNjcmV0", "alice"] {
            #expect(
                !written.contains(secret) && !result.stderr.contains(secret) && !result.stdout.contains(secret),
                "\(secret)")
        }
        // The trace carries OpenTelemetry's resend count on the later attempts only.
        let steps = try Self.steps(of: trace)
        for step in steps {
            let attempt = try #require(step["attempt"] as? Int)
            #expect(step["http.request.resend_count"] as? Int == (attempt > 1 ? attempt - 1 : nil), "\(step)")
        }
        #expect(steps.contains { $0["http.request.resend_count"] as? Int == 2 })
    }

    @Test func credentialsStayWithTheirOriginAcrossRedirects() async throws {
        // URLSession on Linux copies every header onto a redirect; curl drops credentials when
        // the host or port changes. Two servers on 127.0.0.1 are two origins (ports differ).
        let elsewhere = try FlakyServer(scripts: ["/landing": [.status(200, body: "elsewhere")]])
        defer { elsewhere.stop() }
        let server = try FlakyServer(scripts: [
            "/away": [.status(302, headers: ["Location": elsewhere.url("/landing").absoluteString])],
            "/here": [.status(302, headers: ["Location": "/landing"])], "/landing": [.status(200, body: "here")],
        ])
        defer { server.stop() }
        let secrets = ["-u", "alice:s3cret", "-H", "Cookie: session=42"] + Self.fast
        let away = try await Tool.run(["fetch", "-s", server.url("/away").absoluteString] + secrets)
        #expect(away.status == 0 && away.stdout == "elsewhere", "\(away.stderr)")
        let first = try #require(server.requests(to: "/away").first)
        #expect(first.header("Authorization") == "Basic YWxpY2U6czNjcmV0" && first.header("Cookie") == "session=42")
        let other = try #require(elsewhere.requests(to: "/landing").first, "the redirect was followed")
        #expect(other.header("Authorization") == nil && other.header("Cookie") == nil, "another origin gets no secret")
        let here = try await Tool.run(["fetch", "-s", server.url("/here").absoluteString] + secrets)
        #expect(here.status == 0 && here.stdout == "here", "\(here.stderr)")
        let same = try #require(server.requests(to: "/landing").first)
        #expect(same.header("Authorization") == "Basic YWxpY2U6czNjcmV0", "the same origin keeps them")
    }

    @Test func rateLimitResetIsWaitedForAndNamed() async throws {
        let server = try FlakyServer(scripts: [
            "/limited": [
                .status(429, headers: ["X-RateLimit-Reset": "1", "Retry-After": "0"]), .status(200, body: "ok"),
            ]
        ])
        defer { server.stop() }
        let result = try await Tool.run(
            ["fetch", server.url("/limited").absoluteString, "--attempt-header", "RetryFlow-Attempt"] + Self.fast)
        #expect(result.status == 0, "\(result.stderr)")
        let seen = server.requests(to: "/limited")
        #expect(seen.count == 2)
        #expect(seen[1].arrival - (seen[0].answered ?? seen[0].arrival) >= .seconds(1), "never early")
        #expect(
            result.stderr.contains("X-RateLimit-Reset 1 asks for 1 s; the longest decides: X-RateLimit-Reset"),
            "\(result.stderr)")
        #expect(seen.map { $0.header("RetryFlow-Attempt") } == ["1", "2"])
    }

    @Test func connectTimeoutIsAnIdleTimeout() async throws {
        let server = try FlakyServer(scripts: ["/silent": [.hang]])
        defer { server.stop() }
        let result = try await Tool.run(
            ["fetch", "--connect-timeout", "0.3", "--retry", "1", server.url("/silent").absoluteString] + Self.fast)
        #expect(result.status == 1)
        #expect(result.stderr.contains("timedOut"), "\(result.stderr)")
        #expect(server.requests(to: "/silent").count == 2, "a timeout is retried")
        // Rounded up to 1 s (URLSession on Linux counts whole seconds; 0.3 would fail at once). The
        // upper bound only tells 1 s from the 60 s default, with room for a loaded machine.
        #expect(
            result.elapsed >= .seconds(2) && result.elapsed < .seconds(30),
            "\(result.elapsed): not URLSession's 60 s default")
    }

    @Test func completionScriptsOfferEveryFlag() async throws {
        let bash = try await Tool.run(["completion", "bash"])
        #expect(bash.status == 0)
        // Drive the bash function as bash would: complete `retryflow fetch --fail-w`.
        let script =
            bash.stdout + """
                COMP_WORDS=(retryflow fetch --fail-w); COMP_CWORD=2; _retryflow; echo "${COMPREPLY[@]}"
                COMP_WORDS=(retryflow comp); COMP_CWORD=1; _retryflow; echo "${COMPREPLY[@]}"
                COMP_WORDS=(retryflow fetch --insec); COMP_CWORD=2; _retryflow; echo "[${COMPREPLY[@]}]"
                """
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "retryflow-completion-\(UUID().uuidString).bash")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(script.utf8).write(to: file)
        let ran = try await Tool.run([file.path], executable: URL(fileURLWithPath: "/bin/bash"))
        #expect(ran.status == 0, "\(ran.stderr)")
        #expect(ran.stdout == "--fail-with-body\ncompletion\n[]\n", "refused flags are not offered")
        let zsh = try await Tool.run(["completion", "zsh"])
        #expect(zsh.status == 0 && zsh.stdout.hasPrefix("#compdef retryflow"))
        #expect(
            zsh.stdout.contains("'--write-out'") && zsh.stdout.contains("'--trace-chart'")
                && !zsh.stdout.contains("'--insecure'"))
        let bad = try await Tool.run(["completion", "fish"])
        #expect(bad.status == 2 && bad.stderr.contains("unknown shell \"fish\""))
    }

    @Test func manPageIsTheHelpText() async throws {
        let man = try await Tool.run(["help", "--man"])
        #expect(man.status == 0)
        let fetchHelp = try await Tool.run(["help", "fetch"]) // the same as `fetch --help`
        let fetchDashHelp = try await Tool.run(["fetch", "--help"])
        #expect(fetchHelp.status == 0 && fetchHelp.stdout == fetchDashHelp.stdout)
        #expect(man.stdout.hasPrefix(".TH RETRYFLOW 1"))
        for section in [".SH FETCH", ".SH SIMULATE", ".SH RENDER", ".SH DEMO", ".SH COMPLETION"] {
            #expect(man.stdout.contains(section))
        }
        #expect(man.stdout.contains(".TP\n\\fB\\-w, \\-\\-write\\-out FORMAT\\fR\n"))
        #expect(man.stdout.contains("\\fB\\-\\-connect\\-timeout S\\fR\nURLSession has no connect\\-only timeout"))
        #expect(!man.stdout.unicodeScalars.contains { !$0.isASCII }, "roff escapes for non-ASCII")
        // groff, when present, reads it without a warning.
        let groff = URL(fileURLWithPath: "/usr/bin/groff")
        if FileManager.default.isExecutableFile(atPath: groff.path) {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("retryflow-\(UUID().uuidString).1")
            defer { try? FileManager.default.removeItem(at: file) }
            try Data(man.stdout.utf8).write(to: file)
            let checked = try await Tool.run(["-man", "-Tutf8", "-ww", "-z", file.path], executable: groff)
            #expect(checked.status == 0 && checked.stderr.isEmpty, "\(checked.stderr)")
        }
    }
}
