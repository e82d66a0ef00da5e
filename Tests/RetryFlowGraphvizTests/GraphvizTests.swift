import Foundation
import RetryFlow
import RetryFlowCharts
import RetryFlowGraphviz
import Testing

@Suite struct GraphvizTests {
    let dot = DOTChart.render(RetryTable.retry, style: .flowchart)

    @Test(arguments: ["svg", "png", "pdf", "json", "plain"])
    func rendersInProcess(format: String) throws {
        let data = try Graphviz.render(dot: dot, format: format)
        let text = String(decoding: data.prefix(64), as: UTF8.self)
        switch format {
        case "svg": #expect(String(decoding: data, as: UTF8.self).contains("<svg"))
        case "png": #expect(data.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        case "pdf": #expect(text.hasPrefix("%PDF"))
        case "json": #expect(try JSONSerialization.jsonObject(with: data) is [String: Any])
        default: #expect(text.hasPrefix("graph "))
        }
    }

    @Test func listsAvailableFormats() {
        let formats = Graphviz.availableFormats
        for needed in ["svg", "png", "pdf", "json", "plain", "dot"] {
            #expect(formats.contains(needed), "\(formats)")
        }
    }

    @Test func syntaxErrorCarriesGraphvizsMessage() {
        #expect {
            try Graphviz.render(dot: "digraph broken { a -> }", format: "svg")
        } throws: { error in
            guard let error = error as? GraphvizError else { return false }
            return error.kind == .syntax && error.message.contains("syntax error")
        }
    }

    @Test func unknownFormatListsTheAvailableOnes() {
        #expect {
            try Graphviz.render(dot: dot, format: "nonsense")
        } throws: { error in
            guard let error = error as? GraphvizError else { return false }
            return error.kind == .unknownFormat && error.message.contains("\"nonsense\"")
                && error.message.contains("svg")
        }
    }

    @Test func unknownLayoutIsReported() {
        #expect {
            try Graphviz.render(dot: dot, format: "svg", layout: "nosuchlayout")
        } throws: { error in
            guard let error = error as? GraphvizError else { return false }
            return error.kind == .renderFailed && error.message.contains("nosuchlayout")
        }
    }

    /// libgvc is not thread-safe; the process-wide lock makes concurrent renders safe.
    @Test func eightConcurrentRendersAreSafe() async throws {
        let expected = try Graphviz.render(dot: dot, format: "svg")
        let results = await withTaskGroup(of: Data?.self) { group in
            for index in 0..<8 {
                let format = index.isMultiple(of: 2) ? "svg" : "png"
                let source = dot
                group.addTask { try? Graphviz.render(dot: source, format: format) }
            }
            var all: [Data?] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 8)
        #expect(results.allSatisfy { $0 != nil })
        #expect(results.filter { $0 == expected }.count == 4)
    }
}
