import Foundation
import Testing

/// Outputs shown in the docs are generated, never hand-typed: each block preceded by
/// `<!-- retryflow ARGS -->` must be exactly what `retryflow ARGS` prints. On drift this fails and
/// says how to regenerate (`make docs-regenerate`, RETRYFLOW_REGENERATE_DOCS=1).
@Suite(.serialized) struct DocsDriftTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let regenerate = ProcessInfo.processInfo.environment["RETRYFLOW_REGENERATE_DOCS"] == "1"

    static var documents: [URL] {
        let docs = root.appendingPathComponent("docs")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: docs.path)) ?? []
        return names.filter { $0.hasSuffix(".md") }.sorted().map { docs.appendingPathComponent($0) }
            + [root.appendingPathComponent("README.md")]
    }

    struct Block {
        var arguments: [String]
        var range: Range<String.Index> // the block's content, between the fences
    }

    /// Blocks of the form: `<!-- retryflow ARGS -->`, a line with three backticks and a language,
    /// the output, three backticks.
    static func blocks(in text: String) -> [Block] {
        var found: [Block] = []
        var searchFrom = text.startIndex
        while let marker = text.range(of: "<!-- retryflow ", range: searchFrom..<text.endIndex),
            let markerEnd = text.range(of: " -->", range: marker.upperBound..<text.endIndex),
            let fence = text.range(of: "```", range: markerEnd.upperBound..<text.endIndex),
            let lineEnd = text.range(of: "\n", range: fence.upperBound..<text.endIndex),
            let close = text.range(of: "```", range: lineEnd.upperBound..<text.endIndex)
        {
            let arguments = text[marker.upperBound..<markerEnd.lowerBound].split(separator: " ").map(String.init)
            found.append(Block(arguments: arguments, range: lineEnd.upperBound..<close.lowerBound))
            searchFrom = close.upperBound
        }
        return found
    }

    @Test func generatedOutputsMatchTheTool() async throws {
        var checked = 0
        for document in Self.documents {
            var text = try String(contentsOf: document, encoding: .utf8)
            // Replace from the end so earlier ranges stay valid.
            for block in Self.blocks(in: text).reversed() {
                // From the repository's root, so a block can name a file of it (docs/drawn/…).
                let result = try await Tool.run(block.arguments, in: Self.root)
                #expect(
                    result.status != 2,
                    "\(document.lastPathComponent): retryflow \(block.arguments.joined(separator: " ")): \(result.stderr)"
                )
                if Self.regenerate {
                    text.replaceSubrange(block.range, with: result.stdout)
                } else {
                    #expect(
                        String(text[block.range]) == result.stdout,
                        "\(document.lastPathComponent): the output of 'retryflow \(block.arguments.joined(separator: " "))' has drifted; run make docs-regenerate"
                    )
                }
                checked += 1
            }
            if Self.regenerate { try Data(text.utf8).write(to: document) }
        }
        #expect(checked >= 5, "the docs embed generated timelines")
    }

    /// Files shown in the docs are the files: a block after `<!-- file PATH -->` is PATH's text
    /// (the hand-drawn charts of docs/drawn, which `check-chart` blocks then check).
    @Test func embeddedFilesMatchTheirFiles() throws {
        var checked = 0
        for document in Self.documents {
            var text = try String(contentsOf: document, encoding: .utf8)
            var searchFrom = text.startIndex
            var replacements: [(Range<String.Index>, String)] = []
            while let marker = text.range(of: "<!-- file ", range: searchFrom..<text.endIndex),
                let markerEnd = text.range(of: " -->", range: marker.upperBound..<text.endIndex),
                let fence = text.range(of: "```", range: markerEnd.upperBound..<text.endIndex),
                let lineEnd = text.range(of: "\n", range: fence.upperBound..<text.endIndex),
                let close = text.range(of: "```", range: lineEnd.upperBound..<text.endIndex)
            {
                let path = String(text[marker.upperBound..<markerEnd.lowerBound])
                let file = try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
                let range = lineEnd.upperBound..<close.lowerBound
                if Self.regenerate {
                    replacements.append((range, file))
                } else {
                    #expect(
                        String(text[range]) == file,
                        "\(document.lastPathComponent) shows \(path) as it was; run make docs-regenerate")
                }
                checked += 1
                searchFrom = close.upperBound
            }
            if Self.regenerate && !replacements.isEmpty {
                for (range, file) in replacements.reversed() { text.replaceSubrange(range, with: file) }
                try Data(text.utf8).write(to: document)
            }
        }
        #expect(checked >= 2, "the guide shows the originals' flowcharts as drawn")
    }

    @Test func sampleFileMatchesTheDocs() throws {
        let expected = try DocSamples.generate()
        if Self.regenerate { try Data(expected.utf8).write(to: DocSamples.file) }
        let committed = try? String(contentsOf: DocSamples.file, encoding: .utf8)
        #expect(
            committed == expected,
            "a Swift sample in the docs changed; run make docs-regenerate so the build compiles it")
        #expect(expected.components(separatedBy: "// ").count > 10)
    }
}
