import Foundation
import RetryFlow
import RetryFlowHTTP
import RetryFlowTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// No setting silently ignored (issue 36, item 4): every stored property of every public
/// configuration value, as `Mirror` lists it, has a row below whose run changes when the property
/// changes. A property added later without a row fails ``everyStoredPropertyHasARow()``, naming it;
/// a row whose run does not feel its property fails ``changingThePropertyChangesTheRun(_:)``.
///
/// HTTP rows run `HTTPRetryRun` with a scripted transport on a `ManualClock` (``SettingRun``), so
/// they take no real time; the download rows need a real `URLSession` and run against FlakyServer
/// on loopback (``DownloadSettingRun``).
@Suite(.timeLimit(.minutes(1))) struct EverySettingIsFeltTests {
    @Test func everyStoredPropertyHasARow() {
        let rowTypes = Set(Setting.rows.map(\.type))
        let known = Setting.mirrored() + Setting.initArguments
        for (type, labels) in known {
            #expect(!labels.isEmpty, "Mirror lists no stored property of \(type)")
            let rows = Setting.rows.filter { $0.type == type }.map(\.property)
            #expect(rows.count == Set(rows).count, "\(type) has two rows for one property: \(rows.sorted())")
            let missing = labels.subtracting(rows).sorted().map { "\(type).\($0)" }
            let stale = Set(rows).subtracting(labels).sorted().map { "\(type).\($0)" }
            #expect(missing.isEmpty, "no run feels these properties; add a row for each: \(missing)")
            #expect(stale.isEmpty, "rows for properties that no longer exist: \(stale)")
        }
        let unknown = rowTypes.subtracting(known.map(\.type)).sorted()
        #expect(unknown.isEmpty, "rows for types neither Mirror nor the list of init arguments knows: \(unknown)")
    }

    /// The baseline run twice (it must be deterministic, or a difference would prove nothing), then
    /// the run with the property changed: what it did must differ, and show what the row says it
    /// shows (absent from the baseline).
    @Test(arguments: Setting.rows) func changingThePropertyChangesTheRun(_ setting: Setting) async throws {
        let baseline = try await setting.probe(false)
        let again = try await setting.probe(false)
        let changed = try await setting.probe(true)
        #expect(
            baseline == again, "the baseline run of \(setting.name) is not deterministic:\n\(baseline)\n---\n\(again)")
        #expect(baseline != changed, "changing \(setting.name) changed nothing in its run:\n\(baseline)")
        if let shows = setting.shows {
            #expect(
                changed.contains(shows) && !baseline.contains(shows),
                "changing \(setting.name) should show \"\(shows)\":\n\(baseline)\n--- changed:\n\(changed)")
        }
    }
}

/// One row: a stored property of a configuration value, and a run that shows it.
struct Setting: Sendable, CustomTestStringConvertible {
    /// The configuration value's type, as ``mirrored()`` names it.
    let type: String
    /// The property, as `Mirror` labels it.
    let property: String
    /// Words the changed run's description holds and the baseline's does not: what the change does
    /// (`nil` where no fixed words say it, as for a jittered delay).
    let shows: String?
    /// Runs the row's run with the property at its baseline (`false`, its default where that is
    /// deterministic) or changed (`true`), and describes what the run did.
    let probe: @Sendable (_ changed: Bool) async throws -> String

    var name: String { "\(type).\(property)" }
    var testDescription: String { name }

    /// Every public configuration value, with the labels of its stored properties as `Mirror` lists
    /// them (`HTTPRetryOptions` lists its storage's fields, through its `CustomReflectable`).
    static func mirrored() -> [(type: String, labels: Set<String>)] {
        func labels(_ value: Any) -> Set<String> { Set(Mirror(reflecting: value).children.compactMap(\.label)) }
        let store = CredentialStore("t1", clock: ManualClock()) { _ in "t2" }
        return [
            ("RetryPolicy", labels(RetryPolicy.default)),
            ("HTTPRetryRules", labels(HTTPRetryRules.default)),
            ("ThrottleRules", labels(ThrottleRules.default)),
            ("AttemptHeader", labels(AttemptHeader.retryFlow)),
            ("HTTPRetryOptions", labels(HTTPRetryOptions.default)),
            ("FleetGuards", labels(FleetGuards())),
            ("HedgingPolicy", labels(HedgingPolicy(delay: .seconds(1)))),
            ("DownloadOptions", labels(DownloadOptions())),
            ("DownloadOptions.SpeedLimit", labels(DownloadOptions.SpeedLimit(bytesPerSecond: 1))),
            ("ProgressRule", labels(ProgressRule())),
            ("CredentialRefresh", labels(CredentialRefresh(store) { _, _ in })),
        ]
    }

    /// Settings that are arguments of an initializer rather than stored in a value, so `Mirror`
    /// cannot list them and this list is kept by hand: `CredentialStore` is an actor, and a mirror of
    /// it lists its state (machine, credential, waiters), not its settings. Its other arguments are
    /// its inputs, not settings: the credential, the refresh, and the clock (felt through `window`).
    static let initArguments: [(type: String, labels: Set<String>)] = [
        ("CredentialStore.init", ["maximumRefreshes", "window", "isExpired", "tracing"])
    ]

    static let rows: [Setting] =
        policyRows + rulesRows + throttleRows + attemptHeaderRows + optionsRows + guardsRows + hedgingRows
        + downloadRows + credentialRows + credentialStoreRows

