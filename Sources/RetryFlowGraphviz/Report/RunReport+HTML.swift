import Foundation
import RetryFlow
import RetryFlowCharts

extension RunReport {
    /// The page: one HTML file with everything inline. The Content-Security-Policy forbids the
    /// page to load anything at all, so a report opened anywhere makes no network request.
    public var html: String {
        let h = ChartEscaping.html
        var out: [String] = []
        out.append(
            """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
            <meta name="color-scheme" content="light dark">
            <title>\(h(title)) · RetryFlow run</title>
            <style>\(RunReportAssets.css)</style>
            </head>
            <body>
            <header>
            <h1>\(h(title))</h1>
            <p class="sub">\(h(tableName)) · \(steps.count) step(s) · made by RetryFlow</p>
            </header>
            <section id="summary" aria-label="outcome">
            <dl>
            """)
        for fact in facts { out.append("<div><dt>\(h(fact.name))</dt><dd>\(h(fact.value))</dd></div>") }
        out.append("</dl>")
        if let policy {
            out.append("<details><summary>policy that ran</summary><pre id=\"policy\">\(h(policy))</pre></details>")
        }
        out.append("</section>")
        out.append(
            """
            <nav id="controls" aria-label="step through the run" hidden>
            <div class="buttons">
            <button id="first" title="first (Home)" aria-label="first">|◀</button>
            <button id="prev" title="previous (←)" aria-label="previous">◀</button>
            <button id="play" title="play / pause (space)" aria-label="play">▶ play</button>
            <button id="next" title="next (→)" aria-label="next">▶</button>
            <button id="last" title="last (End)" aria-label="last">▶|</button>
            <label>speed <select id="speed"><option value="2000">0.5×</option><option value="1000" selected>1×</option>
            <option value="500">2×</option><option value="250">4×</option></select></label>
            <span class="styles" role="group" aria-label="chart style">
            <button id="style-flowchart" aria-pressed="true">flowchart</button>
            <button id="style-state" aria-pressed="false">state diagram</button></span>\(scopeButtons)
            </div>
            <input id="slider" type="range" min="0" max="\(steps.count)" value="0" aria-label="step">
            <p id="status" aria-live="polite"></p>
            </nav>
            <main>
            """)
        out.append("<section id=\"charts\" aria-label=\"chart\">")
        for chart in charts {
            let name = chart.style == .flowchart ? "flowchart" : "state diagram"
            out.append(
                "<figure class=\"chart\" data-chart=\"\(chart.key)\" data-style=\"\(chart.style.rawValue)\" "
                    + "data-scope=\"\(chart.isPolicy ? "policy" : "table")\">\(chart.svg)")
            out.append(
                chart.isPolicy
                    ? "<figcaption>\(name) of the policy that ran: the rows of \(h(tableName)) it can take, as "
                        + "<code>retryflow render --policy</code> draws them, the run drawn over it</figcaption></figure>"
                    : "<figcaption>\(name) of \(h(tableName)), every row, the run drawn over it</figcaption></figure>")
        }
        out.append("</section>")
        out.append("<section id=\"table\" aria-label=\"transition table\"><h2>The table</h2>")
        out.append(
            "<div class=\"scroll\"><table><thead><tr><th>#</th><th>from</th><th>event</th><th>guard</th>"
                + "<th>to</th><th>effects</th></tr></thead><tbody>")
        for (index, cells) in columns.enumerated() {
            out.append(
                "<tr id=\"tablerow_\(index)\"><td>\(index)</td>" + cells.map { "<td>\(h($0))</td>" }.joined() + "</tr>")
        }
        out.append("</tbody></table></div></section></main>")
        out.append(
            "<section id=\"time\" aria-label=\"timeline\"><h2>Timeline</h2><div class=\"scroll\">\(timeline.svg)</div>")
        out.append(
            "<p class=\"legend\"><span class=\"key retried\"></span> attempt that was retried (✗) · "
                + "<span class=\"key last\"></span> last attempt · ─ wait (length and why); hover a bar for its outcome</p></section>"
        )
        out.append(
            "<section id=\"steps\" aria-label=\"steps\"><h2>Steps</h2><div class=\"scroll\"><table><thead><tr>"
                + "<th>step</th><th>time</th><th>attempt</th><th>event</th><th>move</th><th>row</th><th>delay / detail</th>"
                + "</tr></thead><tbody>")
        for (index, step) in steps.enumerated() {
            var note = step.delay.map { "delay \($0.shortDescription)" } ?? ""
            if let detail = step.detail { note += (note.isEmpty ? "" : "; ") + detail }
            let cells = [
                "\(index + 1)", step.at.shortDescription, step.attempt == 0 ? "-" : "\(step.attempt)", step.what,
                "\(step.fromLabel) → \(step.toLabel)", step.row.map(String.init) ?? "none", note,
            ]
            out.append("<tr id=\"step_\(index + 1)\">" + cells.map { "<td>\(h($0))</td>" }.joined() + "</tr>")
        }
        out.append("</tbody></table></div></section>")
        out.append("<script>const RUN = \(runJSON);\n\(RunReportAssets.script)</script>")
        out.append("</body>\n</html>\n")
        return out.joined(separator: "\n")
    }

    /// With a policy's chart, the buttons choosing it or the whole table's (the page opens on the policy's).
    private var scopeButtons: String {
        guard charts.contains(where: \.isPolicy) else { return "" }
        return """

            <span class="scopes" role="group" aria-label="chart shown">
            <button id="scope-policy" aria-pressed="true" title="the rows the policy that ran can take">policy's chart</button>
            <button id="scope-table" aria-pressed="false" title="every row of the table">full table</button></span>
            """
    }

    /// What the script needs, as JSON safe inside `<script>` (every `<` escaped).
    private var runJSON: String {
        struct Run: Encodable {
            struct Frame: Encodable {
                let row: Int?
                let from: String
                let to: String
                let text: String
                let at: Double
            }
            let steps: [Frame]
            let initial: String?
            /// `policy` first when the page has the policy's chart: the one it opens on.
            let scopes: [String]
            let rowEdges: [String: [[String]]]
            let stateNodes: [String: [String: String]]
        }
        let run = Run(
            steps: steps.map { step in
                Run.Frame(
                    row: step.row, from: step.from, to: step.to,
                    text: "\(step.what): \(step.fromLabel) → \(step.toLabel) at \(step.at.shortDescription)"
                        + (step.attempt > 0 ? ", attempt \(step.attempt)" : ""), at: step.at.inSeconds)
            },
            initial: steps.first?.from,
            scopes: charts.contains(where: \.isPolicy) ? ["policy", "table"] : ["table"],
            rowEdges: Dictionary(uniqueKeysWithValues: charts.map { ($0.key, $0.rowEdges) }),
            stateNodes: Dictionary(uniqueKeysWithValues: charts.map { ($0.key, $0.stateNodes) }))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = (try? encoder.encode(run)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return json.replacingOccurrences(of: "<", with: "\\u003c")
    }
}
