import Foundation
import RetryFlow
import RetryFlowHTTP
import RetryFlowTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Every call shape of the original snippets, written as a migrating caller writes it: the Swift
/// snippet's `retryDataTask` and `synchronousDataTask`, each with a `URL` and with a `URLRequest`
/// and with the defaults left out, and the Objective-C snippet's `downloadAndRetry`. If a shape
/// stopped compiling, or stopped doing what the snippet's caller relied on, a test here fails.
/// Waits are the snippet's microseconds, kept small wherever a retry really waits.
@Suite(.timeLimit(.minutes(2))) struct OriginalShapesTests {
    /// What a snippet's completion (or blocking call) was given, reduced to what the tests compare.
    struct Delivered: Sendable, Equatable {
        var body: String?
        var status: Int?
        /// The `URLError` code when the error is one; `nil` also when there is no error.
        var urlError: Int?
        var failed: Bool

        init(_ data: Data?, _ response: URLResponse?, _ error: (any Error)?) {
            body = data.map { String(decoding: $0, as: UTF8.self) }
            status = (response as? HTTPURLResponse)?.statusCode
            urlError = (error as? URLError)?.code.rawValue
            failed = error != nil
        }
    }

    /// Starts a Swift-snippet call through `start`, which hands its completion handler's arguments
    /// to `done`; waits for the first delivery, lets the delegate queue settle so a second one
    /// would show, and returns the first with how many there were and the task the call returned.
    static func complete(
        _ session: URLSession,
        _ start: (@escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void) -> RetryDataTask
    ) async -> (given: Delivered, calls: Int, task: RetryDataTask?) {
        let calls = Shared(0)
        let box = TaskBox()
        let given: Delivered = await withCheckedContinuation { continuation in
            box.task = start { data, response, error in
                let call = calls.withLock { count in
                    count += 1
                    return count
                }
                if call == 1 { continuation.resume(returning: Delivered(data, response, error)) }
            }
        }
        await Runner.settle(session)
        return (given, calls.current, box.task)
    }

    // MARK: retryDataTask(withURL:times:wait:errorHandler:completionHandler:)

    /// Leaving out `times` and `wait` gives the snippet's 50 retries and 200_000 µs. Read without
    /// waiting: the error handler's count says 50, the trace's wait says 200 ms, and the run is
    /// cancelled in that wait (which also shows a cancel cuts the wait short and completes once).
    @Test func theURLFormKeepsTheSnippetsDefaults() async throws {
        let server = try FlakyServer(scripts: ["/defaults": [.reset, .status(200, body: "never fetched")]])
        defer { server.stop() }
        let session = Runner.session()
        let url = server.url("/defaults")
        let remaining = Shared<[Int]>([])
        let (retrying, retried) = AsyncStream.makeStream(of: Void.self)
        let (finished, finish) = AsyncStream.makeStream(of: Delivered.self)
        let calls = CallCounter()
        let task = session.retryDataTask(
            withURL: url,
            errorHandler: { times, _ in
                remaining.update { $0.append(times) }
                retried.yield()
            }
        ) { dat, res, err in
            calls.hit()
            finish.yield(Delivered(dat, res, err))
        }
        var announced = retrying.makeAsyncIterator()
        _ = await announced.next() // the retry is announced just before the wait
        task.cancel()
        var done = finished.makeAsyncIterator()
        let given = try #require(await done.next())
        await Runner.settle(session)
        let outcome = try #require(task.outcome)
        #expect(remaining.current == [50], "times: 50 by default")
        #expect(
            outcome.trace.steps.contains { $0.to == .wait && $0.delay == .milliseconds(200) },
            "wait: 200_000 µs by default; \(outcome.trace.steps.map { "\($0.to) \(String(describing: $0.delay))" })")
        #expect(outcome.finalState == .cancelled)
        #expect(given.body == nil)
        #expect(given.failed)
        #expect(calls.count == 1)
        #expect(server.requests(to: "/defaults").count == 1, "cancelled in the wait: no second request")
        expectConsistent(outcome.trace)
    }

    /// The usage section's call, trailing closure and all. An HTTP status reached the snippet's
    /// completion as an answer, never retried: a 503 is delivered as it came, with no error.
    @Test func theURLFormWithATrailingClosureDeliversAStatusUnretried() async throws {
        let server = try FlakyServer(scripts: ["/busy": [.status(503, body: "busy"), .status(200, body: "later")]])
        defer { server.stop() }
        let session = Runner.session()
        let url = server.url("/busy")
        let remaining = Shared<[Int]>([])
        let h: @Sendable (Int, any Error) -> Void = { times, _ in remaining.update { $0.append(times) } }
        let (given, calls, _) = await Self.complete(session) { done in
            session.retryDataTask(withURL: url, times: 2, errorHandler: h) { dat, res, err in
                done(dat, res, err)
            }
        }
        #expect(given.body == "busy")
        #expect(given.status == 503)
        #expect(!given.failed)
        #expect(remaining.current.isEmpty, "a status is not an error to the snippet")
        #expect(calls == 1)
        #expect(server.requests(to: "/busy").count == 1)
    }

    /// Transport errors then a 200: the data arrives, the error handler saw each remaining count.
    @Test func theURLFormRetriesTransportErrorsUntilTheAnswer() async throws {
        let server = try FlakyServer(scripts: [
            "/flaky": [.reset, .closeBeforeResponse, .status(200, body: "ok")]
        ])
        defer { server.stop() }
        let session = Runner.session()
        let url = server.url("/flaky")
        let remaining = Shared<[Int]>([])
        let h: @Sendable (Int, any Error) -> Void = { times, _ in remaining.update { $0.append(times) } }
        let (given, calls, task) = await Self.complete(session) { done in
            session.retryDataTask(withURL: url, times: 2, wait: 1_000, errorHandler: h) { dat, res, err in
                done(dat, res, err)
            }
        }
        #expect(given.body == "ok")
        #expect(given.status == 200)
        #expect(!given.failed)
        #expect(remaining.current == [2, 1])
        #expect(calls == 1)
        #expect(server.requests(to: "/flaky").count == 3)
        #expect(task?.outcome?.finalState == .success)
    }

    // MARK: retryDataTask(withRequest:times:wait:errorHandler:completionHandler:)

    /// The request form with `times` and `errorHandler` left out: it still retries (50 by default).
    @Test func theRequestFormRetriesWithItsDefaultsLeftOut() async throws {
        let server = try FlakyServer(scripts: ["/r": [.reset, .status(200, body: "ok")]])
        defer { server.stop() }
        let session = Runner.session()
        let request = URLRequest(url: server.url("/r"))
        let (given, calls, task) = await Self.complete(session) { done in
            session.retryDataTask(withRequest: request, wait: 1_000) { dat, res, err in
                done(dat, res, err)
            }
        }
        #expect(given.body == "ok")
        #expect(given.status == 200)
        #expect(calls == 1)
        #expect(task?.outcome?.attempts.count == 2)
        #expect(server.requests(to: "/r").count == 2)
    }

    /// Out of retries: `(nil, nil, the last error)`, once, after `times` calls of the handler.
    @Test func theRequestFormGivesUpWithTheLastError() async throws {
        let server = try FlakyServer(scripts: ["/down": [.reset]])
        defer { server.stop() }
        let session = Runner.session()
        let request = URLRequest(url: server.url("/down"))
        let remaining = Shared<[Int]>([])
        let (given, calls, _) = await Self.complete(session) { done in
            session.retryDataTask(
                withRequest: request, times: 1, wait: 1_000,
                errorHandler: { times, _ in remaining.update { $0.append(times) } }
            ) { dat, res, err in
                done(dat, res, err)
            }
        }
        #expect(given.body == nil)
        #expect(given.status == nil)
        #expect(given.failed)
        #expect(given.urlError != nil, "the last attempt's URLError, not a wrapper")
        #expect(remaining.current == [1])
        #expect(calls == 1)
        #expect(server.requests(to: "/down").count == 2)
    }

    // MARK: synchronousDataTask(with:)

    /// With a `URL`, as the usage section wrote it: one request, no retry, URLSession's answer.
    @Test func theSynchronousURLFormSendsOnceAndReturnsTheAnswer() async throws {
        let server = try FlakyServer(scripts: ["/s": [.reset, .status(200, body: "second")]])
        defer { server.stop() }
        let session = Runner.session()
        let url = server.url("/s")
        let first = await runOnOwnThread {
            let (dat, res, err) = session.synchronousDataTask(with: url)
            return Delivered(dat, res, err)
        }
        #expect(first.failed)
        #expect(first.urlError != nil)
        #expect(server.requests(to: "/s").count == 1, "the plain call does not retry")
        let second = await runOnOwnThread {
            let (dat, res, err) = session.synchronousDataTask(with: url)
            return Delivered(dat, res, err)
        }
        #expect(second.body == "second")
        #expect(second.status == 200)
        #expect(!second.failed)
        #expect(server.requests(to: "/s").count == 2)
    }

    /// With a `URLRequest` and `retry:` left out: the same plain call; a status is an answer.
    @Test func theSynchronousRequestFormReturnsAStatusAsItCame() async throws {
        let server = try FlakyServer(scripts: ["/q": [.status(503, body: "busy"), .status(200)]])
        defer { server.stop() }
        let session = Runner.session()
        let request = URLRequest(url: server.url("/q"))
        let given = await runOnOwnThread {
            let (dat, res, err) = session.synchronousDataTask(with: request)
            return Delivered(dat, res, err)
        }
        #expect(given.body == "busy")
        #expect(given.status == 503)
        #expect(!given.failed)
        #expect(server.requests(to: "/q").count == 1)
    }

    // MARK: downloadAndRetry(with:retryCount:completion:failure:)

    /// What the Objective-C shape's handlers saw: `completion`'s arguments (nil after `failure()`)
    /// and how many times each handler ran once the delegate queue settled.
    struct ObjCRun {
        var given: Delivered?
        var completions: Int
        var failures: Int
        var task: RetryDataTask?
    }

    /// Calls `downloadAndRetry` as the snippet's caller did and waits for whichever handler runs first.
    static func downloadAndRetry(_ session: URLSession, _ url: URL, retryCount: Int) async -> ObjCRun {
        let completions = CallCounter()
        let failures = CallCounter()
        let first = Shared(true)
        let box = TaskBox()
        let given: Delivered? = await withCheckedContinuation { continuation in
            let once: @Sendable (Delivered?) -> Void = { given in
                let isFirst = first.withLock { isFirst in
                    defer { isFirst = false }
                    return isFirst
                }
                if isFirst { continuation.resume(returning: given) }
            }
            box.task = session.downloadAndRetry(
                with: url, retryCount: retryCount,
                completion: { response, data in
                    completions.hit()
                    once(Delivered(data, response, nil))
                },
                failure: {
                    failures.hit()
                    once(nil)
                })
        }
        await Runner.settle(session)
        return ObjCRun(given: given, completions: completions.count, failures: failures.count, task: box.task)
    }

    /// The Objective-C snippet's Swift counterpart: a reset, then the answer, delivered once to
    /// `completion`; `failure` never runs. (Its one wait is the default policy's jittered backoff,
    /// at most 0.5 s: the shape has no wait to pass.)
    @Test func downloadAndRetryDeliversTheAnswerAfterAFailure() async throws {
        let server = try FlakyServer(scripts: ["/objc": [.reset, .status(200, body: "ok")]])
        defer { server.stop() }
        let run = await Self.downloadAndRetry(Runner.session(), server.url("/objc"), retryCount: 1)
        #expect(run.given?.body == "ok")
        #expect(run.given?.status == 200)
        #expect(run.completions == 1)
        #expect(run.failures == 0)
        #expect(run.task?.outcome?.attempts.count == 2)
        #expect(server.requests(to: "/objc").count == 2)
    }

    /// `retryCount: 0` is one attempt: on a reset `failure()` runs once and `completion` never.
    @Test func downloadAndRetryWithNoRetriesFailsOnce() async throws {
        let server = try FlakyServer(scripts: ["/objc": [.reset, .status(200)]])
        defer { server.stop() }
        let run = await Self.downloadAndRetry(Runner.session(), server.url("/objc"), retryCount: 0)
        #expect(run.given == nil)
        #expect(run.failures == 1)
        #expect(run.completions == 0)
        #expect(run.task?.outcome?.attempts.count == 1)
        #expect(server.requests(to: "/objc").count == 1)
    }
}
