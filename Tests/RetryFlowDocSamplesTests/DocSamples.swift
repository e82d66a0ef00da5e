// Generated from the ```swift samples of README.md and docs/ by `make docs-regenerate`; do not edit.
// A test compares this file with the docs, and the build compiles it: every sample must compile.
// The samples keep the layout the docs show, so the formatter leaves this file alone:
// swift-format-ignore-file
import Foundation
import RetryFlow
import RetryFlowCharts
import RetryFlowGraphviz
import RetryFlowHTTP
import RetryFlowTesting
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

// What the samples assume exists.
private var url: URL { URL(string: "http://127.0.0.1:9/")! }
private var request: URLRequest { URLRequest(url: url) }
private var policy: RetryPolicy { .default }
private var outcome: RetryOutcome<Int> { fatalError("samples are compiled, not run") }
@Sendable private func loadSomething() async throws -> Data { Data() }
@Sendable private func compute() async throws -> Int { 1 }
@Sendable private func flaky() throws -> Int { 1 }
@Sendable private func fetchNewToken() async throws -> String { "token" }
private struct Unauthorized: Error {}

// charts.md, sample 1
private func sample1() async throws {
    let state = DOTChart.render(RetryTable.retry, style: .state)          // UML: one edge per row, "event [guard] / effect"
    let flow = DOTChart.render(RetryTable.retry, style: .flowchart)       // ovals, boxes, a diamond per guard
    let mermaid = MermaidChart.render(RetryTable.retry, style: .state)    // stateDiagram-v2 or flowchart, for code hosts
    let rows = MarkdownTable.render(RetryTable.retry)                      // the README's table

    _ = state
    _ = flow
    _ = mermaid
    _ = rows
}

// charts.md, sample 2
private func sample2() async throws {
    let overlay = TraceOverlay(trace: outcome.trace, table: .retry)
    let dot = DOTChart.render(RetryTable.retry, style: .flowchart, overlay: overlay)

    _ = overlay
    _ = dot
}

// charts.md, sample 3
private func sample3() async throws {
    let report = try RunReport(table: .retry, trace: outcome.trace, title: "GET /orders",
                               facts: [.init("stop reason", outcome.reason.rawValue)])
    let html = report.html        // one file: inline SVG, CSS and a little JavaScript

    _ = report
    _ = html
}

// charts.md, sample 4
private func sample4() async throws {
    let layout = try ChartLayout.cached(RetryTable.retry, style: .flowchart)
    let overlay = TraceOverlay(trace: outcome.trace, table: .retry)
    let svg = try layout.render(dot: DOTChart.render(RetryTable.retry, style: .flowchart, overlay: overlay))

    _ = layout
    _ = overlay
    _ = svg
}

