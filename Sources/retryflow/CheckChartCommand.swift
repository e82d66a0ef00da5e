import Foundation
import RetryFlow
import RetryFlowCharts
import RetryFlowGraphviz

/// `retryflow check-chart FILE.dot`: compares a chart drawn by hand (or by any tool that writes DOT)
/// with a machine's table, reading the DOT with Graphviz's own parser, and names every place they
/// disagree, one per line.
enum CheckChartCommand {
    static let specs = [
        OptionSpec("--machine"), OptionSpec("--suggest", value: false), OptionSpec("-h", "--help", value: false),
    ]

    static var help: String {
        """
        usage: retryflow check-chart FILE.dot [--machine NAME] [--suggest]

        Reads FILE.dot (- for stdin) with Graphviz's parser and compares it with the machine's table: states
        missing or extra, edges missing, extra or to the wrong state, labels naming an event or guard the row
        does not have, decisions asking their questions in another order than the table's guards.
          --machine NAME   \(MachineRegistry.names.joined(separator: ", ")) (default retry)
          --suggest        print the table's rows the drawing lacks, as DOT to paste into it
        A node is a state when its label (or first line, or else its name) is the state's, ignoring case, spaces
        and punctuation. Edges read `event [guard] / effects`; a node whose label ends in `?` (or a diamond) asks
        a guard, with `yes` and `no` branches. HTML labels, clusters and undirected graphs are read another
        way and warned about.
        Exit status: 0 the drawing agrees, 1 it disagrees, 2 the file cannot be read or parsed.
        """
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        guard
            let args = try CommandLineArguments.forCommand(
                arguments, specs: specs, command: "check-chart", help: help, positionals: true)
        else { return 0 }
        guard args.positionals.count == 1, let path = args.positionals.first else {
            throw UsageError("check-chart takes one FILE.dot, got \(args.positionals.count)")
        }
        let machine = try MachineRegistry.chosen(args)
        let data =
            path == "-" ? FileHandle.standardInput.readDataToEndOfFile() : FileManager.default.contents(atPath: path)
        guard let data, let text = String(data: data, encoding: .utf8) else {
            throw UsageError("\(path): cannot read the file as UTF-8 text")
        }
        let drawing: DrawnChart
        do { drawing = try Graphviz.drawing(of: text) } catch {
            throw UsageError("\(path): not a DOT graph Graphviz can read (\(error.message))")
        }
        let result = machine.check(drawing)
        Console.output(result.text)
        if args.has("--suggest"), !result.missingRows.isEmpty {
            Console.output("// the table's rows the drawing lacks:\n" + result.missingRows.map { "  \($0)\n" }.joined())
        }
        return result.agrees ? 0 : 1
    }
}
