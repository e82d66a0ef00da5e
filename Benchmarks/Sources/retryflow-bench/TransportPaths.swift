import Foundation
import RetryFlow
import RetryFlowHTTP
import RetryFlowTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `transport-paths`: the ways an attempt's answer can reach its task, each timed against bare
/// `URLSession.data(for:)` in the same run (sequential GETs that succeed at once), to find the
/// cheapest shape for the HTTP transport (success-overhead). Every path here answers a Swift
/// cancellation at once through a one-shot, as the transport must; none is used by RetryFlowHTTP.
enum TransportPaths {
    /// How one GET is sent.
    enum Path: String, CaseIterable {
        /// `dataTask` with a completion handler on the session's delegate queue (the transport's shape).
        case completionHandler = "completion-handler"
        /// The same, on a session whose delegate queue runs on a serial queue of our own.
        case ownQueue = "own-delegate-queue"
        /// A session-wide `URLSessionDataDelegate` collecting the body and resuming from `didComplete`.
        case delegate
        /// `data(for:)` itself in a child task, its answer or the caller's cancellation through a one-shot.
        case dataForOneShot = "data(for:)+one-shot"
        /// RetryFlow's `data(for:retry:)`, for reference.
        case retryFlow = "data(for:retry:)"
        /// The same without the default per-attempt timeout: no timer armed per attempt.
        case retryFlowUntimed = "data(for:retry:) untimed"
        /// `data(for:retry:)` on the session of `ownQueue` (a delegate queue over a serial Dispatch
        /// queue): what the session's default delegate queue costs RetryFlow's completion handler.
        case retryFlowOwnQueue = "data(for:retry:) own-delegate-queue session"
    }

    static func run(quick: Bool) async throws -> [BenchmarkResult] {
        // Many short rounds: on a shared machine the load changes within seconds, and a short round
        // sees about the same load for every path (issue 16: rounds of 1,000 swung 0.3–3.2).
        let count = quick ? 50 : 200
        let server = try FlakyServer(scripts: ["/ok": [.status(200, body: "ok")]])
        defer { server.stop() }
        let request = URLRequest(url: server.url("/ok"))
        let plain = HTTPBenchmarks.session()
        let dispatchQueue = DispatchQueue(label: "retryflow-bench.delegate") // the queue holds it unowned
        let ownQueue: URLSession = {
            let queue = OperationQueue()
            queue.underlyingQueue = dispatchQueue
            queue.maxConcurrentOperationCount = 1
            return URLSession(configuration: plain.configuration, delegate: nil, delegateQueue: queue)
        }()
        let collector = BodyCollector()
        let untimed: HTTPRetryRules = {
            var rules = HTTPRetryRules.default
            rules.defaultAttemptTimeout = nil
            return rules
        }()
        let delegated = URLSession(configuration: plain.configuration, delegate: collector, delegateQueue: nil)
        func send(_ path: Path) async throws {
            switch path {
            case .completionHandler: _ = try await completion(plain, request)
            case .ownQueue: _ = try await completion(ownQueue, request)
            case .delegate: _ = try await collector.send(request, on: delegated)
            case .dataForOneShot: _ = try await dataForOneShot(plain, request)
            case .retryFlow: _ = try await plain.data(for: request, retry: .default)
            case .retryFlowUntimed:
                _ = try await plain.data(for: request, retry: HTTPRetryOptions(.default, rules: untimed))
            case .retryFlowOwnQueue: _ = try await ownQueue.data(for: request, retry: .default)
            }
        }
        for path in Path.allCases { for _ in 0..<20 { try await send(path) } }
        for _ in 0..<20 { _ = try await plain.data(for: request) }
        // Wall time, and the process's CPU time (user + system, every thread: less sensitive to
        // other processes loading the machine than wall time).
        var ratios: [Path: [Double]] = [:]
        var cpuRatios: [Path: [Double]] = [:]
        var bareTimes: [Double] = []
        // Context switches of every thread per request: each hop from one thread to another is a
        // wake-up and a switch, so this count says which paths add hops (times here are noisy).
        var switches: [Path: [Double]] = [:]
        var bareSwitches: [Double] = []
        for round in 0..<(quick ? 2 : 25) {
            var bareCPU = cpuSeconds()
            var bareSwitched = contextSwitches()
            let bare = try await Measure.seconds { for _ in 0..<count { _ = try await plain.data(for: request) } }
            bareCPU = cpuSeconds() - bareCPU
            bareSwitched = contextSwitches() - bareSwitched
            bareTimes.append(bare)
            bareSwitches.append(Double(bareSwitched) / Double(count))
            // Each round starts at another path, so no path always follows the same one.
            let paths = Path.allCases
            let order = paths[(round % paths.count)...] + paths[..<(round % paths.count)]
            for path in order {
                var cpu = cpuSeconds()
                var switched = contextSwitches()
                let time = try await Measure.seconds { for _ in 0..<count { try await send(path) } }
                cpu = cpuSeconds() - cpu
                switched = contextSwitches() - switched
                ratios[path, default: []].append(time / bare)
                cpuRatios[path, default: []].append(cpu / bareCPU)
                switches[path, default: []].append(Double(switched) / Double(count))
            }
        }
        let bareMicros = Measure.median(bareTimes) / Double(count) * 1e6
        return Path.allCases.map { path in
            let all = ratios[path] ?? []
            let ratio = Measure.median(all)
            return BenchmarkResult(
                name: "transport-paths \(path.rawValue)", value: ratio * bareMicros, unit: "µs/request",
                baseline: "bare URLSession.data(for:)", baselineValue: bareMicros, ratio: ratio, goal: "report",
                met: nil,
                note: String(
                    format:
                        "%d sequential GETs, median of %d interleaved rounds (ratios %.3f–%.3f); CPU time ratio %.3f; "
                        + "context switches per request %.1f (bare %.1f)",
                    count, all.count, all.min() ?? 0, all.max() ?? 0, Measure.median(cpuRatios[path] ?? []),
                    Measure.median(switches[path] ?? []), Measure.median(bareSwitches)))
        }
    }