// charts.md, sample 5
private func sample5() async throws {
    enum Door: String, TableSymbol { case closed, open, locked }
    enum DoorEvent: String, TableSymbol, MachineInput {
        case push, lock
        var event: Self { self }
    }
    enum DoorGuard: String, TableSymbol { case rang }
    enum DoorEffect: String, TableSymbol { case ring }
    enum DoorEnd: String, TableSymbol { case locked }
    typealias DoorWords = TableWords<Door, DoorEvent, DoorGuard, DoorEffect, DoorEnd>   // the table's words, once
    let door = TransitionTable<DoorWords>(
        name: "door", initial: .closed, terminals: [.locked],
        rows: [
            // event     from            guard          to            do (effects), ends (reason)
            .on(.push,   from: .closed,                 to: .open,    do: .ring),
            .on(.push,   from: .open,                   to: .closed),
            .on(.lock,   from: .closed,  .when(.rang),  to: .locked,  ends: .locked),
        ])
    struct DoorRules: MachineRules {                      // input and action inferred below
        typealias Vocabulary = DoorWords
        var rings = 0
        mutating func receive(_ input: DoorEvent, at time: Duration) {}
        func holds(_ guardSymbol: DoorGuard) -> Bool { rings > 0 }   // read only what an effect produced
        mutating func perform(_ effect: DoorEffect, of row: Row) -> String? {
            rings += 1
            return "ring \(rings)"
        }
    }
    try door.validate()                                   // a table that validates runs
    var machine = TableMachine(table: door, rules: DoorRules())
    let step = try machine.handle(.push, at: .zero)       // step.actions: ["ring 1"]; machine.state: .open
    let chart = DOTChart.render(door, style: .state)      // the same rows, drawn

    // Every run the world allows, explored (`retryflow verify` does this for the shipped machines):
    struct DoorWorld: ExplorationModel {                  // what can happen, and the bound
        typealias Rules = DoorRules
        var inputLimit: Int { 4 }
        var boundDescription: String { "4 inputs" }
        func choices(at position: ExplorationPosition<DoorRules>) -> [ExplorationChoice<DoorEvent>] {
            [.init(.push, at: position.at), .init(.lock, at: position.at)]
        }
        func key(_ position: ExplorationPosition<DoorRules>) -> [Int] {   // what tells two positions apart
            [Door.allCases.firstIndex(of: position.machine.state)!, position.machine.rules.rings]
        }
    }
    let explored = TableExplorer(table: door, rules: DoorRules(), model: DoorWorld()).explore()
    print(explored.text)          // FAIL every run ends: push, push, push, push never locks; the run is a trace

    _ = door
    _ = machine
    _ = step
    _ = chart
    _ = explored
}

// charts.md, sample 6
private func sample6() async throws {
    let drawn = try Graphviz.drawing(of: String(contentsOfFile: "flow.dot", encoding: .utf8))
    let check = ChartCheck.compare(drawn, with: RetryTable.retry)
    print(check.text)                                     // one line per finding, then the verdict

    _ = drawn
    _ = check
}

// credentials.md, sample 7
private func sample7() async throws {
    let store = CredentialStore("t1") { _ in try await fetchNewToken() }   // refresh: given the old, return the new
    let refresh = CredentialRefresh(store) { token, request in             // how the credential goes on a request
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
    }
    var options = HTTPRetryOptions.default
    refresh.install(in: &options)                                         // the rows join policy.table; 401 → the step
    let (data, response) = try await URLSession.shared.data(for: request, retry: options)

    _ = store
    _ = refresh
    _ = options
    _ = data
    _ = response
}

// downloads.md, sample 8
private func sample8() async throws {
    let destination = URL(fileURLWithPath: "/tmp/big.iso")
    let (response, outcome) = try await URLSession.shared.download(for: request, to: destination, retry: .policy(.download))
    print(response.statusCode, outcome.bytesOnDisk)
    for range in outcome.ranges { print(range) }   // #2 asked bytes=33554432- (If-Range), got 206, wrote …

    _ = destination
    _ = response
    _ = outcome
}

// downloads.md, sample 9
private func sample9() async throws {
    var options = DownloadOptions()
    options.resumeExisting = true                                              // continue big.iso.part (or big.iso)
    options.expectedSHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    options.speedLimit = .init(bytesPerSecond: 1_000, window: .seconds(30))    // a stall is retried, resuming
    options.bytesPerRequest = 8 << 20                                          // fixed 8 MiB windows: bounded anywhere

    let (updates, progress) = AsyncStream<DownloadProgress>.makeStream(bufferingPolicy: .bufferingNewest(1))
    Task {
        for await update in updates {
            print(update.bytesOnDisk, update.expectedTotal ?? 0, update.fractionCompleted ?? 0, update.bytesPerSecond)
        }
    }
    let file = URL(fileURLWithPath: "/tmp/big.iso")
    _ = try await URLSession.shared.download(for: request, to: file, options: options, progress: progress)

    // The same with a completion handler (runs once, on the session's delegate queue); cancel the task to stop.
    let task = URLSession.shared.downloadTask(with: request, to: file) { result in
        if case .success(let outcome) = result, outcome.succeeded { print("done:", outcome.file.path) }
    }
    task.cancel()

    _ = options
    _ = updates
    _ = progress
    _ = file
    _ = task
}

