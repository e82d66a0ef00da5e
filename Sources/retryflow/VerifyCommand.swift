import Foundation
import RetryFlow

/// `retryflow verify`: explores a machine exhaustively up to a bound, checks its invariants, prints
/// coverage (each row reachable or not, with the shortest run reaching it), and writes the first
/// counterexample as a trace file `render --trace` and `--report` draw.
enum VerifyCommand {
    static let specs =
        [OptionSpec("--machine"), OptionSpec("--counterexample"), OptionSpec("-h", "--help", value: false)]
        + ExplorationOptions.specs

    static var help: String {
        """
        usage: retryflow verify [--machine NAME] [--policy FILE.json] [--max-attempts N] [--counterexample FILE.json]

        Runs the pure machine on every input sequence its world allows (events, with the payloads and times
        that decide its guards) up to the bound, positions deduplicated, and checks: every run ends,
        cancellation is always terminal, a run ends exactly once and every row ending it names its reason,
        and the machine's own (attempts ≤ maxAttempts, no planned wait crosses the deadline, a budget never
        goes negative, at most one half-open probe, no 206 appended that does not continue the file).
        Prints the bound, the states explored, each invariant, and every row: reachable (with the shortest
        input sequence reaching it) or unreachable under this policy.
          --machine NAME           \(MachineRegistry.names.joined(separator: ", ")) (default retry)
        \(ExplorationOptions.help)
          --counterexample FILE    where to write a broken invariant's run (default NAME-counterexample.json)
        Exit status: 0 every invariant holds, 1 one broke (its run is printed and written), 2 bad usage.
        """
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        guard let args = try CommandLineArguments.forCommand(arguments, specs: specs, command: "verify", help: help)
        else { return 0 }
        let machine = try MachineRegistry.chosen(args)
        let path = args.value("--counterexample") ?? "\(machine.name)-counterexample.json"
        let (text, holds, counterexample) = try machine.verify(args)
        Console.output(text)
        guard let counterexample else { return holds ? 0 : 1 }
        try AtomicFile.checkWritable(path, option: "--counterexample")
        try AtomicFile.write(counterexample, to: path)
        var line =
            "counterexample written to \(path) (draw it: retryflow render --machine \(machine.name) --trace \(path)"
        if machine.name == "retry" {
            // The same policy flags, so the replay runs the policy that was explored.
            let flags = ["--policy", "--max-attempts", "--when-open"].compactMap { option in
                args.value(option).map { "\(option) \($0)" }
            }
            line += "; replay it: " + (["retryflow simulate --replay \(path)"] + flags).joined(separator: " ")
        }
        Console.output(line + ")\n")
        return 1
    }
}
