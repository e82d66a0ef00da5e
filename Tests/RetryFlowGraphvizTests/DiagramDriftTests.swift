import Foundation
import RetryFlow
import RetryFlowCharts
import RetryFlowGraphviz
import Testing

/// `diagrams/` is generated from the table: these tests fail when it drifts.
@Suite(.serialized) struct DiagramDriftTests {
    static let regenerate = ProcessInfo.processInfo.environment["RETRYFLOW_REGENERATE_DIAGRAMS"] == "1"

    @Test func textFilesMatchTheTableByteForByte() async throws {
        if Self.regenerate { try await ShippedDiagrams.writeAll() }
        for (name, expected) in try await ShippedDiagrams.textFiles() {
            let url = ShippedDiagrams.directory.appendingPathComponent(name)
            let committed = try? String(contentsOf: url, encoding: .utf8)
            #expect(
                committed == expected,
                "diagrams/\(name) has drifted from the transition table; regenerate with `\(ShippedDiagrams.regenerateCommand)`"
            )
        }
    }

    /// Images may differ in bytes across Graphviz versions, so compare structure: the committed SVG
    /// has the same nodes and edges (by their titles) as a fresh render of the committed DOT.
    @Test func committedImagesHaveTheStructureOfTheirDOT() throws {
        for image in ShippedDiagrams.images {
            let dot = try String(
                contentsOf: ShippedDiagrams.directory.appendingPathComponent(image.source), encoding: .utf8)
            let committed = try Data(contentsOf: ShippedDiagrams.directory.appendingPathComponent(image.name))
            switch image.format {
            case "svg":
                let fresh = try Graphviz.render(dot: dot, format: "svg")
                #expect(
                    Self.titles(inSVG: committed) == Self.titles(inSVG: fresh),
                    "diagrams/\(image.name) does not match its DOT; regenerate with `\(ShippedDiagrams.regenerateCommand)`"
                )
                #expect(!Self.titles(inSVG: committed).isEmpty)
            default:
                #expect(committed.starts(with: [0x89, 0x50, 0x4E, 0x47]), "diagrams/\(image.name) is not a PNG")
                #expect(committed.count > 1000)
            }
        }
    }

    @Test func readmeShowsTheFlowchartAndTheGeneratedTable() throws {
        let readme = try String(
            contentsOf: ShippedDiagrams.directory.deletingLastPathComponent().appendingPathComponent("README.md"),
            encoding: .utf8)
        #expect(readme.contains("diagrams/retryflow-flowchart.svg"))
        let table = MarkdownTable.render(RetryTable.retry)
        #expect(readme.contains(table), "README's table has drifted; paste diagrams/retryflow-table.md into it")
    }

    static func titles(inSVG data: Data) -> [String] {
        let text = String(decoding: data, as: UTF8.self)
        var titles: [String] = []
        var rest = text[...]
        while let open = rest.range(of: "<title>"),
            let close = rest.range(of: "</title>", range: open.upperBound..<rest.endIndex)
        {
            titles.append(String(rest[open.upperBound..<close.lowerBound]))
            rest = rest[close.upperBound...]
        }
        return titles
    }
}
