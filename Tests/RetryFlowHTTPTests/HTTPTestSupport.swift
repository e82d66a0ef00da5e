import Foundation
import RetryFlow
import RetryFlowHTTP
import RetryFlowTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The four ways to call RetryFlow over HTTP; each case runs through each that applies.
enum Surface: String, CaseIterable, CustomTestStringConvertible {
    case async, completionHandler, synchronous, originalShape
    var testDescription: String { rawValue }
}

/// Counts completion-handler calls.
final class CallCounter: Sendable {
    private let calls = Locked(0)
    func hit() { calls.withLock { $0 += 1 } }
    var count: Int { calls.withLock { $0 } }
}

/// What a run through one surface produced.
struct SurfaceRun {
    var outcome: RetryOutcome<HTTPResponse>
    var completions: Int
    /// For the original shape: what its completion handler was given.
    var original: (data: Data?, response: URLResponse?, error: (any Error)?)? = nil
}

enum Runner {
    /// A session for one test. Without a `URLCache` unless `cached`: then an attempt the engine
    /// ends has its data task cancelled, which stops libcurl's busy loop on that connection at once
    /// (docs/reliability.md, "URLSession spins while it waits"); with one, the task is abandoned
    /// and spins until the server answers or closes. The cancel storm runs both.
    static func session(cached: Bool = false) -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 30 // a safety net only: the engine owns timeouts
        if !cached { configuration.urlCache = nil }
        return URLSession(configuration: configuration)
    }

    /// Runs `request` through `surface` under `policy` alone and waits for its outcome.
    static func run(
        _ surface: Surface, _ request: URLRequest, policy: RetryPolicy, session: URLSession = session(),
        onTask: (@Sendable (RetryDataTask) -> Void)? = nil
    ) async throws -> SurfaceRun {
        try await run(surface, request, retry: .policy(policy), session: session, onTask: onTask)
    }

    /// Runs `request` through `surface` under `options` and waits for its outcome. The original
    /// shape takes only a count and a wait: it runs `options.policy`'s, and nothing else.
    static func run(
        _ surface: Surface, _ request: URLRequest, retry options: HTTPRetryOptions, session: URLSession = session(),
        onTask: (@Sendable (RetryDataTask) -> Void)? = nil
    ) async throws -> SurfaceRun {
        let policy = options.policy
        let counter = CallCounter()
        switch surface {
        case .async:
            let outcome = try await session.retryOutcome(for: request, retry: options)
            counter.hit()
            return SurfaceRun(outcome: outcome, completions: counter.count)
        case .completionHandler:
            let outcome: RetryOutcome<HTTPResponse> = try await withCheckedThrowingContinuation { continuation in
                do {
                    let task = try session.retryDataTask(with: request, retry: options) { outcome in
                        counter.hit()
                        continuation.resume(returning: outcome)
                    }
                    task.resume()
                    onTask?(task)
                } catch {
                    continuation.resume(throwing: error)
                }
            }
            await settle(session)
            return SurfaceRun(outcome: outcome, completions: counter.count)
        case .synchronous:
            // Counted on the calling thread each time the blocking call returns, then read after the
            // delegate queue settles, so a second delivery (or none) shows.
            let outcome: RetryOutcome<HTTPResponse> = try await withCheckedThrowingContinuation { continuation in
                Thread.detachNewThread {
                    do {
                        let outcome = try session.synchronousRetryOutcome(for: request, retry: options)
                        counter.hit()
                        continuation.resume(returning: outcome)
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            }
            await settle(session)
            return SurfaceRun(outcome: outcome, completions: counter.count)
        case .originalShape:
            let box = TaskBox()
            let given: (Data?, URLResponse?, (any Error)?) = await withCheckedContinuation { continuation in
                let task = session.retryDataTask(
                    withRequest: request, times: policy.maxAttempts - 1,
                    wait: useconds_t(policy.backoff.base.inSeconds * 1e6)
                ) { data, response, error in
                    counter.hit()
                    continuation.resume(returning: (data, response, error))
                }
                box.task = task
                onTask?(task)
            }
            await settle(session)
            return SurfaceRun(outcome: box.task!.outcome!, completions: counter.count, original: given)
        }
    }

    /// Lets anything already queued on the delegate queue run, so a second completion would show.
    static func settle(_ session: URLSession) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            session.delegateQueue.addOperation { continuation.resume() }
        }
    }
}

final class TaskBox: @unchecked Sendable {
    var task: RetryDataTask?
}
