import RetryFlow
import RetryFlowCharts
import RetryFlowTesting
import Testing

/// `verify`'s explorer: the shipped machines hold their invariants under several policies and worlds,
/// coverage names the rows a policy cannot reach, and a broken table of our own (built with the
/// public API, as a user would) yields the counterexample it should.
@Suite struct VerificationTests {
    @Test func theRetryMachineVerifiesUnderTheDefaultPolicy() {
        let result = RetryExploration.explore(policy: .default)
        #expect(result.holds, "\(result.text)")
        #expect(result.statesExplored > 10)
        #expect(result.text.contains("explored \(result.statesExplored) states"))
        #expect(result.text.contains("attempts ≤ 3"))
    }

    /// Coverage of the shipped table under three policies: which rows each can reach.
    @Test func coverageUnderThreePolicies() {
        let table = RetryTable.retry
        func reachable(_ policy: RetryPolicy, _ world: RetryWorld = RetryWorld()) -> Set<String> {
            Set(RetryExploration.reachableRows(policy: policy, world: world).map { table.rows[$0].description })
        }
        let plain = reachable(.default)
        // The default policy: no deadline, no timeout, no budget, no breaker, no Retry-After.
        #expect(!plain.contains { $0.contains("deadline") })
        #expect(!plain.contains { $0.contains("timed out") })
        #expect(!plain.contains { $0.contains("circuit open") })
        #expect(!plain.contains { $0.contains("retry budget exhausted") })
        #expect(!plain.contains { $0.contains("Retry-After") })
        #expect(!plain.contains { $0.contains("retry immediately") })
        #expect(plain.contains("retry --[no attempts left] / finish--> failure"))
        #expect(plain.contains("wait --delay elapsed / ask limiter--> limiter"))
        #expect(!plain.contains { $0.contains("rate limited") }, "no limiter in the world: no pacing")
        #expect(plain.contains("breaker --admitted / start attempt--> request"))

        let deadline = reachable(
            RetryPolicy(maxAttempts: 4, jitter: .none, deadline: .seconds(2), perAttemptTimeout: .seconds(1)))
        #expect(deadline.contains("retry --[next wait would cross deadline] / finish--> failure"))
        #expect(deadline.contains("request --deadline exceeded / cancel attempt, report health, finish--> failure"))
        #expect(deadline.contains("request --attempt timed out / cancel attempt, report health, plan delay--> retry"))

        let everything = reachable(
            RetryPolicy(backoff: .constant(.zero), jitter: .none),
            RetryWorld(
                budget: true, breaker: true, waitsOutBreak: true, limiter: true, retryAfter: true, finalAnswers: true))
        #expect(everything.contains("admission --[retry immediately] / notify retry, ask limiter--> limiter"))
        #expect(everything.contains("token wait --delay elapsed / ask breaker--> breaker"))
        #expect(!everything.contains { $0.contains("fails when rate limited") }, "this world waits for tokens")
        #expect(everything.contains("breaker --circuit open / count refusal, plan delay--> retry"))
        #expect(everything.contains("admission --[retry budget exhausted] / finish--> failure"))
        #expect(everything.contains("retry --[Retry-After beyond cap] / finish--> failure"))
        #expect(everything.contains("retry --[final answer] / finish--> answered"))
        #expect(!plain.contains("retry --[final answer] / finish--> answered"))
        #expect(everything.contains("breaker --circuit open [no refusals left] / finish--> failure"))
        #expect(!everything.contains("breaker --circuit open [fails fast] / finish--> failure"), "it waits out breaks")
    }

