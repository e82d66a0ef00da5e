import Foundation
import Testing

/// Bad usage and bad input: exit status 2, a message naming the problem, never a crash.
@Suite struct BadInputTests {
    static let cases: [(arguments: [String], message: String)] = [
        ([], "usage: retryflow"),
        (["frobnicate"], "unknown command \"frobnicate\""),
        (["help", "--bogus"], "help takes --man or a command"),
        (["help", "--man", "extra"], "help takes --man or a command"),
        (["fetch"], "fetch needs a URL"),
        (["fetch", "http://127.0.0.1:9/", "--bogus"], "unknown option --bogus"),
        (["fetch", "http://127.0.0.1:9/", "--delay"], "option --delay needs a value"),
        (["fetch", "http://127.0.0.1:9/", "--delay", "-1"], "--delay must not be negative"),
        (["fetch", "http://127.0.0.1:9/", "--delay", "nan"], "--delay needs a number of seconds, got \"nan\""),
        (["fetch", "http://127.0.0.1:9/", "--timeout", "inf"], "--timeout needs a number of seconds"),
        (["fetch", "http://127.0.0.1:9/", "--attempts", "0"], "--attempts must be from 1"),
        (["fetch", "http://127.0.0.1:9/", "--attempts", "three"], "--attempts needs a whole number, got \"three\""),
        (["fetch", "http://127.0.0.1:9/", "--attempts", "2", "--retry", "1"], "not both"),
        (["fetch", "not a url"], "bad URL \"not a url\""),
        (["fetch", "ftp://127.0.0.1/x"], "bad URL \"ftp://127.0.0.1/x\""),
        (["fetch", "http://127.0.0.1:9/", "-H", "NoColon"], "bad header: -H without a colon (7 characters, not shown"),
        (["fetch", "http://127.0.0.1:9/", "-H", "Bad Name: x"], "is not a header name"),
        (
            ["fetch", "http://127.0.0.1:9/", "--jitter", "wild"],
            "--jitter must be one of none, full, equal, decorrelated"
        ),
        (
            ["fetch", "http://127.0.0.1:9/", "--backoff", "fibonacci"],
            "--backoff must be one of constant, linear, exponential"
        ),
        (["fetch", "http://127.0.0.1:9/", "--jitter", "symmetric:150"], "symmetric:P with P from 0 to 100"),
        (["fetch", "http://127.0.0.1:9/", "--schedule", "1,x,5"], "--schedule: \"x\" is not a number of seconds"),
        (["fetch", "http://127.0.0.1:9/", "--schedule", "1,2", "--delay", "3"], "--schedule lists every delay"),
        (["fetch", "http://127.0.0.1:9/", "--retry-on-status", "503,abc"], "\"abc\" is not a status"),
        (
            ["fetch", "http://127.0.0.1:9/", "-o", "/nonexistent-folder/out"],
            "folder /nonexistent-folder does not exist"
        ),
        (["fetch", "http://127.0.0.1:9/", "--policy", "/nonexistent.json"], "--policy /nonexistent.json: cannot read"),
        (["fetch", "http://127.0.0.1:9/", "--trace-chart", "/tmp/chart.txt"], "use a .svg, .png, .pdf or .dot"),
        (
            ["fetch", "http://127.0.0.1:9/", "--multiplier", "2", "--backoff", "linear"],
            "--multiplier goes with --backoff exponential"
        ),
        (["render", "--style", "cubist"], "--style must be one of state, flowchart"),
        (["render", "--format", "nonsense"], "unknown --format \"nonsense\""),
        // Found by the cli-arguments fuzzer (it leaked inside Graphviz's plugin list, see Fuzz/lsan.supp).
        (["render", "--format", "mer@maid"], "unknown --format \"mer@maid\""),
        (["render", "--trace", "/nonexistent.json"], "--trace /nonexistent.json: cannot read"),
        (["render", "--format", "mermaid", "--trace", "/etc/hostname"], "not a RetryFlow trace"),
        (["render", "extra"], "render takes no arguments"),
        (["simulate"], "simulate needs --outcomes"),
        (["render", "--machine", "toaster"], "--machine must be one of retry, budget, breaker"),
        (["render", "--machine", "budget", "--trace", "/etc/hostname"], "not a RetryFlow trace of the budget machine"),
        (["simulate", "--clients", "0"], "--clients must be from 1 to 10000"),
        (["simulate", "--clients", "5", "--budget", "lavish"], "--budget must be none, aws, aws:CAPACITY, grpc"),
        (["simulate", "--clients", "5", "--budget", "grpc:0:0.1"], "budget.maxTokens must be more than 0"),
        (["simulate", "--clients", "5", "--breaker", "consecutive:x"], "--breaker consecutive:N needs a whole number"),
        (["simulate", "--clients", "5", "--outage", "9-3"], "--outage needs FROM-TO in seconds"),
        (["simulate", "--clients", "5", "--outcomes", "503"], "--outcomes does not go with --clients"),
        (["simulate", "--clients", "5", "--chart", "/tmp/x.png"], "--chart writes SVG"),
        (["simulate", "--outcomes", ""], "--outcomes is empty"),
        (["simulate", "--outcomes", "503,teapot"], "unknown \"teapot\""),
        (["simulate", "--outcomes", "999"], "status 999 is not 100-599"),
        (["simulate", "--outcomes", "reset:retry-after=2"], "retry-after goes with a status"),
        (["simulate", "--outcomes", "200:after=-1"], "after=-1 is not a number of seconds"),
        (["simulate", "--outcomes", "200,,503"], "empty outcome in the list"),
        (["simulate", "--outcomes", "hang"], "\"hang\" outcome needs --timeout or --deadline"),
        (["simulate", "--outcomes", "200", "--seed", "-4"], "--seed needs a whole number"),
        (["teach", "jitter"], "teach: unknown figure \"jitter\" (use contention, load, throttling, all)"),
        (["teach", "contention", "load"], "teach takes one figure, got \"contention load\""),
        (["teach", "--runs", "0"], "--runs must be from 1 to 10000, got 0"),
        (["teach", "--runs", "many"], "--runs needs a whole number, got \"many\""),
        (["teach", "--seed", "-1"], "--seed needs a whole number from 0, got \"-1\""),
        (["teach", "--output", "/nonexistent-folder/figures"], "folder /nonexistent-folder does not exist"),
        (["teach", "--output", "/etc/hostname"], "--output /etc/hostname: is not a folder"),
        (["teach", "--bogus"], "unknown option --bogus"),
        (["demo", "extra"], "demo takes no arguments"),
    ]

