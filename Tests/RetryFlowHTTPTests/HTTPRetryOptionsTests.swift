import Foundation
import RetryFlow
import RetryFlowHTTP
import RetryFlowTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One `HTTPRetryOptions` value is taken the same way by every surface: its hooks see every run,
/// and its guards hold on downloads too.
@Suite(.timeLimit(.minutes(1))) struct HTTPRetryOptionsTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case async, completionHandler, synchronous, download
        var testDescription: String { rawValue }
    }

    /// What the options' hooks saw, beside what the run recorded.
    final class Seen: Sendable {
        private let state = Locked((retries: 0, steps: [RetryTrace.Step]()))
        func retried() { state.withLock { $0.retries += 1 } }
        func took(_ step: RetryTrace.Step) { state.withLock { $0.steps.append(step) } }
        var retries: Int { state.withLock { $0.retries } }
        var steps: [RetryTrace.Step] { state.withLock { $0.steps } }
    }

    static let fast = RetryPolicy(maxAttempts: 3, backoff: .constant(.zero), jitter: .none)

    /// The run's outcome through `kind`, under `options`.
    static func run(_ kind: Kind, _ request: URLRequest, _ options: HTTPRetryOptions) async throws -> RetryOutcome<
        HTTPResponse
    > {
        let session = Runner.session()
        switch kind {
        case .async:
            return try await session.retryOutcome(for: request, retry: options)
        case .completionHandler:
            return try await withCheckedThrowingContinuation { continuation in
                do {
                    try session.retryDataTask(with: request, retry: options) { continuation.resume(returning: $0) }
                        .resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        case .synchronous:
            return try await withCheckedThrowingContinuation { continuation in
                Thread.detachNewThread {
                    do {
                        continuation.resume(
                            returning: try session.synchronousRetryOutcome(for: request, retry: options))
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            }
        case .download:
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("options-\(UUID().uuidString)")
            defer {
                try? FileManager.default.removeItem(at: file)
                try? FileManager.default.removeItem(at: file.appendingPathExtension("part"))
            }
            return try await session.downloadOutcome(for: request, to: file, retry: options).retry
        }
    }

    /// `onRetry` runs before each wait and `onTransition` sees every step the trace records, on
    /// each surface (the completion-handler task keeps its own trace beside the caller's hook).
    @Test(arguments: Kind.allCases)
    func theHooksSeeEveryRun(_ kind: Kind) async throws {
        let server = try FlakyServer(scripts: ["/f": [.status(503), .status(503), .status(200, body: "ok")]])
        defer { server.stop() }
        let seen = Seen()
        let options = HTTPRetryOptions(Self.fast, onRetry: { _ in seen.retried() }, onTransition: { seen.took($0) })
        let outcome = try await Self.run(kind, URLRequest(url: server.url("/f")), options)
        #expect(outcome.succeeded)
        #expect(outcome.attempts.count == 3)
        #expect(seen.retries == 2)
        #expect(seen.steps.map(\.to) == outcome.trace.steps.map(\.to))
        #expect(!seen.steps.isEmpty)
    }

    /// The breaker in the options refuses a download's retry too: it never reaches the server.
    @Test func theGuardsHoldOnADownload() async throws {
        let server = try FlakyServer(scripts: ["/down": [.status(503)]])
        defer { server.stop() }
        let breaker = try CircuitBreaker(.init(trip: .consecutiveFailures(1), breakDuration: .seconds(60)))
        var options = HTTPRetryOptions(Self.fast)
        options.guards = FleetGuards(breaker: breaker, whenCircuitOpen: .fail)
        let outcome = try await Self.run(.download, URLRequest(url: server.url("/down")), options)
        #expect(outcome.reason == .circuitOpen)
        #expect(server.requests(to: "/down").count == 1, "the refused retry was never sent")
        #expect(breaker.state == .open)
    }
}
