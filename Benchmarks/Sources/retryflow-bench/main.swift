import Foundation
import RetryFlow
import RetryFlowTesting

/// `retryflow-bench [--quick] [--json FILE] [NAMES...]`: every figure is a ratio against its
/// baseline measured in the same run, the median of several repetitions (machines here are shared).
let all = [
    "machine-step", "concurrent-flaky", "seed-design", "cli-startup", "success-overhead", "transport-paths",
    "connection-close", "render-in-process", "wait-precision", "budget-acquire", "retry-storm",
    "download-resume", "download-resume-large",
    "nginx-concurrency", "deadline-under-load", "download-nginx", "adaptive-throttle", "hedge-tail", "verify-scale",
    "classic-figures",
]
var arguments = Array(CommandLine.arguments.dropFirst())

if arguments.first == "__machine-steps", arguments.count == 2, let runs = Int(arguments[1]) {
    // Run under valgrind by the machine-step benchmark to count allocations.
    print(MachineStepBenchmark.machineRuns(runs))
    exit(0)
}
if arguments.first == "__validate", arguments.count == 3, ["cached", "fresh"].contains(arguments[1]),
    let count = Int(arguments[2])
{
    // The policy check every run makes, N times, synchronously: for callgrind (docs/benchmarks.md).
    try PolicyValidation.run(fresh: arguments[1] == "fresh", count: count)
    exit(0)
}
if arguments.first == "__requests", arguments.count == 3, let count = Int(arguments[2]) {
    // N sequential GETs one way, to profile that path alone (docs/benchmarks.md).
    try await TransportPaths.requests(arguments[1], count: count)
    exit(0)
}
if arguments.first == "__nginx", (3...5).contains(arguments.count), let count = Int(arguments[2]) {
    // GETs against nginx along several paths, interleaved: where data(for:retry:)'s cost goes.
    let numbers = arguments.dropFirst(3).map { Int($0) ?? 0 } + [1, 1]
    try await NginxPaths.run(arguments[1], count: count, inFlight: numbers[0], rounds: numbers[1])
    exit(0)
}
if arguments.first == "__serve", arguments.count == 2, let seconds = Int(arguments[1]) {
    // A FlakyServer answering 200 on /ok for `seconds`, to load it from another process (wrk).
    let server = try FlakyServer(scripts: ["/ok": [.status(200, body: "ok")]])
    FileHandle.standardOutput.write(Data((server.url("/ok").absoluteString + "\n").utf8))
    try await Task.sleep(for: .seconds(seconds))
    server.stop()
    exit(0)
}
if arguments.first == "__hang-server", arguments.count == 2, let seconds = Int(arguments[1]) {
    // The never-answering server of deadline-under-load, in a process of its own.
    try await DeadlineUnderLoad.serveHanging(seconds: seconds)
    exit(0)
}
if arguments.first == "__download-large", arguments.count == 4, let window = Int(arguments[1]),
    let size = Int(arguments[2]), let cut = Int(arguments[3]), size > 0, cut > 0
{
    // One large download in a fresh process, for the download-resume-large benchmark.
    print(try await DownloadBenchmark.largeRun(window: window, size: size, cut: cut))
    exit(0)
}
if arguments.contains("--help") || arguments.contains("-h") {
    print(
        "usage: retryflow-bench [--quick] [--json FILE] [--size MIB] [NAMES...]\n"
            + "benchmarks: \(all.joined(separator: " "))\n"
            + "--size: the body of download-resume-large, in MiB (default 1024)")
    exit(0)
}
var quick = false
var jsonPath: String?
var largeSize = 1 << 30
var names: [String] = []
while !arguments.isEmpty {
    let argument = arguments.removeFirst()
    switch argument {
    case "--quick": quick = true
    case "--json":
        guard !arguments.isEmpty else {
            FileHandle.standardError.write(Data("retryflow-bench: --json needs a file\n".utf8))
            exit(2)
        }
        jsonPath = arguments.removeFirst()
    case "--size":
        guard let mib = arguments.first.flatMap({ Int($0) }), mib > 0, mib <= 1 << 20 else {
            FileHandle.standardError.write(Data("retryflow-bench: --size needs a size in MiB (1 to 1048576)\n".utf8))
            exit(2)
        }
        arguments.removeFirst()
        largeSize = mib << 20
    default:
        guard all.contains(argument) else {
            FileHandle.standardError.write(
                Data("retryflow-bench: unknown benchmark \"\(argument)\" (use \(all.joined(separator: ", ")))\n".utf8))
            exit(2)
        }
        names.append(argument)
    }
}
if names.isEmpty { names = all }

