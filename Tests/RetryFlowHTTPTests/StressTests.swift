import Foundation
import RetryFlow
import RetryFlowHTTP
import RetryFlowTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(2))) struct StressTests {
    /// 500 requests at once, each with its own scripted faults: every completion runs exactly once,
    /// every run ends in the state its script implies, and every trace is a path of the table.
    @Test func fiveHundredConcurrentRequestsCompleteExactlyOnce() async throws {
        let scripts: [[FlakyServer.Step]] = [
            [.reset, .status(200)], [.status(503), .status(200)], [.closeBeforeResponse, .status(503), .status(200)],
            [.truncatedBody(), .status(200)], [.status(404)], [.status(503)],
        ]
        let count = 500
        var table: [String: [FlakyServer.Step]] = [:]
        for index in 0..<count { table["/s/\(index)"] = scripts[index % scripts.count] }
        let server = try FlakyServer(scripts: table)
        defer { server.stop() }
        let session = Runner.session()
        let policy = RetryPolicy(maxAttempts: 3, backoff: .constant(.milliseconds(5)), jitter: .full)
        let counters = (0..<count).map { _ in CallCounter() }
        let (finished, finish) = AsyncStream.makeStream(of: Int.self)
        var tasks: [RetryDataTask] = []
        for index in 0..<count {
            let task = try session.retryDataTask(
                with: URLRequest(url: server.url("/s/\(index)")), retry: .policy(policy)
            ) { _ in
                counters[index].hit()
                finish.yield(index)
            }
            tasks.append(task)
        }
        for task in tasks { task.resume() }
        var done = 0
        for await _ in finished {
            done += 1
            if done == count { break }
        }
        await Runner.settle(session)
        #expect(counters.allSatisfy { $0.count == 1 }, "every completion exactly once")
        for (index, task) in tasks.enumerated() {
            let outcome = try #require(task.outcome)
            let expected: [RetryState] = [.success, .success, .success, .success, .answered, .failure]
            #expect(outcome.finalState == expected[index % scripts.count], "/s/\(index)")
            #expect(task.state == outcome.finalState)
            #expect(outcome.trace.inconsistencies(with: RetryTable.retry) == [])
            #expect(task.trace == outcome.trace, "the task's live trace saw every step")
        }
        let expectedRequests = (0..<count).reduce(0) { sum, index in sum + [2, 2, 3, 2, 1, 3][index % scripts.count] }
        #expect(server.requests.count == expectedRequests)
    }

    /// The cancel storm `make stress` runs at 10,000 requests, scaled down: a share cancelled
    /// during attempts and waits, per-attempt timeouts racing answers, through both the
    /// completion-handler and the async surfaces, with a session that has a `URLCache` (data tasks
    /// abandoned) and one that has none (data tasks cancelled). A registry crash in Foundation
    /// would end the whole test process here.
    @Test(arguments: [true, false])
    func cancelStormLosesNothingAndDoublesNothing(urlCache: Bool) async throws {
        var configuration = CancelStorm.Configuration()
        configuration.urlCache = urlCache
        configuration.requests = 600
        configuration.wave = 200
        configuration.cancelShare = 0.2
        let report = try await CancelStorm.run(configuration)
        #expect(report.runs == 600)
        #expect(report.lost == 0, "\(report)")
        #expect(report.doubled == 0, "\(report)")
        #expect(report.wrongStates == 0, "\(report)")
        #expect(report.inconsistentTraces == 0, "\(report)")
        #expect(report.cancelsIssued > 60, "the storm cancelled runs")
        #expect(report.states[.cancelled, default: 0] > 0, "some cancels landed before the run ended")
        #expect(report.requestsSeen > 0 && report.attempts > 0)
    }

    /// The storm hedged (issue 22): every attempt a race of two copies, the slower cancelled through
    /// the delegate-queue path, a fifth of the runs cancelled by their caller. Nothing lost or
    /// doubled, no run returns with a copy in flight, and a registry crash would end the process.
    /// `make stress` runs it at 10,000.
    @Test func aHedgedCancelStormLeavesNoCopyInFlight() async throws {
        var configuration = CancelStorm.Configuration()
        configuration.urlCache = false // the session whose losers are cancelled, not abandoned
        configuration.hedging = HedgingPolicy(delay: .milliseconds(20))
        configuration.requests = 300
        configuration.wave = 150
        configuration.cancelShare = 0.2
        let report = try await CancelStorm.run(configuration)
        #expect(report.runs == 300)
        #expect(report.clean, "\(report)")
        #expect(report.lingeringCopies == 0, "\(report)")
        #expect(report.hedges > 0, "the storm hedged")
        #expect(report.cancelsIssued > 30, "the storm cancelled runs")
    }
}
