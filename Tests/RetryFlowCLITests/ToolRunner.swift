import Foundation
import RetryFlowTesting
import Testing

/// Runs the built `retryflow` binary as a child process and collects what it printed.
struct ToolResult {
    var status: Int32
    var stdout: String
    var stderr: String
    var elapsed: Duration
}

enum Tool {
    /// The `retryflow` built beside this test bundle.
    static let binary: URL = {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent("retryflow")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: ".build/debug/retryflow")
    }()

    static func run(
        _ arguments: [String], environment: [String: String] = [:], executable: URL = binary, in directory: URL? = nil
    ) async throws -> ToolResult {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("retryflow-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("stdout")
        let err = folder.appendingPathComponent("stderr")
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = "1"
        for (key, value) in environment { env[key] = value }
        let started = ContinuousClock.now
        // A ChildProcess, not Foundation's Process, whose run() crashes now and then in a process
        // with this many sockets open (see ChildProcess).
        let child = try ChildProcess.spawn(
            executable.path, arguments, environment: env, directory: directory?.path,
            output: .file(out.path), error: .file(err.path))
        let status = await child.exitStatus()
        let elapsed = started.duration(to: .now)
        let result = ToolResult(
            status: status, stdout: try String(contentsOf: out, encoding: .utf8),
            stderr: try String(contentsOf: err, encoding: .utf8),
            elapsed: elapsed)
        reportSanitizerFindings(in: result.stderr, arguments: arguments)
        return result
    }

    /// What sanitizers print when they find something (TSan, ASan, UBSan, LSan).
    static let sanitizerMarkers = [
        "WARNING: ThreadSanitizer", "ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:",
        "SUMMARY: ThreadSanitizer", "SUMMARY: AddressSanitizer", "SUMMARY: UndefinedBehaviorSanitizer",
    ]

    /// Under `make test-tsan` the child `retryflow` is sanitized too; its reports land in the
    /// stderr captured here, which most tests only search for a message. A report fails the test
    /// and is printed whole, instead of being swallowed.
    static func reportSanitizerFindings(in stderr: String, arguments: [String]) {
        guard sanitizerMarkers.contains(where: { stderr.contains($0) }) else { return }
        FileHandle.standardError.write(
            Data("retryflow \(arguments.joined(separator: " ")): sanitizer report:\n\(stderr)\n".utf8))
        Issue.record("sanitizer report from the child retryflow \(arguments.joined(separator: " ")):\n\(stderr)")
    }
}
