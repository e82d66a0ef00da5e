import Foundation
import RetryFlowTesting
import Testing

/// `retryflow fetch` and curl itself, given the same flags against the same scripted server on
/// 127.0.0.1: exit status, stdout and -w output are equal where the meaning is the same; where
/// retryflow differs on purpose (docs/migrating.md lists each), the test pins the difference.
///
/// Exit statuses: retryflow's are 0, 1 and 2, curl's are its own codes (22 for -f, 7 refused,
/// 63 --max-filesize); "the same" means both zero or both not.
@Suite(.timeLimit(.minutes(2))) struct CurlSideBySideTests {
    static let curl: URL? = ["/usr/bin/curl", "/bin/curl", "/usr/local/bin/curl"].map(URL.init(fileURLWithPath:))
        .first { FileManager.default.isExecutableFile(atPath: $0.path) }

    static let scripts: [String: [FlakyServer.Step]] = [
        "/ok": [.status(200, headers: ["Content-Type": "text/plain"], body: "hello\n")],
        "/missing": [.status(404, body: "no such page\n")],
        "/echo": [.status(200, body: "echo\n")],
        "/moved": [.status(302, headers: ["Location": "/ok"], body: "moved\n")],
        "/flaky": [.status(503, body: "busy\n"), .status(200, body: "ok\n")],
        "/down": [.status(503, body: "down\n")],
    ]

    struct Pair {
        var curl: ToolResult
        var ours: ToolResult
        var curlRequests: [FlakyServer.RecordedRequest]
        var ourRequests: [FlakyServer.RecordedRequest]
    }

    /// Runs curl, then retryflow, each against a fresh server playing `scripts`; `url` may use
    /// `{base}` for the server and `{closed}` for a port nobody listens on.
    static func both(_ arguments: [String], path: String? = "/ok", ours extra: [String] = []) async throws -> Pair {
        let curl = try #require(Self.curl, "curl is missing: run scripts/install-deps.sh")
        func run(_ executable: URL?, _ extra: [String]) async throws -> (ToolResult, [FlakyServer.RecordedRequest]) {
            let server = try FlakyServer(scripts: scripts)
            defer { server.stop() }
            let args =
                arguments.map { $0.replacingOccurrences(of: "{base}", with: server.baseURL.absoluteString) }
                + (path.map { [server.url($0).absoluteString] } ?? [])
            let result: ToolResult
            if let executable {
                result = try await Tool.run(args, executable: executable)
            } else {
                result = try await Tool.run(["fetch"] + args + extra)
            }
            return (result, server.requests)
        }
        let (curlResult, curlRequests) = try await run(curl, [])
        let (ours, ourRequests) = try await run(nil, extra)
        return Pair(curl: curlResult, ours: ours, curlRequests: curlRequests, ourRequests: ourRequests)
    }

    /// Same stdout, both zero or both non-zero.
    static func expectSame(_ pair: Pair, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(pair.ours.stdout == pair.curl.stdout, "\(what): stdout", sourceLocation: sourceLocation)
        #expect(
            (pair.ours.status == 0) == (pair.curl.status == 0),
            "\(what): exit \(pair.ours.status) vs curl's \(pair.curl.status); \(pair.ours.stderr)",
            sourceLocation: sourceLocation)
        #expect(pair.ours.status <= 1, "\(what): never a usage error", sourceLocation: sourceLocation)
    }

    @Test func plainFetchesPrintTheSameBody() async throws {
        for flags in [["-s"], ["-fsSL"], ["-sS", "--compressed"], ["-s", "-L"], ["-s", "--retry-connrefused"]] {
            let pair = try await Self.both(flags)
            Self.expectSame(pair, flags.joined(separator: " "))
            #expect(pair.ours.stdout == "hello\n")
        }
    }

    @Test func writeOutVariablesAgree() async throws {
        let format = "%{http_code} %{response_code} %{size_download} %{url_effective} %{exitcode}\\n"
        var ok = try await Self.both(["-s", "-w", format])
        // Each side had its own server: the ports differ, nothing else may.
        for keyPath in [\Pair.curl.stdout, \Pair.ours.stdout] {
            ok[keyPath: keyPath] = ok[keyPath: keyPath].replacingOccurrences(
                of: #"127\.0\.0\.1:[0-9]+"#, with: "127.0.0.1:PORT", options: .regularExpression)
        }
        Self.expectSame(ok, "-w on 200")
        #expect(ok.ours.stdout == "hello\n200 200 6 http://127.0.0.1:PORT/ok 0\n")
        // %{num_retries} arrived in curl 8.9; older curls print nothing for it.
        let retries = try await Self.both(["-s", "-o", "/dev/null", "-w", "%{num_retries}"])
        #expect(retries.ours.stdout == "0")
        #expect(retries.curl.stdout == "0" || retries.curl.stdout.isEmpty)
        let missing = try await Self.both(["-s", "-w", "%{http_code} %{size_download}\\n"], path: "/missing")
        Self.expectSame(missing, "-w on 404")
        #expect(missing.ours.stdout == "no such page\n404 13\n")
        let timed = try await Self.both(["-s", "-o", "/dev/null", "-w", "%{time_total}"])
        for output in [timed.curl.stdout, timed.ours.stdout] {
            #expect(output.range(of: #"^[0-9]+\.[0-9]{6}$"#, options: .regularExpression) != nil, "\(output)")
        }
    }

    @Test func finalAnswersAndFail() async throws {
        let plain = try await Self.both(["-s"], path: "/missing")
        Self.expectSame(plain, "404 without -f exits 0 in both")
        #expect(plain.ours.status == 0)
        let fail = try await Self.both(["-sf", "-w", "%{http_code}"], path: "/missing")
        Self.expectSame(fail, "-f: no body, -w still printed, non-zero")
        #expect(fail.ours.stdout == "404" && fail.ours.status == 1 && fail.curl.status == 22)
        let withBody = try await Self.both(["-s", "--fail-with-body"], path: "/missing")
        Self.expectSame(withBody, "--fail-with-body: body and non-zero")
        #expect(withBody.ours.stdout == "no such page\n" && withBody.ours.status == 1)
        let silentErrors = try await Self.both(["-sf"], path: "/missing")
        #expect(silentErrors.curl.stderr.isEmpty && silentErrors.ours.stderr.isEmpty, "-s hides the error in both")
        let shown = try await Self.both(["-sSf"], path: "/missing")
        #expect(!shown.curl.stderr.isEmpty && shown.ours.stderr.contains("HTTP 404"), "-S shows it in both")
    }

    @Test func requestsCarryTheSameCredentialsAndIdentity() async throws {
        let pair = try await Self.both(
            [
                "-s", "-u", "alice:s3cret", "-A", "agent/1.0", "-e", "http://ref.test/", "-H", "X-Custom: 7", "-X",
                "PUT", "-d", "a=1",
            ],
            path: "/echo")
        Self.expectSame(pair, "identity flags")
        let sent = try #require(pair.curlRequests.first)
        let ours = try #require(pair.ourRequests.first)
        for name in ["Authorization", "User-Agent", "Referer", "X-Custom"] {
            #expect(ours.header(name) == sent.header(name), "\(name)")
        }
        #expect(ours.method == "PUT" && sent.method == "PUT")
        #expect(ours.body == sent.body)
    }

    @Test func outputFilesMatch() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "retryflow-curl-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let curlFile = folder.appendingPathComponent("curl/sub/out.txt")
        let ourFile = folder.appendingPathComponent("ours/sub/out.txt")
        let curlRun = try await Self.both(["-s", "--create-dirs", "-o", curlFile.path])
        let ourRun = try await Self.both(["-s", "--create-dirs", "-o", ourFile.path])
        #expect(curlRun.curl.status == 0 && ourRun.ours.status == 0, "\(ourRun.ours.stderr)")
        #expect(try Data(contentsOf: ourFile) == Data(contentsOf: curlFile))
        #expect(ourRun.ours.stdout.isEmpty && curlRun.curl.stdout.isEmpty)
    }

    @Test func fileOutputFollowsCurlOnFailuresSizesAndWriteOut() async throws {
        // -o streams to disk (FILE.part, renamed when whole); what lands in FILE, -w's numbers and
        // whether the exit is zero stay curl's.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "retryflow-curl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let cases: [(path: String, flags: [String])] = [
            ("/ok", []), ("/missing", []), ("/missing", ["-f"]), ("/missing", ["--fail-with-body"]),
            ("/ok", ["--max-filesize", "3"]), ("/ok", ["-I"]),
        ]
        for (index, item) in cases.enumerated() {
            let what = "\(item.path) \(item.flags.joined(separator: " "))"
            let curlFile = folder.appendingPathComponent("curl-\(index)")
            let ourFile = folder.appendingPathComponent("ours-\(index)")
            func flags(_ file: URL) -> [String] {
                ["-s", "-w", "%{http_code} %{size_download}", "-o", file.path] + item.flags
            }
            let curlRun = try await Self.both(flags(curlFile), path: item.path)
            let ourRun = try await Self.both(flags(ourFile), path: item.path)
            let pair = Pair(curl: curlRun.curl, ours: ourRun.ours, curlRequests: [], ourRequests: [])
            Self.expectSame(pair, what)
            let curlData = try? Data(contentsOf: curlFile)
            let ourData = try? Data(contentsOf: ourFile)
            if item.flags == ["-I"] {
                // The head's lines differ on purpose (sorted names): its status line and its end agree.
                let ours = String(decoding: ourData ?? Data(), as: UTF8.self)
                #expect(ours.hasPrefix("HTTP/1.1 200 ") && ours.hasSuffix("\r\n\r\n"), "\(what)")
                #expect(curlData.map { String(decoding: $0, as: UTF8.self).hasPrefix("HTTP/1.1 200 ") } == true)
            } else {
                #expect(ourData == curlData, "\(what): the file")
            }
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
                $0.hasSuffix(".part") || $0.hasSuffix(".tmp")
            }
            #expect(leftovers.isEmpty, "\(what): \(leftovers)")
        }
    }

    @Test func headAndInclude() async throws {
        // Same status line and body; the header lines differ on purpose (URLSession gives no
        // wire order, and sorted names are what retryflow prints).
        let head = try await Self.both(["-sI"])
        Self.expectSame(
            Pair(curl: firstLine(head.curl), ours: firstLine(head.ours), curlRequests: [], ourRequests: []),
            "-I status line")
        #expect(head.ours.stdout.hasPrefix("HTTP/1.1 200 ") && head.ours.stdout.hasSuffix("\r\n\r\n"))
        #expect(head.curlRequests.first?.method == "HEAD" && head.ourRequests.first?.method == "HEAD")
        let include = try await Self.both(["-si"])
        #expect(firstLine(include.ours).stdout == firstLine(include.curl).stdout)
        #expect(include.ours.stdout.hasSuffix("\r\n\r\nhello\n") && include.curl.stdout.hasSuffix("\r\n\r\nhello\n"))
        #expect(include.ours.stdout.contains("Content-Type: text/plain\r\n"))
    }

    @Test func refusedConnectionsAndSizeLimits() async throws {
        let refusing = try RefusingPort()
        defer { refusing.stop() }
        let url = refusing.url("/x").absoluteString
        let refused = try await Self.both(["-s", "--retry", "0", "-w", "%{http_code}", url], path: nil)
        Self.expectSame(refused, "refused")
        #expect(refused.ours.stdout == "000" && refused.curl.status == 7 && refused.ours.status == 1)
        #expect(refused.ours.stderr.isEmpty && refused.curl.stderr.isEmpty, "-s hides it")
        let shown = try await Self.both(["-sS", "--retry", "0", url], path: nil)
        #expect(!shown.curl.stderr.isEmpty && shown.ours.stderr.contains("cannotConnectToHost"))
        let tooBig = try await Self.both(["-s", "--max-filesize", "3"])
        Self.expectSame(tooBig, "--max-filesize")
        #expect(tooBig.ours.stdout.isEmpty && tooBig.curl.status == 63 && tooBig.ours.status == 1)
    }

    /// The documented differences, pinned so they cannot change unnoticed.
    @Test func differencesOnPurpose() async throws {
        // Redirects: retryflow always follows (URLSession does); curl needs -L.
        let moved = try await Self.both(["-s"], path: "/moved")
        #expect(moved.curl.stdout == "moved\n" && moved.ours.stdout == "hello\n")
        // Retries: curl prints every attempt's body; retryflow only the final one. -w agrees.
        let flaky = try await Self.both(
            ["-s", "--retry", "2", "--retry-delay", "1", "-w", "%{http_code} %{num_retries}"], path: "/flaky")
        #expect(flaky.curl.stdout == "busy\nok\n200 1" || flaky.curl.stdout == "busy\nok\n200 ", "\(flaky.curl.stdout)")
        #expect(flaky.ours.stdout == "ok\n200 1")
        #expect(flaky.curl.status == 0 && flaky.ours.status == 0)
        // Giving up: curl exits 0 with the last 503 (no -f); retryflow's run ended in failure: exit 1.
        let down = try await Self.both(
            ["-s", "--retry", "1", "--retry-delay", "1", "-w", "%{http_code}"], path: "/down")
        #expect(down.curl.stdout == "down\ndown\n503" && down.curl.status == 0)
        #expect(down.ours.stdout == "down\n503" && down.ours.status == 1)
    }

    private func firstLine(_ result: ToolResult) -> ToolResult {
        var copy = result
        copy.stdout = String(
            result.stdout.prefix { $0 != "\r" && $0 != "\n" }.split(separator: " ").prefix(2).joined(separator: " "))
        return copy
    }
}
