import Foundation
import RetryFlow
import RetryFlowHTTP

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Runs the real machine, engine and HTTP rules against scripted outcomes on a ``ManualClock``,
/// instantly: "what does this policy do when the server answers reset, 503, 503, 200?".
///
/// ```swift
/// let outcome = try await Simulation.run(outcomes: try ScriptedOutcome.parseList("reset,503,200"), retry: .default)
/// print(Timeline.render(outcome.trace, reason: outcome.reason))
/// ```
///
/// The clock moves only when the run is parked: in a wait, or in an attempt whose every sleeper
/// (the attempt's own virtual duration, its timeout timer) is registered. Attempts that take no
/// time finish before the clock moves, so the result never depends on thread timing.
public enum Simulation {
    /// How long a hanging attempt sleeps: longer than any policy allows, so only a timer ends it.
    static let hangTime = Duration.seconds(10_000_000_000)

    /// The address simulated requests go to (the reserved `.invalid` domain: never resolved).
    package static let url = URL(string: "http://simulated.invalid/")!

    /// Runs `outcomes` (the last repeats if the policy allows more attempts) under `options`, as
    /// an HTTP surface would. Jitter draws from `SeededRandom(seed:)`, so a seed replays a run exactly.
    public static func run(
        outcomes: [ScriptedOutcome], retry options: HTTPRetryOptions, method: String = "GET",
        headers: [String: String] = [:], seed: UInt64 = 1
    ) async throws -> RetryOutcome<HTTPResponse> {
        let policy = options.policy
        guard !outcomes.isEmpty else { throw ScriptedOutcomeError("the list of outcomes is empty", kind: .empty) }
        if outcomes.contains(where: { $0.result == .hang }), policy.perAttemptTimeout == nil, policy.deadline == nil {
            throw ScriptedOutcomeError(
                "a \"hang\" outcome needs a perAttemptTimeout or a deadline: nothing else ends it",
                kind: .hangWithoutTimer)
        }
        try policy.validate()
        let clock = ManualClock()
        let tracker = Tracker()
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        @Sendable func outcome(forAttempt attempt: Int) -> ScriptedOutcome {
            outcomes[min(max(attempt, 1), outcomes.count) - 1]
        }

        let counter = Tracker()
        var watched = options
        watched.onTransition = { [watcher = options.onTransition] step in
            watcher?(step)
            tracker.record(step)
            clock.recheck()
        }
        let run = Task { [request, watched] in
            try await HTTPRetryRun.outcome(for: request, retry: watched, clock: clock, random: SeededRandom(seed: seed))
            { _ in
                let scripted = outcome(forAttempt: counter.nextAttempt())
                if scripted.duration > .zero { try await clock.sleep(for: scripted.duration) }
                switch scripted.result {
                case .status(let status, let retryAfter):
                    let response = HTTPURLResponse(
                        url: url, statusCode: status, httpVersion: "HTTP/1.1",
                        headerFields: scripted.headers.merging(retryAfter.map { ["Retry-After": $0] } ?? [:]) { $1 })!
                    return HTTPResponse(data: Data(), response: response)
                case .error(let code):
                    throw URLError(code)
                case .hang:
                    try await clock.sleep(for: hangTime)
                    throw CancellationError()
                }
            }
        }
        // The sleepers a parked run has, exactly: the wait's end; or the attempt's own end and its
        // timer. Matching them exactly (not just counting) ignores a cancelled attempt's sleeper
        // that the engine has not removed yet when the transition is announced.
        @Sendable func parked(_ step: RetryTrace.Step) -> [Duration]? {
            switch step.to {
            case .wait:
                return [step.at + (step.delay ?? .zero)]
            case .request:
                let scripted = outcome(forAttempt: step.attempt)
                // An attempt that takes no time finishes by itself: never move the clock under it.
                guard scripted.takesTime else { return nil }
                var expected = [step.at + (scripted.result == .hang ? hangTime : scripted.duration)]
                // The engine's own timer decision, so the two cannot disagree on which fires first.
                if let timer = policy.attemptTimer(startingAt: step.at) { expected.append(timer.at) }
                return expected.sorted()
            case .idle, .limiter, .pacing, .tokenWait, .breaker, .retry, .budget, .admission, .success, .answered,
                .failure, .cancelled, .step:
                return nil
            }
        }
        while true {
            await clock.waitUntil { deadlines in
                guard let step = tracker.last else { return false }
                if RetryTable.retry.isTerminal(step.to) { return true }
                return parked(step) == deadlines.map(\.offset)
            }
            if let step = tracker.last, RetryTable.retry.isTerminal(step.to) { break }
            clock.advanceToNextDeadline()
        }
        return try await run.value
    }

    /// The driver's view of the run: the last transition, fed by the engine's hook; and how many
    /// attempts the transport has been asked for.
    private final class Tracker: Sendable {
        private let state = Locked((lastStep: RetryTrace.Step?.none, sent: 0))

        func record(_ step: RetryTrace.Step) { state.withLock { $0.lastStep = step } }

        var last: RetryTrace.Step? { state.withLock { $0.lastStep } }

        func nextAttempt() -> Int {
            state.withLock {
                $0.sent += 1
                return $0.sent
            }
        }
    }
}
