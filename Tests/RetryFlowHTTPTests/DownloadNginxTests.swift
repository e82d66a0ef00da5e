import Foundation
import RetryFlow
import RetryFlowHTTP
import RetryFlowTestServers
import RetryFlowTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Downloads from a real nginx (Debian's nginx-light) through ``CuttingProxy``, which aborts
/// connections after a number of bytes: resume with nginx's own `Range`/`If-Range`/`416` answers.
@Suite(.timeLimit(.minutes(2))) struct DownloadNginxTests {
    static let size = 3_000_000
    static let policy = RetryPolicy(maxAttempts: 4, backoff: .constant(.zero), jitter: .none)

    static func body(_ size: Int, seed: UInt8) -> Data {
        Data(FlakyServer.Resource(size: size, seed: seed).body)
    }

    /// The SHA-256 of `data`, hashed on a thread of its own (seconds of a debug build's CPU for
    /// these files: never on the threads the other tests' timers need).
    static func sha(_ data: Data) async -> String {
        await runOnOwnThread {
            var hasher = SHA256()
            data.withUnsafeBytes { hasher.update(buffer: $0) }
            return hasher.hexDigest()
        }
    }

    /// Whether the file at `url` holds exactly `data`: read and compared with `memcmp` on a thread
    /// of its own, a fraction of hashing both sides.
    static func holds(_ url: URL, _ data: Data) async throws -> Bool {
        try await runOnOwnThread { try Data(contentsOf: url) == data }
    }

    @Test(arguments: [false, true]) func aCutTransferResumesWithRangesAndIfRange(reset: Bool) async throws {
        let body = Self.body(Self.size, seed: 3)
        let nginx = try await NginxServer.start(files: ["file.bin": body])
        defer { nginx.stop() }
        let proxy = try CuttingProxy.start(
            to: nginx.port, plan: [.cut(after: 1_000_000, reset: reset), .cut(after: 1_000_000, reset: reset), .pass])
        defer { proxy.stop() }
        let folder = try DownloadTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("file.bin")
        let outcome = try await Runner.session().downloadOutcome(
            for: URLRequest(url: proxy.url("/file.bin")), to: destination, retry: .policy(Self.policy),
            clock: ContinuousClock())
        DownloadTests.expectTracesConsistent(outcome)
        #expect(outcome.succeeded)
        #expect(try await Self.holds(destination, body))
        #expect(outcome.retry.attempts.count == 3)
        #expect(outcome.ranges.map(\.status) == [206, 206, 206])
        // Each resume starts where the cut left the file (the proxy's count includes headers).
        let starts = outcome.ranges.map(\.requestedFrom)
        #expect(starts.first == 0)
        #expect(zip(starts, starts.dropFirst()).allSatisfy { $0 < $1 })
        #expect(outcome.ranges.dropFirst().allSatisfy { $0.sentIfRange })
        let logged = nginx.requests()
        #expect(logged.count == 3)
        #expect(logged.allSatisfy { $0.hasPrefix("GET /file.bin 206 ") })
        // Closed cuts deliver every byte sent, so none is asked twice; a reset drops what the client
        // had not read yet, which it then asks for again.
        if !reset { #expect(proxy.bytesSent < Self.size + 4_000) }
        // Both cuts moved the file forward: each was credited and the retry count started over.
        #expect(outcome.retry.trace.steps.filter { $0.event == .failedAfterProgress }.count == 2)
    }

    @Test func aFileReplacedBetweenAttemptsIsDownloadedAnewThroughIfRange() async throws {
        let old = Self.body(Self.size, seed: 4)
        let new = Self.body(Self.size - 100_000, seed: 5) // another size: another ETag in the same second
        let nginx = try await NginxServer.start(files: ["file.bin": old])
        defer { nginx.stop() }
        let proxy = try CuttingProxy.start(to: nginx.port, plan: [.cut(after: 1_000_000), .pass])
        defer { proxy.stop() }
        let folder = try DownloadTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("file.bin")
        let outcome = try await Runner.session().downloadOutcome(
            for: URLRequest(url: proxy.url("/file.bin")), to: destination,
            retry: HTTPRetryOptions(Self.policy, onRetry: { _ in try? nginx.write(new, to: "file.bin") }),
            clock: ContinuousClock())
        DownloadTests.expectTracesConsistent(outcome)
        #expect(outcome.succeeded)
        #expect(try await Self.holds(destination, new))
        // The resume sent If-Range with the old ETag; nginx answered 200 with the new version.
        #expect(outcome.ranges.map(\.status) == [206, 200])
        #expect(outcome.ranges.last?.sentIfRange == true)
        #expect(outcome.ranges.last?.wroteFrom == 0)
    }

    @Test func aCompletePartIsFinishedByA416() async throws {
        let body = Self.body(Self.size, seed: 6)
        let nginx = try await NginxServer.start(files: ["file.bin": body])
        defer { nginx.stop() }
        let folder = try DownloadTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("file.bin")
        // Every byte already in FILE.part (left by another tool: no sidecar): nginx answers 416.
        try body.write(to: destination.appendingPathExtension("part"))
        var options = DownloadOptions()
        options.resumeExisting = true
        options.expectedSHA256 = await Self.sha(body)
        let outcome = try await Runner.session().downloadOutcome(
            for: URLRequest(url: nginx.url("/file.bin")), to: destination, retry: .policy(Self.policy),
            options: options, clock: ContinuousClock())
        DownloadTests.expectTracesConsistent(outcome)
        #expect(outcome.succeeded)
        #expect(outcome.ranges.map(\.status) == [416])
        #expect(try await Self.holds(destination, body))
        #expect(nginx.requests().first?.hasPrefix("GET /file.bin 416 ") == true)
    }
}
