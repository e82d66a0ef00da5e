import Foundation
import RetryFlow
import RetryFlowHTTP
import RetryFlowTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension HedgingSerialTests {
    /// `HTTPRetryOptions.hedging` over real URLSession against FlakyServer: a first copy that never answers is
    /// beaten by its hedge, a fast answer sends no hedge, a POST without an idempotency key is never hedged,
    /// and every surface completes exactly once.
    @Suite(.timeLimit(.minutes(2))) struct HedgingHTTPTests {
        static let surfaces: [Surface] = [.async, .completionHandler, .synchronous]

        /// One attempt of the retry machine, hedged once after `delay`.
        static func options(delay: Duration) -> HTTPRetryOptions {
            var options = HTTPRetryOptions(RetryPolicy(maxAttempts: 1))
            options.hedging = HedgingPolicy(delay: delay, maxAttempts: 2)
            return options
        }

        /// `policy`, hedged once after a delay no test waits out: only a failure sends the hedge.
        static func options(_ policy: RetryPolicy) -> HTTPRetryOptions {
            var options = HTTPRetryOptions(policy)
            options.hedging = HedgingPolicy(delay: .seconds(10), maxAttempts: 2)
            return options
        }

        /// `HTTPRetryOptions.hedging` is what hedges: the same request under the same policy, scripted
        /// (a 503 then a 200), is sent twice with it and once without it. A non-fatal first answer sends
        /// the hedge at once, so the manual clock never has to move.
        @Test func theOptionsHedgingSettingIsWhatHedges() async throws {
            #expect(HTTPRetryOptions.default.hedging == nil, "nobody hedges unless they ask")
            let url = URL(string: "http://simulated.invalid/hedged")!
            @Sendable func run(_ options: HTTPRetryOptions) async throws -> (RetryOutcome<HTTPResponse>, Int) {
                let sent = Locked(0)
                let outcome = try await HTTPRetryRun.outcome(
                    for: URLRequest(url: url), retry: options, clock: ManualClock()
                ) { _ in
                    let number = sent.withLock {
                        $0 += 1
                        return $0
                    }
                    let status = number == 1 ? 503 : 200
                    return HTTPResponse(
                        data: Data(),
                        response: HTTPURLResponse(url: url, statusCode: status, httpVersion: nil, headerFields: nil)!)
                }
                return (outcome, sent.withLock { $0 })
            }
            let plain = HTTPRetryOptions(RetryPolicy(maxAttempts: 1))
            let (unhedged, unhedgedSent) = try await run(plain)
            #expect(unhedgedSent == 1)
            #expect(unhedged.hedging.isEmpty)
            #expect(unhedged.reason == .attemptsExhausted)

            var options = plain
            options.hedging = HedgingPolicy(delay: .seconds(10), maxAttempts: 2)
            #expect(plain.hedging == nil, "setting it on a copy leaves the original unhedged")
            let (hedged, hedgedSent) = try await run(options)
            #expect(hedgedSent == 2)
            #expect(try hedged.get().statusCode == 200)
            #expect(hedged.attempts.count == 1, "one retry-machine attempt")
            #expect(hedged.hedges == 1)
            let record = try #require(hedged.hedging.first)
            #expect(record.answeredBy == 2)
            expectConsistent(record.trace, with: HedgingTable.hedging)
            expectConsistent(hedged.trace)
        }

        /// A hedged run that gives up throws its whole outcome: the error keeps every race, each copy's
        /// answer, the trace and the last response, as the outcome does (nothing is lost in the throw).
        @Test func aHedgedRunThatGivesUpThrowsItsRaces() async throws {
            let url = URL(string: "http://simulated.invalid/down")!
            var options = HTTPRetryOptions(RetryPolicy(maxAttempts: 1))
            options.hedging = HedgingPolicy(delay: .seconds(10), maxAttempts: 2)
            let sent = Locked(0)
            let outcome = try await HTTPRetryRun.outcome(
                for: URLRequest(url: url), retry: options, clock: ManualClock()
            ) { _ in
                sent.withLock { $0 += 1 }
                return HTTPResponse(
                    data: Data(),
                    response: HTTPURLResponse(url: url, statusCode: 503, httpVersion: nil, headerFields: nil)!)
            }
            #expect(sent.withLock { $0 } == 2, "both copies answered 503")
            let error = try #require(throws: RetryError.self) { try outcome.get() }
            #expect(error.reason == .attemptsExhausted)
            #expect(error.hedges == 1)
            #expect(error.hedging.first?.attempts.count == 2)
            #expect(error.attempts.count == outcome.attempts.count)
            #expect(error.trace == outcome.trace)
            #expect(error.lastResponse?.statusCode == 503)
        }

        /// Invalid hedging on the options is refused as an invalid policy is, naming the field, on every
        /// surface and before anything is sent, for a request that would not be hedged (a POST) too.
        @Test func invalidHedgingIsRefusedBeforeAnythingIsSent() async throws {
            var options = HTTPRetryOptions(RetryPolicy(maxAttempts: 1))
            options.hedging = HedgingPolicy(delay: .milliseconds(10), maxAttempts: HedgingPolicy.attemptLimit + 1)
            var post = URLRequest(url: URL(string: "http://127.0.0.1:9/never")!)
            post.httpMethod = "POST"
            for request in [URLRequest(url: URL(string: "http://127.0.0.1:9/never")!), post] {
                let sent = Locked(0)
                do {
                    _ = try await HTTPRetryRun.outcome(for: request, retry: options, clock: ManualClock()) { _ in
                        sent.withLock { $0 += 1 }
                        throw URLError(.cannotConnectToHost)
                    }
                    Issue.record("a run with invalid hedging started")
                } catch {
                    #expect(error.field == "hedging.maxAttempts", "\(error)")
                }
                #expect(sent.withLock { $0 } == 0)
                await #expect(throws: RetryPolicyError.self) {
                    _ = try await Runner.session().retryOutcome(for: request, retry: options)
                }
                #expect(throws: RetryPolicyError.self) {
                    _ = try Runner.session().retryDataTask(with: request, retry: options) { _ in
                        Issue.record("no completion for a run refused when made")
                    }
                }
            }
        }

        /// A download is not hedged: hedging on its options is refused before the partial file is made,
        /// not dropped. One copy at a time (`maxAttempts: 1`) is no hedging and is accepted.
        @Test func aDownloadRefusesHedging() async throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hedged-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let destination = folder.appendingPathComponent("file")
            var options = HTTPRetryOptions(RetryPolicy(maxAttempts: 1))
            options.hedging = HedgingPolicy(delay: .milliseconds(10), maxAttempts: 2)
            do {
                _ = try await Runner.session().downloadOutcome(
                    for: URLRequest(url: URL(string: "http://127.0.0.1:9/never")!), to: destination, retry: options)
                Issue.record("a hedged download started")
            } catch let error as RetryPolicyError {
                #expect(error.field == "hedging")
                #expect(error.problem.contains("download"), "\(error)")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty, "no partial file")

            let server = try FlakyServer(scripts: ["/file": [.status(200, body: "bytes")]])
            defer { server.stop() }
            options.hedging = HedgingPolicy(delay: .milliseconds(10), maxAttempts: 1)
            let outcome = try await Runner.session().downloadOutcome(
                for: URLRequest(url: server.url("/file")), to: destination, retry: options)
            #expect(outcome.succeeded)
            #expect(try String(contentsOf: destination, encoding: .utf8) == "bytes")
        }

        @Test(arguments: surfaces)
        func slowFirstAnswerIsBeatenByTheHedge(surface: Surface) async throws {
            let server = try FlakyServer(scripts: [
                // The first copy never answers: the hedge wins however late a loaded machine sends it (a
                // 5 s answer here raced a 100 ms hedge, and lost it in 1 of 5 loaded whole-suite runs).
                "/slow": [.hang, .status(200, body: "fast")]
            ])
            defer { server.stop() }
            let run = try await Runner.run(
                surface, URLRequest(url: server.url("/slow")), retry: Self.options(delay: .milliseconds(100)))
            #expect(String(decoding: try run.outcome.get().data, as: UTF8.self) == "fast")
            #expect(run.completions == 1)
            #expect(server.requests(to: "/slow").count == 2)
            #expect(run.outcome.attempts.count == 1, "one retry-machine attempt")
            #expect(run.outcome.hedges == 1, "counted apart from retries")
            let record = try #require(run.outcome.hedging.first)
            #expect(record.answeredBy == 2)
            #expect(record.attempts.map(\.ending) == [.cancelled, .won])
            #expect(record.inFlightAtReturn == 0)
            expectConsistent(record.trace, with: HedgingTable.hedging)
            expectConsistent(run.outcome.trace)
        }

        @Test(arguments: surfaces)
        func fastAnswerSendsOneRequest(surface: Surface) async throws {
            let server = try FlakyServer(scripts: ["/fast": [.status(200, body: "fast")]])
            defer { server.stop() }
            let run = try await Runner.run(
                surface, URLRequest(url: server.url("/fast")), retry: Self.options(delay: .seconds(10)))
            #expect(try run.outcome.get().statusCode == 200)
            #expect(run.completions == 1)
            #expect(server.requests(to: "/fast").count == 1)
            #expect(run.outcome.hedges == 0)
            #expect(run.outcome.hedging.count == 1)
        }

        @Test(arguments: surfaces)
        func postWithoutIdempotencyKeyIsNeverHedged(surface: Surface) async throws {
            let server = try FlakyServer(scripts: [
                "/post": [.status(200, body: "slow").delayed(by: .milliseconds(600)), .status(200, body: "fast")]
            ])
            defer { server.stop() }
            var request = URLRequest(url: server.url("/post"))
            request.httpMethod = "POST"
            request.httpBody = Data("order".utf8)
            let run = try await Runner.run(surface, request, retry: Self.options(delay: .milliseconds(50)))
            #expect(String(decoding: try run.outcome.get().data, as: UTF8.self) == "slow")
            #expect(run.completions == 1)
            #expect(server.requests(to: "/post").count == 1)
            #expect(run.outcome.hedging.isEmpty)
        }

        @Test func postWithIdempotencyKeyIsHedged() async throws {
            let server = try FlakyServer(scripts: [
                "/keyed": [.hang, .status(200, body: "fast")] // the hedge wins, however late
            ])
            defer { server.stop() }
            var request = URLRequest(url: server.url("/keyed"))
            request.httpMethod = "POST"
            request.httpBody = Data("order".utf8)
            request.setValue("order-42", forHTTPHeaderField: "Idempotency-Key")
            let run = try await Runner.run(.async, request, retry: Self.options(delay: .milliseconds(100)))
            #expect(String(decoding: try run.outcome.get().data, as: UTF8.self) == "fast")
            #expect(
                server.requests(to: "/keyed").map { String(decoding: $0.body, as: UTF8.self) } == ["order", "order"])
        }

        @Test func aBodyStreamIsRefusedWithAClearError() async throws {
            var request = URLRequest(url: URL(string: "http://127.0.0.1:9/never")!)
            request.httpMethod = "PUT"
            request.httpBodyStream = InputStream(data: Data("x".utf8))
            await #expect(throws: RetryPolicyError.self) {
                _ = try await Runner.session().retryOutcome(for: request, retry: Self.options(delay: .milliseconds(10)))
            }
            do {
                _ = try await Runner.session().retryOutcome(for: request, retry: Self.options(delay: .milliseconds(10)))
            } catch {
                #expect(error.field == "hedging")
                #expect(error.problem.contains("stream"))
            }
            // The completion-handler and synchronous calls refuse it when made: their run, started
            // later, could otherwise only end without calling the completion.
            let options = Self.options(delay: .milliseconds(10))
            #expect(throws: RetryPolicyError.self) {
                _ = try Runner.session().retryDataTask(with: request, retry: options) { _ in
                    Issue.record("no completion for a run refused when made")
                }
            }
            let streamed = request
            let synchronous: Result<RetryOutcome<HTTPResponse>, any Error> = await withCheckedContinuation {
                continuation in
                Thread.detachNewThread {
                    continuation.resume(
                        returning: Result {
                            try Runner.session().synchronousRetryOutcome(for: streamed, retry: options)
                        })
                }
            }
            guard case .failure(let error) = synchronous else {
                Issue.record("the synchronous call ran a run it should refuse")
                return
            }
            #expect((error as? RetryPolicyError)?.field == "hedging")
        }

        /// A race the engine ends (here the deadline) is awaited before the call returns: its record is
        /// in the outcome, with every copy ended. The engine itself does not wait for an attempt it
        /// cancels, so this is the HTTP run's own wait (HedgedRaces).
        @Test func aRaceEndedByTheDeadlineIsAwaitedAndRecorded() async throws {
            let server = try FlakyServer(scripts: ["/stuck": [.hang]])
            defer { server.stop() }
            let policy = RetryPolicy(maxAttempts: 1, jitter: .none, deadline: .milliseconds(300))
            let outcome = try await Runner.session().retryOutcome(
                for: URLRequest(url: server.url("/stuck")), retry: Self.options(policy))
            #expect(outcome.reason == .deadlineExceeded)
            #expect(outcome.hedging.count == 1, "the ended race's record is there when the call returns")
            #expect(outcome.hedging.first?.finalState == .cancelled)
            #expect(outcome.hedging.first?.inFlightAtReturn == 0)
            #expect(outcome.hedging.first?.attempts.allSatisfy { $0.ending == .cancelled } == true)
        }

        /// A Retry-After past the policy's `maxRetryAfter` ends a hedged run as it ends an unhedged one,
        /// at once: it does not become an hour's wait for the next hedge, ended by the attempt timeout.
        @Test func aRetryAfterPastTheCapEndsTheRunAsUnhedged() async throws {
            let server = try FlakyServer(scripts: [
                "/later": [.status(503, headers: ["Retry-After": "3600"]), .status(200, body: "too late")]
            ])
            defer { server.stop() }
            var policy = RetryPolicy(maxAttempts: 2, backoff: .constant(.milliseconds(1)), jitter: .none)
            policy.maxRetryAfter = .seconds(60)
            let outcome = try await Runner.session().retryOutcome(
                for: URLRequest(url: server.url("/later")), retry: Self.options(policy))
            #expect(!outcome.succeeded)
            #expect(outcome.attempts.count == 1)
            #expect(!(outcome.attempts.last?.error is AttemptTimeout))
            #expect(server.requests(to: "/later").count == 1, "no hedge and no retry after the refused wait")
        }

        /// The user's `retryIf` judges a hedged copy's error as it judges an unhedged attempt's: an
        /// error it refuses ends the race at once instead of sending another copy.
        @Test func theUsersClassifierJudgesHedgedCopiesToo() async throws {
            let server = try FlakyServer(scripts: ["/flaky": [.reset, .status(200, body: "second")]])
            defer { server.stop() }
            var policy = RetryPolicy(maxAttempts: 2, backoff: .constant(.milliseconds(1)), jitter: .none)
            policy.retryIf = RetryClassifier { _ in .fail }
            let outcome = try await Runner.session().retryOutcome(
                for: URLRequest(url: server.url("/flaky")), retry: Self.options(policy))
            #expect(!outcome.succeeded)
            #expect(outcome.hedges == 0, "a failure the user's classifier refuses sends no hedge")
            #expect(server.requests(to: "/flaky").count == 1)
        }

        @Test func every503HedgeFailingLeavesTheRetryPolicyToRetry() async throws {
            let server = try FlakyServer(scripts: [
                "/busy": [.status(503), .status(503), .status(200, body: "third")]
            ])
            defer { server.stop() }
            let policy = RetryPolicy(maxAttempts: 2, backoff: .constant(.milliseconds(1)), jitter: .none)
            let outcome = try await Runner.session().retryOutcome(
                for: URLRequest(url: server.url("/busy")), retry: Self.options(policy))
            #expect(String(decoding: try outcome.get().data, as: UTF8.self) == "third")
            #expect(outcome.attempts.count == 2, "the hedged attempt failed as a whole, then the retry")
            #expect(outcome.hedging.map(\.reason) == [.everyAttemptFailed, .accepted])
            #expect(outcome.hedges == 1, "the first 503 sent the hedge at once, not after 10 s")
            #expect(server.requests(to: "/busy").count == 3)
        }
    }
}