    /// A row whose run is an HTTP run of `request` answered by `script`, under the options `options`
    /// makes (given whether the property is changed, and the run's clock).
    static func http(
        _ type: String, _ property: String, shows: String?, _ request: URLRequest = SettingRun.request(),
        script: @escaping Script,
        options: @escaping @Sendable (_ changed: Bool, _ clock: ManualClock) throws -> HTTPRetryOptions
    ) -> Setting {
        Setting(type: type, property: property, shows: shows) { changed in
            try await SettingRun.run(request, script: script) { clock in try options(changed, clock) }
        }
    }

    /// The options of most HTTP rows: 3 attempts 1 s apart without jitter, under the default rules
    /// without their default attempt timeout (no timer runs unless a row sets one), changed by `change`.
    static func options(_ change: (inout HTTPRetryOptions) -> Void = { _ in }) -> HTTPRetryOptions {
        var options = HTTPRetryOptions(RetryPolicy(maxAttempts: 3, backoff: .constant(.seconds(1)), jitter: .none))
        options.rules.defaultAttemptTimeout = nil
        change(&options)
        return options
    }

    /// The answers in order, the last repeated.
    static func answers(_ list: Answer...) -> Script { { send, _ in list[min(send, list.count) - 1] } }

    static let unavailableThenOK = answers(.status(503), .status(200))

    // MARK: RetryPolicy

    static let policyRows: [Setting] = [
        http("RetryPolicy", "maxAttempts", shows: "attempt 4", script: answers(.status(503))) { changed, _ in
            options { if changed { $0.policy.maxAttempts = 4 } }
        },
        http("RetryPolicy", "backoff", shows: "delay 2.0 seconds", script: unavailableThenOK) { changed, _ in
            options { if changed { $0.policy.backoff = .constant(.seconds(2)) } }
        },
        // A cap below the backoff's first delay makes every delay the cap.
        http("RetryPolicy", "maxDelay", shows: "delay 0.5 seconds", script: unavailableThenOK) { changed, _ in
            options { if changed { $0.policy.maxDelay = .milliseconds(500) } }
        },
        http("RetryPolicy", "minDelay", shows: "delay 1.5 seconds", script: unavailableThenOK) { changed, _ in
            options { if changed { $0.policy.minDelay = .milliseconds(1_500) } }
        },
        // Jitter draws from the run's seeded generator: the same draw every time.
        http("RetryPolicy", "jitter", shows: nil, script: unavailableThenOK) { changed, _ in
            options { if changed { $0.policy.jitter = .full } }
        },
        http("RetryPolicy", "jittersFirstDelay", shows: "delay 1.0 seconds", script: unavailableThenOK) { changed, _ in
            options {
                $0.policy.jitter = .full
                if changed { $0.policy.jittersFirstDelay = false }
            }
        },
        // A ±50 % band around a capped 1 s: held under the cap, or let past it.
        http("RetryPolicy", "jitterMayPassCap", shows: nil, script: answers(.status(503))) { changed, _ in
            options {
                $0.policy.maxAttempts = 6
                $0.policy.maxDelay = .seconds(1)
                $0.policy.jitter = .symmetric(0.5)
                if changed { $0.policy.jitterMayPassCap = true }
            }
        },
        http("RetryPolicy", "deadline", shows: "(deadlineExceeded)", script: answers(.status(503))) { changed, _ in
            options { if changed { $0.policy.deadline = .milliseconds(1_500) } }
        },
        // The first answer takes 5 s: the run waits for it, or a 1 s timeout ends the attempt.
        http(
            "RetryPolicy", "perAttemptTimeout", shows: "attempt timed out after 1 s",
            script: answers(.status(200).taking(.seconds(5)), .status(200))
        ) { changed, _ in
            options { if changed { $0.policy.perAttemptTimeout = .seconds(1) } }
        },
        http(
            "RetryPolicy", "maxRetryAfter", shows: "(retryAfterBeyondCap)",
            script: answers(.status(503, ["Retry-After": "10"]), .status(200))
        ) { changed, _ in
            options { if changed { $0.policy.maxRetryAfter = .seconds(5) } }
        },
        // The user's classifier narrows the rules: a reset they retry, it refuses.
        http(
            "RetryPolicy", "retryIf", shows: "(notRetryable)",
            script: answers(.failure(.networkConnectionLost), .status(200))
        ) { changed, _ in
            options { if changed { $0.policy.retryIf = .never } }
        },
        // The decision's rows reordered: a refused error on the last attempt ends the run by
        // whichever row comes first.
        http("RetryPolicy", "table", shows: "(attemptsExhausted)", script: answers(.failure(.badURL))) { changed, _ in
            options {
                $0.policy.maxAttempts = 1
                if changed { $0.policy.table = attemptsLeftFirst }
            }
        },
        // The step's rows stay; its action is what `steps` holds.
        http("RetryPolicy", "steps", shows: "x-mirror: b", script: unavailableThenOK) { changed, _ in
            options {
                $0.policy.add(mirrorStep("a"))
                if changed { $0.policy.steps = [mirrorStep("b")] }
            }
        },
    ]

    /// The shipped table with `attempts left` asked before `retryable`.
    static let attemptsLeftFirst: RetryTable = {
        var rows = RetryTable.retry.rows
        let attemptsLeft = rows.firstIndex { $0.from == .retry && $0.condition == .unless(.attemptsLeft) }!
        let row = rows.remove(at: attemptsLeft)
        rows.insert(row, at: rows.firstIndex { $0.from == .retry && $0.condition == .unless(.retryable) }!)
        let shipped = RetryTable.retry
        return RetryTable(
            name: "attempts left first", initial: shipped.initial, terminals: shipped.terminals, rows: rows)
    }()