// downloads.md, sample 10
private func sample10() async throws {
    let server = try FlakyServer()
    let file = FlakyServer.Resource(size: 4 << 20, etag: "\"v1\"")
    try server.serveDownload(file, at: "/file", steps: [.cut(after: 1 << 20), .cut(after: 1 << 20, reset: true), .serve])
    let destination = URL(fileURLWithPath: "/tmp/file.bin")
    _ = try await URLSession.shared.download(for: URLRequest(url: server.url("/file")), to: destination)
    let wrongAt = try await file.firstDifference(fromFileAt: destination)   // nil: every byte is the source's
    assert(wrongAt == nil)
    assert(server.bodyBytesSent(to: "/file") == file.size)   // each byte sent once

    _ = server
    _ = file
    _ = destination
    _ = wrongAt
}

// fleet.md, sample 11
private func sample11() async throws {
    let budget = try RetryBudget(.awsStandard)
    let breaker = try CircuitBreaker(.polly)
    let guards = FleetGuards(budget: budget, breaker: breaker)

    let options = HTTPRetryOptions(.default, guards: guards)   // or set options.guards.budget, options.guards.breaker
    let (data, _) = try await URLSession.shared.data(for: request, retry: options)
    let outcome = try await URLSession.shared.retryOutcome(for: request, retry: options)
    let task = try URLSession.shared.retryDataTask(with: request, retry: options) { outcome in print(outcome.reason) }
    let value = try await Retry(.default, guards: guards).run { _ in 42 }

    _ = budget
    _ = breaker
    _ = guards
    _ = options
    _ = data
    _ = outcome
    _ = task
    _ = value
}

// fleet.md, sample 12
private func sample12() async throws {
    let registry = try ResilienceRegistry(budget: .grpc(maxTokens: 10, tokenRatio: 0.1), breaker: .polly)
    let shared = HTTPRetryOptions(.default, registry: registry)

    _ = registry
    _ = shared
}

// fleet.md, sample 13
private func sample13() async throws {
    let budget = try RetryBudget(.awsStandard)
    let breaker = try CircuitBreaker(.polly)
    let engine = Retry(.default, guards: FleetGuards(budget: budget, breaker: breaker))
    let data = try await engine.run { _ in try await loadSomething() }   // any async call, traced and guarded

    _ = budget
    _ = breaker
    _ = engine
    _ = data
}

// fleet.md, sample 14
private func sample14() async throws {
    let limiter = try AdaptiveRateLimiter(.default)                       // one per host
    let budget = try RetryBudget(.awsStandard)
    let guards = FleetGuards(budget: budget, limiter: limiter,
                             whenRateLimited: .waitForToken)              // or .fail
    // or one per host from the registry:
    let registry = try ResilienceRegistry(budget: .awsStandard, breaker: nil, limiter: .default)

    _ = limiter
    _ = budget
    _ = guards
    _ = registry
}

// hedging.md, sample 15
private func sample15() async throws {
    var options = HTTPRetryOptions(RetryPolicy(maxAttempts: 2))
    options.hedging = HedgingPolicy(delay: .milliseconds(50), maxAttempts: 2)   // one hedge after 50 ms
    let outcome = try await URLSession.shared.retryOutcome(for: request, retry: options)
    print(outcome.hedges, outcome.hedging.first?.answeredBy ?? 0)

    _ = options
    _ = outcome
}

// http.md, sample 16
private func sample16() async throws {
    var options = HTTPRetryOptions(.default, rules: .default)
    options.rules.failingStatuses = [404]
    options.onRetry = { notice in print("retrying after", notice.error) }                    // before each wait
    let (data, _) = try await URLSession.shared.data(for: request, retry: options)                  // async
    let task = try URLSession.shared.retryDataTask(with: request, retry: options) { print($0.reason) } // completion
    task.resume()

    _ = options
    _ = data
    _ = task
}

