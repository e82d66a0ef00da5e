import Foundation
import RetryFlow
import RetryFlowHTTP

/// `budget-step`, `breaker-step`, `transfer-step`: one step (one `handle`) of the budget, breaker and
/// transfer tables on the machine core, against a hand-written equivalent making the same decisions
/// on the same inputs, with no lock on either side, so the difference is what the table costs. Each
/// pair must reach the same checksum of decisions (a precondition), so the baseline cannot skip
/// work. Also heap allocations per step, by valgrind, as `machine-step-allocations` counts them.
enum TableStepBenchmarks {
    /// The machines measured, each a benchmark name (`budget-step`, …).
    enum Kind: String, CaseIterable {
        case budget, breaker, transfer

        var name: String { "\(rawValue)-step" }
        /// Units of work per repetition: inputs (budget), calls (breaker), downloads (transfer).
        func size(quick: Bool) -> Int {
            switch self {
            case .budget: quick ? 4_000 : 2_000_000
            case .breaker: quick ? 4_000 : 1_000_000
            case .transfer: quick ? 1_000 : 300_000
            }
        }
        var baseline: String {
            switch self {
            case .budget: "hand-written token bucket, same decisions, no lock"
            case .breaker: "hand-written breaker, same window and decisions, no lock"
            case .transfer: "hand-written resume logic, same decisions and actions"
            }
        }
        var scenario: String {
            switch self {
            case .budget: "AWS standard bucket drained and refilled (asks, failures, refunds; both states)"
            case .breaker: "Polly breaker, 100 calls/s, 30 s healthy then 30 s at 50 % failures (trips, probes)"
            case .transfer: "downloads: whole; cut twice and resumed; 503 then whole; 416 already complete; gave up"
            }
        }
    }

    /// What a scenario did: `handle` calls (steps) and a checksum of its decisions.
    struct Outcome: Equatable {
        var steps = 0
        var checksum = 0
    }

    static func machine(_ kind: Kind, _ size: Int) -> Outcome {
        switch kind {
        case .budget: budgetMachine(size)
        case .breaker: breakerMachine(size)
        case .transfer: transferMachine(size)
        }
    }

    static func handWritten(_ kind: Kind, _ size: Int) -> Outcome {
        switch kind {
        case .budget: budgetHandWritten(size)
        case .breaker: breakerHandWritten(size)
        case .transfer: transferHandWritten(size)
        }
    }

    static func run(_ kind: Kind, quick: Bool) async -> [BenchmarkResult] {
        let size = kind.size(quick: quick)
        var machineTimes: [Double] = []
        var handTimes: [Double] = []
        var floorTimes: [Double] = []
        var outcome = Outcome()
        for _ in 0..<(quick ? 3 : 11) {
            var hand = Outcome()
            handTimes.append(Measure.blockingSeconds { hand = handWritten(kind, size) })
            machineTimes.append(Measure.blockingSeconds { outcome = machine(kind, size) })
            precondition(hand.checksum == outcome.checksum, "\(kind.name): the hand-written baseline decided otherwise")
            var floor: Outcome?
            let seconds = Measure.blockingSeconds { floor = interpreter(kind, size) }
            if let floor {
                floorTimes.append(seconds)
                precondition(floor == outcome, "\(kind.name): the interpreter floor decided otherwise")
            }
        }
        let perStep = Measure.median(machineTimes) / Double(outcome.steps) * 1e9
        let handPerStep = Measure.median(handTimes) / Double(outcome.steps) * 1e9
        let ratio = perStep / handPerStep
        // The least any executor of the table as data could cost (`TableInterpreterFloor`): a report.
        let floor =
            floorTimes.isEmpty
            ? []
            : [
                BenchmarkResult(
                    name: "\(kind.name)-interpreter-floor",
                    value: Measure.median(floorTimes) / Double(outcome.steps) * 1e9,
                    unit: "ns/step", baseline: kind.baseline, baselineValue: handPerStep,
                    ratio: Measure.median(floorTimes) / Double(outcome.steps) * 1e9 / handPerStep, goal: "report",
                    met: nil,
                    note: "a minimal interpreter of the same table: dense (state, event) cells, no row recorded")
            ]
        return [
            BenchmarkResult(
                name: kind.name, value: perStep, unit: "ns/step", baseline: kind.baseline, baselineValue: handPerStep,
                // Judged on what a step costs, not on its ratio to a hand-written machine: a step of a
                // table read as data cannot approach a compare-and-subtract (docs/benchmarks.md, the
                // interpreter floor), and at well under 1 µs no request can feel it. The ratio is shown.
                ratio: ratio, goal: "<= 1000 ns/step, 0 allocations (ratio for information)", met: perStep <= 1000,
                note:
                    "median of \(machineTimes.count) interleaved runs; \(kind.scenario); \(outcome.steps) steps (one handle each); checksum \(outcome.checksum % 1000)"
            ),
            await MachineStepBenchmark.allocations(
                name: "\(kind.name)-allocations", arguments: ["__table-steps", kind.rawValue], small: size / 20,
                large: size / 20 * 11, steps: { machine(kind, $0).steps }),
        ] + floor
    }

