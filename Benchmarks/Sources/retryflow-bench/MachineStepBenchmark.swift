import Foundation
import RetryFlow

/// `machine-step`: one transition of the machine core every shipped table runs on (`TableMachine`:
/// lookup, guards, effects, completion rows), over simulated retry runs. The retry machine's rules
/// are package API, so this steps a table of its own, a retry loop as a user would write one, through
/// public API only. Also heap allocations per step, counted by valgrind over two run counts (the
/// difference cancels start-up allocations). The goal is what a step may cost, not a ratio to a copy.
enum MachineStepBenchmark {
    enum LoopState: String, TableSymbol { case idle, request, decide, wait, done, failed }
    enum LoopEvent: String, TableSymbol, MachineInput {
        case start, succeeded, failed
        case delayElapsed = "delay elapsed"
        var event: Self { self }
    }
    enum LoopGuard: String, TableSymbol {
        case attemptsLeft = "attempts left"
        var negatedLabel: String { "no attempts left" }
        /// Attempts only grow along the retry loop, so it ends.
        var boundsLoops: Bool { true }
    }
    enum LoopEffect: String, TableSymbol {
        case startAttempt = "start attempt"
        case planDelay = "plan delay"
    }
    enum LoopEnd: String, TableSymbol { case succeeded, exhausted }
    typealias LoopWords = TableWords<LoopState, LoopEvent, LoopGuard, LoopEffect, LoopEnd>

    /// The loop: start an attempt; on success done; on failure decide: wait and try again while
    /// attempts are left, else fail (the decision's last row is unconditional).
    static let table = TransitionTable<LoopWords>(
        name: "user retry loop", initial: .idle, terminals: [.done, .failed],
        rows: [
            // event, from, guard, to, do (effects), ends (reason)
            .on(.start, from: .idle, to: .request, do: .startAttempt),
            .on(.succeeded, from: .request, to: .done, ends: .succeeded),
            .on(.failed, from: .request, to: .decide),
            .completion(from: .decide, .when(.attemptsLeft), to: .wait, do: .planDelay),
            .completion(from: .decide, to: .failed, ends: .exhausted),
            .on(.delayElapsed, from: .wait, to: .request, do: .startAttempt),
        ])

    /// What the driver must do.
    enum LoopAction: Sendable {
        case send(attempt: Int)
        case sleep(Duration)
    }

    /// The loop's facts: attempts started, and the wait planned (exponential from 100 ms, capped at
    /// 2 s, full jitter from a seeded generator).
    struct LoopRules: MachineRules {
        typealias Vocabulary = LoopWords
        let maxAttempts: Int
        var random: SeededRandom
        var attempts = 0
        var plannedDelay = Duration.zero

        mutating func receive(_ input: LoopEvent, at time: Duration) {}

        func holds(_ guardSymbol: LoopGuard) -> Bool { attempts < maxAttempts }

        mutating func perform(_ effect: LoopEffect, of row: Row) -> LoopAction? {
            switch effect {
            case .startAttempt:
                attempts += 1
                return .send(attempt: attempts)
            case .planDelay:
                let cap = min(Duration.milliseconds(100) * (1 << min(attempts - 1, 16)), .seconds(2))
                plannedDelay = cap * Double.random(in: 0..<1, using: &random)
                return .sleep(plannedDelay)
            }
        }

        func traced(_ row: Row) -> (attempt: Int, delay: Duration?) {
            (attempts, row.to == .wait ? plannedDelay : nil)
        }
    }

    /// Checks the table once, before any run (a table that validates runs).
    static let validated: Void = {
        do { try table.validate() } catch { preconditionFailure("\(error)") }
    }()

