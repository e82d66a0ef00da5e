import RetryFlow

/// What a server's answer to one download attempt said, as far as the transfer table cares.
package struct TransferAnswer: Hashable, Sendable {
    /// The status code.
    package var status: Int
    /// `Content-Length`, if sent.
    package var contentLength: Int?
    /// A `206`'s `Content-Range` first byte, if it parsed.
    package var rangeStart: Int?
    /// A `206`'s `Content-Range` last byte (inclusive), if it parsed.
    package var rangeEnd: Int?
    /// The complete length from `Content-Range` (`…/total`, or a `416`'s `*/total`), if known.
    package var rangeTotal: Int?
    /// The `ETag`, as sent (`"v1"` or weak `W/"v1"`).
    package var etag: String?
    /// The `Last-Modified` date, as sent.
    package var lastModified: String?
    /// The SHA-256 of the file on disk, which the driver computes when a `416` announces a total
    /// equal to the bytes on disk (so the `checksum matches` guard can decide at once).
    package var fileSHA256: String?

    /// An answer.
    package init(
        status: Int, contentLength: Int? = nil, rangeStart: Int? = nil, rangeTotal: Int? = nil, etag: String? = nil,
        lastModified: String? = nil, fileSHA256: String? = nil, rangeEnd: Int? = nil
    ) {
        self.fileSHA256 = fileSHA256
        self.rangeEnd = rangeEnd
        self.status = status
        self.contentLength = contentLength
        self.rangeStart = rangeStart
        self.rangeTotal = rangeTotal
        self.etag = etag
        self.lastModified = lastModified
    }

    /// What `If-Range` may carry to validate a resume of this answer's body: a strong ETag, else
    /// Last-Modified; `nil` for a weak ETag alone (RFC 9110 §13.1.5 forbids weak tags there).
    package var ifRangeValidator: String? {
        if let etag, !etag.hasPrefix("W/") { return etag }
        return lastModified
    }
}

/// One input to the transfer machine, with what the driver observed.
package enum TransferInput: Hashable, Sendable, MachineInput {
    /// An attempt starts.
    case attempt
    /// The server answered (status and headers).
    case answered(TransferAnswer)
    /// The body ended where its length said; the file holds `bytesOnDisk` bytes, whose SHA-256
    /// the driver computed when they were as many as the total (else `nil`). `nextWindow`, when
    /// positive and the transfer is windowed, is the size the driver picked for the next window
    /// (from how far its delegate fell behind); `nil` keeps the window.
    case bodyEnded(bytesOnDisk: Int, sha256: String?, nextWindow: Int? = nil)
    /// The attempt ended early with `bytesOnDisk` bytes in the file.
    case interrupted(bytesOnDisk: Int)
    /// The retry machine gave up.
    case gaveUp
    /// The caller cancelled.
    case cancelled

    /// The table's event for this input.
    package var event: TransferEvent {
        switch self {
        case .attempt: .attempt
        case .answered(let answer):
            switch answer.status {
            case 200: .whole
            case 206: .partial
            case 416: .notSatisfiable
            default: .refused
            }
        case .bodyEnded: .bodyEnded
        case .interrupted: .interrupted
        case .gaveUp: .gaveUp
        case .cancelled: .cancelled
        }
    }
}

/// Work for the download driver, with its values.
package enum TransferAction: Hashable, Sendable {
    /// Send the request without `Range`.
    case askWhole
    /// Send `Range: bytes=<from>-`, with `If-Range: <ifRange>` when one is known.
    case askRest(from: Int, ifRange: String?)
    /// Send `Range: bytes=<from>-<through>` (one window), with `If-Range: <ifRange>` when one is known.
    case askWindow(from: Int, through: Int, ifRange: String?)
    /// Empty the file; the body is written from byte 0.
    case truncate
    /// Write the body after the `at` bytes on disk.
    case append(at: Int)
    /// Stop the transfer in flight; the attempt fails retryably, for `reason`.
    case reject(reason: String)
    /// Empty the file and forget its validators.
    case discard
    /// Move the finished file into place.
    case install
    /// The attempt made progress: resume number `resume` of the rule's bound. The driver tells the
    /// retry machine the attempt's failure came after progress.
    case creditProgress(resume: Int)
    /// The run is over in `state`.
    case finish(TransferState)
}

