import BenchSupport
import Foundation
import RetryFlowTesting

/// One benchmark's figure, with its baseline measured in the same run.
struct BenchmarkResult: Encodable {
    let name: String
    let value: Double
    let unit: String
    let baseline: String
    let baselineValue: Double?
    let ratio: Double?
    let goal: String
    let met: Bool?
    var note: String? = nil

    enum CodingKeys: String, CodingKey {
        case name, value, unit, baseline, goal, met, ratio, note
        case baselineValue = "baseline_value"
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(value, forKey: .value)
        try c.encode(unit, forKey: .unit)
        try c.encode(baseline, forKey: .baseline)
        try c.encode(baselineValue, forKey: .baselineValue)
        try c.encode(ratio, forKey: .ratio)
        try c.encode(goal, forKey: .goal)
        try c.encode(met, forKey: .met)
        try c.encodeIfPresent(note, forKey: .note)
    }
}

/// Timing and memory helpers: medians of repetitions, wall time, resident memory.
enum Measure {
    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted.count.isMultiple(of: 2)
            ? (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2 : sorted[sorted.count / 2]
    }

    static func blockingSeconds(_ body: () throws -> Void) rethrows -> Double {
        let start = ContinuousClock.now
        try body()
        return start.duration(to: .now).inSecondsValue
    }

    static func seconds(_ body: () async throws -> Void) async rethrows -> Double {
        let start = ContinuousClock.now
        try await body()
        return start.duration(to: .now).inSecondsValue
    }

    /// Resident set size of this process, in bytes (Linux /proc; 0 elsewhere).
    static func residentBytes() -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return kilobytes * 1024
    }

    /// Resets the process's peak resident size (VmHWM) to its current size (Linux: clear_refs 5),
    /// so ``peakResidentBytes()`` measures one phase.
    static func resetPeakResident() {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }

    /// Peak resident set size of this process since start or the last reset, in bytes (0 elsewhere).
    static func peakResidentBytes() -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return kilobytes * 1024
    }

    /// Runs a program and waits for it: a ``ChildProcess`` (Foundation's `Process.run()` crashes now
    /// and then in a process with many sockets open), with standard output and error in `output`.
    static func run(_ executable: String, _ arguments: [String], output: URL? = nil) async throws -> (
        status: Int32, seconds: Double
    ) {
        let start = ContinuousClock.now
        let child = try ChildProcess.spawn(
            executable, arguments, output: output.map { .file($0.path) } ?? .null,
            error: output == nil ? .null : .standardOutput)
        let status = await child.exitStatus()
        return (status, start.duration(to: .now).inSecondsValue)
    }

    /// `bytes` in the largest decimal unit that keeps it at 1 or more, with at most one decimal.
    static func bytes(_ bytes: Int) -> String {
        let units = ["B", "kB", "MB", "GB", "TB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        if unit == 0 { return "\(bytes) B" }
        let rounded = (value * 10).rounded() / 10
        let text = rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
        return "\(text) \(units[unit])"
    }

    /// The full path of `name` on PATH, if any.
    static func which(_ name: String) -> String? {
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let path = "\(folder)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }
}

extension Duration {
    var inSecondsValue: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}
