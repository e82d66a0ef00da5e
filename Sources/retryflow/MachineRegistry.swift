import Foundation
import RetryFlow
import RetryFlowCharts
import RetryFlowHTTP
import RetryFlowSnippets

/// One machine the tool knows: how `render` draws it, how `check-chart` compares a drawing with it,
/// and how `verify` explores it. Made from its table by ``MachineRegistry/entry(_:_:_:caption:verify:)``,
/// so a new machine (the adaptive rate limiter, a user's table) is one line in ``MachineRegistry/all``.
struct MachineEntry {
    /// Its `--machine` name.
    let name: String
    /// What it is, for the help texts.
    let summary: String
    /// `render --machine NAME`.
    let render: (CommandLineArguments) throws -> Int32
    /// Its chart in a style, as DOT (what `render` writes).
    let chart: (ChartStyle) -> String
    /// A drawing compared with its table under `--map` (when given, else a correspondence found from
    /// the structure).
    let check: (DrawnChart, String?) throws(ChartMapError) -> ChartCheckOutcome
    /// The table's name, as findings name it.
    let tableName: String
    /// `verify --machine NAME`: the report, whether every invariant held, and the first
    /// counterexample as a trace file's JSON.
    let verify: (CommandLineArguments) throws -> (text: String, holds: Bool, counterexample: Data?)
}

/// Every machine `render`, `check-chart` and `verify` take, in the order the help lists them.
enum MachineRegistry {
    static var all: [MachineEntry] {
        [
            entry("retry", "the retry machine (default)", RetryTable.retry) { args in
                let (policy, world) = try ExplorationOptions.retry(args)
                return RetryExploration.explore(policy: policy, world: world)
            },
            entry("budget", "the shared retry budget", BudgetTable.budget) { args in
                let mode = try args.value("--budget").flatMap { text throws(UsageError) in try FleetOptions.budget(text)
                }
                let inputs = try ExplorationOptions.bound(args, default: 8)
                return mode.map { FleetExploration.budget(mode: $0, inputs: inputs) }
                    ?? FleetExploration.budget(inputs: inputs)
            },
            entry("breaker", "the circuit breaker", BreakerTable.breaker) { args in
                FleetExploration.breaker(inputs: try ExplorationOptions.bound(args, default: 6))
            },
            entry("adaptive", "the adaptive rate limiter", AdaptiveTable.adaptive) { args in
                // Twelve choices an input (three events at four instants): 6 inputs is ~3 million paths.
                FleetExploration.adaptive(inputs: try args.integer("--max-attempts", in: 1...6) ?? 4)
            },
            entry("hedge", "hedging: one winner, every loser cancelled and awaited", HedgingTable.hedging) { args in
                HedgingExploration.explore(
                    maxAttempts: try args.integer("--max-attempts", in: 1...HedgingPolicy.attemptLimit) ?? 3)
            },
            entry(
                "credential", "a shared credential's refresh (one at a time, a window)",
                CredentialTable.credentialRefresh
            ) { args in
                CredentialExploration.explore(inputs: try args.integer("--max-attempts", in: 1...7) ?? 5)
            },
            entry(
                "transfer", "what a download does with its bytes", TransferTable.transfer,
                caption: { $0.resumeSummary }
            ) { args in
                TransferExploration.explore(attempts: try ExplorationOptions.bound(args, default: 3))
            },
            entry("swift-snippet", "the original Swift snippet, retold as a table", TransitionTable.swiftSnippet) {
                args in
                SnippetExploration.swift(times: try ExplorationOptions.bound(args, default: 3) - 1)
            },
            entry("objc-snippet", "the original Objective-C snippet, retold as a table", TransitionTable.objcSnippet) {
                args in
                SnippetExploration.objc(retryCount: try ExplorationOptions.bound(args, default: 3) - 1)
            },
        ]
    }

    /// The `--machine` names.
    static var names: [String] { all.map(\.name) }

    /// The machine named `name`.
    static func named(_ name: String) -> MachineEntry? { all.first { $0.name == name } }

    /// `--machine NAME` (or `--table NAME`, render's older spelling, with `retryflow` for retry), or retry.
    static func chosen(_ args: CommandLineArguments) throws -> MachineEntry {
        if args.has("--machine") && args.has("--table") { throw UsageError("give --machine or --table, not both") }
        let name =
            try args.choice("--machine", names)
            ?? args.choice("--table", ["retryflow"] + names).map { $0 == "retryflow" ? "retry" : $0 } ?? "retry"
        return named(name)!
    }

    /// The entry for `table`: `caption` adds a trace's own words to render's caption and report.
    static func entry<V>(
        _ name: String, _ summary: String, _ table: TransitionTable<V>,
        caption: @escaping (TransitionTrace<V>) -> String? = { _ in nil },
        verify: @escaping (CommandLineArguments) throws -> ExplorationResult<V>
    ) -> MachineEntry {
        MachineEntry(
            name: name, summary: summary,
            render: { args in
                var coverage: ExplorationResult<V>?
                if ExplorationOptions.given(args) || args.has("--max-attempts") {
                    if name != "retry" { try ExplorationOptions.refuseRetryFlags(args, machine: name) }
                    coverage = try ExplorerChoice.run { try verify(args) }
                }
                return try RenderCommand.render(table, machine: name, args: args, coverage: coverage, summary: caption)
            },
            chart: { DOTChart.render(table, style: $0) },
            check: { drawing, map throws(ChartMapError) in try ChartCheck.check(drawing, with: table, map: map) },
            tableName: table.name,
            verify: { args in
                if name != "retry" { try ExplorationOptions.refuseRetryFlags(args, machine: name) }
                let result = try ExplorerChoice.run { try verify(args) }
                let counterexample = try result.violations.first.map {
                    try TraceJSON.encode($0.trace, formatting: [.prettyPrinted, .sortedKeys])
                }
                return (result.text, result.holds, counterexample)
            })
    }
}
