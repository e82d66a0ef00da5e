import RetryFlow
import RetryFlowCharts
import RetryFlowHTTP
import RetryFlowSnippets
import RetryFlowTesting
import Testing

/// No lost findings: the explorer `verify` runs (positions keyed by what a row can still read, stored
/// compactly) finds what the explorer it replaced found (``ReferenceExplorer``, every position whole,
/// the retry machine keyed by all its facts and the time), wherever the old one finishes: the same
/// reachable rows, the same verdicts, the same states rested in, and witnesses and counterexamples
/// just as short.
@Suite struct ExplorerEquivalenceTests {
    /// What must agree between the two explorations of one machine.
    static func differences<V>(
        _ explore: @escaping @Sendable () -> ExplorationResult<V>
    ) async -> [String] {
        let (new, old) = await runOnOwnThread {
            (explore(), ExplorationEngine.$reference.withValue(true) { explore() })
        }
        var found: [String] = []
        func differ<T: Equatable>(_ what: String, _ a: T, _ b: T) {
            if a != b { found.append("\(what): new \(a), old \(b)") }
        }
        differ("refused", new.refused, old.refused)
        differ("reachable rows", new.reachableRows, old.reachableRows)
        differ("invariants", new.invariants, old.invariants)
        differ("broken invariants", Set(new.violations.map(\.invariant)), Set(old.violations.map(\.invariant)))
        differ("rested states", new.restedStates, old.restedStates)
        differ("reachable states", new.reachableStates, old.reachableStates)
        func inputs(_ trace: TransitionTrace<V>) -> Int { trace.steps.filter { $0.event != nil }.count }
        for row in new.reachableRows.intersection(old.reachableRows) {
            differ("inputs to row \(row)", inputs(new.witnesses[row]!), inputs(old.witnesses[row]!))
        }
        for violation in new.violations where violation.invariant != "every run ends" {
            if let before = old.violations.first(where: { $0.invariant == violation.invariant }) {
                differ("inputs to break '\(violation.invariant)'", inputs(violation.trace), inputs(before.trace))
            }
        }
        if new.statesExplored > old.statesExplored {
            found.append("more states than before: \(new.statesExplored) against \(old.statesExplored)")
        }
        return found
    }

    /// The policies the retry machine is checked under: every kind of delay (a backoff, decorrelated
    /// jitters that remember, none at all), a deadline, an attempt timeout, and a user step.
    static let policies: [(String, RetryPolicy)] = {
        var step = RetryPolicy(maxAttempts: 3, jitter: .none)
        step.add(RetryStep("mirror", entry: .afterFailures(1), maxVisits: 2) { _ in .done })
        var verdictStep = RetryPolicy(maxAttempts: 3, jitter: .equal, deadline: .seconds(4))
        verdictStep.add(RetryStep("refresh", maxVisits: 1) { _ in .done })
        return [
            ("default", .default),
            ("two attempts", RetryPolicy(maxAttempts: 2)),
            ("four attempts", RetryPolicy(maxAttempts: 4)),
            ("no wait", RetryPolicy(maxAttempts: 3, backoff: .constant(.zero), jitter: .none)),
            ("decorrelated", RetryPolicy(maxAttempts: 4, jitter: .decorrelated)),
            ("Polly's jitter", RetryPolicy(maxAttempts: 4, jitter: .pollyDecorrelated)),
            ("deadline", RetryPolicy(maxAttempts: 3, jitter: .none, deadline: .seconds(2))),
            (
                "deadline and timeout",
                RetryPolicy(maxAttempts: 3, jitter: .none, deadline: .seconds(2), perAttemptTimeout: .seconds(1))
            ),
            ("a 30 s deadline", RetryPolicy(maxAttempts: 3, deadline: .seconds(30))),
            ("a step after failures", step),
            ("a step on a verdict, a deadline", verdictStep),
        ]
    }()

    /// The worlds: nothing around the run, every guard, a limiter either way, a breaker failing fast.
    static let worlds: [(String, RetryWorld)] = [
        ("alone", RetryWorld()),
        ("no cancel", RetryWorld(cancellation: false)),
        ("guards and HTTP", RetryWorld(budget: true, breaker: true, retryAfter: true, finalAnswers: true)),
        ("a limiter", RetryWorld(limiter: true)),
        ("a limiter, failing fast", RetryWorld(limiter: true, waitsForToken: false, refusals: false)),
        ("a breaker, failing fast", RetryWorld(breaker: true, waitsOutBreak: false)),
    ]

    @Test(arguments: policies.indices)
    func theRetryMachineFindsWhatItFoundBefore(policy index: Int) async {
        let (name, policy) = Self.policies[index]
        for (world, around) in Self.worlds {
            let found = await Self.differences { RetryExploration.explore(policy: policy, world: around) }
            #expect(found.isEmpty, "\(name), \(world): \(found)")
        }
    }

    /// The largest bounds the old explorer finishes in seconds (a debug build): every guard and the
    /// HTTP rules, to five attempts, and with a 30 s deadline to three.
    @Test func theRetryMachineWithEveryGuardFindsWhatItFoundBefore() async {
        let world = RetryWorld(budget: true, breaker: true, retryAfter: true, finalAnswers: true)
        for (attempts, deadline) in [(5, nil), (3, Duration.seconds(30))] {
            let policy = RetryPolicy(maxAttempts: attempts, deadline: deadline)
            let found = await Self.differences { RetryExploration.explore(policy: policy, world: world) }
            #expect(found.isEmpty, "\(attempts) attempts, deadline \(String(describing: deadline)): \(found)")
        }
    }

    @Test func theFleetsMachinesFindWhatTheyFoundBefore() async {
        #expect(await Self.differences { FleetExploration.budget() }.isEmpty)
        #expect(await Self.differences { FleetExploration.budget(mode: .grpc(maxTokens: 4, tokenRatio: 0.5)) }.isEmpty)
        #expect(await Self.differences { FleetExploration.breaker() }.isEmpty)
        #expect(await Self.differences { FleetExploration.adaptive(inputs: 3) }.isEmpty)
        #expect(await Self.differences { FleetExploration.adaptive(options: .aws, inputs: 3) }.isEmpty)
        #expect(await Self.differences { HedgingExploration.explore() }.isEmpty)
    }

    @Test func theHTTPMachinesFindWhatTheyFoundBefore() async {
        #expect(await Self.differences { TransferExploration.explore() }.isEmpty)
        #expect(await Self.differences { CredentialExploration.explore() }.isEmpty)
    }

    @Test func theSnippetsFindWhatTheyFoundBefore() async {
        for retries in [1, 2, 5] {
            #expect(await Self.differences { SnippetExploration.swift(times: retries) }.isEmpty)
            #expect(await Self.differences { SnippetExploration.objc(retryCount: retries) }.isEmpty)
        }
    }

    /// A table that breaks its invariants the old explorer found (a loop, an ending without a
    /// reason, an input without a row): found again, as short.
    @Test func brokenTablesAreFoundBrokenAsBefore() async {
        let found = await Self.differences {
            TableExplorer(
                table: VerificationTests.broken, rules: VerificationTests.CountingRules(),
                model: VerificationTests.CountingModel()
            ).explore()
        }
        #expect(found.isEmpty, "\(found)")
    }
}
