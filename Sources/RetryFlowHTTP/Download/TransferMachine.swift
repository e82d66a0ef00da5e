import RetryFlow

/// What a server's answer to one download attempt said, as far as the transfer table cares.
public struct TransferAnswer: Hashable, Sendable {
    /// The status code.
    public var status: Int
    /// `Content-Length`, if sent.
    public var contentLength: Int?
    /// A `206`'s `Content-Range` first byte, if it parsed.
    public var rangeStart: Int?
    /// The complete length from `Content-Range` (`…/total`, or a `416`'s `*/total`), if known.
    public var rangeTotal: Int?
    /// The `ETag`, as sent (`"v1"` or weak `W/"v1"`).
    public var etag: String?
    /// The `Last-Modified` date, as sent.
    public var lastModified: String?
    /// The SHA-256 of the file on disk, which the driver computes when a `416` announces a total
    /// equal to the bytes on disk (so the `checksum matches` guard can decide at once).
    public var fileSHA256: String?

    /// An answer.
    public init(
        status: Int, contentLength: Int? = nil, rangeStart: Int? = nil, rangeTotal: Int? = nil, etag: String? = nil,
        lastModified: String? = nil, fileSHA256: String? = nil
    ) {
        self.fileSHA256 = fileSHA256
        self.status = status
        self.contentLength = contentLength
        self.rangeStart = rangeStart
        self.rangeTotal = rangeTotal
        self.etag = etag
        self.lastModified = lastModified
    }

    /// What `If-Range` may carry to validate a resume of this answer's body: a strong ETag, else
    /// Last-Modified; `nil` for a weak ETag alone (RFC 9110 §13.1.5 forbids weak tags there).
    public var ifRangeValidator: String? {
        if let etag, !etag.hasPrefix("W/") { return etag }
        return lastModified
    }
}

/// One input to the transfer machine, with what the driver observed.
public enum TransferInput: Hashable, Sendable {
    /// An attempt starts.
    case attempt
    /// The server answered (status and headers).
    case answered(TransferAnswer)
    /// The body ended where its length said; the file holds `bytesOnDisk` bytes, whose SHA-256
    /// the driver computed when they were as many as the total (else `nil`).
    case bodyEnded(bytesOnDisk: Int, sha256: String?)
    /// The attempt ended early with `bytesOnDisk` bytes in the file.
    case interrupted(bytesOnDisk: Int)
    /// The retry machine gave up.
    case gaveUp
    /// The caller cancelled.
    case cancelled