    @Test func everyShippedMachineVerifies() async {
        // Each exploration is seconds of a debug build's CPU: on a thread of its own, the results
        // checked here.
        let (budget, grpc, breaker) = await runOnOwnThread {
            (
                FleetExploration.budget(), FleetExploration.budget(mode: .grpc(maxTokens: 4, tokenRatio: 0.5)),
                FleetExploration.breaker()
            )
        }
        #expect(budget.holds, "\(budget.text)")
        #expect(budget.reachableRows.count == BudgetTable.budget.rows.count, "\(budget.text)")
        #expect(grpc.holds, "\(grpc.text)")
        #expect(breaker.holds, "\(breaker.text)")
        #expect(breaker.reachableRows.count == BreakerTable.breaker.rows.count, "\(breaker.text)")
        for options in [AdaptiveRateLimiterOptions.default, .aws] {
            let adaptive = await runOnOwnThread { FleetExploration.adaptive(options: options, inputs: 3) }
            #expect(adaptive.holds, "\(adaptive.text)")
            // `.aws` drops on every throttle, so its `[dropped this bucket]` row is never taken.
            let rows = AdaptiveTable.adaptive.rows.count - (options.dropsOncePerBucket ? 0 : 1)
            #expect(adaptive.reachableRows.count == rows, "\(adaptive.text)")
        }
    }

    @Test func anAdaptiveTableThatGrantsWithoutATokenIsCaught() {
        // `acquiring` grants at once whether or not the bucket holds a token: a send goes unpaced.
        let rows = AdaptiveTable.adaptive.rows.filter { !($0.from == .acquiring && $0.condition == .always) }.map {
            row -> AdaptiveTable.Row in
            guard row.from == .acquiring else { return row }
            return .init(from: .acquiring, event: nil, to: .enabled, effects: [.takeToken, .grant])
        }
        let broken = AdaptiveTable(name: "greedy", initial: .disabled, terminals: [], rows: rows)
        #expect(broken.problems.isEmpty, "the table itself is sound: only its arithmetic is wrong")
        let result = FleetExploration.adaptive(broken, inputs: 3)
        #expect(!result.holds)
        #expect(result.text.contains("a send goes at once only on a token the bucket held"), "\(result.text)")
    }

    // A small table of our own, broken twice: `retry` goes back to `request` with no bound, and the
    // row into `gaveUp` names no reason.
    enum Step: String, TableSymbol {
        case idle, request, retry, done
        case gaveUp = "gave up"
    }
    enum Signal: String, TableSymbol, MachineInput {
        case start, ok, failed, quit
        var event: Signal { self }
    }
    enum Question: String, TableSymbol { case tries = "tries left" }
    enum Work: String, TableSymbol {
        case attempt, finish
        var endsRun: Bool { self == .finish }
    }
    enum End: String, TableSymbol { case done }

    struct CountingRules: MachineRules, Hashable {
        typealias Vocabulary = Words
        var attempts = 0
        mutating func receive(_ input: Signal, at time: Duration) {}
        func holds(_ guardSymbol: Question) -> Bool { attempts < 3 }
        mutating func perform(_ effect: Work, of row: Row) -> Int? {
            if effect == .attempt { attempts += 1 }
            return attempts
        }
        func traced(_ row: Row) -> (attempt: Int, delay: Duration?) { (row.effects.isEmpty ? 0 : attempts, nil) }
    }

    struct CountingModel: ExplorationModel {
        typealias Rules = CountingRules
        var inputLimit: Int { 8 }
        var boundDescription: String { "8 inputs" }
        var invariants: [String] { ["at most 3 attempts"] }
        func choices(at position: ExplorationPosition<CountingRules>) -> [ExplorationChoice<Signal>] {
            [.init(.start, at: position.at), .init(.ok, at: position.at), .init(.failed, at: position.at)]
        }
        func check(
            before: ExplorationPosition<CountingRules>, after: ExplorationPosition<CountingRules>, input: Signal,
            rows: [Int]
        ) -> [InvariantViolation] {
            after.machine.rules.attempts > 3
                ? [.init("at most 3 attempts", "attempt \(after.machine.rules.attempts)")] : []
        }
    }

    typealias Words = TableWords<Step, Signal, Question, Work, End>

    static let broken = TransitionTable<Words>(
        name: "broken", initial: .idle, terminals: [.done, .gaveUp],
        rows: [
            .init(from: .idle, event: .start, to: .request, effects: [.attempt]),
            .init(from: .request, event: .ok, to: .done, effects: [.finish], reason: .done),
            .init(from: .request, event: .failed, to: .retry),
            // Bug 1: the guard is there, but its failing branch was forgotten and `else` loops back.
            .init(from: .retry, event: nil, condition: .when(.tries), to: .request, effects: [.attempt]),
            .init(from: .retry, event: nil, to: .request),
            // Bug 2: a row into a terminal without its reason (and so, unreachable, never caught by a run).
            .init(from: .idle, event: .quit, to: .gaveUp, effects: [.finish]),
        ])

