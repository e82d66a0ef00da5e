import RetryFlow
import Testing

/// The core scans only the rows its precomputed lookup lists for where it stands: it must still take
/// exactly the rows the table's lookup rule names (the first row, in table order, for the state and
/// event whose guard holds; then completion rows), and reject exactly what has no row.
@Suite struct RowLookupTests {
    /// Any event of a table, as an input.
    struct Input<Event: TableSymbol>: MachineInput {
        let event: Event
    }

    /// Rules whose guards answer from a hash of how many inputs arrived and the guard, so every
    /// combination of answers comes up; effects do nothing.
    struct HashRules<Vocabulary: TableVocabulary>: MachineRules {
        typealias Input = RowLookupTests.Input<Vocabulary.Event>
        typealias Action = Never
        var received = 0

        static func answer(_ guardSymbol: Vocabulary.Guard, after received: Int) -> Bool {
            let ordinal = Array(Vocabulary.Guard.allCases).firstIndex(of: guardSymbol) ?? 0
            var mixed = UInt64(received) &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(ordinal) &* 0xBF58_476D_1CE4_E5B9
            mixed ^= mixed >> 31
            return mixed % 3 != 0
        }

        mutating func receive(_ input: Input, at time: Duration) { received += 1 }
        func holds(_ guardSymbol: Vocabulary.Guard) -> Bool { Self.answer(guardSymbol, after: received) }
        mutating func perform(_ effect: Vocabulary.Effect, of row: Row) -> Never? { nil }
    }

    /// Drives `table` with 4,000 pseudo-random events and checks every step against a full scan;
    /// returns how many events were rejected.
    func walk<Vocabulary>(_ table: TransitionTable<Vocabulary>) throws -> Int {
        typealias Rules = HashRules<Vocabulary>
        var machine = TableMachine(table: table, rules: Rules())
        var generator = SeededRandom(seed: 16)
        let events = Array(Vocabulary.Event.allCases)
        var taken = 0
        var rejected = 0
        for _ in 0..<4_000 {
            if machine.isFinished { machine = TableMachine(table: table, rules: Rules()) }
            let event = events[Int(generator.next() % UInt64(events.count))]
            let before = machine.rules.received
            // The event row's guard reads the facts before its input; completion rows read them after.
            let expectedFirst = table.rowIndex(from: machine.state, on: event) { Rules.answer($0, after: before) }
            guard let first = expectedFirst else {
                #expect(throws: TableMachine<Rules>.Rejection.self) {
                    _ = try machine.handle(Input(event: event), at: .zero)
                }
                rejected += 1
                continue
            }
            var expected = [first]
            while let next = table.rowIndex(
                from: table.rows[expected.last!].to, on: nil, evaluate: { Rules.answer($0, after: before + 1) })
            {
                expected.append(next)
            }
            let step = try machine.handle(Input(event: event), at: .zero)
            let rows = step.taken.map {
                table.index(from: $0.from, event: $0.event, condition: $0.condition, to: $0.to)
            }
            #expect(rows == expected.map(Optional.some), "\(table.name): \(event) from \(table.rows[first].from)")
            taken += 1
        }
        #expect(taken > 500, "\(table.name): \(taken) steps taken")
        return rejected
    }

    @Test func theCoreTakesTheRowsAFullScanNames() throws {
        // The retry and breaker tables have events some states do not take: rejections come up too.
        #expect(try walk(.retry) > 0)
        #expect(try walk(.breaker) > 0)
        // A budget takes every event in every state it rests in.
        #expect(try walk(.budget) == 0)
        _ = try walk(MachineCoreTests.gate)
    }
}