    /// The table's event for this input.
    public var event: TransferEvent {
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
public enum TransferAction: Hashable, Sendable {
    /// Send the request without `Range`.
    case askWhole
    /// Send `Range: bytes=<from>-`, with `If-Range: <ifRange>` when one is known.
    case askRest(from: Int, ifRange: String?)
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
    /// The run is over in `state`.
    case finish(TransferState)
}

/// The transfer machine: pure, a value. It looks each input up in ``TransitionTable/transfer``,
/// keeps the facts its guards read (bytes on disk, total, validator, checksum) from the inputs the
/// rows consumed, and returns the actions to perform. No I/O, no clock.
public struct TransferMachine: Sendable {
    /// What one input did: the row taken, the decision row after it (if any), and the actions.
    public struct Step: Hashable, Sendable {
        /// The row the input triggered.
        public var transition: TransferTrace.Step
        /// The completion row taken after it, when it entered `verifying`.
        public var completion: TransferTrace.Step?
        /// What the driver must do, in order.
        public var actions: [TransferAction]
    }

    /// The table this machine executes.
    public let table: TransferTable
    /// The SHA-256 the finished file must have (lowercase hex), if any.
    public let expectedSHA256: String?
    /// The current state.
    public private(set) var state: TransferState
    /// Bytes in the partial file.
    public private(set) var bytesOnDisk: Int
    /// The complete length, once a server announced it.
    public private(set) var total: Int?
    /// The `If-Range` value for the next resume (a strong ETag or Last-Modified), if known.
    public private(set) var validator: String?
    /// Attempts started.
    public private(set) var attempt = 0

    private var answer: TransferAnswer?
    private var sha256: String?

    /// A machine for a file that already holds `bytesOnDisk` bytes (0 for a fresh download).
    public init(bytesOnDisk: Int = 0, expectedSHA256: String? = nil, table: TransferTable = .transfer) {
        self.table = table
        self.state = table.initial
        self.bytesOnDisk = bytesOnDisk
        self.expectedSHA256 = expectedSHA256?.lowercased()
    }

    /// Whether the run is over.
    public var isFinished: Bool { table.isTerminal(state) }

    /// Delivers `input`, observed `at` (time since the run started), and moves by the table.
    /// - Throws: ``InvalidTransferTransition`` when the table has no row for it in this state;
    ///   the machine is left unchanged.
    public mutating func handle(_ input: TransferInput, at time: Duration) throws(InvalidTransferTransition) -> Step {
        let saved = self
        absorb(input)
        let event = input.event
        guard let index = table.rowIndex(from: state, on: event, evaluate: { holds($0) }) else {
            let state = saved.state
            self = saved
            throw InvalidTransferTransition(state: state, event: event, at: time)
        }
        var actions: [TransferAction] = []
        let taken = take(table.rows[index], at: time, detail: detail(for: input), actions: &actions)
        var completion: TransferTrace.Step?
        if let next = table.completionRowIndex(after: index, evaluate: { holds($0) }) {
            completion = take(table.rows[next], at: time, detail: nil, actions: &actions)
        }
        return Step(transition: taken, completion: completion, actions: actions)
    }

    /// Records what an input tells (before the guards read it).
    private mutating func absorb(_ input: TransferInput) {
        switch input {
        case .attempt:
            attempt += 1
        case .answered(let answer):
            self.answer = answer
            if answer.status == 416 { sha256 = answer.fileSHA256 }
        case .bodyEnded(let bytes, let sha):
            bytesOnDisk = bytes
            sha256 = sha
            // A 200 without Content-Length (chunked) is complete where its body ends.
            if total == nil, answer?.status == 200 { total = bytes }
        case .interrupted(let bytes):
            bytesOnDisk = bytes
        case .gaveUp, .cancelled:
            break
        }
    }

    private func holds(_ guardSymbol: TransferGuard) -> Bool {
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
        }
    }

    private mutating func take(
        _ row: TransferTable.Row, at time: Duration, detail: String?, actions: inout [TransferAction]
    ) -> TransferTrace.Step {
        let from = state
        state = row.to
        for effect in row.effects {
            switch effect {
            case .askWhole:
                actions.append(.askWhole)
            case .askRest:
                actions.append(.askRest(from: bytesOnDisk, ifRange: validator))
            case .truncate:
                bytesOnDisk = 0
                total = answer?.contentLength
                validator = answer?.ifRangeValidator
                actions.append(.truncate)
            case .append:
                total = answer?.rangeTotal
                // A resumed partial from an earlier run learns its validator from the first 206.
                if validator == nil { validator = answer?.ifRangeValidator }
                actions.append(.append(at: bytesOnDisk))
            case .reject:
                actions.append(.reject(reason: rejection))
            case .discard:
                bytesOnDisk = 0
                total = nil
                validator = nil
                actions.append(.discard)
            case .install:
                if total == nil { total = bytesOnDisk }
                actions.append(.install)
            case .finish:
                actions.append(.finish(row.to))
            }
        }
        return TransferTrace.Step(
            from: from, event: row.event, condition: row.condition, to: row.to, at: time, attempt: attempt,
            detail: detail)
    }

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

    /// The trace's words for an input: the byte range asked, answered or written.
    private func detail(for input: TransferInput) -> String? {
        switch input {
        case .attempt:
            return bytesOnDisk > 0 ? "bytes=\(bytesOnDisk)-" + (validator.map { " If-Range \($0)" } ?? "") : "bytes=0-"
        case .answered(let answer):
            var text = "\(answer.status)"
            if let start = answer.rangeStart { text += " from byte \(start)" }
            if let announced = answer.rangeTotal ?? answer.contentLength { text += " of \(announced)" }
            return text
        case .bodyEnded(let bytes, _), .interrupted(let bytes):
            return "\(bytes) bytes on disk"
        case .gaveUp, .cancelled:
            return "\(bytesOnDisk) bytes on disk"
        }
    }
}

/// An input the transfer table has no row for in the machine's state (a driver bug).
public struct InvalidTransferTransition: Error, Hashable, Sendable, CustomStringConvertible {
    /// The state the machine was in (and stayed in).
    public let state: TransferState
    /// The event that had no row.
    public let event: TransferEvent
    /// When, since the run started.
    public let at: Duration
    /// `no row for '206' in state 'cut'`.
    public var description: String { "no row for '\(event.label)' in state '\(state.label)'" }
}