// http.md, sample 17
private func sample17() async throws {
    var rules = HTTPRetryRules.default
    rules.rateLimitResetHeaders.append("X-Quota-Reset")  // a header of your API, read the same way
    rules.attemptHeader = .retryFlow                     // RetryFlow-Attempt: 1, 2, 3 … on each request
    let outcome = try await URLSession.shared.retryOutcome(for: request, retry: HTTPRetryOptions(.default, rules: rules))

    _ = rules
    _ = outcome
}

// linear-iteration.md, sample 18
// The original design, for study: do not use. (Retold in Swift 6: its closures now say @Sendable.)
extension URLSession {
    func originalRetryDataTask(
        with request: URLRequest, times: Int = 50, wait: useconds_t = 200_000,
        errorHandler: (@Sendable (Int, Error) -> Void)? = nil,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, Error?) -> Void
    ) {
        dataTask(with: request) { data, response, error in
            if let error, times > 0 {
                errorHandler?(times, error)
                usleep(wait)                               // runs on the session's delegate queue
                self.originalRetryDataTask(with: request, times: times - 1, wait: wait,
                                           errorHandler: errorHandler, completionHandler: completionHandler)
            } else {
                completionHandler(data, response, error)
            }
        }.resume()
    }
}

// linear-iteration.md, sample 19
private func sample19() async throws {
    func fetchWithRetries(_ request: URLRequest, attempts: Int, delay: Duration) async throws -> Data {
        var attempt = 1
        while true {
            do {
                return try await URLSession.shared.data(for: request).0
            } catch where attempt < attempts && !(error is CancellationError) {
                attempt += 1
                try await Task.sleep(for: delay)     // suspends the task; no thread is blocked
            }
        }
    }

}

// migrating.md, sample 20
private func sample20() throws {

    // Before and after: the same call (`withRequest:` takes a URLRequest). Now the wait blocks no thread, cancellation
    // is never retried, a POST is retried only when safe, and the returned task exposes state and trace.
    let task = URLSession.shared.retryDataTask(withURL: url, times: 50, errorHandler: { remaining, error in
        print("retrying, \(remaining) left: \(error)")
    }) { data, response, error in
        // called exactly once, on the session's delegate queue
    }

    // The blocking call, unchanged in shape (with a URL or a URLRequest); it refuses to run on its own delegate queue
    // instead of deadlocking. Add `retry:` (`.default`, or HTTPRetryOptions of your own) to retry it on the machine.
    let (data, response, error) = URLSession.shared.synchronousDataTask(with: url)
    let (body, head, failure) = URLSession.shared.synchronousDataTask(with: request, retry: .default)

    _ = task
    _ = data
    _ = response
    _ = error
    _ = body
    _ = head
    _ = failure
}

// migrating.md, sample 21
private func sample21() async throws {
    let (data, response) = try await URLSession.shared.data(for: URLRequest(url: url), retry: .policy(.originalSnippet()))

    _ = data
    _ = response
}

// migrating.md, sample 22
private func sample22() async throws {
    let task = URLSession.shared.downloadAndRetry(with: url, retryCount: 3, completion: { response, data in
        // the final answer
    }, failure: {
        // the original said nothing; here task.outcome holds every attempt, each with its error, and the trace
    })

    _ = task
}

// migrating.md, sample 23
private func sample23() async throws {
    let policy = RetryPolicy(maxAttempts: 3, backoff: .exponential(base: .milliseconds(500), multiplier: 2), jitter: .none)
    var rules = HTTPRetryRules.default
    rules.retryableStatuses.remove(429)          // to match exactly; RetryFlow also retries 429 and honours Retry-After
    let (data, response) = try await URLSession.shared.data(for: request, retry: HTTPRetryOptions(policy, rules: rules))

    _ = policy
    _ = rules
    _ = data
    _ = response
}

// migrating.md, sample 24
private func sample24() async throws {
    let value = try await Retry(policy).run { attempt in
        try await compute()
    }

    _ = value
}

