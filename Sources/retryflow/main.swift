import Foundation
import RetryFlow

/// `retryflow`: render charts, fetch with retries, simulate policies, run the demo.
let usage = """
    usage: retryflow <command> [options]

    commands:
      render     draw the retry machine (DOT, Mermaid, SVG, PNG, PDF …), optionally with a run over it
      check-chart compare a chart drawn by hand (DOT or Mermaid) with a machine's table, disagreement by disagreement
      verify     explore a machine exhaustively: invariants, reachable rows, counterexamples
      fetch      fetch a URL with retries: a better curl --retry
      simulate   run a policy against scripted outcomes on a virtual clock, instantly
      teach      regenerate the classic retry figures (AWS 2015, Brooker 2022, SRE book) as CSV and SVG
      demo       live retries against an in-process flaky server, with traces and charts
      completion print a shell completion script (bash or zsh)

    'retryflow <command> --help' tells more; 'retryflow help --man' prints the man page.
    Exit status: 0 success, 1 the operation failed, 2 bad usage or bad input.
    """

var arguments = Array(CommandLine.arguments.dropFirst())
let commands = ["render", "check-chart", "verify", "fetch", "simulate", "teach", "demo", "completion"]
// `retryflow help fetch` is `retryflow fetch --help`.
if arguments.count == 2, arguments[0] == "help", commands.contains(arguments[1]) {
    arguments = [arguments[1], "--help"]
}
let status: Int32
do {
    switch arguments.first {
    case "help" where arguments == ["help", "--man"]:
        Console.output(ManPage.render(usage: usage))
        status = 0
    case "help" where arguments.count > 1:
        throw UsageError(
            "help takes --man or a command (\(commands.joined(separator: ", "))), got \"\(arguments[1...].joined(separator: " "))\""
        )
    case nil, "-h", "--help", "help":
        Console.output(usage + "\n")
        status = arguments.isEmpty ? 2 : 0
    case "completion": status = try CompletionCommand.run(Array(arguments.dropFirst()))
    case "render": status = try RenderCommand.run(Array(arguments.dropFirst()))
    case "check-chart": status = try CheckChartCommand.run(Array(arguments.dropFirst()))
    case "verify": status = try VerifyCommand.run(Array(arguments.dropFirst()))
    case "fetch": status = try await FetchCommand.run(Array(arguments.dropFirst()))
    case "simulate": status = try await SimulateCommand.run(Array(arguments.dropFirst()))
    case "teach": status = try await TeachCommand.run(Array(arguments.dropFirst()))
    case "demo": status = try await DemoCommand.run(Array(arguments.dropFirst()))
    case let other?:
        throw UsageError(
            "unknown command \"\(other)\" (use render, check-chart, verify, fetch, simulate, teach, demo or completion)"
        )
    }
} catch let error as UsageError {
    Console.error("retryflow: \(error)")
    status = 2
} catch let error as OperationFailed {
    Console.error("retryflow: \(error)")
    status = 1
} catch let error as RetryPolicyError {
    Console.error("retryflow: \(error)")
    status = 2
} catch {
    Console.error("retryflow: \(error)")
    status = 1
}
exit(status)
