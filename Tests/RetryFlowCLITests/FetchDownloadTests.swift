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

    static func sha(_ path: String) throws -> String {
        try FlakyServer.Resource.sha256(ofFileAt: URL(fileURLWithPath: path))
    }

    @Test func aCutDownloadResumesAndLandsWhole() async throws {
        let resource = FlakyServer.Resource(size: 1_000_000)
        let server = try FlakyServer()
        try server.serveDownload(resource, at: "/big", steps: [.cut(after: 300_000), .cut(after: 300_000), .serve])
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("big.bin").path
        let transfer = folder.appendingPathComponent("transfer.json").path
        let result = try await Tool.run(
            [
                "fetch", server.url("/big").absoluteString, "-o", file, "--sha256", resource.sha256.uppercased(),
                "--trace-transfer", transfer,
            ] + Self.fast)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.sha(file) == resource.sha256)
        #expect(!FileManager.default.fileExists(atPath: file + ".part"))
        #expect(server.bodyBytesSent(to: "/big") == resource.size)
        #expect(result.stderr.contains("(resumed at 300 kB, resumed at 600 kB)"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)

        // The transfer trace draws over the transfer chart, captioned with where it resumed.
        let chart = try await Tool.run(["render", "--machine", "transfer", "--style", "state", "--trace", transfer])
        #expect(chart.status == 0, "\(chart.stderr)")
        #expect(chart.stdout.contains("resumed at 300 kB, resumed at 600 kB"))
        #expect(chart.stdout.contains("\"[range continues file] / append ×2\""))
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
        #expect(server.requests(to: "/big").last?.header("Range") == "bytes=250000-")
        #expect(try Self.sha(file) == resource.sha256)
        #expect(!FileManager.default.fileExists(atPath: file + ".part"))
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

    @Test func renderDrawsTheTransferTable() async throws {
        let result = try await Tool.run(["render", "--machine", "transfer", "--style", "state", "--format", "mermaid"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("#91;range continues file#93; / append"))
        let bad = try await Tool.run(["render", "--machine", "nope"])
        #expect(bad.status == 2)
    }
}