    // MARK: budget

    /// The budget's input stream: 2,000 inputs of an outage (asks and failures outrun successes, so
    /// the bucket drains and hovers at exhausted), then 2,000 healthy ones (successes refill it).
    @inline(__always)
    static func budgetInput(_ index: Int, lastGranted: Int?) -> BudgetInput {
        let slot = index % 20
        if (index / 2_000) % 2 == 0 {
            if slot < 12 { return .retryAsked(timeout: slot == 5) }
            if slot < 18 { return .attemptFailed }
        } else {
            if slot < 2 { return .retryAsked(timeout: false) }
            if slot < 4 { return .attemptFailed }
        }
        return .attemptSucceeded(refund: lastGranted)
    }

    @inline(never)
    static func budgetMachine(_ inputs: Int) -> Outcome {
        var machine = BudgetMachine(table: .budget, rules: BudgetRules(mode: .awsStandard))
        var outcome = Outcome()
        var lastGranted: Int?
        for index in 0..<inputs {
            let input = budgetInput(index, lastGranted: lastGranted)
            // Every state has a row for every event (as `RetryBudget` relies on).
            _ = try? machine.handle(input, at: .zero)
            outcome.steps += 1
            switch input {
            case .retryAsked(let timeout):
                if machine.rules.granted {
                    lastGranted = machine.rules.cost(timeout: timeout)
                    outcome.checksum &+= lastGranted!
                }
            case .attemptSucceeded: lastGranted = nil
            case .attemptFailed: break
            }
            if machine.state == .exhausted { outcome.checksum &+= 1 }
        }
        return outcome
    }

    /// A token bucket as one would write it by hand, with the budget's numbers and both modes' rules: a
    /// mirror of BudgetTable.budget, rows fingerprint ba11d1de5bd85da6;
    /// BenchMirrorTests names this file when the table changes.
    struct HandBucket {
        let capacity: Int
        let retryCost: Int
        let timeoutRetryCost: Int
        let successIncrement: Int
        let failureCharge: Int
        let grpcHalf: Int?
        var tokens: Int
        var exhausted = false

        init(awsCapacity capacity: Int, retryCost: Int, timeoutRetryCost: Int, successIncrement: Int) {
            self.capacity = capacity * 1000
            self.retryCost = retryCost * 1000
            self.timeoutRetryCost = timeoutRetryCost * 1000
            self.successIncrement = successIncrement * 1000
            self.failureCharge = 0
            self.grpcHalf = nil
            self.tokens = capacity * 1000
        }

        func affordable(_ cost: Int) -> Bool {
            if let grpcHalf { return tokens > grpcHalf }
            return tokens >= cost
        }

        mutating func ask(timeout: Bool) -> Int? {
            guard !exhausted else { return nil }
            let cost = timeout ? timeoutRetryCost : retryCost
            guard affordable(cost) else { return nil }
            tokens -= cost
            exhausted = !affordable(retryCost)
            return cost
        }

        mutating func failed() {
            tokens = max(0, tokens - failureCharge)
            if !exhausted { exhausted = !affordable(retryCost) }
        }

        mutating func succeeded(refund: Int?) {
            tokens = min(capacity, tokens + (grpcHalf == nil ? (refund ?? successIncrement) : successIncrement))
            if exhausted { exhausted = !affordable(retryCost) }
        }
    }

