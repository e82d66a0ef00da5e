import Foundation
import RetryFlow
import RetryFlowHTTP
import RetryFlowTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Downloads asked for one window of bytes per request (`DownloadOptions.bytesPerRequest`), the
/// bound on what URLSession queues for the delegate: each window continues the file exactly, the
/// windows of one attempt are one attempt to the retry machine, a cut resumes inside a window, and
/// a server that ignores ranges streams the whole body.
@Suite(.timeLimit(.minutes(2))) struct DownloadWindowTests {
    static let window = 300_000

    static func options(window: Int? = window) -> DownloadOptions { DownloadOptions(bytesPerRequest: window) }

    @Test func aLargeFileIsFetchedOneWindowAtATimeInOneAttempt() async throws {
        let resource = FlakyServer.Resource(size: 1_000_000, etag: "\"v1\"")
        let (outcome, server, destination) = try await DownloadTests.run(
            resource, steps: [.serve], options: Self.options())
        defer { try? FileManager.default.removeItem(at: destination.deletingLastPathComponent()) }
        #expect(outcome.succeeded)
        #expect(try await resource.firstDifference(fromFileAt: destination) == nil)
        let requests = server.requests(to: "/file")
        #expect(
            requests.map { $0.header("Range") } == [
                "bytes=0-299999", "bytes=300000-599999", "bytes=600000-899999", "bytes=900000-1199999",
            ])
        // The first window has no validator yet; every later one is validated by the first's ETag.
        #expect(requests.map { $0.header("If-Range") } == [nil, "\"v1\"", "\"v1\"", "\"v1\""])
        #expect(requests.allSatisfy { $0.header("Accept-Encoding") == "identity" })
        #expect(server.bodyBytesSent(to: "/file") == resource.size)
        #expect(outcome.retry.attempts.count == 1 && outcome.ranges.count == 1)
        #expect(outcome.ranges[0].wroteFrom == 0 && outcome.ranges[0].endedAt == resource.size)
        #expect(outcome.transfer.steps.filter { $0.from == .verifying && $0.to == .requesting }.count == 3)
        #expect(outcome.transfer.steps.contains { $0.detail == "206 from byte 900000 to 999999 of 1000000" })
        #expect(!FileManager.default.fileExists(atPath: destination.path + ".part.meta"))
    }

    @Test func aCutInsideAWindowResumesWhereItStopped() async throws {
        let resource = FlakyServer.Resource(size: 1_000_000, etag: "\"v1\"")
        let (outcome, server, destination) = try await DownloadTests.run(
            resource, steps: [.serve, .cut(after: 100_000), .serve], options: Self.options())
        defer { try? FileManager.default.removeItem(at: destination.deletingLastPathComponent()) }
        #expect(outcome.succeeded)
        #expect(try await resource.firstDifference(fromFileAt: destination) == nil)
        #expect(
            server.requests(to: "/file").map { $0.header("Range") } == [
                "bytes=0-299999", "bytes=300000-599999", "bytes=400000-699999", "bytes=700000-999999",
            ])
        #expect(server.bodyBytesSent(to: "/file") == resource.size)
        #expect(outcome.ranges.map(\.requestedFrom) == [0, 400_000])
        #expect(outcome.ranges.map(\.endedAt) == [400_000, 1_000_000])
    }

    @Test func aServerThatIgnoresRangesStreamsTheWholeBody() async throws {
        let resource = FlakyServer.Resource(size: 1_000_000, etag: "\"v1\"")
        let (outcome, server, destination) = try await DownloadTests.run(
            resource, steps: [.ignoreRange], options: Self.options())
        defer { try? FileManager.default.removeItem(at: destination.deletingLastPathComponent()) }
        #expect(outcome.succeeded)
        #expect(try await resource.firstDifference(fromFileAt: destination) == nil)
        #expect(server.requests(to: "/file").count == 1)
        #expect(outcome.ranges.map(\.status) == [200])
    }

    @Test func aResourceThatChangesBetweenWindowsRestartsWithTheNewVersion() async throws {
        let old = FlakyServer.Resource(size: 1_000_000, seed: 1, etag: "\"v1\"")
        let new = FlakyServer.Resource(size: 700_000, seed: 2, etag: "\"v2\"")
        let (outcome, server, destination) = try await DownloadTests.run(
            old, steps: [.serve, .change(to: new)], options: Self.options())
        defer { try? FileManager.default.removeItem(at: destination.deletingLastPathComponent()) }
        #expect(outcome.succeeded)
        #expect(try await new.firstDifference(fromFileAt: destination) == nil)
        let requests = server.requests(to: "/file")
        // The second window's If-Range "v1" no longer matches: a 200 with the new version, written from 0.
        #expect(requests[1].header("If-Range") == "\"v1\"")
        #expect(outcome.bytesOnDisk == new.size && outcome.retry.attempts.count == 1)
    }

    @Test func cancellationInALaterWindowKeepsAnUncorruptedPartialAndItsSidecar() async throws {
        let resource = FlakyServer.Resource(size: 2 << 20, etag: "\"v1\"")
        let server = try FlakyServer()
        try server.serveDownload(resource, at: "/file", steps: [.serve, .serve, .stall(after: 0)])
        let folder = try DownloadTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("file.bin")
        let (stream, progress) = AsyncStream<DownloadProgress>.makeStream()
        let task = Task {
            try await Runner.session().download(
                for: URLRequest(url: server.url("/file")), to: destination, retry: .policy(DownloadTests.policy),
                options: Self.options(window: 256 << 10), progress: progress)
        }
        for await update in stream where update.bytesOnDisk >= 512 << 10 { break }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        let part = URL(fileURLWithPath: destination.path + ".part")
        let kept = try Data(contentsOf: part)
        #expect(kept.count == 512 << 10)
        #expect(
            try await resource.firstDifference(fromFileAt: part) == kept.count, "the part is the source's first bytes")
        #expect(try String(contentsOfFile: part.path + ".meta", encoding: .utf8).contains("v1"))
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    @Test(arguments: [nil, 0, -5]) func withoutAWindowTheWholeBodyIsAskedFor(window: Int?) async throws {
        let resource = FlakyServer.Resource(size: 1_000_000, etag: "\"v1\"")
        let (outcome, server, destination) = try await DownloadTests.run(
            resource, steps: [.cut(after: 300_000), .serve], options: Self.options(window: window))
        defer { try? FileManager.default.removeItem(at: destination.deletingLastPathComponent()) }
        #expect(outcome.succeeded)
        #expect(try await resource.firstDifference(fromFileAt: destination) == nil)
        #expect(server.requests(to: "/file").map { $0.header("Range") } == [nil, "bytes=300000-"])
    }

    @Test func aWindowNearIntMaxDoesNotTrap() async throws {
        // The first window is 8 MiB whatever the largest (WindowSizer); the machine saturates a
        // window that reaches Int.max (TransferMachineTests.aWindowNearIntMaxSaturates).
        let resource = FlakyServer.Resource(size: 200_000, etag: "\"v1\"")
        let (outcome, server, destination) = try await DownloadTests.run(
            resource, steps: [.cut(after: 50_000), .serve], options: Self.options(window: .max))
        defer { try? FileManager.default.removeItem(at: destination.deletingLastPathComponent()) }
        #expect(outcome.succeeded)
        #expect(try await resource.firstDifference(fromFileAt: destination) == nil)
        #expect(
            server.requests(to: "/file").map { $0.header("Range") } == [
                "bytes=0-\((8 << 20) - 1)", "bytes=50000-\(50_000 + (8 << 20) - 1)",
            ])
    }

    /// Windows grow while the delegate keeps up: a backlog reported empty doubles each window after
    /// the first (8, 16, 32 MiB), so 40 MiB take 3 requests instead of 5 fixed 8 MiB ones.
    @Test func windowsGrowWhileTheDelegateKeepsUp() async throws {
        let resource = FlakyServer.Resource(size: 40 << 20, etag: "\"v1\"")
        var options = DownloadOptions()
        options.reportedBacklog = 0
        let (outcome, server, destination) = try await DownloadTests.run(resource, steps: [.serve], options: options)
        defer { try? FileManager.default.removeItem(at: destination.deletingLastPathComponent()) }
        #expect(outcome.succeeded)
        #expect(try await resource.firstDifference(fromFileAt: destination) == nil)
        let mib = 1 << 20
        #expect(
            server.requests(to: "/file").map { $0.header("Range") } == [
                "bytes=0-\(8 * mib - 1)", "bytes=\(8 * mib)-\(24 * mib - 1)", "bytes=\(24 * mib)-\(56 * mib - 1)",
            ])
        #expect(outcome.retry.attempts.count == 1 && server.bodyBytesSent(to: "/file") == resource.size)
    }

    /// Windows shrink when bytes pile up on the delegate queue: a backlog reported above one first
    /// window halves each window (8, 4, 2, 1 MiB, then 1 MiB on), whatever the largest allows.
    @Test func windowsShrinkWhenTheBacklogPilesUp() async throws {
        let resource = FlakyServer.Resource(size: 18 << 20, etag: "\"v1\"")
        var options = DownloadOptions()
        options.reportedBacklog = 9 << 20
        let (outcome, server, destination) = try await DownloadTests.run(resource, steps: [.serve], options: options)
        defer { try? FileManager.default.removeItem(at: destination.deletingLastPathComponent()) }
        #expect(outcome.succeeded)
        #expect(try await resource.firstDifference(fromFileAt: destination) == nil)
        let mib = 1 << 20
        let starts = [0, 8, 12, 14, 15, 16, 17].map { $0 * mib }
        let ends = [8, 12, 14, 15, 16, 17, 18].map { $0 * mib - 1 }
        #expect(
            server.requests(to: "/file").map { $0.header("Range") }
                == zip(starts, ends).map { "bytes=\($0)-\($1)" })
    }
}