    @Test func aBrokenTableYieldsItsCounterexamples() throws {
        let result = TableExplorer(table: Self.broken, rules: CountingRules(), model: CountingModel()).explore()
        #expect(!result.holds)
        #expect(result.tableProblems.contains { $0.contains("ends the run but names no reason") })
        let loop = try #require(result.violations.first { $0.invariant == "every run ends" }, "\(result.text)")
        // The shortest run that never ends: start, then failures forever (attempts stop counting at 3).
        #expect(loop.trace.steps.first?.event == .start)
        #expect(loop.trace.steps.allSatisfy { $0.to != .done })
        #expect(loop.trace.isConsistent(with: Self.broken))
        #expect(result.text.contains("counterexample (every run ends)"))
        #expect(result.text.contains("FAIL every run ends"))
    }

    @Test func aTerminalRowWithoutReasonIsACounterexampleWhenReached() throws {
        struct QuitModel: ExplorationModel {
            typealias Rules = CountingRules
            var inputLimit: Int { 4 }
            var boundDescription: String { "4 inputs" }
            func choices(at position: ExplorationPosition<CountingRules>) -> [ExplorationChoice<Signal>] {
                [.init(.quit, at: position.at), .init(.start, at: position.at), .init(.ok, at: position.at)]
            }
        }
        let result = TableExplorer(table: Self.broken, rules: CountingRules(), model: QuitModel()).explore()
        let missing = try #require(
            result.violations.first { $0.invariant == "every row that ends a run names its reason" }, "\(result.text)")
        #expect(missing.trace.steps.map(\.to) == [.gaveUp])
    }

    @Test func aRunThatStallsDoesNotEnd() throws {
        struct StartOnly: ExplorationModel {
            typealias Rules = CountingRules
            var inputLimit: Int { 4 }
            var boundDescription: String { "4 inputs" }
            func choices(at position: ExplorationPosition<CountingRules>) -> [ExplorationChoice<Signal>] {
                [.init(.start, at: position.at)]
            }
        }
        let result = TableExplorer(table: Self.broken, rules: CountingRules(), model: StartOnly()).explore()
        let stall = try #require(result.violations.first { $0.invariant == "every run ends" }, "\(result.text)")
        #expect(stall.message == "the run stalls in 'request': nothing the world delivers there has a row")
        #expect(stall.trace.steps.map(\.to) == [.request])
    }

    /// A user's step (issue 20) is verified by the same explorer: its verdict, its result and its
    /// bounded visits are all explored, and every row it adds is reached.
    @Test func aPolicyWithAUserStepIsExplored() throws {
        var policy = RetryPolicy(maxAttempts: 3, jitter: .none)
        let refresh = RetryStep("refresh credentials", maxVisits: 2) { _ in .done }
        policy.add(refresh)
        let result = RetryExploration.explore(policy: policy)
        let stepRows = policy.table.rows.indices.filter {
            let row = policy.table.rows[$0]
            return row.from == refresh.state || row.to == refresh.state
        }
        #expect(stepRows.count >= 3)
        #expect(Set(stepRows).isSubset(of: result.reachableRows), "\(result.text)")
        #expect(!result.violations.contains { $0.invariant == "every run ends" }, "\(result.text)")
        // Found by this explorer (issue 20): `step done` started an attempt without asking `attempts
        // left`, so with maxAttempts 3 a fourth attempt started (retry, then two refreshes). Its own
        // row now ends such a run, and no run starts an attempt past maxAttempts.
        #expect(result.holds, "\(result.text)")
        let exhausted = try #require(
            policy.table.rows.firstIndex {
                $0.from == refresh.state && $0.event == .stepExit(.done)
                    && $0.condition == .unless(.attemptsLeft)
            })
        #expect(policy.table.rows[exhausted].reason == .attemptsExhausted)
        #expect(result.reachableRows.contains(exhausted), "\(result.text)")
    }
}