/// The transfer table's specialisation on the machine core: the facts its guards read (bytes on
/// disk, total, validator, the answer, the checksum), taken from the inputs the rows consume and
/// the effects they perform, and what each effect asks the driver to do.
package struct TransferRules: MachineRules {
    package typealias Vocabulary = TransferVocabulary

    /// The SHA-256 the finished file must have (lowercase hex), if any.
    package let expectedSHA256: String?
    /// The bytes the next request asks for (the first window, then what the driver supplies with
    /// each ended window: ``TransferInput/bodyEnded(bytesOnDisk:sha256:nextWindow:)``); `nil` asks
    /// for the whole rest.
    package private(set) var window: Int?
    /// Bytes in the partial file.
    package private(set) var bytesOnDisk: Int
    /// The complete length, once a server announced it.
    package private(set) var total: Int?
    /// The `If-Range` value for the next resume (a strong ETag or Last-Modified), if known.
    package private(set) var validator: String?
    /// Attempts started.
    package private(set) var attempt = 0
    /// The last answer received.
    package private(set) var answer: TransferAnswer?
    private var sha256: String?
    /// What counts as progress; `nil`: nothing does (curl's meaning).
    package let progressRule: ProgressRule?
    /// The most bytes the file held of this version when the current attempt began: its progress is
    /// measured beyond this.
    package private(set) var progressMark = 0
    /// Attempts credited with progress.
    package private(set) var resumes = 0

    /// Rules for a file that already holds `bytesOnDisk` bytes, asking for at most `window` bytes
    /// per request (a window that is not positive means no window). `validator` and `total`, when a
    /// partial file's sidecar recorded them, validate its resume (`If-Range`) from the first request.
    package init(
        bytesOnDisk: Int, expectedSHA256: String?, window: Int? = nil, validator: String? = nil, total: Int? = nil,
        progressRule: ProgressRule? = nil
    ) {
        self.progressRule = progressRule
        progressMark = bytesOnDisk
        self.bytesOnDisk = bytesOnDisk
        self.expectedSHA256 = expectedSHA256?.lowercased()
        self.window = window.flatMap { $0 > 0 ? $0 : nil }
        // Facts about bytes on disk only: with nothing on disk there is nothing to validate.
        self.validator = bytesOnDisk > 0 ? validator : nil
        self.total = bytesOnDisk > 0 ? total : nil
    }

    /// Records what an input tells, as its row is taken.
    @inline(__always)
    package mutating func receive(_ input: TransferInput, at time: Duration) {
        switch input {
        case .attempt:
            attempt += 1
            progressMark = max(progressMark, bytesOnDisk)
        case .answered(let answer):
            self.answer = answer
            if answer.status == 416 { sha256 = answer.fileSHA256 }
        case .bodyEnded(let bytes, let sha, let nextWindow):
            bytesOnDisk = bytes
            sha256 = sha
            // Only a size: whether the transfer is windowed (the `windowed` guard) never changes.
            if window != nil, let nextWindow, nextWindow > 0 { window = nextWindow }
            // A 200 without Content-Length (chunked) is complete where its body ends.
            if total == nil, answer?.status == 200 { total = bytes }
        case .interrupted(let bytes):
            bytesOnDisk = bytes
        case .gaveUp, .cancelled:
            break
        }
    }

    /// Whether `guardSymbol` holds, from the facts received.
    // `receive`, `holds` and `perform` are inlined into the core's step: called, each took a copy of
    // these facts (216 bytes, with retains of their strings) for its `self` (docs/benchmarks.md).
    @inline(__always)
    package func holds(_ guardSymbol: TransferGuard) -> Bool {
        switch guardSymbol {
        case .partialOnDisk:
            return bytesOnDisk > 0
        case .rangeContinuesFile:
            guard let answer, answer.rangeStart == bytesOnDisk, let announced = answer.rangeTotal else { return false }
            return total.map { $0 == announced } ?? true
        case .fileComplete:
            // A 416 speaks for the server's current length; otherwise the total learned earlier.
            let announced = answer?.status == 416 ? answer?.rangeTotal : nil
            guard let complete = announced ?? total else { return false }
            return bytesOnDisk == complete
        case .checksumMatches:
            return expectedSHA256 == nil || sha256 == expectedSHA256
        case .windowed:
            return window != nil
        case .windowEnded:
            // The body ended exactly at its range's last byte, having written at least one byte
            // (end ≥ start), so each window makes progress; a total not reached asks for more.
            guard let answer, answer.status == 206, let start = answer.rangeStart, let end = answer.rangeEnd,
                end >= start, end < Int.max, end + 1 == bytesOnDisk, let total
            else { return false }
            return bytesOnDisk < total
        case .madeProgress:
            guard let progressRule else { return false }
            return bytesOnDisk - progressMark >= progressRule.minimumBytes
        case .resumesLeft:
            return resumes < (progressRule?.maxResumes ?? 0)
        }
    }

    /// Performs `effect` on the facts and names the driver's work.
    @inline(__always)
    package mutating func perform(_ effect: TransferEffect, of row: Row) -> TransferAction? {
        switch effect {
        case .askWhole:
            return .askWhole
        case .askRest:
            return .askRest(from: bytesOnDisk, ifRange: validator)
        case .askWindow:
            guard let through = windowEnd else { return .askRest(from: bytesOnDisk, ifRange: validator) }
            return .askWindow(from: bytesOnDisk, through: through, ifRange: validator)
        case .truncate:
            bytesOnDisk = 0
            total = answer?.contentLength
            // Another version (If-Range did not match): the bytes held before are no measure of it.
            if let fresh = answer?.ifRangeValidator, fresh != validator { progressMark = 0 }
            validator = answer?.ifRangeValidator
            return .truncate
        case .append:
            total = answer?.rangeTotal
            // A partial left by an earlier run learns its validator from the first 206.
            if validator == nil { validator = answer?.ifRangeValidator }
            return .append(at: bytesOnDisk)
        case .reject:
            return .reject(reason: rejection)
        case .discard:
            bytesOnDisk = 0
            total = nil
            validator = nil
            return .discard
        case .install:
            if total == nil { total = bytesOnDisk }
            return .install
        case .creditProgress:
            resumes += 1
            return .creditProgress(resume: resumes)
        case .finish:
            return .finish(row.to)
        }
    }

    /// The last byte the next window asks for (saturated), or `nil` without a window.
    package var windowEnd: Int? {
        guard let window else { return nil }
        let (end, overflow) = bytesOnDisk.addingReportingOverflow(window - 1)
        return overflow ? Int.max : end
    }

    /// Each trace step carries the attempt it belongs to.
    package func traced(_ row: Row) -> (attempt: Int, delay: Duration?) { (attempt, nil) }

    /// Why a `206` or `416` cannot be used, in words.
    private var rejection: String {
        guard let answer else { return "unusable answer" }
        if answer.status == 416 {
            return "416 with \(bytesOnDisk) of \(answer.rangeTotal.map(String.init) ?? "?") bytes on disk"
        }
        let start = answer.rangeStart.map(String.init) ?? "?"
        let announced = answer.rangeTotal.map(String.init) ?? "?"
        return "206 starts at byte \(start) of \(announced), the file holds \(bytesOnDisk)"
            + (total.map { " of \($0)" } ?? "")
    }
}