    @inline(never)
    static func budgetHandWritten(_ inputs: Int) -> Outcome {
        guard
            case .awsStandard(let capacity, let retryCost, let timeoutRetryCost, let increment) = RetryBudgetMode
                .awsStandard
        else { preconditionFailure("AWS standard mode") }
        var bucket = HandBucket(
            awsCapacity: capacity, retryCost: retryCost, timeoutRetryCost: timeoutRetryCost,
            successIncrement: increment)
        var outcome = Outcome()
        var lastGranted: Int?
        for index in 0..<inputs {
            outcome.steps += 1
            switch budgetInput(index, lastGranted: lastGranted) {
            case .retryAsked(let timeout):
                if let cost = bucket.ask(timeout: timeout) {
                    lastGranted = cost
                    outcome.checksum &+= cost
                }
            case .attemptFailed: bucket.failed()
            case .attemptSucceeded(let refund):
                bucket.succeeded(refund: refund)
                lastGranted = nil
            }
            if bucket.exhausted { outcome.checksum &+= 1 }
        }
        return outcome
    }

    // MARK: breaker

    /// Whether call `index` fails: 1 in 50 for 30 s (3,000 calls at 100 a second), then 1 in 2 for 30 s.
    @inline(__always)
    static func callFails(_ index: Int) -> Bool {
        (index / 3_000) % 2 == 0 ? index % 50 == 0 : index % 2 == 0
    }

    @inline(never)
    static func breakerMachine(_ calls: Int) -> Outcome {
        var machine = BreakerMachine(table: .breaker, rules: BreakerRules(options: .polly))
        var outcome = Outcome()
        func handle(_ event: BreakerEvent, at time: Duration) {
            _ = try? machine.handle(event, at: time)
            outcome.steps += 1
        }
        for index in 0..<calls {
            let now = Duration.milliseconds(10 * index)
            // What `CircuitBreaker` delivers before a call: the break's end, a hung probe given up.
            if machine.state == .open, machine.rules.openUntil <= now {
                handle(.breakElapsed, at: machine.rules.openUntil)
            }
            // (The end of the probe's time is worked out only when a probe is in flight, as by hand.)
            if machine.state == .halfOpen, machine.rules.probe != nil,
                case let probeEnds = machine.rules.probeStartedAt + machine.rules.options.breakDuration,
                probeEnds <= now
            {
                handle(.probeAbandoned, at: probeEnds)
            }
            handle(.callAsked, at: now)
            let fails = callFails(index)
            switch machine.rules.answer {
            case .admitted: handle(fails ? .callFailed : .callSucceeded, at: now)
            case .admittedProbe: handle(fails ? .probeFailed : .probeSucceeded, at: now)
            case .rejected: outcome.checksum &+= 1
            }
            if machine.state == .open { outcome.checksum &+= 1_000 }
        }
        return outcome
    }

    /// A breaker as one would write it by hand: a state enum, the same sampling window, the same rules: a
    /// mirror of BreakerTable.breaker, rows fingerprint 8fb6c04d420dfe2d.
    struct HandBreaker {
        enum State { case closed, open, halfOpen }
        enum Answer { case admitted, admittedProbe, rejected }
        let options: CircuitBreakerOptions
        var state = State.closed
        var openUntil = Duration.zero
        var probe: UInt64?
        var probesStarted: UInt64 = 0
        var probeStartedAt = Duration.zero
        var window: SamplingWindow
        var consecutiveFailures = 0

        init(options: CircuitBreakerOptions) {
            self.options = options
            if case .failureRatio(_, _, let sampling) = options.trip {
                window = SamplingWindow(duration: sampling)
            } else {
                window = SamplingWindow(duration: .seconds(1))
            }
        }

        func trips(at now: Duration) -> Bool {
            switch options.trip {
            case .consecutiveFailures(let count):
                return consecutiveFailures >= count
            case .failureRatio(let ratio, let minimumThroughput, _):
                let health = window.health(at: now)
                return health.calls >= minimumThroughput && Double(health.failures) >= ratio * Double(health.calls)
            }
        }

        /// Steps taken, as the table counts them (one per event delivered), for the same step count.
        mutating func ask(at now: Duration, steps: inout Int) -> Answer {
            if state == .open, openUntil <= now {
                state = .halfOpen
                steps += 1
            }
            if state == .halfOpen, probe != nil, probeStartedAt + options.breakDuration <= now {
                probe = nil
                steps += 1
            }
            steps += 1
            switch state {
            case .closed: return .admitted
            case .open: return .rejected
            case .halfOpen:
                guard probe == nil else { return .rejected }
                probesStarted += 1
                probe = probesStarted
                probeStartedAt = now
                return .admittedProbe
            }
        }

