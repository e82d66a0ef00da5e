/// Every subcommand with its option table and help text: the one source for `--help`, the shell
/// completions and the man page, so they cannot drift apart.
enum CommandCatalog {
    struct Command {
        let name: String
        let summary: String
        let specs: [OptionSpec]
        let help: String
    }

    static let commands: [Command] = [
        Command(
            name: "render",
            summary: "draw the retry machine (DOT, Mermaid, SVG, PNG, PDF …), optionally with a run over it",
            specs: RenderCommand.specs, help: RenderCommand.help),
        Command(
            name: "check-chart",
            summary: "compare a chart drawn by hand (DOT or Mermaid) with a machine's table, disagreement by "
                + "disagreement",
            specs: CheckChartCommand.specs, help: CheckChartCommand.help),
        Command(
            name: "verify", summary: "explore a machine exhaustively: invariants, reachable rows, counterexamples",
            specs: VerifyCommand.specs, help: VerifyCommand.help),
        Command(
            name: "fetch", summary: "fetch a URL with retries: a better curl --retry", specs: FetchCommand.specs,
            help: FetchCommand.help),
        Command(
            name: "simulate", summary: "run a policy against scripted outcomes on a virtual clock, instantly",
            specs: SimulateCommand.specs, help: SimulateCommand.help),
        Command(
            name: "teach",
            summary: "regenerate the classic retry figures (AWS 2015, Brooker 2022, SRE book) as CSV and SVG",
            specs: TeachCommand.specs, help: TeachCommand.help),
        Command(
            name: "demo", summary: "live retries against an in-process flaky server, with traces and charts",
            specs: DemoCommand.specs, help: DemoCommand.help),
        Command(
            name: "completion", summary: "print a shell completion script (bash or zsh)",
            specs: CompletionCommand.specs,
            help: CompletionCommand.help),
    ]

    /// The spellings a shell should offer for `command`: refused and unsupported flags left out.
    static func offeredOptions(of command: Command) -> [String] {
        command.specs.filter { $0.refusal == nil }.flatMap(\.names)
    }
}
