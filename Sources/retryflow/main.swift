import Foundation
import RetryFlow

/// `retryflow`: render charts, fetch with retries, simulate policies, run the demo.
let usage = """
    usage: retryflow <command> [options]

    commands:
      render     draw the retry machine (DOT, Mermaid, SVG, PNG, PDF …), optionally with a run over it
      fetch      fetch a URL with retries: a better curl --retry
      simulate   run a policy against scripted outcomes on a virtual clock, instantly
      demo       live retries against an in-process flaky server, with traces and charts

    'retryflow <command> --help' tells more. Exit status: 0 success, 1 the operation failed,
    2 bad usage or bad input.
    """

let arguments = Array(CommandLine.arguments.dropFirst())
let status: Int32
do {
    switch arguments.first {
    case nil, "-h", "--help", "help":
        Console.output(usage + "\n")
        status = arguments.isEmpty ? 2 : 0
    case "render": status = try RenderCommand.run(Array(arguments.dropFirst()))
    case "fetch": status = try await FetchCommand.run(Array(arguments.dropFirst()))
    case "simulate": status = try await SimulateCommand.run(Array(arguments.dropFirst()))
    case "demo": status = try await DemoCommand.run(Array(arguments.dropFirst()))
    case let other?:
        throw UsageError("unknown command \"\(other)\" (use render, fetch, simulate or demo)")
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
