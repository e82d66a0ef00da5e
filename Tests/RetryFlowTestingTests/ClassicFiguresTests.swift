import Foundation
import RetryFlow
import RetryFlowFigures
import RetryFlowTesting
import Testing

/// docs/figures/ (`retryflow teach all`): the committed figures agree with a fresh generation of a
/// cheap part of them (the whole takes release-mode seconds, `make docs`), their plots are drawn from
/// their CSVs, and their shapes are the ones AWS, Brooker and the SRE book published.
/// RETRYFLOW_REGENERATE_FIGURES=1 writes the whole set instead.
@Suite(.serialized) struct ClassicFiguresTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/figures")
    static let regenerate = ProcessInfo.processInfo.environment["RETRYFLOW_REGENERATE_FIGURES"] == "1"
    static let hint = "regenerate with `make docs` (or RETRYFLOW_REGENERATE_FIGURES=1)"

    static func committed(_ name: String) throws -> String {
        try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
    }

    /// The CSV's rows as dictionaries by column.
    static func rows(_ name: String) throws -> [[String: String]] {
        let lines = try committed(name).split(separator: "\n").map { $0.split(separator: ",").map(String.init) }
        let header = lines[0]
        return lines.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
    }

    static func number(_ row: [String: String], _ column: String) -> Double { Double(row[column] ?? "") ?? .nan }

    @Test func regenerateWhenAsked() async throws {
        guard Self.regenerate else { return }
        try FileManager.default.createDirectory(at: Self.folder, withIntermediateDirectories: true)
        for figure in ClassicFigures.Figure.allCases {
            for file in try await ClassicFigures.files(figure) {
                try file.contents.write(
                    to: Self.folder.appendingPathComponent(file.name), atomically: true, encoding: .utf8)
            }
        }
    }

    // MARK: Drift

    @Test func contentionRowsMatchAFreshRun() async throws {
        let csv = try Self.committed("contention.csv")
        let lines = Set(csv.split(separator: "\n").map(String.init))
        #expect(lines.count == 1 + ContentionSimulation.clientCounts.count * 5, "every client count and algorithm")
        let fresh = await ClassicFigures.contention(clients: [10, 20], runs: ClassicFigures.defaultRuns, seed: 1)
        for line in ClassicFigures.contentionCSV(fresh).split(separator: "\n") {
            #expect(lines.contains(String(line)), "docs/figures/contention.csv lacks \(line); \(Self.hint)")
        }
    }

    @Test func loadRowsMatchAFreshRun() async throws {
        let lines = Set(try Self.committed("load.csv").split(separator: "\n").map(String.init))
        #expect(lines.count == 1 + FailureRateLoad.failureRates.count * 4, "every failure rate and strategy")
        let fresh = try await ClassicFigures.load(failureRates: [0.3], seed: 1)
        for line in ClassicFigures.loadCSV(fresh).split(separator: "\n") {
            #expect(lines.contains(String(line)), "docs/figures/load.csv lacks \(line); \(Self.hint)")
        }
    }

    @Test func throttlingRowsMatchAFreshRun() async throws {
        let lines = Set(try Self.committed("throttling.csv").split(separator: "\n").map(String.init))
        #expect(lines.count == 1 + ClientThrottling.loads.count * 3, "every load and curve")
        let fresh = try await ClassicFigures.throttling(loads: [1, 3], seed: 1)
        for line in ClassicFigures.throttlingCSV(fresh).split(separator: "\n") {
            #expect(lines.contains(String(line)), "docs/figures/throttling.csv lacks \(line); \(Self.hint)")
        }
    }

    /// Every plot is the one its committed CSV draws (and the write strip, one run a row, is drawn afresh).
    @Test func plotsAreDrawnFromTheirCSVs() async throws {
        let contention = try Self.rows("contention.csv").map { row in
            ContentionSimulation.Point(
                clients: Int(row["clients"]!)!, algorithm: .init(rawValue: row["algorithm"]!)!,
                time: Self.number(row, "time"), calls: Self.number(row, "calls"))
        }
        let load = try Self.rows("load.csv").map { row in
            FailureRateLoad.Point(
                failureRate: Self.number(row, "failure_rate"), strategy: .init(rawValue: row["strategy"]!)!,
                load: Self.number(row, "load"), success: Self.number(row, "success"))
        }
        let throttling = try Self.rows("throttling.csv").map { row in
            ClientThrottling.Point(
                load: Self.number(row, "load"), series: .init(rawValue: row["series"]!)!,
                clientRejected: Self.number(row, "client_rejected"),
                serverRejected: Self.number(row, "server_rejected"),
                accepted: Self.number(row, "accepted"))
        }
        let strip = await ClassicFigures.writeStrip(seed: 1)
        var drawn = ClassicFigures.charts(contention: contention, runs: ClassicFigures.defaultRuns)
        drawn += ClassicFigures.charts(load: load)
        drawn += ClassicFigures.charts(throttling: throttling)
        drawn.append(strip)
        #expect(drawn.count == 6)
        for file in drawn {
            #expect(
                try Self.committed(file.name) == file.contents, "docs/figures/\(file.name) has drifted; \(Self.hint)")
        }
    }

    // MARK: The published shapes

    /// AWS 2015: no jitter sends the most calls; full jitter the fewest (equal jitter ties it within 1 %,
    /// a hair under it at 170 to 190 clients; decorrelated a little under it at 10 clients); decorrelated
    /// sends more than full but stays within 40 %, and finishes sooner up to 100 clients, AWS's "less
    /// clear" choice between the two; exponential without jitter takes by far the longest.
    @Test func contentionHasAWSsShape() throws {
        var calls: [Int: [String: Double]] = [:]
        var time: [Int: [String: Double]] = [:]
        for row in try Self.rows("contention.csv") {
            calls[Int(row["clients"]!)!, default: [:]][row["algorithm"]!] = Self.number(row, "calls")
            time[Int(row["clients"]!)!, default: [:]][row["algorithm"]!] = Self.number(row, "time")
        }
        for clients in ContentionSimulation.clientCounts {
            let c = calls[clients]!
            let t = time[clients]!
            let jittered = [c["full"]!, c["equal"]!, c["decorrelated"]!]
            #expect(min(c["none"]!, c["exponential"]!) > jittered.max()!, "\(clients) clients: \(c)")
            #expect(c["full"]! <= c["equal"]! * 1.01, "\(clients) clients: \(c)")
            if clients >= 20 { #expect(c["full"]! <= c["decorrelated"]! * 1.01, "\(clients) clients: \(c)") }
            #expect(c["decorrelated"]! <= c["full"]! * 1.4, "\(clients) clients: \(c)")
            if clients <= 100 { #expect(t["decorrelated"]! < t["full"]!, "\(clients) clients: \(t)") }
            #expect(t["exponential"]! > 4 * t.values.filter { $0 != t["exponential"]! }.max()!, "\(clients): \(t)")
        }
    }

    /// Brooker 2022: 3 retries reach 4× the load at 100 % failure; the budget holds it near 1.1×;
    /// no retry is 1×; the breaker sends less than one request per request once it is open.
    @Test func loadHasBrookersShape() throws {
        let rows = try Self.rows("load.csv")
        func load(_ strategy: String, _ rate: String) -> Double {
            rows.first { $0["strategy"] == strategy && $0["failure_rate"] == rate }.map { Self.number($0, "load") }
                ?? .nan
        }
        #expect(load("3-retries", "1.000") >= 3.9)
        #expect(load("budget", "1.000") <= 1.1)
        for row in rows where row["strategy"] == "budget" { #expect(Self.number(row, "load") <= 1.15, "\(row)") }
        for row in rows where row["strategy"] == "no-retry" { #expect(Self.number(row, "load") == 1, "\(row)") }
        #expect(load("breaker", "1.000") < 1)
        #expect(load("3-retries", "0.000") == 1 && load("budget", "0.000") == 1 && load("breaker", "0.000") == 1)
    }

    /// The SRE book: no client-side rejection below K = 2 times capacity, then 1 − K/load; the throttler
    /// run request by request lands near the formula.
    @Test func throttlingHasTheSREBooksShape() throws {
        let rows = try Self.rows("throttling.csv")
        for row in rows {
            let load = Self.number(row, "load")
            let rejected = Self.number(row, "client_rejected")
            switch row["series"] {
            case "formula": #expect(abs(rejected - max(0, 1 - 2 / load)) < 0.001, "\(row)")
            case "sre-throttler": #expect(abs(rejected - max(0, 1 - 2 / load)) < 0.05, "\(row)")
            default: break
            }
        }
    }
}
