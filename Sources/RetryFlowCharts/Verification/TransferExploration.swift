import RetryFlow
import RetryFlowHTTP

/// The transfer machine explored as `retryflow verify --machine transfer` explores every machine: an
/// 8-byte file (validator `"v1"`), every answer a server can give each attempt (a whole 200, a 206
/// that continues the file, one that starts elsewhere, one of a file that changed length, a 416
/// that says the file is complete or not, a 503), bodies that end complete, with the wrong checksum,
/// or cut half-way; the retry machine giving up or starting the next attempt, up to `attempts`.
/// Its own invariant: "a transfer never appends a 206 that does not continue the file".
package enum TransferExploration {
    /// The file's length and its checksum as the explorer's server has it.
    static let total = 8
    static let goodSHA = "0a"

    /// Explores three downloads: a fresh one, one resuming half a file (its validator and total
    /// recorded), and one asking for 3-byte windows.
    package static func explore(attempts: Int = 3) -> ExplorationResult<TransferVocabulary> {
        let starts = [
            TransferRules(bytesOnDisk: 0, expectedSHA256: goodSHA),
            TransferRules(bytesOnDisk: total / 2, expectedSHA256: goodSHA, validator: "\"v1\"", total: total),
            TransferRules(bytesOnDisk: 0, expectedSHA256: goodSHA, window: 3),
        ]
        let results = starts.map {
            TableExplorer(table: .transfer, rules: $0, model: TransferModel(attempts: attempts)).explore()
        }
        return results.dropFirst().reduce(results[0]) { $0.merged(with: $1) }
            .describing("attempts ≤ \(attempts); a file of \(total) bytes: fresh, half on disk, in 3-byte windows")
    }
}

struct TransferModel: ExplorationModel {
    typealias Rules = TransferRules

    let attempts: Int

    struct Key: Hashable {
        var state: TransferState
        var bytesOnDisk: Int
        var total: Int?
        var validator: String?
        var attempt: Int
        var answer: TransferAnswer?
    }

    var inputLimit: Int { 4 * attempts + 2 }
    var boundDescription: String { "attempts ≤ \(attempts); a file of \(TransferExploration.total) bytes" }
    var deliversCancellation: Bool { true }
    var invariants: [String] { ["a transfer never appends a 206 that does not continue the file"] }

    func key(_ position: ExplorationPosition<TransferRules>) -> Key {
        let rules = position.machine.rules
        return Key(
            state: position.machine.state, bytesOnDisk: rules.bytesOnDisk, total: rules.total,
            validator: rules.validator, attempt: rules.attempt, answer: rules.answer)
    }

    func isCancellation(_ input: TransferInput) -> Bool { input == .cancelled }

    func choices(at position: ExplorationPosition<TransferRules>) -> [ExplorationChoice<TransferInput>] {
        let now = position.at
        let rules = position.machine.rules
        let total = TransferExploration.total
        let onDisk = rules.bytesOnDisk
        let cancel = ExplorationChoice(TransferInput.cancelled, at: now, required: true)
        switch position.machine.state {
        case .idle:
            return [.init(.attempt, at: now, required: true), cancel]
        case .cut, .restarting:
            var choices = [ExplorationChoice(TransferInput.gaveUp, at: now, required: true), cancel]
            if rules.attempt < attempts { choices.append(.init(.attempt, at: now, required: true)) }
            return choices
        case .requesting:
            // A windowed request's 206 ends where its window does.
            let last = min(rules.windowEnd ?? (total - 1), total - 1)
            let answers = [
                TransferAnswer(status: 200, contentLength: total, etag: "\"v1\""),
                TransferAnswer(status: 206, rangeStart: onDisk, rangeTotal: total, etag: "\"v1\"", rangeEnd: last),
                TransferAnswer(
                    status: 206, rangeStart: onDisk + 1, rangeTotal: total, etag: "\"v1\"", rangeEnd: total - 1),
                TransferAnswer(
                    status: 206, rangeStart: onDisk, rangeTotal: total + 1, etag: "\"v2\"", rangeEnd: total),
                TransferAnswer(status: 416, rangeTotal: onDisk, fileSHA256: TransferExploration.goodSHA),
                TransferAnswer(status: 416, rangeTotal: total),
                TransferAnswer(status: 503),
            ]
            return answers.map { ExplorationChoice(TransferInput.answered($0), at: now) } + [
                .init(.interrupted(bytesOnDisk: onDisk), at: now), cancel,
            ]
        case .streaming, .appending:
            let end = rules.answer.flatMap { $0.rangeEnd.map { $0 + 1 } ?? $0.contentLength } ?? total
            return [
                .init(.bodyEnded(bytesOnDisk: end, sha256: TransferExploration.goodSHA), at: now),
                .init(.bodyEnded(bytesOnDisk: end, sha256: "bad"), at: now),
                // A body that ended where its length said, yet short of the file (a server's wrong length).
                .init(.bodyEnded(bytesOnDisk: max(onDisk, end - 1), sha256: nil), at: now),
                .init(.interrupted(bytesOnDisk: min(end, onDisk + total / 2)), at: now),
                cancel,
            ]
        case .checkingRange, .checkingLength, .verifying, .checkingProgress, .complete, .failed, .cancelled:
            return []
        }
    }

    func check(
        before: ExplorationPosition<TransferRules>, after: ExplorationPosition<TransferRules>, input: TransferInput,
        rows: [Int]
    ) -> [InvariantViolation] {
        guard let step = after.last else { return [] }
        var found: [InvariantViolation] = []
        for action in step.produced {
            guard case .append(let at) = action else { continue }
            let facts = before.machine.rules
            let continues: Bool
            if case .answered(let answer) = input, answer.status == 206, answer.rangeStart == facts.bytesOnDisk,
                at == facts.bytesOnDisk, facts.total.map({ $0 == answer.rangeTotal }) ?? true
            {
                continues = true
            } else {
                continues = false
            }
            if !continues {
                found.append(
                    .init(
                        "a transfer never appends a 206 that does not continue the file",
                        "appended at byte \(at) with \(facts.bytesOnDisk) bytes on disk"))
            }
        }
        return found
    }
}
