import RetryFlow
import Testing

/// The generic core runs a table that is not the retry table: a machine is a table plus its rules.
@Suite struct MachineCoreTests {
    enum GateState: String, TableSymbol { case closed, counting, checking, done }
    enum GateEvent: String, TableSymbol, MachineInput {
        case hit, stop
        var event: Self { self }
    }
    enum GateGuard: String, TableSymbol { case even, big }
    enum GateEffect: String, TableSymbol { case count, announce }
    enum GateReason: String, TableSymbol { case big, stopped }
    enum GateAction: Hashable, Sendable { case announced(Int) }

    typealias GateVocabulary = TableWords<GateState, GateEvent, GateGuard, GateEffect, GateReason>

    /// Two decisions in a row: `counting` then `checking`, each left by completion rows.
    static let gate = TransitionTable<GateVocabulary>(
        name: "gate", initial: .closed, terminals: [.done],
        rows: [
            // from        event       guard              to         effects       reason
            .init(from: .closed, event: .hit, to: .counting, effects: [.count]),
            .init(from: .closed, event: .stop, to: .done, reason: .stopped),
            .init(from: .counting, event: nil, condition: .when(.even), to: .checking),
            .init(from: .counting, event: nil, to: .closed),
            .init(from: .checking, event: nil, condition: .when(.big), to: .done, effects: [.announce], reason: .big),
            .init(from: .checking, event: nil, to: .closed, effects: [.announce]),
        ])

    struct GateRules: MachineRules {
        typealias Vocabulary = GateVocabulary

        var hits = 0
        mutating func receive(_ input: GateEvent, at time: Duration) {}
        func holds(_ guardSymbol: GateGuard) -> Bool {
            switch guardSymbol {
            case .even: hits % 2 == 0
            case .big: hits >= 4
            }
        }
        mutating func perform(_ effect: GateEffect, of row: Row) -> GateAction? {
            switch effect {
            case .count:
                hits += 1
                return nil
            case .announce:
                return .announced(hits)
            }
        }
    }

    @Test func chainedDecisionsAreFollowedToTheirEnd() throws {
        try Self.gate.validate()
        var machine = TableMachine(table: Self.gate, rules: GateRules())
        var trace = TransitionTrace<GateVocabulary>()
        var routes: [[GateState]] = []
        var actions: [GateAction] = []
        for time in 1...4 {
            let step = try machine.handle(.hit, at: .seconds(time))
            trace.steps += step.taken
            routes.append([step.transition.from] + step.taken.map(\.to))
            actions += step.actions
        }
        #expect(routes[0] == [.closed, .counting, .closed])
        // Two completion hops in one step: counting, then checking.
        #expect(routes[1] == [.closed, .counting, .checking, .closed])
        #expect(routes[3] == [.closed, .counting, .checking, .done])
        #expect(actions == [.announced(2), .announced(4)])
        #expect(machine.isFinished)
        #expect(trace.inconsistencies(with: Self.gate).isEmpty)
        #expect(throws: TableMachine<GateRules>.Rejection(state: .done, event: .hit, at: .seconds(5))) {
            _ = try machine.handle(.hit, at: .seconds(5))
        }
    }

    /// A chain longer than a step holds fails validation rather than stalling or dropping rows.
    @Test func overlongChainIsReported() {
        enum S: String, TableSymbol { case s0, s1, s2, s3, s4, s5, s6, s7 }
        enum E: String, TableSymbol { case go }
        enum X: String, TableSymbol { case x }
        typealias V = TableWords<S, E, X, X, X>
        let decisions: [TransitionTable<V>.Row] = (1...6).map { n in
            .init(from: S.allCases[n], event: nil, to: S.allCases[n + 1], reason: n == 6 ? .x : nil)
        }
        let table = TransitionTable<V>(
            name: "long", initial: .s0, terminals: [.s7], rows: [.init(from: .s0, event: .go, to: .s1)] + decisions)
        #expect(table.problems == [.stepTooLong(row: "s0 --go--> s1", rows: 7, effects: 0)])
    }
}
