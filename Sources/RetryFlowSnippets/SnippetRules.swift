import RetryFlow
import RetryFlowCharts

/// The Swift snippet's one fact: `times`, the retries left. Its guard reads it; `recurse`
/// (`retryDataTask(times: times - 1)`) counts it down. Enough to run and verify the table as written.
public struct SwiftSnippetRules: MachineRules, Hashable {
    public typealias Vocabulary = SwiftSnippetVocabulary

    /// Retries left (`times`).
    public private(set) var times: Int

    /// Rules for a call with `times` (the snippet's default is 50).
    public init(times: Int = 50) { self.times = times }

    /// Nothing to take in: the events carry nothing.
    public mutating func receive(_ input: SwiftSnippetEvent, at time: Duration) {}

    /// `times > 0`.
    public func holds(_ guardSymbol: SwiftSnippetGuard) -> Bool { times > 0 }

    /// Counts `recurse` down; every effect is what the snippet does, returned as is.
    public mutating func perform(_ effect: SwiftSnippetEffect, of row: Row) -> SwiftSnippetEffect? {
        if effect == .recurse { times -= 1 }
        return effect
    }
}

/// The Objective-C snippet's one fact: `retryCount`, counted down by each recursive call.
public struct ObjCSnippetRules: MachineRules, Hashable {
    public typealias Vocabulary = ObjCSnippetVocabulary

    /// Retries left (`retryCount`).
    public private(set) var retryCount: Int

    /// Rules for a call with `retryCount`.
    public init(retryCount: Int) { self.retryCount = retryCount }

    /// Nothing to take in: the events carry nothing.
    public mutating func receive(_ input: ObjCSnippetEvent, at time: Duration) {}

    /// `retryCount > 0`.
    public func holds(_ guardSymbol: ObjCSnippetGuard) -> Bool { retryCount > 0 }

    /// Counts `recurse` down; every effect is what the snippet does, returned as is.
    public mutating func perform(_ effect: ObjCSnippetEffect, of row: Row) -> ObjCSnippetEffect? {
        if effect == .recurse { retryCount -= 1 }
        return effect
    }
}

/// The snippets explored as `retryflow verify` explores every machine: in each state any of their
/// events can come (a response or a transport error, then the wait's end); the bound is the
/// snippet's own retry count.
package enum SnippetExploration {
    /// The Swift snippet with `times` retries.
    package static func swift(times: Int) -> ExplorationResult<SwiftSnippetVocabulary> {
        TableExplorer(
            table: .swiftSnippet, rules: SwiftSnippetRules(times: times),
            model: EveryEventModel(inputLimit: 3 * times + 3, bound: "times = \(times) (attempts ≤ times + 1)")
        ).explore()
    }

    /// The Objective-C snippet with `retryCount` retries.
    package static func objc(retryCount: Int) -> ExplorationResult<ObjCSnippetVocabulary> {
        TableExplorer(
            table: .objcSnippet, rules: ObjCSnippetRules(retryCount: retryCount),
            model: EveryEventModel(
                inputLimit: 2 * retryCount + 3, bound: "retryCount = \(retryCount) (attempts ≤ retryCount + 1)")
        ).explore()
    }
}
