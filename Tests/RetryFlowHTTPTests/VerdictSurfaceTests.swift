import Foundation
import RetryFlow
import RetryFlowHTTP
import RetryFlowTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A failure verdict (a failing status, a body over `maxBodyBytes`, a classifier's `fail`) makes
/// every value-returning surface fail, and a final answer (a POST's 503) is returned by every one:
/// the final state decides (`RetryState.delivery`), no surface decides again.
@Suite(.timeLimit(.minutes(1))) struct VerdictSurfaceTests {
    /// What a surface handed its caller: a response, or an error.
    enum Delivered {
        case response(status: Int, body: Data)
        case error(any Error)

        var status: Int? {
            if case .response(let status, _) = self { return status }
            return nil
        }
        var retryError: RetryError? {
            if case .error(let error) = self { return error as? RetryError }
            return nil
        }
        /// Why the run gave up and after how many attempts, whatever error the surface throws.
        var gaveUp: (reason: StopReason, attempts: Int)? {
            guard case .error(let error) = self else { return nil }
            if let error = error as? RetryError { return (error.reason, error.attempts.count) }
            if let error = error as? DownloadError {
                return (error.outcome.retry.reason, error.outcome.retry.attempts.count)
            }
            return nil
        }
    }

    enum ValueSurface: String, CaseIterable, CustomTestStringConvertible {
        case async, completionHandler, synchronous, download
        var testDescription: String { rawValue }
    }

    static let fast = RetryPolicy(maxAttempts: 3, backoff: .constant(.zero), jitter: .none)

    /// Sends `request` through `surface` and returns what its caller receives.
    static func deliver(
        _ surface: ValueSurface, _ request: URLRequest, policy: RetryPolicy = fast, rules: HTTPRetryRules
    ) async throws -> Delivered {
        let session = Runner.session()
        switch surface {
        case .async:
            do {
                let (data, response) = try await session.data(
                    for: request, retry: HTTPRetryOptions(policy, rules: rules))
                return .response(status: response.statusCode, body: data)
            } catch {
                return .error(error)
            }
        case .completionHandler:
            let result: Result<HTTPResponse, RetryError> = try await withCheckedThrowingContinuation { continuation in
                do {
                    let task = try session.retryDataTask(with: request, retry: HTTPRetryOptions(policy, rules: rules)) {
                        outcome in
                        continuation.resume(returning: outcome.result)
                    }
                    task.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
            switch result {
            case .success(let answer): return .response(status: answer.statusCode, body: answer.data)
            case .failure(let error): return .error(error)
            }
        case .synchronous:
            let delivered: Delivered = await withCheckedContinuation { continuation in
                Thread.detachNewThread {
                    let (data, response, error) = session.synchronousDataTask(
                        with: request, retry: HTTPRetryOptions(policy, rules: rules))
                    if let error {
                        continuation.resume(returning: .error(error))
                    } else {
                        let status = (response as? HTTPURLResponse)?.statusCode ?? -1
                        continuation.resume(returning: .response(status: status, body: data ?? Data()))
                    }
                }
            }
            return delivered
        case .download:
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("verdict-\(UUID().uuidString)")
            defer {
                try? FileManager.default.removeItem(at: file)
                try? FileManager.default.removeItem(at: file.appendingPathExtension("part"))
            }
            do {
                let (response, _) = try await session.download(
                    for: request, to: file, retry: HTTPRetryOptions(policy, rules: rules))
                return .response(status: response.statusCode, body: try Data(contentsOf: file))
            } catch let error as DownloadError {
                return .error(error)
            }
        }
    }

    @Test(arguments: ValueSurface.allCases)
    func aFailingStatusFails(_ surface: ValueSurface) async throws {
        let server = try FlakyServer(scripts: ["/missing": [.status(404, body: "nope")]])
        defer { server.stop() }
        var rules = HTTPRetryRules.default
        rules.failingStatuses = [404]
        let delivered = try await Self.deliver(surface, URLRequest(url: server.url("/missing")), rules: rules)
        #expect(delivered.status == nil, "a failing status is not returned as a response")
        if surface != .download { #expect(delivered.retryError?.reason == .notRetryable) }
        #expect(server.requests(to: "/missing").count == 1, "not retried")
    }

    @Test(arguments: ValueSurface.allCases)
    func aBodyOverMaxBodyBytesFails(_ surface: ValueSurface) async throws {
        let server = try FlakyServer(scripts: ["/big": [.status(200, body: "0123456789")]])
        defer { server.stop() }
        var rules = HTTPRetryRules.default
        rules.maxBodyBytes = 1
        let delivered = try await Self.deliver(surface, URLRequest(url: server.url("/big")), rules: rules)
        #expect(delivered.status == nil, "an oversized body is not returned")
        if surface != .download { #expect(delivered.retryError?.reason == .notRetryable) }
    }

    @Test(arguments: ValueSurface.allCases)
    func aUserClassifiersFailIsKept(_ surface: ValueSurface) async throws {
        let server = try FlakyServer(scripts: ["/reset": [.reset, .status(200, body: "ok")]])
        defer { server.stop() }
        var policy = Self.fast
        policy.retryIf = .never // the rules would retry a reset GET; the user's classifier refuses
        let delivered = try await Self.deliver(
            surface, URLRequest(url: server.url("/reset")), policy: policy, rules: .default)
        #expect(delivered.gaveUp?.reason == .notRetryable)
        #expect(delivered.gaveUp?.attempts == 1)
        #expect(server.requests(to: "/reset").count == 1)
    }

    @Test(arguments: ValueSurface.allCases.filter { $0 != .download })
    func aPostsFinalAnswerIsReturned(_ surface: ValueSurface) async throws {
        let server = try FlakyServer(scripts: ["/busy": [.status(503, body: "busy")]])
        defer { server.stop() }
        var post = URLRequest(url: server.url("/busy"))
        post.httpMethod = "POST"
        post.httpBody = Data("x".utf8)
        let delivered = try await Self.deliver(surface, post, rules: .default)
        #expect(delivered.status == 503, "a POST's 503 is the server's final answer")
        #expect(server.requests(to: "/busy").count == 1)
    }
}