        mutating func record(failed: Bool, probe isProbe: Bool, at now: Duration) {
            if isProbe {
                probe = nil
                if failed {
                    state = .open
                    openUntil = now + options.breakDuration
                } else {
                    state = .closed
                    consecutiveFailures = 0
                    window.clear()
                }
            } else if state == .closed {
                if failed {
                    consecutiveFailures += 1
                    window.record(failed: true, at: now)
                    if trips(at: now) {
                        state = .open
                        openUntil = now + options.breakDuration
                    }
                } else {
                    consecutiveFailures = 0
                    window.record(failed: false, at: now)
                }
            }
        }
    }

    @inline(never)
    static func breakerHandWritten(_ calls: Int) -> Outcome {
        var breaker = HandBreaker(options: .polly)
        var outcome = Outcome()
        for index in 0..<calls {
            let now = Duration.milliseconds(10 * index)
            let answer = breaker.ask(at: now, steps: &outcome.steps)
            let fails = callFails(index)
            switch answer {
            case .admitted, .admittedProbe:
                breaker.record(failed: fails, probe: answer == .admittedProbe, at: now)
                outcome.steps += 1
            case .rejected: outcome.checksum &+= 1
            }
            if breaker.state == .open { outcome.checksum &+= 1_000 }
        }
        return outcome
    }

    // MARK: transfer

    static let fileSize = 1 << 20
    static let answers = (
        whole: TransferAnswer(status: 200, contentLength: fileSize, etag: "\"v1\""),
        third: TransferAnswer(
            status: 206, contentLength: fileSize - fileSize / 3, rangeStart: fileSize / 3, rangeTotal: fileSize,
            etag: "\"v1\""),
        twoThirds: TransferAnswer(
            status: 206, contentLength: fileSize - fileSize / 3 * 2, rangeStart: fileSize / 3 * 2,
            rangeTotal: fileSize, etag: "\"v1\""),
        complete: TransferAnswer(status: 416, rangeTotal: fileSize),
        unavailable: TransferAnswer(status: 503)
    )

    /// Download `run`'s inputs, and the bytes on disk it starts with. Five kinds in turn: a whole body;
    /// cut at a third and two thirds and resumed each time; a 503, then a whole body; a partial as long
    /// as the file, answered 416 (already complete); cut, a 503, and the retry machine gives up.
    @inline(__always)
    static func transferScript(_ run: Int, _ body: (TransferInput) -> Void) -> Int {
        let size = fileSize
        switch run % 5 {
        case 0:
            body(.attempt)
            body(.answered(answers.whole))
            body(.bodyEnded(bytesOnDisk: size, sha256: nil))
            return 0
        case 1:
            body(.attempt)
            body(.answered(answers.whole))
            body(.interrupted(bytesOnDisk: size / 3))
            body(.attempt)
            body(.answered(answers.third))
            body(.interrupted(bytesOnDisk: size / 3 * 2))
            body(.attempt)
            body(.answered(answers.twoThirds))
            body(.bodyEnded(bytesOnDisk: size, sha256: nil))
            return 0
        case 2:
            body(.attempt)
            body(.answered(answers.unavailable))
            body(.attempt)
            body(.answered(answers.whole))
            body(.bodyEnded(bytesOnDisk: size, sha256: nil))
            return 0
        case 3:
            body(.attempt)
            body(.answered(answers.complete))
            return size
        default:
            body(.attempt)
            body(.answered(answers.whole))
            body(.interrupted(bytesOnDisk: size / 3))
            body(.attempt)
            body(.answered(answers.unavailable))
            body(.gaveUp)
            return 0
        }
    }

    /// Bytes on disk when download `run` starts (only the 416 kind has a partial already).
    @inline(__always)
    static func startingBytes(_ run: Int) -> Int { run % 5 == 3 ? fileSize : 0 }

    /// Mixes an action into the checksum, on both sides alike.
    @inline(__always)
    static func mix(_ action: TransferAction, into checksum: inout Int) {
        switch action {
        case .askWhole: checksum &+= 1
        case .askRest(let from, let ifRange): checksum &+= from &+ (ifRange == nil ? 2 : 3)
        case .askWindow(let from, let through, let ifRange): checksum &+= from &+ through &+ (ifRange == nil ? 29 : 31)
        case .truncate: checksum &+= 5
        case .append(let at): checksum &+= at &+ 7
        case .reject: checksum &+= 11
        case .discard: checksum &+= 13
        case .install: checksum &+= 17
        case .creditProgress(let resume): checksum &+= resume &+ 37
        case .finish(let state): checksum &+= state == .complete ? 19 : 23
        }
    }