var results: [BenchmarkResult] = []
for name in names {
    FileHandle.standardError.write(Data("running \(name)\(quick ? " (quick)" : "")…\n".utf8))
    do {
        switch name {
        case "machine-step": results += await MachineStepBenchmark.run(quick: quick)
        case "concurrent-flaky": results.append(try await HTTPBenchmarks.concurrentFlaky(quick: quick))
        case "seed-design": results.append(try await HTTPBenchmarks.seedDesign(quick: quick))
        case "cli-startup": results.append(try await HTTPBenchmarks.cliStartup(quick: quick))
        case "success-overhead": results.append(try await HTTPBenchmarks.successOverhead(quick: quick))
        case "transport-paths": results += try await TransportPaths.run(quick: quick)
        case "connection-close": results.append(try await ConnectionCloseBenchmark.run(quick: quick))
        case "hedge-tail": results += try await HedgeTailBenchmark.run(quick: quick)
        case "render-in-process": results.append(try await EngineBenchmarks.renderInProcess(quick: quick))
        case "wait-precision": results += try await EngineBenchmarks.waitPrecision(quick: quick)
        case "budget-acquire": results += try await FleetBenchmarks.budgetAcquire(quick: quick)
        case "retry-storm": results += try await FleetBenchmarks.retryStorm(quick: quick)
        case "download-resume": results += try await DownloadBenchmark.run(quick: quick)
        case "download-nginx": results += try await DownloadNginxBenchmark.run(quick: quick)
        case "adaptive-throttle": results += try await AdaptiveThrottleBenchmark.run(quick: quick)
        case "download-resume-large": results += try await DownloadBenchmark.runLarge(size: largeSize, quick: quick)
        case "nginx-concurrency": results += try await NginxConcurrency.run(quick: quick)
        case "verify-scale": results += try await VerifyScale.run(quick: quick)
        case "classic-figures": results += try await ClassicFiguresBenchmark.run(quick: quick)
        default: results += try await DeadlineUnderLoad.run(quick: quick)
        }
    } catch {
        results.append(
            BenchmarkResult(
                name: name, value: .nan, unit: "-", baseline: "-", baselineValue: nil, ratio: nil, goal: "-", met: nil,
                note: "failed: \(error)"))
    }
}

func format(_ value: Double?) -> String {
    guard let value, value.isFinite else { return "-" }
    return abs(value) >= 100 ? String(format: "%.0f", value) : String(format: "%.3g", value)
}
print("| name | value | unit | baseline | baseline value | ratio | goal | met | note |")
print("|---|---|---|---|---|---|---|---|---|")
for r in results {
    let met = r.met.map { $0 ? "yes" : "**no**" } ?? "-"
    print(
        "| \(r.name) | \(format(r.value)) | \(r.unit) | \(r.baseline) | \(format(r.baselineValue)) | \(format(r.ratio)) | \(r.goal) | \(met) | \(r.note ?? "") |"
    )
}
if let jsonPath {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    encoder.nonConformingFloatEncodingStrategy = .convertToString(
        positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    do {
        try encoder.encode(results).write(to: URL(fileURLWithPath: jsonPath))
    } catch {
        FileHandle.standardError.write(Data("retryflow-bench: cannot write \(jsonPath): \(error)\n".utf8))
        exit(1)
    }
}