// policies.md, sample 25
private func sample25() async throws {
    var policy = RetryPolicy.default      // 3 attempts; exponential 0.5 s × 2; cap 20 s; full jitter; Retry-After ≤ 300 s
    policy.maxAttempts = 5
    policy.deadline = .seconds(30)
    policy.perAttemptTimeout = .seconds(5)

    _ = policy
}

// policies.md, sample 26
private func sample26() async throws {
    let grpc = RetryPolicy(                       // first wait 1 s exactly, then 1.6× up to 120 s, ±20 % (to 144 s)
        maxAttempts: 10, backoff: .exponential(base: .seconds(1), multiplier: 1.6), maxDelay: .seconds(120),
        jitter: .symmetric(0.2), jittersFirstDelay: false, jitterMayPassCap: true)
    let tenacityJitter = RetryPolicy(             // tenacity wait_exponential_jitter(max=60)
        backoff: .exponential(base: .seconds(1), multiplier: 2), maxDelay: .seconds(60), jitter: .additive(.seconds(1)))
    let urllib3 = RetryPolicy(                    // urllib3 Retry(backoff_factor=0.2, backoff_max=1, backoff_jitter=0.4)
        maxAttempts: 6, backoff: .custom(CustomBackoff("urllib3") { n in n == 1 ? .zero : .milliseconds(200) * (1 << min(n - 1, 40)) }),
        maxDelay: .seconds(1), jitter: .additive(.milliseconds(400)), jittersFirstDelay: false)
    let tenacityRandom = RetryPolicy(             // tenacity wait_random_exponential(multiplier=1, min=4, max=10)
        backoff: .exponential(base: .seconds(1), multiplier: 2), maxDelay: .seconds(10), jitter: .fullFrom(.seconds(4)))
    let pollyV2 = RetryPolicy(                    // Polly v8: Delay 1 s, BackoffType Exponential, UseJitter, MaxDelay 30 s
        backoff: .exponential(base: .seconds(1), multiplier: 2), maxDelay: .seconds(30), jitter: .pollyDecorrelated)
    let noCap = RetryPolicy(maxDelay: .seconds(Int64.max))   // tenacity's default max: saturates at 1e9 s

    _ = grpc
    _ = tenacityJitter
    _ = urllib3
    _ = tenacityRandom
    _ = pollyV2
    _ = noCap
}