    /// Simulated runs of 5 attempts: run `i` fails `i % 6` times, then succeeds (5 failures: the
    /// attempts run out). Returns the steps taken: rows, so a failure (its row and the decision's
    /// completion row) counts two.
    @inline(never)
    static func machineRuns(_ runs: Int) -> Int {
        _ = validated
        var steps = 0
        var random = SeededRandom(seed: 42)
        for run in 0..<runs {
            var machine = TableMachine(table: table, rules: LoopRules(maxAttempts: 5, random: random))
            let failures = run % 6
            var now = Duration.zero
            var failed = 0
            _ = try! machine.handle(.start, at: now)
            steps += 1
            while !machine.isFinished {
                switch machine.state {
                case .request where failed < failures:
                    failed += 1
                    _ = try! machine.handle(.failed, at: now)
                    steps += 2
                case .request:
                    _ = try! machine.handle(.succeeded, at: now)
                    steps += 1
                default:
                    // The wait just planned, read from the rules (the step's `actions` would build an
                    // array, counted here as an allocation per step).
                    now += machine.rules.plannedDelay
                    _ = try! machine.handle(.delayElapsed, at: now)
                    steps += 1
                }
            }
            random = SeededRandom(seed: UInt64(run))
        }
        return steps
    }

    static func run(quick: Bool) async -> [BenchmarkResult] {
        let runs = quick ? 2_000 : 1_000_000
        var machineTimes: [Double] = []
        var checksum = 0
        for _ in 0..<(quick ? 3 : 11) {
            machineTimes.append(Measure.blockingSeconds { checksum &+= machineRuns(runs) })
        }
        let machineSteps = machineRuns(runs)
        let perStep = Measure.median(machineTimes) / Double(machineSteps) * 1e9
        return [
            BenchmarkResult(
                name: "machine-step", value: perStep, unit: "ns/step", baseline: "-", baselineValue: nil, ratio: nil,
                goal: "<= 1000 ns/step", met: perStep <= 1000,
                note:
                    "TableMachine with a user's retry-loop table (the retry machine's rules are package API): "
                    + "median of \(machineTimes.count) runs of \(runs) simulated runs (\(machineSteps) rows taken; "
                    + "checksum \(checksum % 1000))"
            ),
            // Quick (a smoke run, often a debug build under valgrind): fewer runs.
            await allocations(
                name: "machine-step-allocations", arguments: ["__machine-steps"], small: quick ? 100 : 1_000,
                large: quick ? 600 : 11_000, steps: machineRuns),
        ]
    }

    /// Heap allocations per step of `name`, from valgrind's "total heap usage" of this tool run with
    /// `arguments` and a count (`small`, then `large`): the difference cancels start-up allocations;
    /// `steps` gives the steps a count takes.
    static func allocations(
        name: String, arguments: [String], small: Int, large: Int, steps: (Int) -> Int
    ) async -> BenchmarkResult {
        func skipped(_ why: String) -> BenchmarkResult {
            BenchmarkResult(
                name: name, value: .nan, unit: "allocs/step", baseline: "-", baselineValue: nil,
                ratio: nil,
                goal: "0", met: nil, note: why)
        }
        guard let valgrind = Measure.which("valgrind") else { return skipped("skipped: valgrind not installed") }
        let me = CommandLine.arguments[0]
        func allocs(_ runs: Int) async -> Double? {
            let log = FileManager.default.temporaryDirectory.appendingPathComponent(
                "retryflow-bench-\(runs)-\(UUID().uuidString).log")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            defer { try? FileManager.default.removeItem(at: log) }
            guard
                (try? await Measure.run(
                    valgrind, ["--tool=memcheck", "--leak-check=no", me] + arguments + ["\(runs)"], output: log))
                    != nil,
                let text = try? String(contentsOf: log, encoding: .utf8),
                let line = text.split(separator: "\n").first(where: { $0.contains("total heap usage") })
            else { return nil }
            // "total heap usage: 1,234 allocs, 1,200 frees, 56,789 bytes allocated"
            let words = line.split(separator: " ")
            guard let index = words.firstIndex(of: "allocs,"), index > 0 else { return nil }
            return Double(words[index - 1].replacingOccurrences(of: ",", with: ""))
        }
        guard let a = await allocs(small), let b = await allocs(large) else { return skipped("valgrind run failed") }
        let perStep = (b - a) / Double(steps(large) - steps(small))
        return BenchmarkResult(
            name: name, value: perStep, unit: "allocs/step", baseline: "-", baselineValue: nil,
            ratio: nil, goal: "0", met: perStep < 0.001,
            note: "valgrind: \(Int(a)) allocs for \(small) runs, \(Int(b)) for \(large) runs")
    }
}
