import Foundation

/// Turns the Swift samples of README.md and docs/ into one compilable file: each sample becomes
/// the body of a function (async unless it blocks), or stays at top level when it is an extension.
/// Names the samples assume (`request`, `url`, `loadSomething()` …) come from a prelude.
enum DocSamples {
    static let file = DocsDriftTests.root.appendingPathComponent("Tests/RetryFlowDocSamplesTests/DocSamples.swift")

    static let prelude = """
        // Generated from the ```swift samples of README.md and docs/ by `make docs-regenerate`; do not edit.
        // A test compares this file with the docs, and the build compiles it: every sample must compile.
        // The samples keep the layout the docs show, so the formatter leaves this file alone:
        // swift-format-ignore-file
        import Foundation
        import RetryFlow
        import RetryFlowCharts
        import RetryFlowGraphviz
        import RetryFlowHTTP
        import RetryFlowTesting
        #if canImport(FoundationNetworking)
        import FoundationNetworking
        #endif
        #if canImport(Glibc)
        import Glibc
        #endif

        // What the samples assume exists.
        private var url: URL { URL(string: "http://127.0.0.1:9/")! }
        private var request: URLRequest { URLRequest(url: url) }
        private var policy: RetryPolicy { .default }
        private var outcome: RetryOutcome<Int> { fatalError("samples are compiled, not run") }
        @Sendable private func loadSomething() async throws -> Data { Data() }
        @Sendable private func compute() async throws -> Int { 1 }
        @Sendable private func flaky() throws -> Int { 1 }
        @Sendable private func fetchNewToken() async throws -> String { "token" }
        private struct Unauthorized: Error {}

        """

    static let networkingImport = "#if canImport(FoundationNetworking)\n    import FoundationNetworking\n#endif\n"

    static func generate() throws -> String {
        var text = prelude
        var index = 0
        for document in DocsDriftTests.documents {
            let markdown = try String(contentsOf: document, encoding: .utf8)
            var rest = markdown[...]
            while let open = rest.range(of: "```swift\n"),
                let close = rest.range(of: "```", range: open.upperBound..<rest.endIndex)
            {
                index += 1
                // A whole file shown as a sample (docs/user-steps.md) imports FoundationNetworking on
                // Linux as its package must; the prelude already does, and a function body cannot.
                let sample = String(rest[open.upperBound..<close.lowerBound])
                    .replacingOccurrences(of: Self.networkingImport, with: "")
                rest = rest[close.upperBound...]
                let body = sample.split(separator: "\n", omittingEmptySubsequences: false)
                    .filter { !$0.hasPrefix("import ") }.joined(separator: "\n")
                text += "\n// \(document.lastPathComponent), sample \(index)\n"
                if body.contains("\nextension ") || body.hasPrefix("extension ") {
                    text += body
                    continue
                }
                let blocking = body.contains("synchronousDataTask")
                text += "private func sample\(index)() \(blocking ? "" : "async ")throws {\n"
                for line in body.split(separator: "\n", omittingEmptySubsequences: false) {
                    text += line.isEmpty ? "\n" : "    \(line)\n"
                }
                // Samples declare values to show them; using them keeps the build free of warnings.
                for name in declaredNames(body) { text += "    _ = \(name)\n" }
                text += "}\n"
            }
        }
        return text
    }

    /// Names bound by top-level `let`/`var` lines of a sample (tuples included).
    static func declaredNames(_ body: String) -> [String] {
        var names: [String] = []
        for line in body.split(separator: "\n") where line.hasPrefix("let ") || line.hasPrefix("var ") {
            let afterKeyword = line.dropFirst(4)
            guard let end = afterKeyword.firstIndex(where: { $0 == "=" || $0 == ":" }) else { continue }
            let pattern = afterKeyword[..<end].trimmingCharacters(in: .whitespaces)
            names += pattern.trimmingCharacters(in: CharacterSet(charactersIn: "()")).split(separator: ",")
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && $0 != "_" }
        }
        return names
    }
}
