import Foundation
import RetryFlowTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite(.timeLimit(.minutes(2))) struct FetchCommandTests {
    static let fast = ["--delay", "0.02", "--jitter", "none"]

    @Test func flakyURLSucceedsWithTheRightNumberOfRequests() async throws {
        let server = try FlakyServer(scripts: ["/flaky": [.reset, .status(503), .status(200, body: "hello\n")]])
        defer { server.stop() }
        let result = try await Tool.run(["fetch", server.url("/flaky").absoluteString] + Self.fast)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "hello\n", "only the final body")
        #expect(server.requests(to: "/flaky").count == 3)
        #expect(result.stderr.contains("attempt 1 of 3"))
        #expect(result.stderr.contains("networkConnectionLost"))
        #expect(result.stderr.contains("HTTP 200, 6 bytes after 3 attempt(s)"))
    }

    /// `-o LINK` (as `-o /dev/stdout` redirected to a file is) writes the file the link points to: the
    /// link itself is never renamed over (as root, /dev/stdout would become a regular file).
    @Test func outputThroughALinkKeepsTheLink() async throws {
        let server = try FlakyServer(scripts: ["/x": [.status(200, body: "hi")]])
        defer { server.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("retryflow-link-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, arguments) in [
            ("fetched", ["fetch", server.url("/x").absoluteString] + Self.fast), ("rendered", ["render"]),
        ] {
            let real = folder.appendingPathComponent(name).path
            let link = folder.appendingPathComponent(name + ".link.dot").path
            try Data("old".utf8).write(to: URL(fileURLWithPath: real))
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
            let result = try await Tool.run(arguments + ["-o", link])
            #expect(result.status == 0, "\(name): \(result.stderr)")
            #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == real, "\(name): still a link")
            let written = try String(contentsOfFile: real, encoding: .utf8)
            #expect(name == "fetched" ? written == "hi" : written.hasPrefix("digraph"), "\(name): the target written")
        }
    }

    /// A file replaced by its new contents keeps its permissions (it got 0644, the umask's, so a
    /// trace kept private became readable by all); a file that did not exist gets the umask's.
    @Test func aReplacedFileKeepsItsMode() async throws {
        let server = try FlakyServer(scripts: ["/x": [.status(200, body: "hi")]])
        defer { server.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("retryflow-mode-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let kept = folder.appendingPathComponent("kept.json").path
        let fresh = folder.appendingPathComponent("fresh.json").path
        _ = FileManager.default.createFile(
            atPath: kept, contents: Data("old".utf8), attributes: [.posixPermissions: 0o600])
        for path in [kept, fresh] {
            let result = try await Tool.run(
                ["fetch", server.url("/x").absoluteString, "-s", "--trace", path] + Self.fast)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try String(contentsOfFile: path, encoding: .utf8).contains("\"steps\""), "the trace was written")
        }
        let mode = { (path: String) in
            (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
        }
        #expect(mode(kept) == 0o600, "was \(String(mode(kept), radix: 8))")
        let plain = folder.appendingPathComponent("plain").path
        _ = FileManager.default.createFile(atPath: plain, contents: Data())
        #expect(mode(fresh) == mode(plain), "a new file gets what any new file gets: \(String(mode(fresh), radix: 8))")
    }

    /// `-o -` is stdout, as in curl: no file named "-" is written.
    @Test func outputDashIsStdout() async throws {
        let server = try FlakyServer(scripts: ["/x": [.status(200, body: "hi")]])
        defer { server.stop() }
        let result = try await Tool.run(["fetch", server.url("/x").absoluteString, "-s", "-o", "-"] + Self.fast)
        #expect(result.status == 0 && result.stdout == "hi", "\(result.stderr)")
    }

    /// A FILE.part that is a link (planted in a shared folder) is refused, never followed: the file it
    /// points to keeps its bytes.
    @Test func aPartialFileThatIsALinkIsNotFollowed() async throws {
        let server = try FlakyServer(scripts: ["/x": [.status(200, body: "hi")]])
        defer { server.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("retryflow-part-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let victim = folder.appendingPathComponent("victim").path
        try Data("keep".utf8).write(to: URL(fileURLWithPath: victim))
        let output = folder.appendingPathComponent("out").path
        try FileManager.default.createSymbolicLink(atPath: output + ".part", withDestinationPath: victim)
        let result = try await Tool.run(["fetch", server.url("/x").absoluteString, "-o", output] + Self.fast)
        #expect(result.status != 0, "\(result.stderr)")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep")
    }

    /// `-o /dev/null` (curl's idiom with -w) writes into the device: it must never be replaced by a
    /// renamed file (the tests run as root, where that rename succeeds and breaks the machine).
    @Test func outputToDevNullLeavesTheDevice() async throws {
        let cases = [[String](), ["-C", "-"], ["--trace", "/dev/null"]]
        let server = try FlakyServer(
            scripts: Dictionary(
                uniqueKeysWithValues: cases.indices.map { ("/x\($0)", [.status(503), .status(200, body: "hi")]) }))
        defer { server.stop() }
        for (index, extra) in cases.enumerated() {
            let result = try await Tool.run(
                ["fetch", server.url("/x\(index)").absoluteString, "-o", "/dev/null", "-w", "%{http_code}"] + extra
                    + Self.fast)
            var info = stat()
            #expect(
                stat("/dev/null", &info) == 0 && info.st_mode & S_IFMT == S_IFCHR, "\(extra): /dev/null is a device")
            if extra.first == "-C" {
                #expect(result.status == 2 && result.stderr.contains("--continue-at"), "no resume into a device")
            } else {
                #expect(result.status == 0 && result.stdout == "200", "\(extra): \(result.stderr)")
            }
        }
    }

    @Test func postAnswered503IsNotRetried() async throws {
        let server = try FlakyServer(scripts: [
            "/orders": [.status(503, body: "busy"), .status(201)], "/keyed": [.status(503), .status(201)],
        ])
        defer { server.stop() }
        let result = try await Tool.run(["fetch", server.url("/orders").absoluteString, "-d", "{}"] + Self.fast)
        #expect(server.requests(to: "/orders").count == 1)
        #expect(server.requests.first?.method == "POST")
        #expect(result.stderr.contains("POST is not idempotent"))
        #expect(result.stdout == "busy", "the server's final answer")
        #expect(result.status == 0, "the run ended in answered, as curl exits 0 without -f")
        #expect(result.stderr.contains("exit 0: the run ended in answered (final answer)"), "\(result.stderr)")

        let keyed = try await Tool.run(
            ["fetch", server.url("/keyed").absoluteString, "-d", "{}", "-H", "Idempotency-Key: 7"] + Self.fast)
        #expect(keyed.status == 0)
        #expect(server.requests(to: "/keyed").count == 2, "with a key, the 503 is retried")
    }

    @Test func retryAfterIsHonoured() async throws {
        let server = try FlakyServer(scripts: [
            "/busy": [.status(503, headers: ["Retry-After": "1"]), .status(200, body: "ok")]
        ])
        defer { server.stop() }
        let result = try await Tool.run(["fetch", server.url("/busy").absoluteString] + Self.fast)
        #expect(result.status == 0)
        let seen = server.requests(to: "/busy")
        #expect(seen.count == 2)
        #expect(seen[1].arrival - (seen[0].answered ?? seen[0].arrival) >= .seconds(1))
        #expect(result.stderr.contains("waiting 1 s"))
    }

    @Test func deadlineStopsItInTime() async throws {
        let server = try FlakyServer(scripts: ["/slow": [.hang]])
        defer { server.stop() }
        let result = try await Tool.run(
            ["fetch", server.url("/slow").absoluteString, "--retry", "20", "--timeout", "0.2", "--deadline", "0.6"]
                + Self.fast)
        #expect(result.status == 1)
        #expect(result.stderr.contains("gave up (deadline exceeded)"))
        // Not the hang (the session's own timeout): a margin that holds under ThreadSanitizer and with
        // every suite at once on a 2-core machine (the whole test process was seen stalled ~10 s).
        #expect(result.elapsed < .seconds(25))
        #expect(result.stdout.isEmpty)
    }

    @Test func outputFileGetsOnlyTheFinalBody() async throws {
        let server = try FlakyServer(scripts: [
            "/f": [.status(500, body: "first"), .status(503, body: "second"), .status(200, body: "final")]
        ])
        defer { server.stop() }
        // A folder of its own: the check for leftovers below must see this test's files only, not
        // another program's in the shared temporary directory.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("retryflow-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("out")
        let trace = file.appendingPathExtension("json")
        let chart = file.appendingPathExtension("svg")
        let result = try await Tool.run(
            [
                "fetch", server.url("/f").absoluteString, "-o", file.path, "--trace", trace.path, "--trace-chart",
                chart.path,
            ] + Self.fast)
        #expect(result.status == 0)
        #expect(try String(contentsOf: file, encoding: .utf8) == "final")
        #expect(result.stdout.isEmpty)
        #expect(try String(contentsOf: trace, encoding: .utf8).contains("\"delay elapsed\""))
        #expect(try String(contentsOf: chart, encoding: .utf8).contains("<svg"))
        // Again over the same files: each is replaced whole.
        let again = try await Tool.run(
            [
                "fetch", server.url("/f").absoluteString, "-o", file.path, "--trace", trace.path, "--trace-chart",
                chart.path,
            ] + Self.fast)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try String(contentsOf: file, encoding: .utf8) == "final")
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(left == ["out", "out.json", "out.svg"], "no temporary files left behind")
    }

    @Test func givingUpExitsOneWithEveryAttempt() async throws {
        let server = try FlakyServer(scripts: ["/down": [.status(503)]])
        defer { server.stop() }
        let result = try await Tool.run(["fetch", server.url("/down").absoluteString, "--attempts", "2"] + Self.fast)
        #expect(result.status == 1)
        #expect(result.stderr.contains("gave up (attempts exhausted) after 2 attempts"))
        #expect(result.stderr.contains("#1 at "))
        #expect(result.stderr.contains("not retried: no attempts left"))
        #expect(result.stderr.contains("#2 at"))
    }

    /// The exit statuses come from the final state, in one table that --help and the man page print.
    @Test func theExitTableIsPrintedByHelpAndTheManPage() async throws {
        let help = try await Tool.run(["fetch", "--help"])
        let man = try await Tool.run(["help", "--man"])
        let rows = [
            "0  success ", "0  answered ", "1  failure ", "1  cancelled ", "bad usage or bad input: no run",
        ]
        for row in rows {
            #expect(help.stdout.contains(row), "--help: \(row)")
            #expect(man.stdout.contains(row), "man page: \(row)")
        }
        #expect(help.stdout.contains("exit status, from the state the run ended in:"))
    }
}
