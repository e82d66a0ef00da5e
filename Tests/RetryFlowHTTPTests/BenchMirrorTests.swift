import Foundation
import RetryFlow
import RetryFlowCharts
import RetryFlowHTTP
import Testing

/// The benchmarks compare a table's step with a hand-written copy of the same machine
/// (Sources/retryflow-bench). A copy is a second statement of its table, so each one says which
/// table it mirrors and carries a fingerprint of that table's rows:
/// `// mirror of BudgetTable.budget, rows fingerprint 0123456789abcdef`. When the table changes,
/// this fails and names the copy to bring in line (then paste the new fingerprint next to it).
@Suite struct BenchMirrorTests {
    static let benchSources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources/retryflow-bench")

    /// The tables a copy may mirror, by the name its marker uses.
    static let tables: [String: String] = [
        "RetryTable.retry": MarkdownTable.render(RetryTable.retry),
        "BudgetTable.budget": MarkdownTable.render(BudgetTable.budget),
        "BreakerTable.breaker": MarkdownTable.render(BreakerTable.breaker),
        "TransferTable.transfer": MarkdownTable.render(TransferTable.transfer),
    ]

    /// The hand-written copies there are, as file → tables mirrored: a copy that loses its marker
    /// fails here too.
    static let expectedMirrors: [String: Set<String>] = [
        "MachineStepBenchmark.swift": ["RetryTable.retry"],
        "EventParking.swift": ["RetryTable.retry"],
        "TableStepBenchmarks.swift": ["BudgetTable.budget", "BreakerTable.breaker", "TransferTable.transfer"],
        "TableInterpreterFloor.swift": ["BudgetTable.budget"],
        "FleetBenchmarks.swift": ["BudgetTable.budget"],
    ]

    /// FNV-1a (64 bits) of the table's rows as the docs print them: stable across runs and
    /// processes (Swift's `Hasher` is seeded per process).
    static func fingerprint(_ rows: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in rows.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    struct Marker: Hashable {
        var file: String
        var table: String
        var fingerprint: String
    }

    static func markers() throws -> [Marker] {
        let names = try FileManager.default.contentsOfDirectory(atPath: benchSources.path).filter {
            $0.hasSuffix(".swift")
        }
        var found: [Marker] = []
        for name in names.sorted() {
            let text = try String(contentsOf: benchSources.appendingPathComponent(name), encoding: .utf8)
            for line in text.split(separator: "\n") {
                guard let start = line.range(of: "mirror of ") else { continue }
                let words = line[start.upperBound...].split(separator: " ")
                guard words.count >= 4, words[1] == "rows", words[2] == "fingerprint" else { continue }
                found.append(
                    Marker(
                        file: name, table: String(words[0].trimmingCharacters(in: [","])),
                        fingerprint: String(words[3].prefix { $0.isHexDigit })))
            }
        }
        return found
    }

    @Test func everyHandWrittenCopyNamesItsTableAndMatchesItsRows() throws {
        let markers = try Self.markers()
        for marker in markers {
            guard let rows = Self.tables[marker.table] else {
                Issue.record("Sources/retryflow-bench/\(marker.file) mirrors \(marker.table), which no test knows")
                continue
            }
            let now = Self.fingerprint(rows)
            #expect(
                marker.fingerprint == now,
                """
                \(marker.table) changed since Sources/retryflow-bench/\(marker.file) copied it by hand \
                (fingerprint \(marker.fingerprint), now \(now)): make the copy decide as the table's rows do, \
                then write \(now) in its marker
                """)
        }
        var mirrored: [String: Set<String>] = [:]
        for marker in markers { mirrored[marker.file, default: []].insert(marker.table) }
        #expect(
            mirrored == Self.expectedMirrors,
            "the benchmarks' hand-written copies and the tables they mirror (a copy without its marker, or a new one)")
    }

    @Test func theFingerprintChangesWithAnyRow() {
        let rows = Self.tables["BudgetTable.budget"]!
        #expect(Self.fingerprint(rows).count == 16)
        #expect(Self.fingerprint(rows) != Self.fingerprint(rows.replacingOccurrences(of: "deny", with: "refuse")))
        #expect(Self.fingerprint(rows) != Self.fingerprint(rows + "|"))
    }
}
