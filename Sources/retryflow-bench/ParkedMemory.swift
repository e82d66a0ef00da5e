import Foundation
import RetryFlow
import RetryFlowHTTP
import RetryFlowTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a task parked in a 60 s wait costs in resident memory, for `waiting-memory`: each kind is
/// measured in a fresh process (`retryflow-bench __park KIND N`), so freed memory of one kind is
/// never reused by the next.
enum ParkedMemory {
    /// What each of the N tasks runs until it parks.
    enum Kind: String, CaseIterable {
        /// A bare task sleeping on `ContinuousClock` (the floor).
        case sleep
        /// A minimal generic retry loop: one attempt that throws, then a wait on the same clock.
        case loop
        /// The same loop, whose attempt first goes 8 async frames of 256 bytes deep: a task keeps the
        /// deepest its frames ever went (the task allocator holds its slabs until the task ends).
        case loopDeep = "loop-deep"
        /// A RetryFlow run (`Retry.outcome`), attempts in a child task (the default).
        case run
        /// A RetryFlow run with `runsAttemptsInline` (as the HTTP driver runs attempts without a timer).
        case runInline = "run-inline"
        /// The floor of an event-driven engine (``EventParking``): the caller awaits one continuation,
        /// the attempt ran in a short-lived task, the run's state waits on one shared timer.
        case event
        /// A RetryFlow HTTP run (``HTTPRetryRun``, the path `URLSession.data(for:retry:)` takes) whose
        /// transport fails at once with a lost connection: what the HTTP layer's frames add.
        case http
        /// `URLSession.data(for:retry:)` itself, against a local ``FlakyServer`` answering 503: the
        /// whole HTTP path with the real transport (the session's own memory included).
        case session
    }

    /// Resident bytes per parked task: N tasks started, measured once all of them have parked.
    static func bytesPerTask(_ kind: Kind, count: Int) async throws -> Double {
        let parked = Starts()
        let (allParked, signal) = AsyncStream.makeStream(of: Void.self)
        @Sendable func didPark() {
            parked.add(ContinuousClock.now)
            if parked.count == count { signal.yield() }
        }
        let policy = RetryPolicy(
            maxAttempts: 2, backoff: .constant(.seconds(60)), maxDelay: .seconds(60), jitter: .none)
        var engine = Retry(policy, runsAttemptsInline: kind == .runInline)
        engine.onRetry = { _ in didPark() }
        let clock = ContinuousClock()
        let server = kind == .session ? try FlakyServer(scripts: ["/park": [.status(503)]]) : nil
        defer { server?.stop() }
        if let server { // the session's threads and first connection before the baseline
            _ = try? await URLSession.shared.data(from: server.url("/park"))
        }
        LiveHeap.snapshot()
        let before = Measure.residentBytes()
        // One closure per kind: a task's first frame is its closure's, sized for everything the closure
        // holds across an await, so a closure switching over every kind would give the bare task the
        // frame of the largest case (1.5 KB more per bare task, measured).
        // Made once, as a caller keeps its options: each task captures one reference, not a new copy
        // of the policy and rules (the surfaces' options are copy-on-write).
        let options = HTTPRetryOptions(policy, onRetry: { _ in didPark() })
        let tasks: [Task<Void, Never>] = (0..<count).map { _ in
            switch kind {
            case .sleep:
                Task {
                    didPark()
                    try? await clock.sleep(until: clock.now.advanced(by: .seconds(60)), tolerance: nil)
                }
            case .loop:
                Task {
                    _ = await minimalLoop(clock: clock, didPark: didPark) { () async throws -> Int in
                        throw URLError(.networkConnectionLost)
                    }
                }
            case .loopDeep:
                Task {
                    _ = await minimalLoop(clock: clock, didPark: didPark) { () async throws -> Int in
                        try await deepFrames(8)
                    }
                }
            case .event:
                Task { await EventParking.parkedRun(policy: policy, clock: clock, didPark: didPark) }
            case .http:
                Task {
                    _ = try? await HTTPRetryRun.outcome(
                        for: URLRequest(url: URL(string: "http://127.0.0.1:9/park")!),
                        retry: options, clock: clock
                    ) { _ in throw URLError(.networkConnectionLost) }
                }
            case .session:
                Task {
                    _ = try? await URLSession.shared.data(
                        for: URLRequest(url: server!.url("/park")), retry: options)
                }
            case .run, .runInline:
                Task { [engine] in
                    _ = try? await engine.outcome { _ -> Int in throw URLError(.networkConnectionLost) }
                }
            }
        }
        var iterator = allParked.makeAsyncIterator()
        _ = await iterator.next()
        try await Task.sleep(for: .milliseconds(200)) // let the last tasks reach their sleep
        let after = Measure.residentBytes()
        LiveHeap.report(tasks: count)
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
        return (after - before) / Double(count)
    }

    /// `depth` nested async frames holding 256 bytes each across a call, then a throw.
    @inline(never)
    static func deepFrames(_ depth: Int) async throws -> Int {
        var words = (depth, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        guard depth > 0 else { throw URLError(.networkConnectionLost) }
        withUnsafeMutableBytes(of: &words) { touch($0) } // the whole tuple lives across the call
        words.31 = try await deepFrames(depth - 1)
        withUnsafeMutableBytes(of: &words) { touch($0) }
        return words.0 + words.31
    }

    /// Keeps the optimiser from dropping a buffer it cannot see used.
    @inline(never)
    static func touch(_ bytes: UnsafeMutableRawBufferPointer) {
        if bytes.count > 1_000_000 { bytes[0] = 1 }
    }

    /// The least a retry loop keeps through its wait: an operation closure, one error, one sleep.
    static func minimalLoop<C: Clock<Duration>, Value>(
        clock: C, didPark: @Sendable () -> Void, _ operation: @Sendable () async throws -> Value
    ) async -> Value? {
        var lastError: (any Error)?
        for attempt in 1...2 {
            do {
                return try await operation()
            } catch {
                lastError = error
            }
            guard attempt < 2 else { break }
            didPark()
            do {
                try await clock.sleep(until: clock.now.advanced(by: .seconds(60)), tolerance: nil)
            } catch {
                return nil
            }
        }
        _ = lastError
        return nil
    }
}
