import RetryFlow
import RetryFlowHTTP
import RetryFlowTesting
import Testing

/// The transfer machine alone: inputs in, actions out, no I/O. Every trace checked against the table.
@Suite struct TransferMachineTests {
    /// Feeds `inputs` and returns the machine, every action and the trace.
    static func run(
        _ inputs: [TransferInput], bytesOnDisk: Int = 0, sha: String? = nil, window: Int? = nil,
        validator: String? = nil, total: Int? = nil
    ) throws -> (TransferMachine, [TransferAction], TransferTrace) {
        var machine = TransferMachine(
            rules: TransferRules(
                bytesOnDisk: bytesOnDisk, expectedSHA256: sha, window: window, validator: validator, total: total))
        var actions: [TransferAction] = []
        var trace = TransferTrace()
        for (index, input) in inputs.enumerated() {
            let step = try machine.handle(input, at: .milliseconds(index))
            actions += step.actions
            trace.steps += step.taken
        }
        expectConsistent(trace, with: TransferTable.transfer)
        return (machine, actions, trace)
    }

    static let whole = TransferAnswer(status: 200, contentLength: 1000, etag: "\"v1\"")

    @Test func aCutResumesWithTheStrongETagAndAppendsAMatching206() throws {
        let (machine, actions, trace) = try Self.run([
            .attempt, .answered(Self.whole), .interrupted(bytesOnDisk: 400), .attempt,
            .answered(TransferAnswer(status: 206, rangeStart: 400, rangeTotal: 1000, etag: "\"v1\"")),
            .bodyEnded(bytesOnDisk: 1000, sha256: nil),
        ])
        #expect(machine.state == .complete)
        #expect(
            actions == [
                .askWhole, .truncate, .askRest(from: 400, ifRange: "\"v1\""), .append(at: 400), .install,
                .finish(.complete),
            ])
        #expect(trace.steps.first { $0.attempt == 2 }?.detail == "bytes=400- If-Range \"v1\"")
        #expect(trace.resumeSummary == "resumed at 400 B")
    }

    static func window(_ start: Int, _ end: Int) -> TransferInput {
        .answered(TransferAnswer(status: 206, rangeStart: start, rangeTotal: 1000, etag: "\"v1\"", rangeEnd: end))
    }

    @Test func windowsFollowEachOtherWithinOneAttempt() throws {
        let (machine, actions, trace) = try Self.run(
            [
                .attempt, Self.window(0, 399), .bodyEnded(bytesOnDisk: 400, sha256: nil), Self.window(400, 799),
                .bodyEnded(bytesOnDisk: 800, sha256: nil), Self.window(800, 999),
                .bodyEnded(bytesOnDisk: 1000, sha256: nil),
            ], window: 400)
        #expect(machine.state == .complete && machine.rules.attempt == 1)
        #expect(
            actions == [
                .askWindow(from: 0, through: 399, ifRange: nil), .append(at: 0),
                .askWindow(from: 400, through: 799, ifRange: "\"v1\""), .append(at: 400),
                .askWindow(from: 800, through: 1199, ifRange: "\"v1\""), .append(at: 800), .install,
                .finish(.complete),
            ])
        #expect(trace.steps.first?.detail == "bytes=0-399")
        #expect(trace.steps.filter { $0.from == .verifying && $0.to == .requesting }.count == 2)
    }

    @Test func aWindowNearIntMaxSaturates() throws {
        let (_, actions, trace) = try Self.run([.attempt], bytesOnDisk: 50_000, window: .max, validator: "\"v1\"")
        #expect(actions == [.askWindow(from: 50_000, through: .max, ifRange: "\"v1\"")])
        #expect(trace.steps.first?.detail == "bytes=50000-\(Int.max) If-Range \"v1\"")
    }

    /// The driver's sizer supplies each next window with the body end; only the size changes, and
    /// a transfer without windows stays without.
    @Test func anEndedWindowCarriesTheNextWindowsSize() throws {
        let (machine, actions, _) = try Self.run(
            [
                .attempt, Self.window(0, 99), .bodyEnded(bytesOnDisk: 100, sha256: nil, nextWindow: 200),
                Self.window(100, 299), .bodyEnded(bytesOnDisk: 300, sha256: nil, nextWindow: 50),
                Self.window(300, 349), .interrupted(bytesOnDisk: 320), .attempt,
            ], window: 100)
        #expect(machine.rules.window == 50)
        #expect(
            actions == [
                .askWindow(from: 0, through: 99, ifRange: nil), .append(at: 0),
                .askWindow(from: 100, through: 299, ifRange: "\"v1\""), .append(at: 100),
                .askWindow(from: 300, through: 349, ifRange: "\"v1\""), .append(at: 300),
                .askWindow(from: 320, through: 369, ifRange: "\"v1\""),
            ])
        let (unwindowed, _, _) = try Self.run(
            [.attempt, .answered(Self.whole), .bodyEnded(bytesOnDisk: 1000, sha256: nil, nextWindow: 400)])
        #expect(unwindowed.rules.window == nil && unwindowed.state == .complete)
    }

    /// Only a body that ended exactly at its range's end, having written a byte, asks for the next
    /// window: anything else is a cut (the retry machine decides), so a server cannot loop it.
    @Test(arguments: [
        (TransferMachineTests.window(0, 399), 200), (TransferMachineTests.window(0, 399), 401),
        (TransferMachineTests.window(400, 399), 400),
    ])
    func aWindowThatDidNotEndAtItsRangeIsACut(answer: TransferInput, bytes: Int) throws {
        let (machine, _, _) = try Self.run(
            [.attempt, answer, .bodyEnded(bytesOnDisk: bytes, sha256: nil)], bytesOnDisk: bytes == 400 ? 400 : 0,
            window: 400)
        #expect(machine.state == .cut || machine.state == .restarting)
    }

    @Test func aSidecarsValidatorAndTotalGuardTheFirstResume() throws {
        let (_, actions, trace) = try Self.run([.attempt], bytesOnDisk: 300, validator: "\"v1\"", total: 1000)
        #expect(actions == [.askRest(from: 300, ifRange: "\"v1\"")])
        #expect(trace.steps.first?.detail == "bytes=300- If-Range \"v1\"")
        // A 206 with another total cannot continue the recorded version.
        let (machine, _, _) = try Self.run(
            [.attempt, .answered(TransferAnswer(status: 206, rangeStart: 300, rangeTotal: 2000))], bytesOnDisk: 300,
            validator: "\"v1\"", total: 1000)
        #expect(machine.state == .restarting)
        // With nothing on disk there is nothing to validate.
        let (_, fresh, _) = try Self.run([.attempt], validator: "\"v1\"", total: 1000)
        #expect(fresh == [.askWhole])
    }

    @Test func aWeakETagAloneGivesNoIfRangeButLastModifiedDoes() throws {
        var weak = Self.whole
        weak.etag = "W/\"v1\""
        let (_, noValidator, _) = try Self.run([.attempt, .answered(weak), .interrupted(bytesOnDisk: 10), .attempt])
        #expect(noValidator.last == .askRest(from: 10, ifRange: nil))
        weak.lastModified = "Mon, 30 Nov 2026 05:00:00 GMT"
        let (_, dated, _) = try Self.run([.attempt, .answered(weak), .interrupted(bytesOnDisk: 10), .attempt])
        #expect(dated.last == .askRest(from: 10, ifRange: "Mon, 30 Nov 2026 05:00:00 GMT"))
    }

    @Test(arguments: [
        TransferAnswer(status: 206, rangeStart: 0, rangeTotal: 1000), // restarted at 0
        TransferAnswer(status: 206, rangeStart: 401, rangeTotal: 1000), // one byte off
        TransferAnswer(status: 206, rangeStart: 400, rangeTotal: 2000), // another total
        TransferAnswer(status: 206, rangeStart: 400), // no total
    ])
    func a206ThatDoesNotContinueTheFileIsRejectedAndDiscarded(answer: TransferAnswer) throws {
        let (machine, actions, _) = try Self.run([
            .attempt, .answered(Self.whole), .interrupted(bytesOnDisk: 400), .attempt, .answered(answer), .attempt,
        ])
        #expect(machine.state == .requesting)
        #expect(actions.contains(.discard) && !actions.contains(.append(at: 400)))
        if case .reject = actions[actions.count - 3] {} else { Issue.record("no reject before discard: \(actions)") }
        #expect(actions.last == .askWhole) // the next attempt starts from byte 0
        #expect(machine.rules.bytesOnDisk == 0 && machine.rules.validator == nil)
    }

    @Test func a416OnACompleteFileInstallsAfterTheChecksum() throws {
        let answer = TransferAnswer(status: 416, rangeTotal: 1000, fileSHA256: "ab")
        let (machine, actions, trace) = try Self.run([.attempt, .answered(answer)], bytesOnDisk: 1000, sha: "AB")
        #expect(machine.state == .complete)
        #expect(actions == [.askRest(from: 1000, ifRange: nil), .install, .finish(.complete)])
        #expect(trace.steps.map(\.to) == [.requesting, .checkingLength, .verifying, .complete])
    }

    @Test func a416OnAPartialFileRestarts() throws {
        let (machine, actions, _) = try Self.run(
            [.attempt, .answered(TransferAnswer(status: 416, rangeTotal: 1000))], bytesOnDisk: 300)
        #expect(machine.state == .restarting)
        #expect(actions.last == .discard)
    }

    @Test func aChecksumMismatchFailsAndDiscards() throws {
        let (machine, actions, _) = try Self.run(
            [.attempt, .answered(Self.whole), .bodyEnded(bytesOnDisk: 1000, sha256: "bad")], sha: "good")
        #expect(machine.state == .failed)
        #expect(actions.suffix(2) == [.discard, .finish(.failed)])
    }

    @Test func aShortBodyIsACutNotASuccess() throws {
        let (machine, _, _) = try Self.run([.attempt, .answered(Self.whole), .bodyEnded(bytesOnDisk: 999, sha256: nil)])
        #expect(machine.state == .cut)
    }

    @Test func anInputWithNoRowIsRejectedAndChangesNothing() throws {
        var machine = TransferMachine()
        #expect(throws: TableMachine<TransferRules>.Rejection.self) {
            try machine.handle(.bodyEnded(bytesOnDisk: 1, sha256: nil), at: .zero)
        }
        #expect(machine.state == .idle)
    }
}

/// The hash every download test compares with: FIPS 180-4's own examples, so the comparisons cannot
/// pass on a wrong hash that both sides share.
@Suite struct SHA256Tests {
    @Test func knownAnswers() {
        #expect(SHA256.hex(of: []) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(of: Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            SHA256.hex(of: Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            SHA256.hex(of: [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func feedingInPiecesGivesTheSameDigest() {
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        var hasher = SHA256()
        for piece in [0..<1, 1..<63, 63..<64, 64..<200, 200..<1000] {
            bytes[piece].withUnsafeBytes { hasher.update(buffer: $0) }
        }
        #expect(hasher.hexDigest() == SHA256.hex(of: bytes))
    }
}
