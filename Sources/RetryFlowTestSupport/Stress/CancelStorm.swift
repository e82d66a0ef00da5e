import Foundation
import RetryFlow
import RetryFlowHTTP

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The cancel storm: many retried requests against FlakyServer in waves, a share of them
/// cancelled during attempts and waits, per-attempt timeouts racing answers. It counts what must
/// never happen (a lost or doubled completion, a wrong final state, a trace the table does not
/// allow) and what the wire saw against what the traces say. `make stress` runs it at full size
/// in release mode; a scaled-down run is a test.
package enum CancelStorm {
    /// How big a storm, and how it is sent.
    package struct Configuration: Sendable {
        package var requests = 10_000
        package var wave = 500
        /// The share of runs cancelled at a random moment (during an attempt or a wait).
        package var cancelShare = 0.1
        /// Per-attempt timeout; some scripted answers arrive right around it.
        package var perAttemptTimeout: Duration = .milliseconds(200)
        /// Rules sent with every request (e.g. `Connection: close`).
        package var rules = HTTPRetryRules.default
        /// Whether the session has a `URLCache` (`URLSessionConfiguration.ephemeral`'s default).
        package var urlCache = true
        /// Hedged runs (`HTTPRetryOptions.hedging`): every attempt a race whose losers are cancelled
        /// through the transport's delegate-queue path, the Foundation crash family hedging risks.
        package var hedging: HedgingPolicy?
        /// How long a wave may take before its missing completions count as lost.
        package var waveLimit: Duration = .seconds(120)
        package var seed: UInt64 = 42
        /// A stand-in for RetryFlowHTTP's own transport (a control experiment): every run then goes
        /// through ``HTTPRetryRun`` on the async surface.
        package var transport: (@Sendable (URLSession, URLRequest) async throws -> HTTPResponse)?

        package init() {}
    }

    /// What the storm saw.
    package struct Report: Sendable, CustomStringConvertible {
        package var runs = 0
        package var cancelsIssued = 0
        package var lost = 0
        package var doubled = 0
        package var wrongStates = 0
        package var inconsistentTraces = 0
        /// Hedged runs that returned with a copy still in flight (a loser not awaited).
        package var lingeringCopies = 0
        /// Hedges sent, over all runs.
        package var hedges = 0
        package var states: [RetryState: Int] = [:]
        package var attempts = 0
        package var requestsSeen = 0
        /// Runs where the server saw more requests than the trace has attempts (libcurl re-sends).
        package var runsWithExtraRequests = 0
        /// Runs where the server saw fewer (an attempt ended, by timeout or cancel, before its request arrived).
        package var runsWithFewerRequests = 0
        package var peakRSSMiB = 0.0
        package var seconds = 0.0
        package var examples: [String] = []

        /// Nothing that must never happen, happened.
        package var clean: Bool {
            lost == 0 && doubled == 0 && wrongStates == 0 && inconsistentTraces == 0 && lingeringCopies == 0
        }

        package var description: String {
            let byState = states.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key) \($0.value)" }
            return """
                runs \(runs) in \(String(format: "%.1f", seconds)) s, cancels issued \(cancelsIssued); final states: \
                \(byState.joined(separator: ", "))
                lost completions \(lost), doubled \(doubled), wrong final states \(wrongStates), \
                inconsistent traces \(inconsistentTraces), hedges \(hedges), runs returned with a copy in flight \(lingeringCopies)
                attempts \(attempts), requests seen by the server \(requestsSeen); runs with more requests than \
                attempts \(runsWithExtraRequests), with fewer \(runsWithFewerRequests)
                peak RSS \(String(format: "%.0f", peakRSSMiB)) MiB
                """ + (examples.isEmpty ? "" : "\nexamples:\n  " + examples.joined(separator: "\n  "))
        }
    }

    /// A script and the statuses a successful run of it may end with (none: it cannot succeed).
    /// Any attempt may time out on a loaded machine, so a failure is always possible; what is
    /// checked is that each final state is one the run's own record explains.
    private struct Kind: Sendable {
        var script: [FlakyServer.Step]
        var answers: Set<Int>
    }

    private static func kinds(timeout: Duration) -> [Kind] {
        let near = timeout // answers scheduled right at the timeout race it
        return [
            Kind(script: [.reset, .status(200)], answers: [200]),
            Kind(script: [.status(503, headers: ["Retry-After": "0"]), .status(200)], answers: [200]),
            Kind(script: [.closeBeforeResponse, .status(200)], answers: [200]),
            Kind(script: [.truncatedBody(), .status(200)], answers: [200]),
            Kind(script: [.status(200).delayed(by: near)], answers: [200]),
            Kind(script: [.status(503).delayed(by: near), .status(200)], answers: [200]),
            Kind(script: [.hang, .status(200)], answers: [200]),
            Kind(script: [.status(404)], answers: [404]),
            Kind(script: [.status(503)], answers: []),
            Kind(script: [.status(200, body: "ok")], answers: [200]),
        ]
    }

    /// One run's bookkeeping, written from completion handlers and tasks.
    private final class Slot: Sendable {
        private struct Seen {
            var completions = 0
            var outcome: RetryOutcome<HTTPResponse>?
            var cancelled = false
        }
        private let seen = Locked(Seen())

        func complete(_ value: RetryOutcome<HTTPResponse>) -> Bool {
            seen.withLock { seen in
                seen.completions += 1
                if seen.outcome == nil { seen.outcome = value }
                return seen.completions == 1
            }
        }
        func markCancelled() { seen.withLock { $0.cancelled = true } }
        var snapshot: (Int, RetryOutcome<HTTPResponse>?, Bool) {
            seen.withLock { ($0.completions, $0.outcome, $0.cancelled) }
        }
    }

    /// Runs the storm.
    package static func run(_ configuration: Configuration) async throws -> Report {
        let kinds = kinds(timeout: configuration.perAttemptTimeout)
        var scripts: [String: [FlakyServer.Step]] = [:]
        for index in 0..<configuration.requests { scripts["/r/\(index)"] = kinds[index % kinds.count].script }
        let server = try FlakyServer(scripts: scripts)
        defer { server.stop() }
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.httpMaximumConnectionsPerHost = 64
        sessionConfiguration.timeoutIntervalForRequest = 30
        if !configuration.urlCache { sessionConfiguration.urlCache = nil }
        let session = URLSession(configuration: sessionConfiguration)
        let slots = (0..<configuration.requests).map { _ in Slot() }
        let cancels = Locked<[@Sendable () -> Void]>([])
        defer {
            // Invalidated only once every run has completed. A run still going (the storm's time ran
            // out, or the test's own limit cancelled it) would next call `dataTask(with:)` on an
            // invalidated session, which is a fatal error in Foundation and took the whole test
            // process down under load; those runs are cancelled instead and the session is left.
            if slots.allSatisfy({ $0.snapshot.0 > 0 }) {
                session.finishTasksAndInvalidate()
            } else {
                for cancel in cancels.withLock({ $0 }) { cancel() }
            }
        }
        let policy = RetryPolicy(
            maxAttempts: 3, backoff: .constant(.milliseconds(5)), jitter: .full,
            perAttemptTimeout: configuration.perAttemptTimeout)
        var options = HTTPRetryOptions(policy, rules: configuration.rules)
        options.hedging = configuration.hedging
        var random = SeededRandom(seed: configuration.seed)
        var report = Report()
        let started = ContinuousClock.now

        var first = 0
        while first < configuration.requests {
            let range = first..<min(first + configuration.wave, configuration.requests)
            first = range.upperBound
            let (finished, finish) = AsyncStream.makeStream(of: Int.self)
            var cancellers: [Task<Void, Never>] = []
            for index in range {
                let slot = slots[index]
                let request = URLRequest(url: server.url("/r/\(index)"))
                let cancelAfter: Duration? =
                    Double.random(in: 0..<1, using: &random) < configuration.cancelShare
                    ? .microseconds(Int64.random(in: 0..<300_000, using: &random)) : nil
                // How this run is cancelled: Swift's task (async surfaces) or the task object.
                let cancel: @Sendable () -> Void
                if let transport = configuration.transport {
                    let task = Task { [options] in
                        guard
                            let outcome = try? await HTTPRetryRun.outcome(
                                for: request, retry: options,
                                transport: { try await transport(session, $0) })
                        else { return }
                        if slot.complete(outcome) { finish.yield(index) }
                    }
                    cancel = { task.cancel() }
                } else if index % 2 == 0 {
                    // Completion-handler surface.
                    let task = try session.retryDataTask(
                        with: request, retry: options
                    ) {
                        if slot.complete($0) { finish.yield(index) }
                    }
                    task.resume()
                    cancel = { task.cancel() }
                } else {
                    // Async surface.
                    let task = Task { [options] in
                        guard
                            let outcome = try? await session.retryOutcome(
                                for: request, retry: options)
                        else { return }
                        if slot.complete(outcome) { finish.yield(index) }
                    }
                    cancel = { task.cancel() }
                }
                cancels.withLock { $0.append(cancel) }
                if let cancelAfter {
                    cancellers.append(
                        Task {
                            try? await Task.sleep(for: cancelAfter)
                            slot.markCancelled()
                            cancel()
                        })
                }
            }
            // Wait for every run of the wave, or the wave's limit (then the missing ones are lost).
            let limit = Task {
                try? await Task.sleep(for: configuration.waveLimit)
                finish.finish()
            }
            var done = 0
            for await _ in finished {
                done += 1
                if done == range.count { break }
            }
            limit.cancel()
            for canceller in cancellers { await canceller.value }
        }
        // Let late doubled completions show before counting.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            session.delegateQueue.addOperation { continuation.resume() }
        }
        report.seconds = started.duration(to: .now).inSeconds

        var seen: [String: Int] = [:]
        for request in server.requests { seen[request.path, default: 0] += 1 }
        for (index, slot) in slots.enumerated() {
            report.runs += 1
            let (completions, outcome, cancelled) = slot.snapshot
            if cancelled { report.cancelsIssued += 1 }
            guard let outcome, completions > 0 else {
                report.lost += 1
                note(&report, "run \(index): no completion")
                continue
            }
            if completions > 1 {
                report.doubled += 1
                note(&report, "run \(index): \(completions) completions")
            }
            report.states[outcome.finalState, default: 0] += 1
            if let wrong = wrongState(outcome, kind: kinds[index % kinds.count], cancelled: cancelled, policy: policy) {
                report.wrongStates += 1
                note(&report, "run \(index) (\(kinds[index % kinds.count].script)): \(wrong)")
            }
            report.hedges += outcome.hedges
            if outcome.hedging.contains(where: { $0.inFlightAtReturn != 0 }) {
                report.lingeringCopies += 1
                note(&report, "run \(index): returned with a hedged copy in flight")
            }
            let problems = outcome.trace.inconsistencies(with: RetryTable.retry)
            if !problems.isEmpty {
                report.inconsistentTraces += 1
                note(&report, "run \(index): \(problems.joined(separator: "; "))")
            }
            let requests = seen["/r/\(index)", default: 0]
            report.attempts += outcome.attempts.count
            report.requestsSeen += requests
            if requests > outcome.attempts.count { report.runsWithExtraRequests += 1 }
            if requests < outcome.attempts.count { report.runsWithFewerRequests += 1 }
        }
        report.peakRSSMiB = peakRSSMiB()
        return report
    }

    /// Why `outcome` is not a final state its own record explains, or `nil` when it is.
    private static func wrongState(
        _ outcome: RetryOutcome<HTTPResponse>, kind: Kind, cancelled: Bool, policy: RetryPolicy
    ) -> String? {
        let last = outcome.attempts.last
        switch outcome.finalState {
        case .cancelled:
            return cancelled ? nil : "cancelled, but nobody cancelled it"
        case .success:
            guard let status = outcome.value?.statusCode, kind.answers.contains(status), last?.error == nil else {
                return
                    "success with \(outcome.value?.statusCode.description ?? "no answer"), last attempt \(last?.description ?? "none")"
            }
            return nil
        case .failure:
            guard outcome.attempts.allSatisfy({ $0.error != nil }) else {
                return "failure after an attempt without error"
            }
            if outcome.reason == .attemptsExhausted, outcome.attempts.count != policy.maxAttempts {
                return "attempts exhausted after \(outcome.attempts.count) of \(policy.maxAttempts)"
            }
            return nil
        case .answered:
            guard let status = outcome.value?.statusCode, kind.answers.contains(status), outcome.reason == .finalAnswer
            else {
                return
                    "answered with \(outcome.value?.statusCode.description ?? "no answer") (\(outcome.reason.rawValue))"
            }
            return nil
        case .idle, .limiter, .pacing, .tokenWait, .breaker, .request, .retry, .budget, .admission, .wait, .step:
            return "ended in \(outcome.finalState)"
        }
    }

    private static func note(_ report: inout Report, _ text: String) {
        if report.examples.count < 10 { report.examples.append(text) }
    }

    /// The process's peak resident set, in MiB (`ru_maxrss` is in KiB on Linux, bytes on Darwin).
    package static func peakRSSMiB() -> Double {
        var usage = rusage()
        #if canImport(Darwin)
            getrusage(RUSAGE_SELF, &usage)
            return Double(usage.ru_maxrss) / 1_048_576
        #else
            getrusage(RUSAGE_SELF.rawValue, &usage)
            return Double(usage.ru_maxrss) / 1024
        #endif
    }
}