    /// `retryflow-bench __requests PATH N`: N sequential GETs one way and nothing else, to profile a
    /// path alone (`perf record`; valgrind crashes on URLSession here). `bare` is `data(for:)`;
    /// `engine-only` times N engine runs whose operation answers at once (no request).
    static func requests(_ name: String, count: Int) async throws {
        let server = try FlakyServer(scripts: ["/ok": [.status(200, body: "ok")]])
        defer { server.stop() }
        let request = URLRequest(url: server.url("/ok"))
        let session = HTTPBenchmarks.session()
        var untimed = HTTPRetryRules.default
        untimed.defaultAttemptTimeout = nil
        if name == "engine-only" {
            // The engine alone, attempts inline as the HTTP driver runs them, with an operation that
            // answers at once: what a run costs besides its request, untimed and with a 30 s timer.
            let canned = try await session.data(for: request)
            for timed in [false, true, false, true] {
                var policy = RetryPolicy.default
                if timed { policy.perAttemptTimeout = .seconds(30) }
                let engine = Retry(policy, runsAttemptsInline: true)
                let time = try await Measure.seconds {
                    for _ in 0..<count { _ = try await engine.outcome { _ in canned } }
                }
                print(
                    String(
                        format: "engine-only%@: %.2f µs per run", timed ? " (timed)" : "", time / Double(count) * 1e6))
            }
            return
        }
        let switched = contextSwitches()
        let start = ContinuousClock.now
        for _ in 0..<count {
            switch Path(rawValue: name) {
            case .completionHandler: _ = try await completion(session, request)
            case .retryFlow: _ = try await session.data(for: request, retry: .default)
            case .retryFlowUntimed:
                _ = try await session.data(for: request, retry: HTTPRetryOptions(.default, rules: untimed))
            default: _ = try await session.data(for: request)
            }
        }
        print(
            String(
                format: "%@: %.1f µs and %.1f context switches (all threads) per request", name,
                start.duration(to: .now).inSecondsValue / Double(max(count, 1)) * 1e6,
                Double(contextSwitches() - switched) / Double(max(count, 1))))
    }

    /// Voluntary and involuntary context switches of every thread of the process so far (Linux sums
    /// its threads' counts, ended ones too).
    static func contextSwitches() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_nvcsw + usage.ru_nivcsw
    }

    /// User + system CPU seconds of the whole process so far.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    static func completion(_ session: URLSession, _ request: URLRequest) async throws -> Data {
        let answer = Answer()
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { continuation in
                let task = session.dataTask(with: request) { data, response, error in
                    if let error { answer.finish(.failure(error)) } else { answer.finish(.success(data ?? Data())) }
                }
                answer.start(continuation, task: task)
            }
        } onCancel: {
            answer.finish(.failure(CancellationError()))
        }
    }

    static func dataForOneShot(_ session: URLSession, _ request: URLRequest) async throws -> Data {
        let answer = Answer()
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { continuation in
                answer.start(continuation, task: nil)
                Task {
                    do { answer.finish(.success(try await session.data(for: request).0)) } catch {
                        answer.finish(.failure(error))
                    }
                }
            }
        } onCancel: {
            answer.finish(.failure(CancellationError()))
        }
    }
}

/// Resumes a continuation once, with the answer or the cancellation, whichever comes first.
final class Answer: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: UnsafeContinuation<Data, any Error>?
    private var early: Result<Data, any Error>?
    private var done = false

    func start(_ continuation: UnsafeContinuation<Data, any Error>, task: URLSessionDataTask?) {
        lock.lock()
        if let early {
            lock.unlock()
            continuation.resume(with: early)
            return
        }
        self.continuation = continuation
        lock.unlock()
        task?.resume()
    }

    func finish(_ result: Result<Data, any Error>) {
        lock.lock()
        guard !done else { return lock.unlock() }
        done = true
        guard let continuation else {
            early = result
            return lock.unlock()
        }
        self.continuation = nil
        lock.unlock()
        continuation.resume(with: result)
    }
}

/// A session delegate that collects each task's body and resumes its caller from `didComplete`.
final class BodyCollector: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var pending: [Int: (answer: Answer, body: Data)] = [:]

    func send(_ request: URLRequest, on session: URLSession) async throws -> Data {
        let answer = Answer()
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { continuation in
                let task = session.dataTask(with: request)
                lock.lock()
                pending[task.taskIdentifier] = (answer, Data())
                lock.unlock()
                answer.start(continuation, task: task)
            }
        } onCancel: {
            answer.finish(.failure(CancellationError()))
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.lock()
        pending[dataTask.taskIdentifier]?.body.append(data)
        lock.unlock()
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        lock.lock()
        let entry = pending.removeValue(forKey: task.taskIdentifier)
        lock.unlock()
        guard let entry else { return }
        if let error { entry.answer.finish(.failure(error)) } else { entry.answer.finish(.success(entry.body)) }
    }
}