    /// A step after the first failure that marks every later request with `mark`.
    static func mirrorStep(_ mark: String) -> RetryStep {
        RetryStep("use mirror", entry: .afterFailures(1)) { _ in
            .change(RequestChange { $0.setValue(mark, forHTTPHeaderField: "X-Mirror") })
        }
    }

    // MARK: HTTPRetryRules

    static let rulesRows: [Setting] = [
        http("HTTPRetryRules", "retryableStatuses", shows: "with HTTP 503", script: unavailableThenOK) { changed, _ in
            options { if changed { $0.rules.retryableStatuses.remove(503) } }
        },
        http(
            "HTTPRetryRules", "retryableErrorCodes", shows: "(notRetryable)",
            script: answers(.failure(.networkConnectionLost), .status(200))
        ) { changed, _ in
            options { if changed { $0.rules.retryableErrorCodes = [] } }
        },
        // A POST refused a connection was never sent, so it is safe to send again.
        http(
            "HTTPRetryRules", "neverSentErrorCodes", shows: "(notRetryable)", SettingRun.request("POST"),
            script: answers(.failure(.cannotConnectToHost), .status(200))
        ) { changed, _ in
            options { if changed { $0.rules.neverSentErrorCodes = [] } }
        },
        http("HTTPRetryRules", "idempotentMethods", shows: "GET is not idempotent", script: unavailableThenOK) {
            changed, _ in
            options { if changed { $0.rules.idempotentMethods.remove("GET") } }
        },
        http(
            "HTTPRetryRules", "retryNonIdempotent", shows: "attempt 2", SettingRun.request("POST"),
            script: unavailableThenOK
        ) { changed, _ in
            options { if changed { $0.rules.retryNonIdempotent = true } }
        },
        http(
            "HTTPRetryRules", "idempotencyKeyHeader", shows: "attempt 2",
            SettingRun.request("POST", ["X-Request-Key": "k1"]),
            script: unavailableThenOK
        ) { changed, _ in
            options { if changed { $0.rules.idempotencyKeyHeader = "X-Request-Key" } }
        },
        http(
            "HTTPRetryRules", "retryAfterStatuses", shows: "delay 1.0 seconds",
            script: answers(.status(503, ["Retry-After": "5"]), .status(200))
        ) { changed, _ in
            options { if changed { $0.rules.retryAfterStatuses = [] } }
        },
        http(
            "HTTPRetryRules", "honorRetryAfter", shows: "delay 1.0 seconds",
            script: answers(.status(503, ["Retry-After": "5"]), .status(200))
        ) { changed, _ in
            options { if changed { $0.rules.honorRetryAfter = false } }
        },
        http(
            "HTTPRetryRules", "honorRateLimit", shows: "delay 1.0 seconds",
            script: answers(.status(429, ["X-RateLimit-Reset": "5"]), .status(200))
        ) { changed, _ in
            options { if changed { $0.rules.honorRateLimit = false } }
        },
        http(
            "HTTPRetryRules", "rateLimitResetHeaders", shows: "delay 5.0 seconds",
            script: answers(.status(429, ["X-Quota-Reset": "5"]), .status(200))
        ) { changed, _ in
            options { if changed { $0.rules.rateLimitResetHeaders = ["X-Quota-Reset"] } }
        },
        http("HTTPRetryRules", "attemptHeader", shows: "retryflow-attempt: 2", script: unavailableThenOK) {
            changed, _ in
            options { if changed { $0.rules.attemptHeader = .retryFlow } }
        },
        http("HTTPRetryRules", "failingStatuses", shows: "(failing status)", script: answers(.status(404))) {
            changed, _ in
            options { if changed { $0.rules.failingStatuses = [404] } }
        },
        http(
            "HTTPRetryRules", "maxBodyBytes", shows: "more than the 5 allowed",
            script: answers(.status(200, body: "0123456789"))
        ) { changed, _ in
            options { if changed { $0.rules.maxBodyBytes = 5 } }
        },
        http("HTTPRetryRules", "connectionClose", shows: "connection: close", script: answers(.status(200))) {
            changed, _ in
            options { if changed { $0.rules.connectionClose = .always } }
        },
        // The first answer takes 40 s: the rules' default 30 s ends it, or nothing does.
        http(
            "HTTPRetryRules", "defaultAttemptTimeout", shows: "success at 40.0 seconds",
            script: answers(.status(200).taking(.seconds(40)), .status(200))
        ) { changed, _ in
            options { $0.rules.defaultAttemptTimeout = changed ? nil : HTTPRetryRules.default.defaultAttemptTimeout }
        },
        // A 401 goes to the step, which marks the resend; sent elsewhere, the 401 is the answer.
        http("HTTPRetryRules", "statusSteps", shows: "with HTTP 401", script: renewedOrUnauthorized) { changed, _ in
            options {
                $0.policy.add(renew)
                $0.rules.statusSteps = [changed ? 403 : 401: renew.id]
            }
        },
        // A DynamoDB-style 400 naming a throttle is retried as one; with no throttles, it is the answer.
        http(
            "HTTPRetryRules", "throttling", shows: "with HTTP 400",
            script: answers(.status(400, body: #"{"code":"SlowDown"}"#), .status(200))
        ) { changed, _ in
            options { if changed { $0.rules.throttling = .none } }
        },
    ]

    /// A step entered on a verdict that marks the resend as renewed.
    static let renew = RetryStep("renew") { _ in
        .change(RequestChange { $0.setValue("yes", forHTTPHeaderField: "X-Renewed") })
    }

    /// 401 until a request carries the renewed mark, then 200.
    static let renewedOrUnauthorized: Script = { _, request in
        request.value(forHTTPHeaderField: "X-Renewed") == "yes" ? .status(200) : .status(401)
    }

    // MARK: ThrottleRules and AttemptHeader (values inside the rules)

    static let throttleRows: [Setting] = [
        // A throttle is retried even when its status alone is not retryable.
        http("ThrottleRules", "statuses", shows: "attempt 2", script: answers(.status(420), .status(200))) {
            changed, _ in
            options { if changed { $0.rules.throttling.statuses.insert(420) } }
        },
        http(
            "ThrottleRules", "statusesWithRetryAfter", shows: "attempt 2",
            script: answers(.status(509, ["Retry-After": "1"]), .status(200))
        ) { changed, _ in
            options { if changed { $0.rules.throttling.statusesWithRetryAfter.insert(509) } }
        },
        http(
            "ThrottleRules", "errorCodes", shows: "attempt 2",
            script: answers(.status(400, body: #"{"code":"QuotaExceeded"}"#), .status(200))
        ) { changed, _ in
            options { if changed { $0.rules.throttling.errorCodes.insert("QuotaExceeded") } }
        },
        // The code comes after 40 bytes of padding: found in 64 KiB, not in 16 bytes.
        http(
            "ThrottleRules", "maxBodyBytesSearched", shows: "with HTTP 400",
            script: answers(
                .status(400, body: #"{"padding":"\#(String(repeating: "x", count: 40))","code":"SlowDown"}"#),
                .status(200))
        ) { changed, _ in
            options { if changed { $0.rules.throttling.maxBodyBytesSearched = 16 } }
        },
    ]

    static let attemptHeaderRows: [Setting] = [
        http("AttemptHeader", "name", shows: "x-try: 1", script: unavailableThenOK) { changed, _ in
            options { $0.rules.attemptHeader = AttemptHeader(name: changed ? "X-Try" : "RetryFlow-Attempt") }
        },
        http("AttemptHeader", "countsPrevious", shows: "sent GET, no headers", script: unavailableThenOK) {
            changed, _ in
            options { $0.rules.attemptHeader = AttemptHeader(name: "RetryFlow-Attempt", countsPrevious: changed) }
        },
    ]

    // MARK: HTTPRetryOptions

    static let optionsRows: [Setting] = [
        http("HTTPRetryOptions", "policy", shows: "(attemptsExhausted)", script: unavailableThenOK) { changed, _ in
            options { if changed { $0.policy = .none } }
        },
        http("HTTPRetryOptions", "rules", shows: "with HTTP 503", script: unavailableThenOK) { changed, _ in
            options { if changed { $0.rules = .transportErrorsOnly } }
        },
        // Hedged, the 503 sends the next copy at once (a non-fatal answer); unhedged, the run waits 1 s.
        http("HTTPRetryOptions", "hedging", shows: "hedges: 1", script: unavailableThenOK) { changed, _ in
            options { if changed { $0.hedging = HedgingPolicy(delay: .seconds(1), maxAttempts: 2) } }
        },
        http("HTTPRetryOptions", "guards", shows: "(budgetExhausted)", script: answers(.status(503))) {
            changed, clock in
            var options = options()
            if changed { options.guards.budget = try oneRetryBudget(clock) }
            return options
        },
        http("HTTPRetryOptions", "registry", shows: "(budgetExhausted)", script: answers(.status(503))) {
            changed, clock in
            var options = options()
            if changed {
                options.registry = try ResilienceRegistry(budget: .grpc(maxTokens: 1), breaker: nil, clock: clock)
            }
            return options
        },
        hook("onRetry", shows: "hook saw: retry after attempt 1") { options, log in
            options.onRetry = { notice in log.withLock { $0.append("retry after attempt \(notice.attempt)") } }
        },
        hook("onTransition", shows: "hook saw: idle --start--> limiter") { options, log in
            options.onTransition = { step in log.withLock { $0.append(RetryTrace.describe(step)) } }
        },
    ]

    /// A row for a hook: the run's description and what the hook saw, without and with it.
    static func hook(
        _ property: String, shows: String,
        install: @escaping @Sendable (inout HTTPRetryOptions, Locked<[String]>) -> Void
    ) -> Setting {
        Setting(type: "HTTPRetryOptions", property: property, shows: shows) { changed in
            let log = Locked<[String]>([])
            let run = try await SettingRun.run(script: unavailableThenOK) { _ in
                options { if changed { install(&$0, log) } }
            }
            return run + "\nhook saw: " + log.withLock { $0 }.joined(separator: "; ")
        }
    }

    /// A gRPC budget of 1 token: the first failure leaves it at half, so no retry is allowed.
    static func oneRetryBudget(_ clock: ManualClock) throws -> RetryBudget {
        try RetryBudget(.grpc(maxTokens: 1), clock: clock)
    }

    // MARK: FleetGuards

    static let guardsRows: [Setting] = [
        http("FleetGuards", "budget", shows: "(budgetExhausted)", script: answers(.status(503))) { changed, clock in
            var options = options()
            if changed { options.guards.budget = try oneRetryBudget(clock) }
            return options
        },
        // An isolated breaker refuses every try: the run waits out the refusals, then ends.
        http("FleetGuards", "breaker", shows: "circuit isolated", script: answers(.status(200))) { changed, clock in
            var options = options()
            if changed { options.guards.breaker = try isolatedBreaker(clock) }
            return options
        },
        http("FleetGuards", "whenCircuitOpen", shows: "[fails fast]", script: answers(.status(200))) { changed, clock in
            var options = options()
            options.guards.breaker = try isolatedBreaker(clock)
            if changed { options.guards.whenCircuitOpen = .fail }
            return options
        },
        // A 429 enables the limiter (it reports health with the throttle), which then paces the
        // next try: `rate limited`, then `token wait` on the run's clock.
        http("FleetGuards", "limiter", shows: "pacing ----> token wait", script: answers(.status(429), .status(200))) {
            changed, clock in
            var options = options()
            if changed { options.guards.limiter = try AdaptiveRateLimiter(.default, clock: clock) }
            return options
        },
        // The paced try fails fast: the run ends `rate limited`.
        http("FleetGuards", "whenRateLimited", shows: "(rateLimited)", script: answers(.status(429), .status(200))) {
            changed, clock in
            var options = options()
            options.guards.limiter = try AdaptiveRateLimiter(.default, clock: clock)
            if changed { options.guards.whenRateLimited = .fail }
            return options
        },
    ]

    static func isolatedBreaker(_ clock: ManualClock) throws -> CircuitBreaker {
        let breaker = try CircuitBreaker(.polly, clock: clock)
        breaker.isolate()
        return breaker
    }

    // MARK: HedgingPolicy

    static let hedgingRows: [Setting] = [
        // Every copy answers 503 at once: each sends the next, up to `maxAttempts` copies.
        http("HedgingPolicy", "maxAttempts", shows: "hedges: 2", script: answers(.status(503))) { changed, _ in
            options {
                $0.policy.maxAttempts = 1
                $0.hedging = HedgingPolicy(delay: .seconds(1), maxAttempts: changed ? 3 : 2)
            }
        },
        // The first copy takes 10 s; the hedge, sent after `delay`, answers at once and wins.
        Setting(type: "HedgingPolicy", property: "delay", shows: "success at 2.0 seconds") { changed in
            let delay = Duration.seconds(changed ? 2 : 1)
            return try await SettingRun.run(
                alsoSleeping: { [$0.at + delay] }, script: answers(.status(200).taking(.seconds(10)), .status(200))
            ) { _ in
                options { $0.hedging = HedgingPolicy(delay: delay, maxAttempts: 2) }
            }
        },
    ]

    // MARK: DownloadOptions, and the values inside them (a real URLSession against FlakyServer)

    /// 400,000 bytes cut three times after 100,000 bytes each, then served.
    static let threeCuts = (
        resource: FlakyServer.Resource(size: 400_000),
        steps: Array(repeating: FlakyServer.DownloadStep.cut(after: 100_000), count: 3) + [.serve]
    )

    static let downloadRows: [Setting] = [
        download("DownloadOptions", "resumeExisting", shows: "Range bytes=400-") { changed in
            DownloadOptions(resumeExisting: changed)
        },
        download("DownloadOptions", "expectedSHA256", shows: "SHA-256 mismatch") { changed in
            DownloadOptions(expectedSHA256: changed ? String(repeating: "0", count: 64) : nil)
        },
        stall("DownloadOptions", "speedLimit", shows: "stalled") { changed in
            changed ? DownloadOptions.SpeedLimit(bytesPerSecond: 10_000, window: .seconds(1)) : nil
        },
        download("DownloadOptions", "bytesPerRequest", shows: "Range bytes=0-399") { changed in
            DownloadOptions(bytesPerRequest: changed ? 400 : DownloadOptions.defaultBytesPerRequest)
        },
        // Cuts after progress start the count over; without the rule, two attempts are all there is.
        download("DownloadOptions", "progressRule", shows: "(attemptsExhausted)", threeCuts) { changed in
            DownloadOptions(progressRule: changed ? nil : ProgressRule())
        },
        // The test hook (package, not public) that replaces the measured backlog: reported empty,
        // windows grow (8, then 16 MiB); reported past a window, they shrink (8, then 4 MiB). The
        // baseline is 0, not the default `nil`, whose measurement depends on thread timing.
        download(
            "DownloadOptions", "reportedBacklog", shows: "bytes=8388608-12582911",
            (FlakyServer.Resource(size: 9 << 20), [.serve])
        ) { changed in
            var options = DownloadOptions()
            options.reportedBacklog = changed ? 9 << 20 : 0
            return options
        },
        // 1,000 bytes come in the first window: below 10,000 B/s (a stall at 1 s), above 500 B/s
        // (then the second window, with none, is the stall, at 2 s).
        stall("DownloadOptions.SpeedLimit", "bytesPerSecond", shows: "failure at 2.0 seconds") { changed in
            DownloadOptions.SpeedLimit(bytesPerSecond: changed ? 500 : 10_000, window: .seconds(1))
        },
        stall("DownloadOptions.SpeedLimit", "window", shows: "failure at 2.0 seconds") { changed in
            DownloadOptions.SpeedLimit(bytesPerSecond: 10_000, window: .seconds(changed ? 2 : 1))
        },
        download("ProgressRule", "minimumBytes", shows: "(attemptsExhausted)", threeCuts) { changed in
            DownloadOptions(progressRule: ProgressRule(minimumBytes: changed ? 200_000 : 64 << 10))
        },
        // One credited resume, then the cuts count: two more use up the two attempts.
        download("ProgressRule", "maxResumes", shows: "(attemptsExhausted)", threeCuts) { changed in
            DownloadOptions(progressRule: ProgressRule(maxResumes: changed ? 1 : 1_000))
        },
    ]

    /// A row downloading `served` (1,000 bytes by default; the first 400 are already in the
    /// destination's `.part`, which only `resumeExisting` continues from) with the options `options` makes.
    static func download(
        _ type: String, _ property: String, shows: String,
        _ served: (resource: FlakyServer.Resource, steps: [FlakyServer.DownloadStep]) = (
            FlakyServer.Resource(size: 1_000), [.serve]
        ),
        options: @escaping @Sendable (_ changed: Bool) -> DownloadOptions
    ) -> Setting {
        Setting(type: type, property: property, shows: shows) { changed in
            try await DownloadSettingRun.run(served.resource, steps: served.steps, options: options(changed))
        }
    }

    /// A row whose download stalls, under the speed limit `limit` makes.
    static func stall(
        _ type: String, _ property: String, shows: String,
        limit: @escaping @Sendable (_ changed: Bool) -> DownloadOptions.SpeedLimit?
    ) -> Setting {
        Setting(type: type, property: property, shows: shows) { changed in
            try await DownloadSettingRun.stalled(limit(changed))
        }
    }

    // MARK: CredentialRefresh

    static let credentialRows: [Setting] = [
        credential("statuses", shows: "with HTTP 401") { changed, clock in
            refresh(store: store(clock), statuses: changed ? [403] : [401])
        },
        credential("maxRefreshesPerRun", shows: "failure at 0.0 seconds attempt 2", script: answers(.status(401))) {
            changed, clock in
            refresh(store: store(clock), maxRefreshesPerRun: changed ? 1 : 2)
        },
        // A store whose credential is already the one the server takes needs no refresh.
        credential("store", shows: "success at 0.0 seconds attempt 1") { changed, clock in
            refresh(store: changed ? CredentialStore("t2", clock: clock) { _ in "t3" } : store(clock))
        },
        credential("apply", shows: "Token t1", script: answers(.status(200))) { changed, clock in
            refresh(store: store(clock)) { token, request in
                request.setValue(changed ? "Token \(token)" : "Bearer \(token)", forHTTPHeaderField: "Authorization")
            }
        },
    ]

    /// A store at `t1` that refreshes to `t2`, on `clock`.
    static func store(_ clock: ManualClock) -> CredentialStore<String> {
        CredentialStore("t1", clock: clock) { _ in "t2" }
    }

    /// A refresh through `store` putting a bearer token on each request.
    static func refresh(
        store: CredentialStore<String>, statuses: Set<Int> = [401], maxRefreshesPerRun: Int = 2,
        apply: @escaping @Sendable (String, inout URLRequest) -> Void = { token, request in
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        }
    ) -> CredentialRefresh<String> {
        CredentialRefresh(store, statuses: statuses, maxRefreshesPerRun: maxRefreshesPerRun, apply: apply)
    }

    /// A row whose server takes only `Bearer t2` (401 otherwise), unless `script` says otherwise.
    static func credential(
        type: String = "CredentialRefresh", _ property: String, shows: String, script: @escaping Script = bearerT2,
        refresh make: @escaping @Sendable (_ changed: Bool, _ clock: ManualClock) -> CredentialRefresh<String>
    ) -> Setting {
        http(type, property, shows: shows, script: script) { changed, clock in
            options { make(changed, clock).install(in: &$0) }
        }
    }

    static let bearerT2: Script = { _, request in
        request.value(forHTTPHeaderField: "Authorization") == "Bearer t2" ? .status(200) : .status(401)
    }

    // MARK: CredentialStore's initializer

    static let credentialStoreRows: [Setting] = [
        // Two refresh responses in one run: the second refresh fits a window of 2, not one of 1.
        credential(
            type: "CredentialStore.init", "maximumRefreshes", shows: "excessive refresh", script: answers(.status(401))
        ) { changed, clock in
            refresh(store: CredentialStore("t1", maximumRefreshes: changed ? 1 : 2, clock: clock) { _ in "t2" })
        },
        // Known expired, the first credential is refreshed before the first send.
        credential(
            type: "CredentialStore.init", "isExpired",
            shows: "check credential --refreshed--> limiter at 0.0 seconds attempt 0"
        ) { changed, clock in
            refresh(store: CredentialStore("t1", clock: clock, isExpired: { changed && $0 == "t1" }) { _ in "t2" })
        },
        Setting(type: "CredentialStore.init", property: "window", shows: "authorization: Bearer t3") {
            changed in
            try await twoRunsTenSecondsApart(window: .seconds(changed ? 5 : 30))
        },
        Setting(type: "CredentialStore.init", property: "tracing", shows: "store trace: idle") { changed in
            let store = CredentialStore("t1", clock: ManualClock(), tracing: changed) { _ in "t2" }
            let run = try await SettingRun.run(script: bearerT2) { _ in
                options { refresh(store: store).install(in: &$0) }
            }
            let trace = await store.trace
            return run + "\nstore trace: "
                + (trace?.steps.map { "\($0.from.label) → \($0.to.label)" } ?? ["none"])
                .joined(separator: ", ")
        },
    ]

    /// Two runs sharing a store of one refresh per `window`, 10 s apart on the store's clock, each
    /// answered 401 until it sends the next token (`t2`, then `t3`): the second run's refresh
    /// fits a 5 s window and is refused in a 30 s one.
    static func twoRunsTenSecondsApart(window: Duration) async throws -> String {
        let clock = ManualClock()
        let store = CredentialStore("t1", maximumRefreshes: 1, window: window, clock: clock) { old in
            "t\(Int(old.dropFirst())! + 1)"
        }
        var runs: [String] = []
        for token in ["t2", "t3"] {
            runs.append(
                try await SettingRun.run(
                    script: { _, request in
                        request.value(forHTTPHeaderField: "Authorization") == "Bearer \(token)"
                            ? .status(200) : .status(401)
                    }
                ) { _ in options { refresh(store: store).install(in: &$0) } })
            clock.advance(by: .seconds(10))
        }
        return runs.joined(separator: "\n--- the next run\n")
    }
}

/// One scripted answer to a send.
struct Answer: Sendable {
    var status = 200
    var headers: [String: String] = [:]
    var body = ""
    /// Thrown instead of answering.
    var error: URLError.Code?
    /// How long the answer takes, on the run's manual clock.
    var takes: Duration = .zero

    static func status(_ status: Int, _ headers: [String: String] = [:], body: String = "") -> Answer {
        Answer(status: status, headers: headers, body: body)
    }

    static func failure(_ code: URLError.Code) -> Answer { Answer(error: code) }

    func taking(_ time: Duration) -> Answer {
        var answer = self
        answer.takes = time
        return answer
    }
}

/// The answer to send number `send` (from 1) of `request`.
typealias Script = @Sendable (_ send: Int, _ request: URLRequest) -> Answer

/// An HTTP run on a `ManualClock` with a scripted transport, driven as `Simulation` drives its
/// runs: the clock moves only when the run is parked (in a wait, a token wait, or an attempt whose
/// every sleeper is registered), so the run never depends on thread timing.
enum SettingRun {
    static let url = URL(string: "http://settings.invalid/resource")!

    static func request(_ method: String = "GET", _ headers: [String: String] = [:]) -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }

    /// Runs `request` under the options `make` builds on the run's clock, answered by `script`, and
    /// describes the run: its end, every step of its trace, and every request sent. `alsoSleeping`
    /// names sleepers of an attempt besides the transport's and the attempt timer (a hedge's delay).
    static func run(
        _ request: URLRequest = request(),
        alsoSleeping: @escaping @Sendable (RetryTrace.Step) -> [Duration] = { _ in [] },
        script: @escaping Script, options make: (ManualClock) throws -> HTTPRetryOptions
    ) async throws -> String {
        let clock = ManualClock()
        var options = try make(clock)
        let last = Locked<RetryTrace.Step?>(nil)
        let finished = Locked(false)
        let sent = Locked<[URLRequest]>([])
        let sleeping = Locked<[Duration]>([])
        let watcher = options.onTransition
        options.onTransition = { step in
            watcher?(step)
            last.withLock { $0 = step }
            clock.recheck()
        }
        // The attempt timer the HTTP surface arms: the policy's timeout, else the rules' default.
        var timed = options.policy
        if timed.perAttemptTimeout == nil { timed.perAttemptTimeout = options.rules.defaultAttemptTimeout }
        let timing = timed
        let run = Task { [options] in
            defer {
                finished.withLock { $0 = true }
                clock.recheck()
            }
            return try await HTTPRetryRun.outcome(
                for: request, retry: options, clock: clock, random: SeededRandom(seed: 7)
            ) { request in
                let number = sent.withLock {
                    $0.append(request)
                    return $0.count
                }
                let answer = script(number, request)
                if answer.takes > .zero {
                    let due = clock.now.offset + answer.takes
                    sleeping.withLock { $0.append(due) }
                    defer {
                        sleeping.withLock { _ = $0.remove(at: $0.firstIndex(of: due)!) }
                        clock.recheck()
                    }
                    try await clock.sleep(until: ManualClock.Instant(offset: due))
                }
                if let code = answer.error { throw URLError(code) }
                return HTTPResponse(
                    data: Data(answer.body.utf8),
                    response: HTTPURLResponse(
                        url: request.url!, statusCode: answer.status, httpVersion: "HTTP/1.1",
                        headerFields: answer.headers)!)
            }
        }
        /// The sleepers of a parked run, exactly, or `nil` while it is not parked.
        @Sendable func parked(_ step: RetryTrace.Step) -> [Duration]? {
            switch step.to {
            case .wait:
                return [step.at + (step.delay ?? .zero)]
            case .request:
                let attempt = sleeping.withLock { $0 } + alsoSleeping(step)
                // An attempt that takes no time finishes by itself: never move the clock under it.
                guard !attempt.isEmpty else { return nil }
                return (attempt + (timing.attemptTimer(startingAt: step.at).map { [$0.at] } ?? [])).sorted()
            default:
                return nil
            }
        }
        @Sendable func ended() -> Bool {
            finished.withLock { $0 } || last.withLock { $0 }.map { RetryTable.retry.isTerminal($0.to) } == true
        }
        while true {
            await clock.waitUntil { deadlines in
                guard !ended(), let step = last.withLock({ $0 }) else { return ended() }
                // A token wait looks at the limiter again each measurement bucket: parked in its
                // one sleep, which ends no later than planned.
                if step.to == .tokenWait {
                    return deadlines.count == 1 && deadlines[0].offset <= step.at + (step.delay ?? .zero)
                }
                return parked(step) == deadlines.map(\.offset)
            }
            if ended() { break }
            clock.advanceToNextDeadline()
        }
        let outcome = try await run.value
        expectConsistent(outcome.trace, with: options.policy.table)
        return describe(outcome, sent: sent.withLock { $0 })
    }

    static func describe(_ outcome: RetryOutcome<HTTPResponse>, sent: [URLRequest]) -> String {
        var lines = [
            "ended \(outcome.finalState.label) (\(outcome.reason)) with \(outcome.value?.description ?? "no value")"
        ]
        for step in outcome.trace.steps {
            var line = "\(RetryTrace.describe(step)) at \(step.at) attempt \(step.attempt)"
            if let delay = step.delay { line += " delay \(delay)" }
            if let detail = step.detail { line += ": \(detail)" }
            lines.append(line)
        }
        // Header names in lower case: Foundation's spelling of them differs by platform.
        for request in sent {
            let headers = (request.allHTTPHeaderFields ?? [:]).map { "\($0.key.lowercased()): \($0.value)" }.sorted()
            let method = request.httpMethod ?? "GET"
            lines.append(
                headers.isEmpty ? "sent \(method), no headers" : "sent \(method) \(headers.joined(separator: ", "))")
        }
        if !outcome.hedging.isEmpty { lines.append("hedges: \(outcome.hedges)") }
        return lines.joined(separator: "\n")
    }
}

/// A download against FlakyServer, described without anything that differs from run to run (times
/// on the real clock, the server's port).
enum DownloadSettingRun {
    /// Two attempts, no wait between them.
    static let policy = RetryPolicy(maxAttempts: 2, backoff: .constant(.zero), jitter: .none)

    /// Downloads `resource` served by `steps` under `options`, the first 400 bytes already in `file.part`.
    static func run(
        _ resource: FlakyServer.Resource, steps: [FlakyServer.DownloadStep], options: DownloadOptions
    ) async throws -> String {
        let server = try FlakyServer()
        defer { server.stop() }
        try server.serveDownload(resource, at: "/file", steps: steps)
        let folder = try DownloadTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("file.bin")
        try Data(resource.bytes(0..<400)).write(to: URL(fileURLWithPath: destination.path + ".part"))
        let outcome = try await Runner.session().downloadOutcome(
            for: URLRequest(url: server.url("/file")), to: destination, retry: .policy(policy), options: options,
            clock: ContinuousClock())
        DownloadTests.expectTracesConsistent(outcome)
        return describe(outcome, server: server, timed: false)
    }

    /// One attempt at a file whose server sends 1,000 bytes and then holds the connection, on a
    /// manual clock: a 10 s attempt timeout ends it, unless the speed limit `limit` ends it first.
    /// The clock moves only once the bytes are in, and only when every sleeper of the attempt is
    /// registered: its timer, and the stall watchdog's window when there is a limit.
    static func stalled(_ limit: DownloadOptions.SpeedLimit?) async throws -> String {
        let server = try FlakyServer()
        defer { server.stop() }
        try server.serveDownload(FlakyServer.Resource(size: 100_000), at: "/file", steps: [.stall(after: 1_000)])
        let folder = try DownloadTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("file.bin")
        var policy = RetryPolicy(maxAttempts: 1, backoff: .constant(.zero), jitter: .none)
        policy.perAttemptTimeout = .seconds(10)
        let clock = ManualClock()
        let finished = Locked(false)
        let (stream, progress) = AsyncStream<DownloadProgress>.makeStream()
        let session = Runner.session()
        let run = Task { [policy] in
            defer {
                finished.withLock { $0 = true }
                clock.recheck()
            }
            return try await session.downloadOutcome(
                for: URLRequest(url: server.url("/file")), to: destination, retry: .policy(policy),
                options: DownloadOptions(speedLimit: limit), clock: clock, progress: progress)
        }
        for await update in stream where update.bytesOnDisk >= 1_000 { break }
        let sleepers = limit == nil ? 1 : 2
        while true {
            await clock.waitUntil { finished.withLock { $0 } || $0.count == sleepers }
            if finished.withLock({ $0 }) { break }
            clock.advanceToNextDeadline()
        }
        let outcome = try await run.value
        DownloadTests.expectTracesConsistent(outcome)
        return describe(outcome, server: server, timed: true)
    }

    static func describe(_ outcome: DownloadOutcome, server: FlakyServer, timed: Bool) -> String {
        var lines = ["ended \(outcome.transferState) (\(outcome.retry.reason)), \(outcome.bytesOnDisk) bytes on disk"]
        for step in outcome.retry.trace.steps {
            lines.append(RetryTrace.describe(step) + (timed ? " at \(step.at)" : ""))
        }
        for attempt in outcome.retry.attempts { lines.append("attempt \(attempt.number): \(what(attempt.error))") }
        for request in server.requests(to: "/file") {
            lines.append(
                "sent Range \(request.header("Range") ?? "none"), If-Range \(request.header("If-Range") ?? "none")")
        }
        return lines.joined(separator: "\n")
    }

    /// An attempt's error without its words, which may name the server's port.
    static func what(_ error: (any Error)?) -> String {
        switch error {
        case nil: "no error"
        case let error as URLError: "URLError \(error.code.rawValue)"
        case let problem as DownloadProblem: "\(problem)"
        case let error?: "\(type(of: error))"
        }
    }
}
