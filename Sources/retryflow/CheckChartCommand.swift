import Foundation
import RetryFlow
import RetryFlowCharts
import RetryFlowGraphviz

/// `retryflow check-chart FILE`: compares a chart drawn by hand (DOT, read with Graphviz's own parser,
/// or Mermaid) with a machine's table, under a correspondence of its nodes to the table's states
/// (`--map`, else one found from the structure and printed), and names every place they disagree,
/// one per line.
enum CheckChartCommand {
    static let specs = [
        OptionSpec("--machine"), OptionSpec("--map"), OptionSpec("--suggest", value: false),
        OptionSpec("-h", "--help", value: false),
    ]

    static var help: String {
        """
        usage: retryflow check-chart FILE [--machine NAME] [--map NODE=STATE,…] [--suggest]

        Reads FILE (- for stdin): DOT (with Graphviz's parser), a Mermaid flowchart or stateDiagram-v2 (.mmd,
        or any file beginning with one), or the first mermaid block of a Markdown file (.md). Compares it with
        the machine's table: states missing or extra, edges missing, extra or to the wrong state, labels naming
        an event or guard the row does not have, decisions asking their questions in another order.
          --machine NAME   \(MachineRegistry.names.joined(separator: ", ")) (default retry)
          --map N=S,…      node N of the drawing draws state S (the others are read by their names)
          --suggest        print the table's rows the drawing lacks, as DOT to paste into it
        A node is a state when its label (or first line, or else its id) is the state's, ignoring case, spaces
        and punctuation. Without --map, a node named otherwise (`開始`, `sendAsynchronousRequest`) draws the
        state that makes the most drawn edges agree with the table; that correspondence is printed with a
        ready --map line to confirm it, or, when none is plausible, one line says so.
        Edges read `event [guard] / effects`; an unlabelled edge out of a state left on one event only is that
        event. A node whose label ends in `?` (or a diamond) asks a guard, with `yes` and `no` branches; one
        asking about an event right after a state (`error?` after the request) reads yes as the event it
        names (`connection error`) and no as the state's other event. A box drawn between two states the
        table joins directly (a wait the code does not have) is named as one drift. HTML labels, clusters,
        subgraphs and undirected graphs are read another way and warned about.
        Exit status: 0 the drawing agrees, 1 it disagrees, 2 the file or --map cannot be read.
        """
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        guard
            let args = try CommandLineArguments.forCommand(
                arguments, specs: specs, command: "check-chart", help: help, positionals: true)
        else { return 0 }
        guard args.positionals.count == 1, let path = args.positionals.first else {
            throw UsageError("check-chart takes one FILE, got \(args.positionals.count)")
        }
        let machine = try MachineRegistry.chosen(args)
        let data =
            path == "-" ? FileHandle.standardInput.readDataToEndOfFile() : FileManager.default.contents(atPath: path)
        guard let data, let text = String(data: data, encoding: .utf8) else {
            throw UsageError("\(path): cannot read the file as UTF-8 text")
        }
        let drawing = try Self.drawing(of: text, path: path)
        let outcome: ChartCheckOutcome
        do { outcome = try machine.check(drawing, args.value("--map")) } catch { throw UsageError(error.message) }
        let result: ChartCheckResult
        switch outcome {
        case .implausible(let correspondence, let disagreements):
            // One line, not every state and row of the table.
            Console.output(correspondence.implausibleLine(tableName: machine.tableName, disagreements: disagreements))
            return 1
        case .checked(let checked, let correspondence):
            if let correspondence, correspondence.guessed { Console.output(correspondence.text) }
            result = checked
        }
        Console.output(result.text)
        if args.has("--suggest"), !result.missingRows.isEmpty {
            Console.output("// the table's rows the drawing lacks:\n" + result.missingRows.map { "  \($0)\n" }.joined())
        }
        return result.agrees ? 0 : 1
    }

    /// The drawing in `text`: Mermaid when the file is `.mmd` or `.mermaid` or begins like Mermaid, the
    /// first mermaid block of a `.md` file, else DOT.
    static func drawing(of text: String, path: String) throws -> DrawnChart {
        let ext = URL(fileURLWithPath: path).pathExtension.lowercased()
        var mermaid: String?
        if ext == "md" || ext == "markdown" {
            guard let block = MermaidDrawing.firstBlock(inMarkdown: text) else {
                throw UsageError("\(path): no ```mermaid block in the Markdown file")
            }
            mermaid = block
        } else if ext == "mmd" || ext == "mermaid" || MermaidDrawing.isMermaid(text) {
            mermaid = text
        }
        if let mermaid {
            do { return try MermaidDrawing.drawing(of: mermaid) } catch {
                throw UsageError("\(path): not a Mermaid chart check-chart can read (\(error.message))")
            }
        }
        do { return try Graphviz.drawing(of: text) } catch {
            throw UsageError("\(path): not a DOT graph Graphviz can read (\(error.message))")
        }
    }
}
