import Foundation
import RetryFlow
import RetryFlowHTTP
import RetryFlowTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Resumable downloads against FlakyServer: every case compares the bytes on disk with the
/// source by SHA-256 and checks both traces against their tables.
@Suite(.timeLimit(.minutes(2))) struct DownloadTests {
    /// Up to 10 attempts, no wait between them: the cuts are the subject, not the backoff.
    static let policy = RetryPolicy(maxAttempts: 10, backoff: .constant(.zero), jitter: .none)
    static let cut = 300_000

    /// A fresh folder, removed by the caller's `defer`.
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("retryflow-dl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The `Range` a request starting at byte `from` sends: one first window (these files are smaller).
    static func window(from: Int) -> String {
        "bytes=\(from)-\(from + WindowSizer.first - 1)"
    }

    /// Runs a download of `resource` served by `steps`; returns the outcome, the server and the folder.
    static func run(
        _ resource: FlakyServer.Resource, steps: [FlakyServer.DownloadStep], options: DownloadOptions = .init(),
        policy: RetryPolicy = policy, prepare: (URL) throws -> Void = { _ in }
    ) async throws -> (DownloadOutcome, FlakyServer, URL) {
        let server = try FlakyServer()
        try server.serveDownload(resource, at: "/file", steps: steps)
        let folder = try folder()
        let destination = folder.appendingPathComponent("file.bin")
        try prepare(destination)
        let outcome = try await Runner.session().downloadOutcome(
            for: URLRequest(url: server.url("/file")), to: destination, retry: .policy(policy), options: options,
            clock: ContinuousClock())
        expectTracesConsistent(outcome)
        return (outcome, server, destination)
    }

    static func expectTracesConsistent(_ outcome: DownloadOutcome, sourceLocation: SourceLocation = #_sourceLocation) {
        expectConsistent(outcome.retry.trace, sourceLocation: sourceLocation)
        expectConsistent(outcome.transfer, with: TransferTable.transfer, sourceLocation: sourceLocation)
        // One transfer `attempt` step per retry attempt: the two machines saw the same run.
        let attempts = outcome.transfer.steps.filter { $0.event == .attempt }.count
        #expect(attempts == outcome.retry.attempts.count, sourceLocation: sourceLocation)
    }

    @Test func theTableIsSound() throws {
        try TransferTable.transfer.validate()
    }

    /// A device is never a download's destination: the finished file is renamed over its
    /// destination, and as root a rename over /dev/null replaces the machine's device.
    @Test func aDeviceIsRefusedBeforeAnyRequest() async throws {
        let server = try FlakyServer()
        defer { server.stop() }
        try server.serveDownload(FlakyServer.Resource(size: 10, etag: "\"v1\""), at: "/file", steps: [.serve])
        await #expect(throws: DownloadProblem.self) {
            _ = try await Runner.session().downloadOutcome(
                for: URLRequest(url: server.url("/file")), to: URL(fileURLWithPath: "/dev/null"),
                retry: .policy(Self.policy), clock: ContinuousClock())
        }
        #expect(server.requests.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: "/dev/null.part"))
    }

    /// A `.part` that leads to a device would be written into and then renamed into the
    /// destination's place (the download "succeeds" with a link to /dev/null): refused.
    @Test func aPartialFileThatIsNotRegularIsRefused() async throws {
        let server = try FlakyServer()
        defer { server.stop() }
        try server.serveDownload(FlakyServer.Resource(size: 10, etag: "\"v1\""), at: "/file", steps: [.serve])
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("part-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("out")
        try FileManager.default.createSymbolicLink(atPath: destination.path + ".part", withDestinationPath: "/dev/null")
        await #expect(throws: DownloadProblem.self) {
            _ = try await Runner.session().downloadOutcome(
                for: URLRequest(url: server.url("/file")), to: destination, retry: .policy(Self.policy),
                clock: ContinuousClock())
        }
        #expect(server.requests.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    @Test(arguments: [false, true]) func cutOnceResumesWithRangeAndIfRange(reset: Bool) async throws {
        let resource = FlakyServer.Resource(size: 1_000_000, etag: "\"v1\"")
        let (outcome, server, destination) = try await Self.run(
            resource, steps: [.cut(after: Self.cut, reset: reset), .serve])
        defer { try? FileManager.default.removeItem(at: destination.deletingLastPathComponent()) }
        #expect(outcome.succeeded)
        #expect(try await resource.firstDifference(fromFileAt: destination) == nil)
        #expect(!FileManager.default.fileExists(atPath: destination.path + ".part"))
        let requests = server.requests(to: "/file")
        #expect(requests.count == 2)
        #expect(requests[0].header("Range") == Self.window(from: 0))
        let resumedAt = outcome.ranges[1].requestedFrom
        if reset {
            #expect(resumedAt <= Self.cut) // a reset may drop bytes in flight; what arrived is kept
        } else {
            #expect(resumedAt == Self.cut)
            #expect(server.bodyBytesSent(to: "/file") == resource.size)
        }
        #expect(requests[1].header("Range") == Self.window(from: resumedAt))
        #expect(requests[1].header("If-Range") == "\"v1\"")
        #expect(outcome.ranges[1].wroteFrom == resumedAt)
        #expect(outcome.transfer.steps.contains { $0.from == .checkingRange && $0.to == .appending })
    }

    @Test func cutManyTimesStillCompletesSendingEachByteOnce() async throws {
        let resource = FlakyServer.Resource(size: 2 << 20, lastModified: "Mon, 30 Nov 2026 05:00:00 GMT")
        let slice = 256 * 1024
        let steps = Array(repeating: FlakyServer.DownloadStep.cut(after: slice), count: 7) + [.serve]
        let (outcome, server, destination) = try await Self.run(resource, steps: steps)
        defer { try? FileManager.default.removeItem(at: destination.deletingLastPathComponent()) }
        #expect(outcome.succeeded)
        #expect(try await resource.firstDifference(fromFileAt: destination) == nil)
        #expect(outcome.ranges.map(\.requestedFrom) == (0..<8).map { $0 * slice })
        #expect(server.bodyBytesSent(to: "/file") == resource.size)
        #expect(server.requests(to: "/file").dropFirst().allSatisfy { $0.header("If-Range") == "\"v1\"" })
    }

    @Test func a200OnResumeRestartsFromZero() async throws {
        let resource = FlakyServer.Resource(size: 1_000_000)
        let (outcome, server, destination) = try await Self.run(resource, steps: [.cut(after: Self.cut), .ignoreRange])
        defer { try? FileManager.default.removeItem(at: destination.deletingLastPathComponent()) }
        #expect(outcome.succeeded)
        #expect(try await resource.firstDifference(fromFileAt: destination) == nil)
        #expect(server.requests(to: "/file")[1].header("Range") == Self.window(from: Self.cut))
        #expect(outcome.ranges[1].status == 200 && outcome.ranges[1].wroteFrom == 0)
    }

    @Test func ifRangeMismatchAfterTheFileChangedDownloadsTheNewVersion() async throws {
        let old = FlakyServer.Resource(size: 1_000_000, seed: 1, etag: "\"v1\"")
        let new = FlakyServer.Resource(size: 900_000, seed: 2, etag: "\"v2\"")
        let (outcome, server, destination) = try await Self.run(old, steps: [.cut(after: Self.cut), .change(to: new)])
        defer { try? FileManager.default.removeItem(at: destination.deletingLastPathComponent()) }
        #expect(outcome.succeeded)
        #expect(try await new.firstDifference(fromFileAt: destination) == nil)
        #expect(server.requests(to: "/file")[1].header("If-Range") == "\"v1\"")
        #expect(outcome.ranges[1].status == 200)
        #expect(outcome.bytesOnDisk == new.size && outcome.expectedTotal == new.size)
    }

    @Test(arguments: [-1_000, 1_000]) func a206AtTheWrongOffsetRestartsAndIsNeverAppended(offset: Int) async throws {
        let resource = FlakyServer.Resource(size: 1_000_000)
        let (outcome, server, destination) = try await Self.run(
            resource, steps: [.cut(after: Self.cut), .wrongStart(by: offset), .serve])
        defer { try? FileManager.default.removeItem(at: destination.deletingLastPathComponent()) }
        #expect(outcome.succeeded)
        #expect(try await resource.firstDifference(fromFileAt: destination) == nil)
        let requests = server.requests(to: "/file")
        #expect(requests.count == 3)
        #expect(requests[2].header("Range") == Self.window(from: 0)) // started again from byte 0
        #expect(outcome.ranges[1].status == 206 && outcome.ranges[1].wroteFrom == nil)
        #expect(outcome.retry.attempts[1].error is DownloadProblem)
        #expect(outcome.transfer.steps.contains { $0.from == .checkingRange && $0.to == .restarting })
    }

    @Test func aWeakETagSendsNoIfRange() async throws {
        let resource = FlakyServer.Resource(size: 1_000_000, etag: "W/\"v1\"")
        let (outcome, server, destination) = try await Self.run(resource, steps: [.cut(after: Self.cut), .serve])
        defer { try? FileManager.default.removeItem(at: destination.deletingLastPathComponent()) }
        #expect(outcome.succeeded)
        #expect(try await resource.firstDifference(fromFileAt: destination) == nil)
        #expect(server.requests(to: "/file")[1].header("Range") == Self.window(from: Self.cut))
        #expect(server.requests(to: "/file")[1].header("If-Range") == nil)
        #expect(outcome.ranges[1].sentIfRange == false)
    }

    @Test func a416OnACompleteFileIsSuccess() async throws {
        let resource = FlakyServer.Resource(size: 200_000)
        let (outcome, server, destination) = try await Self.run(
            resource, steps: [.serve], options: DownloadOptions(resumeExisting: true, expectedSHA256: resource.sha256)
        ) { destination in try Data(resource.body).write(to: destination) }
        defer { try? FileManager.default.removeItem(at: destination.deletingLastPathComponent()) }
        #expect(outcome.succeeded)
        #expect(try await resource.firstDifference(fromFileAt: destination) == nil)
        #expect(server.requests(to: "/file").map { $0.header("Range") } == [Self.window(from: 200_000)])
        #expect(outcome.ranges.map(\.status) == [416])
        #expect(server.bodyBytesSent(to: "/file") == 0)
    }

    @Test func a416OnAPartialFileRestarts() async throws {
        let resource = FlakyServer.Resource(size: 200_000)
        let (outcome, server, destination) = try await Self.run(
            resource, steps: [.rangeNotSatisfiable, .serve], options: DownloadOptions(resumeExisting: true)
        ) { destination in
            try Data(resource.bytes(0..<50_000)).write(to: URL(fileURLWithPath: destination.path + ".part"))
        }
        defer { try? FileManager.default.removeItem(at: destination.deletingLastPathComponent()) }
        #expect(outcome.succeeded)
        #expect(try await resource.firstDifference(fromFileAt: destination) == nil)
        #expect(
            server.requests(to: "/file").map { $0.header("Range") } == [
                Self.window(from: 50_000), Self.window(from: 0),
            ])
    }

    @Test func continuingAPartialFromAnEarlierRunAsksOnlyForTheRest() async throws {
        let resource = FlakyServer.Resource(size: 500_000)
        let (outcome, server, destination) = try await Self.run(
            resource, steps: [.serve], options: DownloadOptions(resumeExisting: true)
        ) { destination in
            try Data(resource.bytes(0..<123_456)).write(to: URL(fileURLWithPath: destination.path + ".part"))
        }
        defer { try? FileManager.default.removeItem(at: destination.deletingLastPathComponent()) }
        #expect(outcome.succeeded)
        #expect(try await resource.firstDifference(fromFileAt: destination) == nil)
        #expect(server.bodyBytesSent(to: "/file") == resource.size - 123_456)
    }

    @Test func aChecksumMismatchFailsAndLeavesNoFile() async throws {
        let resource = FlakyServer.Resource(size: 300_000)
        let wrong = String(repeating: "0", count: 64)
        let (outcome, server, destination) = try await Self.run(
            resource, steps: [.cut(after: 100_000), .serve], options: DownloadOptions(expectedSHA256: wrong))
        defer { try? FileManager.default.removeItem(at: destination.deletingLastPathComponent()) }
        #expect(!outcome.succeeded && outcome.transferState == .failed)
        #expect(outcome.retry.reason == .notRetryable)
        #expect(server.requests(to: "/file").count == 2) // the cut was retried, the mismatch was not
        let actual = await resource.sha256
        #expect(
            outcome.retry.attempts.last?.error as? DownloadProblem == .checksumMismatch(expected: wrong, actual: actual)
        )
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        #expect(!FileManager.default.fileExists(atPath: destination.path + ".part"))
    }

    @Test func aMatchingChecksumCompletes() async throws {
        let resource = FlakyServer.Resource(size: 300_000)
        let (outcome, _, destination) = try await Self.run(
            resource, steps: [.cut(after: 100_000), .serve], options: DownloadOptions(expectedSHA256: resource.sha256))
        defer { try? FileManager.default.removeItem(at: destination.deletingLastPathComponent()) }
        #expect(outcome.succeeded)
        #expect(try await resource.firstDifference(fromFileAt: destination) == nil)
    }

    @Test func theRulesDefaultAttemptTimeoutDoesNotCutADownload() async throws {
        // The data surfaces' default total per attempt (30 s) would cut a large download; downloads
        // rely on idle time and stall detection instead. A 1 ms default would cut every attempt.
        let resource = FlakyServer.Resource(size: 2 << 20)
        let server = try FlakyServer()
        try server.serveDownload(resource, at: "/file", steps: [.serve])
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("file.bin")
        var rules = HTTPRetryRules.default
        rules.defaultAttemptTimeout = .milliseconds(1)
        let outcome = try await Runner.session().downloadOutcome(
            for: URLRequest(url: server.url("/file")), to: destination,
            retry: HTTPRetryOptions(Self.policy, rules: rules), clock: ContinuousClock())
        Self.expectTracesConsistent(outcome)
        #expect(outcome.succeeded && outcome.retry.attempts.count == 1)
        #expect(try await resource.firstDifference(fromFileAt: destination) == nil)
    }

    @Test func theHTTPRulesShapeEachAttempt() async throws {
        // maxBodyBytes fails a file announced larger before a byte is written; attemptHeader numbers
        // each attempt; connectionClose goes on the wire.
        let resource = FlakyServer.Resource(size: 1_000_000)
        let server = try FlakyServer()
        try server.serveDownload(resource, at: "/file", steps: [.cut(after: Self.cut), .serve])
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var rules = HTTPRetryRules.default
        rules.attemptHeader = AttemptHeader(name: "RetryFlow-Attempt")
        rules.connectionClose = .always
        let whole = try await Runner.session().downloadOutcome(
            for: URLRequest(url: server.url("/file")), to: folder.appendingPathComponent("a"),
            retry: HTTPRetryOptions(Self.policy, rules: rules), clock: ContinuousClock())
        #expect(whole.succeeded)
        let sent = server.requests(to: "/file")
        #expect(sent.map { $0.header("RetryFlow-Attempt") ?? "" } == ["1", "2"])
        #expect(sent.allSatisfy { $0.header("Connection")?.lowercased() == "close" })

        rules.maxBodyBytes = 999_999
        let tooLarge = try await Runner.session().downloadOutcome(
            for: URLRequest(url: server.url("/file")), to: folder.appendingPathComponent("b"),
            retry: HTTPRetryOptions(Self.policy, rules: rules), clock: ContinuousClock())
        Self.expectTracesConsistent(tooLarge)
        #expect(!tooLarge.succeeded && tooLarge.retry.attempts.count == 1)
        #expect(tooLarge.retry.attempts.first?.error as? DownloadProblem == .tooLarge(bytes: 1_000_000, limit: 999_999))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["a"])
    }

    @Test func credentialsStayWithTheirOriginAcrossARedirect() async throws {
        let resource = FlakyServer.Resource(size: 100_000)
        let elsewhere = try FlakyServer()
        try elsewhere.serveDownload(resource, at: "/file", steps: [.serve])
        let origin = try FlakyServer(scripts: [
            "/moved": [.status(302, headers: ["Location": elsewhere.url("/file").absoluteString], body: "")]
        ])
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var request = URLRequest(url: origin.url("/moved"))
        request.setValue("Basic c2VjcmV0OnNlY3JldA==", forHTTPHeaderField: "Authorization")
        let outcome = try await Runner.session().downloadOutcome(
            for: request, to: folder.appendingPathComponent("f"), retry: .policy(Self.policy), clock: ContinuousClock())
        #expect(outcome.succeeded)
        #expect(origin.requests(to: "/moved").first?.header("Authorization") != nil)
        #expect(elsewhere.requests(to: "/file").count == 1)
        #expect(elsewhere.requests(to: "/file").allSatisfy { $0.header("Authorization") == nil })
    }

    @Test func a404FailsWithoutRetryAndWritesNothing() async throws {
        let server = try FlakyServer(scripts: ["/missing": [.status(404, body: "no")]])
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("x")
        let outcome = try await Runner.session().downloadOutcome(
            for: URLRequest(url: server.url("/missing")), to: destination, retry: .policy(Self.policy),
            clock: ContinuousClock())
        Self.expectTracesConsistent(outcome)
        #expect(outcome.transferState == .failed && outcome.retry.attempts.count == 1)
        #expect(outcome.response?.statusCode == 404)
        // The retry machine ends a 404 in `answered` (as data(for:) does); the file is not there.
        #expect(outcome.retry.finalState == .answered && !outcome.succeeded)
        #expect(outcome.retry.value?.data == Data("no".utf8))
        #expect(DownloadError(outcome: outcome).description.hasPrefix("download failed: the answer was HTTP 404"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [])
    }

    @Test func cancellationMidTransferKeepsAnUncorruptedPartial() async throws {
        let resource = FlakyServer.Resource(size: 2 << 20)
        let server = try FlakyServer()
        try server.serveDownload(resource, at: "/file", steps: [.stall(after: 512 << 10)])
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("file.bin")
        let (stream, progress) = AsyncStream<DownloadProgress>.makeStream()
        let task = Task {
            try await Runner.session().download(
                for: URLRequest(url: server.url("/file")), to: destination, retry: .policy(Self.policy),
                progress: progress)
        }
        for await update in stream where update.bytesOnDisk >= 512 << 10 { break }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        let part = URL(fileURLWithPath: destination.path + ".part")
        let kept = try Data(contentsOf: part)
        #expect(kept.count == 512 << 10)
        #expect(
            try await resource.firstDifference(fromFileAt: part) == kept.count, "the part is the source's first bytes")
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    /// `bytesPerSecond × window` beyond Int.max trapped when the watchdog started; a zero window
    /// spun. A small file still downloads within the first window.
    @Test(arguments: [
        DownloadOptions.SpeedLimit(bytesPerSecond: .max, window: .seconds(1_000)),
        DownloadOptions.SpeedLimit(bytesPerSecond: 1, window: .zero),
    ])
    func anAbsurdSpeedLimitIsNoTrap(limit: DownloadOptions.SpeedLimit) async throws {
        let (outcome, server, destination) = try await Self.run(
            FlakyServer.Resource(size: 1_000), steps: [.serve], options: DownloadOptions(speedLimit: limit))
        defer { server.stop() }
        defer { try? FileManager.default.removeItem(at: destination.deletingLastPathComponent()) }
        #expect(outcome.succeeded)
    }

    @Test func aStallEndsTheAttemptAndTheNextResumes() async throws {
        let resource = FlakyServer.Resource(size: 1_000_000)
        let server = try FlakyServer()
        try server.serveDownload(resource, at: "/file", steps: [.stall(after: 200_000), .serve])
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("file.bin")
        let clock = ManualClock()
        let (stream, progress) = AsyncStream<DownloadProgress>.makeStream()
        var options = DownloadOptions()
        options.speedLimit = .init(bytesPerSecond: 1_000, window: .seconds(1))
        // URLSession's own idle timeout (10 s in Runner.session) must not end the stalled attempt
        // first when this test's task is starved (seen under --sanitize=thread with suites in parallel).
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 300
        let session = URLSession(configuration: configuration)
        let run = Task { [options] in
            try await session.downloadOutcome(
                for: URLRequest(url: server.url("/file")), to: destination, retry: .policy(Self.policy),
                options: options, clock: clock, progress: progress)
        }
        for await update in stream where update.bytesOnDisk >= 200_000 { break }
        // Window 1 saw 200,000 bytes (above the floor); window 2 sees none: a stall.
        let start = ManualClock.Instant(offset: .zero)
        await clock.waitUntil { $0.contains(start.advanced(by: .seconds(1))) }
        clock.advance(by: .seconds(1))
        await clock.waitUntil { $0.contains(start.advanced(by: .seconds(2))) }
        clock.advance(by: .seconds(1))
        let outcome = try await run.value
        Self.expectTracesConsistent(outcome)
        #expect(outcome.succeeded)
        #expect(try await resource.firstDifference(fromFileAt: destination) == nil)
        #expect(
            outcome.retry.attempts.first?.error as? DownloadProblem
                == .stalled(bytesPerSecond: 1_000, window: .seconds(1)))
        #expect(server.requests(to: "/file").last?.header("Range") == Self.window(from: 200_000))
    }

    @Test func anAttemptTimeoutResumesToo() async throws {
        let resource = FlakyServer.Resource(size: 600_000)
        let server = try FlakyServer()
        try server.serveDownload(resource, at: "/file", steps: [.stall(after: 150_000), .serve])
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("file.bin")
        let clock = ManualClock()
        let (stream, progress) = AsyncStream<DownloadProgress>.makeStream()
        var policy = Self.policy
        policy.perAttemptTimeout = .seconds(5)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 300 // only the engine's timeout, on the manual clock, ends it
        let session = URLSession(configuration: configuration)
        let run = Task { [policy] in
            try await session.downloadOutcome(
                for: URLRequest(url: server.url("/file")), to: destination, retry: .policy(policy), clock: clock,
                progress: progress)
        }
        for await update in stream where update.bytesOnDisk >= 150_000 { break }
        await clock.waitUntil { $0.contains(ManualClock.Instant(offset: .seconds(5))) }
        clock.advance(by: .seconds(5))
        let outcome = try await run.value
        Self.expectTracesConsistent(outcome)
        #expect(outcome.succeeded)
        #expect(try await resource.firstDifference(fromFileAt: destination) == nil)
        #expect(outcome.retry.attempts.first?.error is AttemptTimeout)
        #expect(server.requests(to: "/file").last?.header("Range") == Self.window(from: 150_000))
        #expect(outcome.ranges.map(\.requestedFrom) == [0, 150_000])
    }

    @Test func theCompletionHandlerFormRunsOnceWithTheOutcome() async throws {
        let resource = FlakyServer.Resource(size: 300_000)
        let server = try FlakyServer()
        try server.serveDownload(resource, at: "/file", steps: [.cut(after: 100_000), .serve])
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("file.bin")
        let counter = CallCounter()
        let outcome: DownloadOutcome = try await withCheckedThrowingContinuation { continuation in
            Runner.session().downloadTask(
                with: URLRequest(url: server.url("/file")), to: destination, retry: .policy(Self.policy)
            ) {
                counter.hit()
                continuation.resume(with: $0)
            }
        }
        #expect(counter.count == 1)
        #expect(outcome.succeeded)
        #expect(try await resource.firstDifference(fromFileAt: destination) == nil)
    }
}
