import Foundation
import RetryFlow

/// `machine-step`: one transition of the pure machine (lookup + guards + effects), over simulated
/// runs. Also heap allocations per step, counted by valgrind over two run counts (the difference
/// cancels start-up allocations). No hand-written twin of the retry rules: the table is the only
/// statement of them, so the goal is what a step may cost, not a ratio to a copy.
enum MachineStepBenchmark {
    static let policy = RetryPolicy(maxAttempts: 5, deadline: .seconds(60))

    /// Simulated runs: run `i` fails `i % 4` times, then succeeds. Returns the steps taken.
    @inline(never)
    static func machineRuns(_ runs: Int) -> Int {
        var steps = 0
        var random = SeededRandom(seed: 42)
        for run in 0..<runs {
            var machine = RetryMachine(policy: policy, random: random)
            let failures = run % 4
            var now = Duration.zero
            _ = try! machine.handle(.start, at: now)
            // No limiter and no breaker: the driver answers `ask limiter` and `ask breaker` at once.
            _ = try! machine.handle(.tokenGranted, at: now)
            _ = try! machine.handle(.admitted, at: now)
            steps += 3
            var failed = 0
            while !machine.isFinished {
                if failed < failures {
                    failed += 1
                    _ = try! machine.handle(.failed(.retry, detail: nil), at: now)
                    steps += 2 // the event's row, then the retry decision's completion row
                    // No budget: the driver answers at once; the admission decision then plans the wait.
                    _ = try! machine.handle(.budgetAnswered(granted: true, detail: nil), at: now)
                    steps += 2
                    if machine.state == .wait {
                        // The wait just planned, read from the machine's public state: the step's
                        // actions are the engine's business (their public view may be an array, whose
                        // making would count here as an allocation per step).
                        now += machine.previousDelay ?? .zero
                        _ = try! machine.handle(.delayElapsed, at: now)
                        steps += 1
                    }
                    _ = try! machine.handle(.tokenGranted, at: now)
                    _ = try! machine.handle(.admitted, at: now)
                    steps += 2
                } else {
                    _ = try! machine.handle(.succeeded, at: now)
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
                    "median of \(machineTimes.count) runs of \(runs) simulated retry runs (\(machineSteps) steps; checksum \(checksum % 1000))"
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
