import RetryFlow
import RetryFlowSnippets
import Testing

/// What the originals really do: their callbacks see an error only when no response came, so a 503
/// ends in their success path and only transport errors are retried (and, when retries run out,
/// reach `failure`). Each snippet table's verdict, pinned for a 503 and a reset.
@Suite struct SnippetVerdictTests {
    /// The states a snippet's machine passes through for one request's outcome, with `retries` left.
    static func swiftRun(_ outcome: OriginalOutcome, times: Int) throws -> [SwiftSnippetState] {
        var machine = TableMachine(table: .swiftSnippet, rules: SwiftSnippetRules(times: times))
        let start = try machine.handle(.start, at: .zero)
        let step = try machine.handle(SwiftSnippetEvent(outcome), at: .zero)
        return (start.taken + step.taken).map(\.to)
    }

    static func objcRun(_ outcome: OriginalOutcome, retryCount: Int) throws -> [ObjCSnippetState] {
        var machine = TableMachine(table: .objcSnippet, rules: ObjCSnippetRules(retryCount: retryCount))
        let start = try machine.handle(.start, at: .zero)
        let step = try machine.handle(ObjCSnippetEvent(outcome), at: .zero)
        return (start.taken + step.taken).map(\.to)
    }

    @Test func aServiceUnavailableIsTheirSuccessPath() throws {
        #expect(SwiftSnippetEvent(.status(503)) == .completed)
        #expect(ObjCSnippetEvent(.status(503)) == .completed)
        #expect(try Self.swiftRun(.status(503), times: 50) == [.request, .success])
        #expect(try Self.objcRun(.status(503), retryCount: 50) == [.request, .success])
        // The row taken is the one that calls the success callback, naming `succeeded`.
        let row = try #require(TransitionTable.objcSnippet.rows(from: .request, on: .completed).first)
        #expect(row.effects == [.completion] && row.reason == .succeeded)
    }

    @Test func aResetIsRetriedAndOnlyTransportErrorsReachFailure() throws {
        #expect(SwiftSnippetEvent(.transportError("reset")) == .failed)
        #expect(ObjCSnippetEvent(.transportError("reset")) == .failed)
        // With retries left: the Swift one sleeps on the delegate queue, the Objective-C one asks again at once.
        #expect(try Self.swiftRun(.transportError("reset"), times: 1) == [.request, .retry, .usleepOnDelegateQueue])
        #expect(try Self.objcRun(.transportError("reset"), retryCount: 1) == [.request, .retry, .request])
        // Without: failure, the only way there.
        #expect(try Self.swiftRun(.transportError("reset"), times: 0) == [.request, .retry, .failure])
        #expect(try Self.objcRun(.transportError("reset"), retryCount: 0) == [.request, .retry, .failure])
        #expect(TransitionTable.objcSnippet.rows.filter { $0.to == .failure }.allSatisfy { $0.from == .retry })
        #expect(TransitionTable.swiftSnippet.rows.filter { $0.to == .failure }.allSatisfy { $0.from == .retry })
    }
}