    @Test(arguments: cases.indices)
    func exitsTwoNamingTheProblem(index: Int) async throws {
        let (arguments, message) = Self.cases[index]
        let result = try await Tool.run(arguments)
        #expect(result.status == 2, "\(arguments): status \(result.status), stderr \(result.stderr)")
        #expect((result.stderr + result.stdout).contains(message), "\(arguments): \(result.stderr)")
        #expect(!result.stderr.contains("Fatal error"), "crashed: \(result.stderr)")
    }

    @Test func badPolicyFileIsNamed() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("policy-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(#"{"maxAttempts": 0}"#.utf8).write(to: file)
        let result = try await Tool.run(["fetch", "http://127.0.0.1:9/", "--policy", file.path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("maxAttempts must be at least 1"))
        try Data(#"{"maxAttempts": 2, "backoff": {"kind": "constant", "delay": 0.01}, "jitter": "none"}"#.utf8).write(
            to: file)
        let simulated = try await Tool.run(["simulate", "--outcomes", "503", "--policy", file.path])
        #expect(simulated.status == 0)
        #expect(simulated.stdout.contains("wait 10 ms"))
    }

    /// A trace whose times no run can reach (`at` 1e12 or 1e300 s) used to trap on `Int64(x * 1e9)`.
    @Test(arguments: ["1e12", "1e300", "-1"])
    func traceWithAbsurdTimesIsBadInputNotACrash(at: String) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("trace-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let step = #"{"from": "idle", "event": "start", "guard": null, "to": "request", "attempt": 1, "delay": null, "#
        try Data((#"{"steps": ["# + step + #""at": "# + at + "}]}").utf8).write(to: file)
        let result = try await Tool.run(["render", "--trace", file.path])
        #expect(result.status == 2, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("not a RetryFlow trace"), "\(result.stderr)")
        #expect(result.stderr.contains("is not a number of seconds a run can take"), "\(result.stderr)")
    }

    @Test func helpForEveryCommand() async throws {
        for command in ["render", "check-chart", "verify", "fetch", "simulate", "teach", "demo"] {
            let result = try await Tool.run([command, "--help"])
            #expect(result.status == 0)
            #expect(result.stdout.hasPrefix("usage: retryflow \(command)"))
        }
        let top = try await Tool.run(["--help"])
        #expect(top.status == 0)
        #expect(top.stdout.contains("simulate"))
    }
}