/// The transfer machine: `TableMachine` running `TransitionTable.transfer` with the
/// ``TransferRules``. Pure: no I/O, no clock. Its trace steps carry the byte range in words.
package struct TransferMachine: Sendable {
    /// What one input did: the rows taken (as trace steps, with words) and the actions.
    package struct Step: Sendable {
        /// The rows taken, the input's first.
        package var taken: [TransferTrace.Step]
        /// What the driver must do, in order.
        package var actions: [TransferAction]
    }

    private var core: TableMachine<TransferRules>

    /// A machine for a file that already holds `bytesOnDisk` bytes (0 for a fresh download).
    package init(bytesOnDisk: Int = 0, expectedSHA256: String? = nil, table: TransferTable = .transfer) {
        self.init(rules: TransferRules(bytesOnDisk: bytesOnDisk, expectedSHA256: expectedSHA256), table: table)
    }

    /// A machine starting from `rules` (bytes on disk, window, what a sidecar recorded).
    package init(rules: TransferRules, table: TransferTable = .transfer) {
        core = TableMachine(table: table, rules: rules)
    }

    /// The current state.
    package var state: TransferState { core.state }
    /// Whether the run is over.
    package var isFinished: Bool { core.isFinished }
    /// The facts: bytes on disk, total, validator, attempt.
    package var rules: TransferRules { core.rules }

    /// Whether the table has a row for `event` in the current state (whatever its guard).
    func hasRow(for event: TransferEvent) -> Bool {
        core.table.rows.contains { $0.from == core.state && $0.event == event }
    }

    /// Delivers `input`, observed `at` (time since the run started), and moves by the table.
    /// - Throws: a rejection when the table has no row for it in this state (machine unchanged).
    package mutating func handle(
        _ input: TransferInput, at time: Duration
    ) throws(TableMachine<TransferRules>.Rejection) -> Step {
        let words = detail(for: input)
        let step = try core.handle(input, at: time)
        return Step(taken: Array(step.taken(detail: words)), actions: Array(step.actions))
    }

    /// The trace's words for an input: the byte range asked, answered or written.
    private func detail(for input: TransferInput) -> String? {
        let facts = core.rules
        switch input {
        case .attempt:
            let end = facts.windowEnd.map(String.init) ?? ""
            guard facts.bytesOnDisk > 0 else { return "bytes=0-\(end)" }
            return "bytes=\(facts.bytesOnDisk)-\(end)" + (facts.validator.map { " If-Range \($0)" } ?? "")
        case .answered(let answer):
            var text = "\(answer.status)"
            if let start = answer.rangeStart { text += " from byte \(start)" }
            if let end = answer.rangeEnd { text += " to \(end)" }
            if let announced = answer.rangeTotal ?? answer.contentLength { text += " of \(announced)" }
            return text
        case .bodyEnded(let bytes, _, _), .interrupted(let bytes):
            return "\(bytes) bytes on disk"
        case .gaveUp, .cancelled:
            return "\(facts.bytesOnDisk) bytes on disk"
        }
    }
}
