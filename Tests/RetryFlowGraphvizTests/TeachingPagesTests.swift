import Foundation
import RetryFlow
import Testing

/// docs/runs/ is generated: these tests fail when it drifts from the tables and the tool.
@Suite(.serialized) struct TeachingPagesTests {
    static let regenerate = ProcessInfo.processInfo.environment["RETRYFLOW_REGENERATE_TEACHING_PAGES"] == "1"

    @Test func pagesMatchByteForByte() async throws {
        if Self.regenerate { try await TeachingPages.writeAll() }
        for (name, expected) in try await TeachingPages.pages() {
            let committed = try? String(
                contentsOf: TeachingPages.directory.appendingPathComponent(name), encoding: .utf8)
            #expect(
                committed == expected,
                "docs/runs/\(name) has drifted; regenerate with `\(TeachingPages.regenerateCommand)`")
        }
    }

    @Test func theGuideLinksEveryPage() async throws {
        let guide = try String(
            contentsOf: TeachingPages.directory.deletingLastPathComponent().appendingPathComponent(
                "linear-iteration.md"),
            encoding: .utf8)
        for (name, _) in try await TeachingPages.pages() { #expect(guide.contains("(runs/\(name))"), "\(name)") }
    }
}
