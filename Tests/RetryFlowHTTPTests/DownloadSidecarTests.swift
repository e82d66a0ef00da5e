import Foundation
import RetryFlow
import RetryFlowHTTP
import RetryFlowTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A partial file left by a failed run keeps its validator in `FILE.part.meta`, so a later run
/// (`resumeExisting`, the CLI's `-C -`) sends `If-Range` from its first request: a resource that
/// changed meanwhile restarts cleanly instead of appending another version's bytes.
@Suite(.timeLimit(.minutes(2))) struct DownloadSidecarTests {
    static let once = RetryPolicy(maxAttempts: 1, backoff: .constant(.zero), jitter: .none)

    /// Downloads `/file` from `server` into `destination`.
    static func download(
        _ server: FlakyServer, to destination: URL, policy: RetryPolicy = DownloadTests.policy, resume: Bool
    ) async throws -> DownloadOutcome {
        let outcome = try await Runner.session().downloadOutcome(
            for: URLRequest(url: server.url("/file")), to: destination, retry: .policy(policy),
            options: DownloadOptions(resumeExisting: resume), clock: ContinuousClock())
        DownloadTests.expectTracesConsistent(outcome)
        return outcome
    }

    /// A first run of `resource` cut after `cut` bytes with one attempt: the part and its sidecar stay.
    static func failedRun(_ resource: FlakyServer.Resource, cut: Int) async throws -> (FlakyServer, URL) {
        let server = try FlakyServer()
        try server.serveDownload(resource, at: "/file", steps: [.cut(after: cut)])
        let destination = try DownloadTests.folder().appendingPathComponent("file.bin")
        let failed = try await download(server, to: destination, policy: once, resume: false)
        #expect(!failed.succeeded && failed.bytesOnDisk == cut)
        return (server, destination)
    }

    @Test func aStalePartWhoseResourceChangedRestartsWithTheNewVersion() async throws {
        let old = FlakyServer.Resource(size: 1_000_000, seed: 1, etag: "\"v1\"")
        let new = FlakyServer.Resource(size: 900_000, seed: 2, etag: "\"v2\"")
        let (server, destination) = try await Self.failedRun(old, cut: 300_000)
        defer { try? FileManager.default.removeItem(at: destination.deletingLastPathComponent()) }
        let meta = try String(contentsOfFile: destination.path + ".part.meta", encoding: .utf8)
        #expect(meta.contains("v1") && meta.contains("1000000"))

        try server.serveDownload(new, at: "/file", steps: [.serve])
        let outcome = try await Self.download(server, to: destination, resume: true)
        #expect(outcome.succeeded)
        #expect(try await new.firstDifference(fromFileAt: destination) == nil)
        let resumed = server.requests(to: "/file").last!
        #expect(resumed.header("Range")?.hasPrefix("bytes=300000-") == true)
        #expect(resumed.header("If-Range") == "\"v1\"")
        #expect(outcome.ranges[0].status == 200 && outcome.ranges[0].wroteFrom == 0)
        #expect(!FileManager.default.fileExists(atPath: destination.path + ".part"))
        #expect(!FileManager.default.fileExists(atPath: destination.path + ".part.meta"))
    }

    @Test func anUnchangedResourceResumesValidatedByTheSidecar() async throws {
        let resource = FlakyServer.Resource(size: 1_000_000, etag: "\"v7\"")
        let (server, destination) = try await Self.failedRun(resource, cut: 300_000)
        defer { try? FileManager.default.removeItem(at: destination.deletingLastPathComponent()) }
        try server.serveDownload(resource, at: "/file", steps: [.serve])
        let outcome = try await Self.download(server, to: destination, resume: true)
        #expect(outcome.succeeded)
        #expect(try await resource.firstDifference(fromFileAt: destination) == nil)
        #expect(server.requests(to: "/file").last!.header("If-Range") == "\"v7\"")
        #expect(server.bodyBytesSent(to: "/file") == resource.size - 300_000) // only the rest
        #expect(!FileManager.default.fileExists(atPath: destination.path + ".part.meta"))
    }

    /// A part written by another tool, or whose sidecar is unreadable, resumes as curl's `-C -`
    /// does: `Range` without `If-Range`, trusting the bytes on disk.
    @Test(arguments: [nil, "not json", "{\"validator\":\"\\\"v1\\\"\",\"total\":10}"])
    func aPartWithoutAUsableSidecarResumesWithoutIfRange(meta: String?) async throws {
        let resource = FlakyServer.Resource(size: 500_000, etag: "\"v1\"")
        let (outcome, server, destination) = try await DownloadTests.run(
            resource, steps: [.serve], options: DownloadOptions(resumeExisting: true)
        ) { destination in
            try Data(resource.bytes(0..<123_456)).write(to: URL(fileURLWithPath: destination.path + ".part"))
            // The last sidecar announces a total smaller than the part: it cannot describe it.
            try meta.map { try Data($0.utf8).write(to: URL(fileURLWithPath: destination.path + ".part.meta")) }
        }
        defer { try? FileManager.default.removeItem(at: destination.deletingLastPathComponent()) }
        #expect(outcome.succeeded)
        #expect(try await resource.firstDifference(fromFileAt: destination) == nil)
        let request = server.requests(to: "/file")[0]
        #expect(request.header("Range")?.hasPrefix("bytes=123456-") == true)
        #expect(request.header("If-Range") == nil)
        #expect(!FileManager.default.fileExists(atPath: destination.path + ".part.meta"))
    }

    @Test func aFreshDownloadIgnoresAnOldSidecar() async throws {
        let resource = FlakyServer.Resource(size: 200_000, etag: "\"v2\"")
        let (outcome, server, destination) = try await DownloadTests.run(resource, steps: [.serve]) { destination in
            try Data(repeating: 7, count: 50_000).write(to: URL(fileURLWithPath: destination.path + ".part"))
            try Data("{\"validator\":\"\\\"v2\\\"\",\"total\":200000}".utf8)
                .write(to: URL(fileURLWithPath: destination.path + ".part.meta"))
        }
        defer { try? FileManager.default.removeItem(at: destination.deletingLastPathComponent()) }
        #expect(outcome.succeeded)
        #expect(try await resource.firstDifference(fromFileAt: destination) == nil)
        #expect(server.requests(to: "/file")[0].header("If-Range") == nil)
        #expect(server.requests(to: "/file")[0].header("Range")?.hasPrefix("bytes=0-") == true)
    }
}
