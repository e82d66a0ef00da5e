import Foundation
import RetryFlow
import RetryFlowHTTP
import RetryFlowTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Retry-After, deadlines and cancellation against FlakyServer, on the real clock with short values.
@Suite(.timeLimit(.minutes(2))) struct TimingAndCancellationTests {
    /// The wall-clock bound of these tests: it rules out only the long waits they are about (30 s
    /// timeouts, an hour of Retry-After); the rows and errors asserted are the mechanism. Not less:
    /// with every suite at once on 2 cores, the whole test process was seen stalled for ~10 s
    /// (trivial suites "passed after 10 s"). How fast things are is measured in retryflow-bench.
    static let farBelowTimeouts = Duration.seconds(25)

    static let policy = RetryPolicy(maxAttempts: 3, backoff: .constant(.milliseconds(20)), jitter: .none)

    @Test(arguments: [Surface.async, .completionHandler, .synchronous])
    func retryAfterSecondsIsNeverEarly(surface: Surface) async throws {
        let server = try FlakyServer(scripts: ["/ra": [.status(503, headers: ["Retry-After": "1"]), .status(200)]])
        defer { server.stop() }
        let run = try await Runner.run(surface, URLRequest(url: server.url("/ra")), policy: Self.policy)
        #expect(run.outcome.finalState == .success)
        let seen = server.requests(to: "/ra")
        #expect(seen.count == 2)
        let answered = try #require(seen[0].answered)
        #expect(
            seen[1].arrival - answered >= .seconds(1),
            "retried \((seen[1].arrival - answered).shortDescription) after the 503")
        #expect(run.outcome.trace.steps.contains { $0.to == .wait && $0.delay == .seconds(1) })
        #expect(run.outcome.attempts[0].errorDescription?.contains("Retry-After 1 asks for 1 s") == true)
        expectConsistent(run.outcome.trace)
    }

    @Test(arguments: [Surface.async, .completionHandler])
    func retryAfterDateIsNeverEarly(surface: Surface) async throws {
        let notBefore = Date(timeIntervalSinceNow: 1.2)
        let date = RetryAfter.imfFixdate(notBefore)
        let asked = RetryAfter.httpDate(date)! // whole seconds: at most 1.2 s away
        let server = try FlakyServer(scripts: ["/rd": [.status(503, headers: ["Retry-After": date]), .status(200)]])
        defer { server.stop() }
        let run = try await Runner.run(surface, URLRequest(url: server.url("/rd")), policy: Self.policy)
        #expect(run.outcome.finalState == .success)
        let seen = server.requests(to: "/rd")
        #expect(seen.count == 2)
        #expect(seen[1].arrivalDate >= asked, "retried at \(seen[1].arrivalDate), asked for \(asked)")
        expectConsistent(run.outcome.trace)
    }

    @Test func malformedRetryAfterFallsBackToBackoffAndSaysSo() async throws {
        let server = try FlakyServer(scripts: [
            "/m": [.status(503, headers: ["Retry-After": "whenever"]), .status(200)]
        ])
        defer { server.stop() }
        let outcome = try await Runner.session().retryOutcome(
            for: URLRequest(url: server.url("/m")), retry: .policy(Self.policy))
        #expect(outcome.finalState == .success)
        #expect(outcome.trace.steps.contains { $0.to == .wait && $0.delay == .milliseconds(20) })
        #expect(
            outcome.trace.steps.contains { $0.detail?.contains("Retry-After \"whenever\" ignored (malformed)") == true }
        )
        expectConsistent(outcome.trace)
    }

    @Test func retryAfterBeyondTheCapEndsAtOnce() async throws {
        let server = try FlakyServer(scripts: ["/cap": [.status(503, headers: ["Retry-After": "3600"]), .status(200)]])
        defer { server.stop() }
        let outcome = try await Runner.session().retryOutcome(
            for: URLRequest(url: server.url("/cap")), retry: .policy(Self.policy))
        #expect(outcome.finalState == .failure)
        #expect(outcome.reason == .retryAfterBeyondCap)
        #expect(server.requests(to: "/cap").count == 1)
        #expect(outcome.duration < Self.farBelowTimeouts, "did not wait the hour it was asked for")
        expectConsistent(outcome.trace)
    }

    /// The deadline is checked on the trace, not on the wall clock alone: no wait may end at or
    /// after it, and the run ends as soon as the next wait would cross it.
    @Test(arguments: [Surface.async, .completionHandler, .synchronous])
    func deadlineStopsTheRunInTime(surface: Surface) async throws {
        let server = try FlakyServer(scripts: ["/d": [.status(503)]])
        defer { server.stop() }
        // Margins a loaded 2-core machine holds: each attempt has 1.5 s to answer a loopback 503.
        let deadline = Duration.seconds(4)
        let policy = RetryPolicy(
            maxAttempts: 10, backoff: .constant(.milliseconds(2500)), jitter: .none, deadline: deadline)
        let run = try await Runner.run(surface, URLRequest(url: server.url("/d")), policy: policy)
        let trace = run.outcome.trace
        #expect(run.outcome.finalState == .failure)
        #expect(run.outcome.reason == .deadlineExceeded)
        for wait in trace.steps where wait.to == .wait {
            #expect(wait.at + (wait.delay ?? .zero) < deadline, "a wait crossing the deadline: \(wait)")
        }
        // Ended because the next wait would cross it, or (when a loaded machine made the second
        // attempt take the last 1.5 s) because the deadline came during that attempt: both are rows.
        let last = trace.steps.last
        #expect(
            last?.condition == .unless(.withinDeadline) || last?.event == .deadlineExceeded,
            "ended by the deadline: \(String(describing: last))")
        // 0 + 2.5 s fits, 2.5 s + 2.5 s does not: two requests unless the first took 1.5 s or more.
        #expect((1...2).contains(server.requests(to: "/d").count))
        // The trace above proves no wait crossed the deadline; the wall clock only shows the run did
        // not hang on (how late timers run is wait-precision's figure, in retryflow-bench).
        #expect(run.outcome.duration < Self.farBelowTimeouts, "gave up at the deadline, not at a timeout")
        expectConsistent(trace)
    }

    @Test func deadlineDuringAHungAttemptCancelsIt() async throws {
        let server = try FlakyServer(scripts: ["/h": [.hang]])
        defer { server.stop() }
        let policy = RetryPolicy(
            maxAttempts: 3, backoff: .constant(.milliseconds(20)), jitter: .none, deadline: .milliseconds(300))
        let outcome = try await Runner.session().retryOutcome(
            for: URLRequest(url: server.url("/h")), retry: .policy(policy))
        #expect(outcome.reason == .deadlineExceeded)
        #expect(outcome.trace.steps.last?.event == .deadlineExceeded)
        #expect(outcome.attempts.first?.error is DeadlineExceeded)
        #expect(outcome.duration >= .milliseconds(300))
        #expect(outcome.duration < Self.farBelowTimeouts, "not the session's own 30 s timeout")
        expectConsistent(outcome.trace)
    }

    // MARK: cancellation

    @Test func cancellingTheSwiftTaskInFlight() async throws {
        let server = try FlakyServer(scripts: ["/h": [.hang]])
        defer { server.stop() }
        let session = Runner.session()
        let request = URLRequest(url: server.url("/h"))
        let task = Task { try await session.retryOutcome(for: request, retry: .policy(Self.policy)) }
        await server.waitForRequests(to: "/h")
        let cancelledAt = ContinuousClock.now
        task.cancel()
        let outcome = try await task.value
        let took = cancelledAt.duration(to: .now)
        #expect(outcome.finalState == .cancelled)
        // Ended by the transport the moment it was cancelled, not by URLSession's -999 callback
        // (~200 ms later) nor the hang (the session's 30 s timeout). How fast: retryflow-bench.
        #expect(outcome.attempts.last?.error is CancellationError, "\(outcome.attempts)")
        #expect(took < Self.farBelowTimeouts, "cancellation seen after \(took.shortDescription)")
        #expect(server.requests(to: "/h").count == 1, "never retried")
        expectConsistent(outcome.trace)
        let thrower = Task { try await session.data(for: request, retry: .policy(Self.policy)) }
        await server.waitForRequests(to: "/h", count: 2)
        thrower.cancel()
        await #expect(throws: CancellationError.self) { try await thrower.value }
    }

    @Test(arguments: [Surface.completionHandler, .originalShape], ["/hang", "/wait"])
    func cancellingTheTaskObjectInFlightAndInAWait(surface: Surface, path: String) async throws {
        let server = try FlakyServer(scripts: ["/hang": [.hang], "/wait": [.reset, .status(200)]])
        defer { server.stop() }
        let session = Runner.session()
        let counter = CallCounter()
        let (retrying, retried) = AsyncStream.makeStream(of: Void.self)
        let (finished, finish) = AsyncStream.makeStream(of: Void.self)
        let task: RetryDataTask
        let request = URLRequest(url: server.url(path))
        if surface == .completionHandler {
            let policy = RetryPolicy(
                maxAttempts: 3, backoff: .constant(.seconds(30)), maxDelay: .seconds(30), jitter: .none)
            task = try session.retryDataTask(
                with: request, retry: HTTPRetryOptions(policy, onRetry: { _ in retried.yield() })
            ) { _ in
                counter.hit()
                finish.yield()
            }
            task.resume()
        } else {
            task = session.retryDataTask(
                withRequest: request, times: 2, wait: 30_000_000, errorHandler: { _, _ in retried.yield() }
            ) {
                _, _, _ in
                counter.hit()
                finish.yield()
            }
        }
        await server.waitForRequests(to: path)
        if path == "/wait" {
            var iterator = retrying.makeAsyncIterator()
            _ = await iterator.next() // the retry is announced just before the wait
        }
        let cancelledAt = ContinuousClock.now
        task.cancel()
        var done = finished.makeAsyncIterator()
        _ = await done.next()
        let took = cancelledAt.duration(to: .now)
        await Runner.settle(session)
        // Not the 30 s wait nor the hang; how fast is measured in retryflow-bench, not here.
        #expect(took < Self.farBelowTimeouts, "completion \(took.shortDescription) after cancel")
        let outcome = try #require(task.outcome)
        if path == "/hang" { #expect(outcome.attempts.last?.error is CancellationError, "\(outcome.attempts)") }
        #expect(outcome.finalState == .cancelled)
        #expect(task.state == .cancelled)
        #expect(counter.count == 1)
        #expect(server.requests(to: path).count == 1, "cancellation is never retried")
        expectConsistent(outcome.trace)
    }

    @Test func cancelBeforeResumeSendsNothingAndCompletesOnce() async throws {
        let server = try FlakyServer(scripts: ["/x": [.status(200)]])
        defer { server.stop() }
        let session = Runner.session()
        let counter = CallCounter()
        let outcome: RetryOutcome<HTTPResponse> = try await withCheckedThrowingContinuation { continuation in
            do {
                let task = try session.retryDataTask(
                    with: URLRequest(url: server.url("/x")), retry: .policy(Self.policy)
                ) {
                    outcome in
                    counter.hit()
                    continuation.resume(returning: outcome)
                }
                task.cancel()
                task.resume()
                task.cancel()
            } catch {
                continuation.resume(throwing: error)
            }
        }
        await Runner.settle(session)
        #expect(outcome.finalState == .cancelled)
        #expect(outcome.trace.steps.map { "\($0.from)>\($0.to)" } == ["idle>cancelled"])
        #expect(counter.count == 1)
        #expect(server.requests.isEmpty)
    }

    @Test func synchronousCallRefusesToDeadlockOnItsDelegateQueue() async throws {
        let server = try FlakyServer(scripts: ["/s": [.status(200, body: "sync")]])
        defer { server.stop() }
        let session = Runner.session()
        let url = URLRequest(url: server.url("/s"))
        let refused: String = await withCheckedContinuation { continuation in
            session.delegateQueue.addOperation {
                let (_, _, error) = session.synchronousDataTask(with: url)
                continuation.resume(returning: String(describing: error))
            }
        }
        #expect(refused.contains("delegate queue"))
        // Expectations stay on the test's task: the thread only hands its results back.
        let (fine, body): (Int?, String) = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let (data, response, _) = session.synchronousDataTask(with: url)
                continuation.resume(
                    returning: (
                        (response as? HTTPURLResponse)?.statusCode, String(decoding: data ?? Data(), as: UTF8.self)
                    ))
            }
        }
        #expect(fine == 200)
        #expect(body == "sync")
        #expect(server.requests(to: "/s").count == 1, "the refused call sent nothing")
    }

    @Test func originalShapeCallsErrorHandlerWithRemainingTimes() async throws {
        let server = try FlakyServer(scripts: ["/o": [.reset, .closeBeforeResponse, .status(200, body: "ok")]])
        defer { server.stop() }
        let session = Runner.session()
        let calls = Shared<[Int]>([])
        let body: String = await withCheckedContinuation { continuation in
            session.retryDataTask(
                withRequest: URLRequest(url: server.url("/o")), times: 5, wait: 10_000,
                errorHandler: { remaining, _ in
                    calls.update { $0.append(remaining) }
                }
            ) { data, _, _ in
                continuation.resume(returning: String(decoding: data ?? Data(), as: UTF8.self))
            }
        }
        #expect(body == "ok")
        #expect(calls.current == [5, 4])
    }

    /// The snippet's `failure()` says nothing, but nothing is lost: the returned task's outcome
    /// holds every attempt, each with its error.
    @Test func downloadAndRetryKeepsEveryAttemptOnFailure() async throws {
        let server = try FlakyServer(scripts: ["/dl": [.reset]])
        defer { server.stop() }
        let session = Runner.session()
        let box = TaskBox()
        let failed: Bool = await withCheckedContinuation { continuation in
            box.task = session.downloadAndRetry(
                with: server.url("/dl"), retryCount: 2,
                completion: { _, _ in
                    continuation.resume(returning: false) // the wrong handler: checked below, not on the delegate queue
                }
            ) {
                continuation.resume(returning: true)
            }
        }
        #expect(failed)
        let attempts = box.task?.outcome?.attempts ?? []
        #expect(attempts.count == 3)
        #expect(attempts.allSatisfy { $0.error != nil }, "each attempt keeps its error")
        #expect(server.requests(to: "/dl").count == 3)
    }

    /// `retryCount: .max` used to overflow `retryCount + 1`; it now means "retry without end".
    @Test func downloadAndRetryAcceptsTheLargestRetryCount() async throws {
        let server = try FlakyServer(scripts: ["/dl": [.status(200)]])
        defer { server.stop() }
        let status: Int = await withCheckedContinuation { continuation in
            Runner.session().downloadAndRetry(
                with: server.url("/dl"), retryCount: .max,
                completion: { response, _ in
                    continuation.resume(returning: (response as? HTTPURLResponse)?.statusCode ?? 0)
                }
            ) {
                continuation.resume(returning: -1)
            }
        }
        #expect(status == 200)
    }

    @Test func tracesAndErrorsCarryNoSecrets() async throws {
        let server = try FlakyServer(scripts: ["/p": [.reset]])
        defer { server.stop() }
        var components = URLComponents(url: server.url("/p"), resolvingAgainstBaseURL: false)!
        components.user = "alice"
        components.password = "pa55word"
        components.query = "access_token=tok3n"
        var request = URLRequest(url: components.url!)
        request.setValue("Bearer s3cr3t", forHTTPHeaderField: "Authorization")
        request.setValue("Basic cHJveHk=", forHTTPHeaderField: "Proxy-Authorization")
        request.setValue("session=c00kie", forHTTPHeaderField: "Cookie")
        let outcome = try await Runner.session().retryOutcome(for: request, retry: .policy(Self.policy))
        let json = String(decoding: try HTTPTraceJSON.encode(outcome.trace), as: UTF8.self)
        let text = json + (outcome.error?.description ?? "") + outcome.attempts.map(\.description).joined()
        for secret in ["pa55word", "alice", "tok3n", "s3cr3t", "cHJveHk=", "c00kie"] {
            #expect(!text.contains(secret), "\(secret) leaked")
        }
        #expect(server.requests.first?.header("Authorization") == "Bearer s3cr3t", "the request itself is unchanged")
    }

}

/// A value shared across tasks in a test: the package's one lock type.
typealias Shared = Locked

extension Locked {
    func update(_ body: (inout Value) -> Void) { withLock(body) }
    var current: Value { withLock { $0 } }
}
