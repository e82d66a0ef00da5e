import Foundation
import RetryFlow
import RetryFlowHTTP
import RetryFlowTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Progress-aware retrying (docs/downloads.md, "Progress starts the count over"): a cut attempt that
/// added enough new bytes resets the backoff and does not use up `maxAttempts`; trickles, tiny cuts
/// and endless resumes still end. Both traces are checked against their tables in every case.
@Suite(.timeLimit(.minutes(2))) struct DownloadProgressTests {
    static let cut = 100_000

    /// Runs a download of `resource` served by `steps` on `clock`, advancing the clock to every
    /// wait (backoff or speed window) as soon as one is set; returns the outcome and the notices.
    static func run(
        _ resource: FlakyServer.Resource, steps: [FlakyServer.DownloadStep], policy: RetryPolicy,
        options: DownloadOptions = DownloadOptions()
    ) async throws -> (DownloadOutcome, [RetryNotice], FlakyServer) {
        let server = try FlakyServer()
        try server.serveDownload(resource, at: "/file", steps: steps)
        let folder = try DownloadTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("file.bin")
        let clock = ManualClock()
        let notices = Locked([RetryNotice]())
        let advancing = Task {
            while !Task.isCancelled {
                await clock.waitForSleepers(1)
                _ = clock.advanceToNextDeadline()
            }
        }
        defer { advancing.cancel() }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 300 // only the rules under test end an attempt
        let outcome = try await URLSession(configuration: configuration).downloadOutcome(
            for: URLRequest(url: server.url("/file")), to: destination,
            retry: HTTPRetryOptions(policy, onRetry: { notice in notices.withLock { $0.append(notice) } }),
            options: options, clock: clock)
        DownloadTests.expectTracesConsistent(outcome)
        if outcome.succeeded { #expect(try await resource.firstDifference(fromFileAt: destination) == nil) }
        return (outcome, notices.withLock { $0 }, server)
    }

    /// Attempts the transfer table credited with progress: its `checking progress -> cut / credit progress` row.
    static func credits(_ outcome: DownloadOutcome) -> Int {
        outcome.transfer.steps.filter { $0.from == .checkingProgress && $0.condition == .always }.count
    }

    static let threeAttempts = RetryPolicy(
        maxAttempts: 3, backoff: .exponential(base: .seconds(1), multiplier: 2), jitter: .none)

    @Test func thirtyProgressingCutsCompleteWithThreeAttemptsWaitingTheFirstDelay() async throws {
        let resource = FlakyServer.Resource(size: 31 * Self.cut)
        let (outcome, notices, server) = try await Self.run(
            resource, steps: Array(repeating: .cut(after: Self.cut), count: 30) + [.serve], policy: Self.threeAttempts)
        defer { server.stop() }
        #expect(outcome.succeeded)
        #expect(outcome.retry.attempts.count == 31)
        #expect(outcome.retry.attempts.dropFirst().allSatisfy { $0.delayBefore == .seconds(1) })
        #expect(notices.count == 30)
        #expect(notices.allSatisfy { $0.delay == .seconds(1) && $0.remainingAttempts == 2 })
        #expect(outcome.retry.trace.steps.filter { $0.event == .failedAfterProgress }.count == 30)
        #expect(Self.credits(outcome) == 30)
        #expect(server.bodyBytesSent(to: "/file") == resource.size)
    }

    @Test func withoutARuleEveryAttemptCountsAsInCurl() async throws {
        let resource = FlakyServer.Resource(size: 31 * Self.cut)
        var options = DownloadOptions()
        options.progressRule = nil
        let (outcome, notices, server) = try await Self.run(
            resource, steps: Array(repeating: .cut(after: Self.cut), count: 30) + [.serve], policy: Self.threeAttempts,
            options: options)
        defer { server.stop() }
        #expect(!outcome.succeeded)
        #expect(outcome.retry.reason == .attemptsExhausted)
        #expect(notices.map(\.delay) == [.seconds(1), .seconds(2)])
        #expect(outcome.retry.trace.steps.allSatisfy { $0.event != .failedAfterProgress })
        #expect(outcome.bytesOnDisk == 3 * Self.cut)
    }

    @Test func aTrickleOnEveryConnectionEndsByTheStallRule() async throws {
        var options = DownloadOptions()
        options.speedLimit = .init(bytesPerSecond: 10_000, window: .seconds(1))
        let (outcome, _, server) = try await Self.run(
            FlakyServer.Resource(size: 1_000_000), steps: [.stall(after: 1_000)],
            policy: RetryPolicy(maxAttempts: 3, backoff: .constant(.seconds(1)), jitter: .none), options: options)
        defer { server.stop() }
        #expect(!outcome.succeeded)
        #expect(outcome.retry.reason == .attemptsExhausted)
        #expect(outcome.retry.attempts.count == 3)
        #expect(
            outcome.retry.attempts.allSatisfy {
                $0.error as? DownloadProblem == .stalled(bytesPerSecond: 10_000, window: .seconds(1))
            })
        #expect(outcome.retry.trace.steps.allSatisfy { $0.event != .failedAfterProgress })
    }

    @Test func oneByteCutsAreNoProgress() async throws {
        let (outcome, _, server) = try await Self.run(
            FlakyServer.Resource(size: 1_000_000), steps: [.cut(after: 1)], policy: Self.threeAttempts)
        defer { server.stop() }
        #expect(outcome.retry.reason == .attemptsExhausted)
        #expect(outcome.retry.attempts.count == 3)
        #expect(outcome.bytesOnDisk == 3)
        #expect(Self.credits(outcome) == 0)
    }

    @Test func creditsStopAtTheBoundOnResumes() async throws {
        var options = DownloadOptions()
        options.progressRule = ProgressRule(minimumBytes: 1, maxResumes: 5)
        let (outcome, _, server) = try await Self.run(
            FlakyServer.Resource(size: 1_000_000), steps: [.cut(after: 1)], policy: Self.threeAttempts,
            options: options)
        defer { server.stop() }
        // Five credited resumes, then a fresh series of three attempts counted as failures.
        #expect(outcome.retry.reason == .attemptsExhausted)
        #expect(outcome.retry.attempts.count == 5 + 3 - 1)
        #expect(Self.credits(outcome) == 5)
        #expect(outcome.retry.trace.steps.filter { $0.event == .failedAfterProgress }.count == 5)
    }

    @Test func aRestartingTwoHundredIsNoProgress() async throws {
        // Every answer ignores the range and restarts from byte 0: the file never grows past what it held.
        let (outcome, _, server) = try await Self.run(
            FlakyServer.Resource(size: 1_000_000),
            steps: [.cut(after: 200_000), FlakyServer.DownloadStep(.ignoreRange, cutAfter: 200_000)],
            policy: Self.threeAttempts)
        defer { server.stop() }
        #expect(outcome.retry.reason == .attemptsExhausted)
        #expect(outcome.retry.trace.steps.filter { $0.event == .failedAfterProgress }.count == 1)
    }

    @Test func aTwoHundredToAWindowIsReadToTheEndInOneRequest() async throws {
        // 20 MB asked for in windows of 8 MiB: the server ignores Range and sends it all at once.
        let resource = FlakyServer.Resource(size: 20_000_000)
        let (outcome, _, server) = try await Self.run(resource, steps: [.ignoreRange], policy: Self.threeAttempts)
        defer { server.stop() }
        #expect(outcome.succeeded)
        #expect(server.requests(to: "/file").count == 1)
        #expect(outcome.ranges.map(\.status) == [200])
    }

    @Test func aTwoHundredAfterACutCostsOneRestartAndIsReadToTheEnd() async throws {
        let resource = FlakyServer.Resource(size: 20_000_000)
        let (outcome, _, server) = try await Self.run(
            resource, steps: [.cut(after: 1_000_000), .ignoreRange], policy: Self.threeAttempts)
        defer { server.stop() }
        #expect(outcome.succeeded)
        #expect(server.requests(to: "/file").count == 2)
        #expect(outcome.ranges.map(\.status) == [206, 200])
        #expect(outcome.ranges.map(\.wroteFrom) == [0, 0])
        #expect(server.bodyBytesSent(to: "/file") == resource.size + 1_000_000)
    }
}