// policies.md, sample 27
private func sample27() async throws {
    let refresh = RetryStep("refresh credentials") { _ in
        let token = try await fetchNewToken()                  // your token service
        return .change(RequestChange { $0.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") })
    }
    var policy = RetryPolicy.default
    policy.add(refresh)
    var rules = HTTPRetryRules.default
    rules.statusSteps[401] = refresh.id                        // a 401 goes to the step, not to the backoff
    let (data, response) = try await URLSession.shared.data(for: request, retry: HTTPRetryOptions(policy, rules: rules))

    _ = refresh
    _ = policy
    _ = rules
    _ = data
    _ = response
}

// policies.md, sample 28
private func sample28() async throws {
    var policy = RetryPolicy(maxAttempts: 4)
    policy.add(RetryStep("use mirror", entry: .afterFailures(2)) { _ in
        .change(RequestChange { $0.url = URL(string: "https://mirror.example.test/file")! })
    })
    let (data, _) = try await URLSession.shared.data(for: request, retry: .policy(policy))

    _ = policy
    _ = data
}

// policies.md, sample 29
private func sample29() async throws {
    let clock = ManualClock()
    let run = Task { try await Retry(policy, clock: clock).run { _ in try flaky() } }
    await clock.waitForSleepers(1)            // the engine is parked in its backoff wait
    clock.advance(by: .milliseconds(500))

    _ = clock
    _ = run
}

// user-steps.md, sample 30
private func sample30() async throws {


    /// A 401 goes to a "refresh credentials" step; the attempt after it carries the new token.
    func refreshCredentialsOn401() async throws -> (outcome: RetryOutcome<HTTPResponse>, chart: String) {
        let server = try FlakyServer(scripts: ["/me": [.status(200, body: "me")]])
        defer { server.stop() }
        server.requireAuthorization("Bearer fresh", for: "/me") // 401 for any other token

        let refresh = RetryStep("refresh credentials") { _ in
            let token = "fresh" // your token service here
            return .change(RequestChange { $0.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") })
        }
        var policy = RetryPolicy.default
        policy.add(refresh)
        var rules = HTTPRetryRules.default
        rules.statusSteps[401] = refresh.id // a 401 goes to the step (by its id, not its name), not the backoff

        var request = URLRequest(url: server.url("/me"))
        request.setValue("Bearer stale", forHTTPHeaderField: "Authorization")
        let outcome = try await URLSession.shared.retryOutcome(for: request, retry: HTTPRetryOptions(policy, rules: rules))
        return (outcome, DOTChart.render(policy: policy))
    }

}

// user-steps.md, sample 31
private func sample31() async throws {


    /// After two failures of the primary, a "use mirror" step changes every later request to the
    /// mirror's base URL (a `RequestChange`, its own kind of output), so the attempts after it go there.
    func mirrorAfterTwoFailures() async throws -> (outcome: RetryOutcome<HTTPResponse>, chart: String) {
        let primary = try FlakyServer(scripts: ["/file": [.status(503)]])
        let mirror = try FlakyServer(scripts: ["/file": [.status(200, body: "from the mirror")]])
        defer {
            primary.stop()
            mirror.stop()
        }

        var policy = RetryPolicy(maxAttempts: 4, backoff: .constant(.milliseconds(10)), jitter: .none)
        let mirrorBase = mirror.baseURL
        policy.add(
            RetryStep("use mirror", entry: .afterFailures(2)) { _ in
                .change(RequestChange { $0.url = mirrorBase.appendingPathComponent($0.url!.path) })
            })

        let request = URLRequest(url: primary.url("/file"))
        let outcome = try await URLSession.shared.retryOutcome(for: request, retry: .policy(policy))
        return (outcome, DOTChart.render(policy: policy))
    }

}

// README.md, sample 32
private func sample32() async throws {

    var policy = RetryPolicy.default          // 3 attempts, 0.5 s × 2 backoff, cap 20 s, full jitter
    policy.deadline = .seconds(10)            // never sleeps past it
    let value = try await Retry(policy).run { attempt in
        try await loadSomething()             // thrown errors are retried; cancellation never is
    }

    // everything that happened: the final state, why it stopped, every attempt with its error, and the trace
    let outcome = try await Retry(policy).outcome { _ in try await loadSomething() }
    print(outcome.reason, outcome.attempts.count)
    assert(outcome.trace.isConsistent(with: .retry))  // every step is a row of the table

    _ = policy
    _ = value
    _ = outcome
}

// README.md, sample 33
private func sample33() async throws {

    // a final answer (200, 404, a POST's 503) is returned; giving up throws RetryError with every attempt
    let (data, response) = try await URLSession.shared.data(for: request, retry: .default)

    var options = HTTPRetryOptions(.originalSnippet(times: 3), rules: .default)
    options.rules.failingStatuses = [404]                       // a 404 now fails the run instead of being returned
    let outcome = try await URLSession.shared.retryOutcome(for: request, retry: options)   // state, reason, attempts, trace

    _ = data
    _ = response
    _ = options
    _ = outcome
}

// README.md, sample 34
private func sample34() throws {
    // waits block no thread; `withRequest:` takes a URLRequest
    URLSession.shared.retryDataTask(withURL: url, times: 50, wait: 200_000) { data, response, error in }
    URLSession.shared.downloadAndRetry(with: url, retryCount: 3, completion: { response, data in }, failure: {})
    // blocks; refuses to run on its own delegate queue instead of deadlocking; without `retry:`, one plain request
    let (body, head, error) = URLSession.shared.synchronousDataTask(with: request, retry: .default)

    _ = body
    _ = head
    _ = error
}