    @inline(never)
    static func transferMachine(_ runs: Int) -> Outcome {
        var outcome = Outcome()
        for run in 0..<runs {
            var machine = TableMachine(
                table: .transfer, rules: TransferRules(bytesOnDisk: startingBytes(run), expectedSHA256: nil))
            _ = transferScript(run) { input in
                guard let step = try? machine.handle(input, at: .zero) else { preconditionFailure("no row") }
                outcome.steps += 1
                for action in step.actions { mix(action, into: &outcome.checksum) }
            }
            precondition(machine.isFinished)
        }
        return outcome
    }

    /// The same download logic as one would write it by hand: the guards' conditions inline. A
    /// mirror of TransferTable.transfer, rows fingerprint 743e658c542e7ade.
    struct HandTransfer {
        enum State { case idle, requesting, streaming, appending, cut, restarting, finished }
        var state = State.idle
        let expectedSHA256: String? = nil
        var bytesOnDisk: Int
        var total: Int?
        var validator: String?
        var attempt = 0
        var answer: TransferAnswer?
        var sha256: String?

        mutating func handle(_ input: TransferInput, _ emit: (TransferAction) -> Void) {
            switch input {
            case .attempt:
                attempt += 1
                state = .requesting
                emit(bytesOnDisk > 0 ? .askRest(from: bytesOnDisk, ifRange: validator) : .askWhole)
            case .answered(let answer):
                self.answer = answer
                switch answer.status {
                case 200:
                    bytesOnDisk = 0
                    total = answer.contentLength
                    validator = answer.ifRangeValidator
                    state = .streaming
                    emit(.truncate)
                case 206:
                    if answer.rangeStart == bytesOnDisk, let announced = answer.rangeTotal,
                        total.map({ $0 == announced }) ?? true
                    {
                        total = answer.rangeTotal
                        if validator == nil { validator = answer.ifRangeValidator }
                        state = .appending
                        emit(.append(at: bytesOnDisk))
                    } else {
                        restart(emit)
                    }
                case 416:
                    sha256 = answer.fileSHA256
                    if let complete = answer.rangeTotal ?? total, complete == bytesOnDisk {
                        verify(emit)
                    } else {
                        restart(emit)
                    }
                default:
                    state = .cut
                }
            case .bodyEnded(let bytes, let sha, _):
                bytesOnDisk = bytes
                sha256 = sha
                if total == nil, answer?.status == 200 { total = bytes }
                verify(emit)
            case .interrupted(let bytes):
                bytesOnDisk = bytes
                state = .cut
            case .gaveUp:
                state = .finished
                emit(.finish(.failed))
            case .cancelled:
                state = .finished
                emit(.finish(.cancelled))
            }
        }

        private mutating func restart(_ emit: (TransferAction) -> Void) {
            emit(.reject(reason: "unusable answer"))
            bytesOnDisk = 0
            total = nil
            validator = nil
            state = .restarting
            emit(.discard)
        }

        private mutating func verify(_ emit: (TransferAction) -> Void) {
            let announced = answer?.status == 416 ? answer?.rangeTotal : nil
            guard let complete = announced ?? total, bytesOnDisk == complete else {
                state = .cut
                return
            }
            state = .finished
            guard expectedSHA256 == nil || sha256 == expectedSHA256 else {
                bytesOnDisk = 0
                total = nil
                validator = nil
                emit(.discard)
                emit(.finish(.failed))
                return
            }
            if total == nil { total = bytesOnDisk }
            emit(.install)
            emit(.finish(.complete))
        }
    }

    @inline(never)
    static func transferHandWritten(_ runs: Int) -> Outcome {
        var outcome = Outcome()
        for run in 0..<runs {
            var transfer = HandTransfer(bytesOnDisk: startingBytes(run))
            _ = transferScript(run) { input in
                outcome.steps += 1
                transfer.handle(input) { mix($0, into: &outcome.checksum) }
            }
            precondition(transfer.state == .finished)
        }
        return outcome
    }
}
