import Foundation
import RetryFlowTesting
import Testing

/// `retryflow fetch -o FILE` as a download: streamed, resumed, checked, left resumable.
@Suite(.timeLimit(.minutes(2))) struct FetchDownloadTests {
    static let fast = ["--delay", "0", "--jitter", "none", "--attempts", "10"]

    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("retryflow-fetch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func aCutDownloadResumesAndLandsWhole() async throws {
        let resource = FlakyServer.Resource(size: 1_000_000)
        let server = try FlakyServer()
        try server.serveDownload(resource, at: "/big", steps: [.cut(after: 300_000), .cut(after: 300_000), .serve])
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("big.bin").path
        let transfer = folder.appendingPathComponent("transfer.json").path
        let digest = await resource.sha256
        let result = try await Tool.run(
            [
                "fetch", server.url("/big").absoluteString, "-o", file, "--sha256", digest.uppercased(),
                "--trace-transfer", transfer,
            ] + Self.fast)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try await resource.firstDifference(fromFileAt: URL(fileURLWithPath: file)) == nil)
        #expect(!FileManager.default.fileExists(atPath: file + ".part"))
        #expect(server.bodyBytesSent(to: "/big") == resource.size)
        #expect(result.stderr.contains("(resumed at 300 kB, resumed at 600 kB)"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)

        // The transfer trace draws over the transfer chart, captioned with where it resumed.
        let chart = try await Tool.run(["render", "--machine", "transfer", "--style", "state", "--trace", transfer])
        #expect(chart.status == 0, "\(chart.stderr)")
        #expect(chart.stdout.contains("resumed at 300 kB, resumed at 600 kB"))
        // The first window's 206 is appended at byte 0, then the two resumes.
        #expect(chart.stdout.contains("\"[range continues file] / append ×3\""))
    }

    @Test func aFailedDownloadKeepsItsPartAndContinueAtResumesIt() async throws {
        let resource = FlakyServer.Resource(size: 800_000)
        let server = try FlakyServer()
        try server.serveDownload(resource, at: "/big", steps: [.cut(after: 250_000)])
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("big.bin").path
        let failed = try await Tool.run(["fetch", server.url("/big").absoluteString, "-o", file, "--attempts", "1"])
        #expect(failed.status == 1)
        #expect(!FileManager.default.fileExists(atPath: file))
        #expect(try FileManager.default.attributesOfItem(atPath: file + ".part")[.size] as? Int == 250_000)
        #expect(failed.stderr.contains("run again with -C - to continue from byte 250000"), "\(failed.stderr)")

        try server.serveDownload(resource, at: "/big", steps: [.serve])
        let resumed = try await Tool.run(["fetch", server.url("/big").absoluteString, "-o", file, "-C", "-"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(server.requests(to: "/big").last?.header("Range") == "bytes=250000-\(250_000 + (8 << 20) - 1)")
        // The part's sidecar carried the first run's ETag: the resume is validated.
        #expect(server.requests(to: "/big").last?.header("If-Range") == "\"v1\"")
        #expect(try await resource.firstDifference(fromFileAt: URL(fileURLWithPath: file)) == nil)
        #expect(!FileManager.default.fileExists(atPath: file + ".part"))
        #expect(!FileManager.default.fileExists(atPath: file + ".part.meta"))
    }

    @Test func continueAtOnAStalePartOfAChangedFileRestartsWithTheNewVersion() async throws {
        let old = FlakyServer.Resource(size: 800_000, seed: 1, etag: "\"v1\"")
        let new = FlakyServer.Resource(size: 600_000, seed: 2, etag: "\"v2\"")
        let server = try FlakyServer()
        try server.serveDownload(old, at: "/big", steps: [.cut(after: 250_000)])
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("big.bin").path
        let failed = try await Tool.run(["fetch", server.url("/big").absoluteString, "-o", file, "--attempts", "1"])
        #expect(failed.status == 1)
        #expect(FileManager.default.fileExists(atPath: file + ".part.meta"))

        try server.serveDownload(new, at: "/big", steps: [.serve])
        let resumed = try await Tool.run(["fetch", server.url("/big").absoluteString, "-o", file, "-C", "-"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(server.requests(to: "/big").last?.header("If-Range") == "\"v1\"")
        // Not 250 kB of v1 followed by v2's rest.
        #expect(try await new.firstDifference(fromFileAt: URL(fileURLWithPath: file)) == nil)
        #expect(!FileManager.default.fileExists(atPath: file + ".part.meta"))
    }

    @Test func aChecksumMismatchExitsOneAndLeavesNoFile() async throws {
        let resource = FlakyServer.Resource(size: 100_000)
        let server = try FlakyServer()
        try server.serveDownload(resource, at: "/f", steps: [.serve])
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("f.bin").path
        let result = try await Tool.run(
            ["fetch", server.url("/f").absoluteString, "-o", file, "--sha256", String(repeating: "a", count: 64)])
        #expect(result.status == 1)
        #expect(result.stderr.contains("SHA-256 mismatch"), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [])
    }

    @Test(arguments: [
        (["-C", "-"], "--continue-at needs -o FILE"),
        (["-o", "F", "-C", "100"], "--continue-at takes '-'"),
        (["-o", "F", "--sha256", "abc"], "--sha256 needs 64 hexadecimal digits"),
        (["-o", "F", "--speed-limit", "0"], "--speed-limit must be from 1"),
        (["-o", "F", "--speed-time", "0"], "--speed-time must be more than 0"),
    ])
    func badDownloadFlagsAreUsageErrors(flags: [String], message: String) async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let arguments = flags.map { $0 == "F" ? folder.appendingPathComponent("out").path : $0 }
        let result = try await Tool.run(["fetch", "http://127.0.0.1:9/x"] + arguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test func aDownloadKeepsFetchsCurlFlagsAndReport() async throws {
        // -i puts the final (206) head before the body, -s prints nothing, -w counts the file's
        // bytes, --report shows the retry run: the same flags as any fetch, on the streamed path.
        let resource = FlakyServer.Resource(size: 200_000)
        let server = try FlakyServer()
        try server.serveDownload(resource, at: "/big", steps: [.cut(after: 50_000), .serve])
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("big.bin").path
        let report = folder.appendingPathComponent("run.html").path
        let result = try await Tool.run(
            [
                "fetch", server.url("/big").absoluteString, "-o", file, "-i", "-s", "--report", report,
                "-w", "%{http_code} %{size_download} %{exitcode}\\n",
            ] + Self.fast)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "")
        #expect(result.stdout == "206 200000 0\n")
        let written = try Data(contentsOf: URL(fileURLWithPath: file))
        let end = try #require(written.range(of: Data("\r\n\r\n".utf8)))
        #expect(String(decoding: written[..<end.lowerBound], as: UTF8.self).hasPrefix("HTTP/1.1 206 "))
        let body = folder.appendingPathComponent("body.bin")
        try written[end.upperBound...].write(to: body)
        #expect(try await resource.firstDifference(fromFileAt: body) == nil)
        let page = try String(contentsOfFile: report, encoding: .utf8)
        #expect(page.contains("<tr id=\"step_5\">"), "both attempts are in the page")

        let bad = try await Tool.run(["fetch", server.url("/big").absoluteString, "-o", file, "-i", "-C", "-"])
        #expect(bad.status == 2 && bad.stderr.contains("does not go with -i"), "\(bad.stderr)")
    }

    @Test func aFinalAnswerThatIsNotTheFileIsWrittenAsCurlWould() async throws {
        let server = try FlakyServer(scripts: ["/missing": [.status(404, body: "no such file\n")]])
        defer { server.stop() }
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("out").path
        let url = server.url("/missing").absoluteString
        let plain = try await Tool.run(["fetch", url, "-o", file, "-w", "%{size_download}"] + Self.fast)
        #expect(plain.status == 0, "\(plain.stderr)")
        let rule = "exit 0: the run ended in answered (final answer)"
        #expect(plain.stderr.contains(rule), "\(plain.stderr)")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "no such file\n")
        #expect(plain.stdout == "13")
        try FileManager.default.removeItem(atPath: file)

        let failing = try await Tool.run(["fetch", url, "-o", file, "-f"] + Self.fast)
        #expect(failing.status == 1)
        #expect(failing.stderr.contains("-f/--fail and HTTP 404 (body not written)"), "\(failing.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [])

        let withBody = try await Tool.run(["fetch", url, "-o", file, "--fail-with-body"] + Self.fast)
        #expect(withBody.status == 1)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "no such file\n")
    }

    @Test func renderDrawsTheTransferTable() async throws {
        let result = try await Tool.run(["render", "--machine", "transfer", "--style", "state", "--format", "mermaid"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("#91;range continues file#93; / append"))
        let bad = try await Tool.run(["render", "--machine", "nope"])
        #expect(bad.status == 2)
    }
}
