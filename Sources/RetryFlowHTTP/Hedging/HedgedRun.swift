import RetryFlow

/// Runs one request as a race of hedged attempts by `TransitionTable.hedging`, on an injected
/// clock, with no I/O of its own: the operation sends, the classifier judges, the machine decides.
///
/// Structured: every attempt and timer is a child task of one task group, so when the run returns
/// every loser has been cancelled **and awaited** (its record counts none still in flight), and a
/// caller's cancellation reaches every attempt.
///
/// ```swift
/// let run = HedgedRun(HedgingPolicy(delay: .milliseconds(50)), clock: ContinuousClock())
/// let outcome = await run.outcome(classify: { result in
///     if case .success = result { .accept } else { .nonFatal(.none) }
/// }) { attempt in
///     try await fetch(replica: attempt.number)
/// }
/// ```
package struct HedgedRun<C: Clock<Duration>>: Sendable {
    /// What one attempt is told.
    package struct Attempt: Sendable, Hashable {
        /// Its number, from 1; above 1 it is a hedge.
        package let number: Int
        /// Whether it is a hedge.
        package var isHedge: Bool { number > 1 }
    }

    /// How many attempts and how far apart.
    package let policy: HedgingPolicy
    /// Where time comes from.
    package let clock: C
    /// The shared budget asked for every hedge (gRPC: tokens above half); `nil` grants every hedge.
    package var budget: RetryBudget?
    /// Time allowed for the whole run, every attempt included; `nil` for none.
    package var deadline: Duration?
    /// Called with every row taken, as it is taken (a CLI's live trace, a test waiting for a row).
    package var onTransition: (@Sendable (HedgingTrace.Step) -> Void)?

    /// A run of `policy` on `clock`.
    package init(_ policy: HedgingPolicy, clock: C, budget: RetryBudget? = nil, deadline: Duration? = nil) {
        self.policy = policy
        self.clock = clock
        self.budget = budget
        self.deadline = deadline
    }

    private enum Arrival<Value: Sendable>: Sendable {
        case answer(number: Int, Result<Value, any Error>)
        case hedgeDue(generation: Int)
        case deadline
        case nothing
    }

    /// Runs `operation` hedged, judging each result with `classify`, and returns once every attempt
    /// has ended. An invalid policy is the caller's to check (``HedgingPolicy/validate()``).
    package func outcome<Value: Sendable>(
        classify: @escaping @Sendable (Result<Value, any Error>) -> HedgeVerdict,
        describe: @escaping @Sendable (Result<Value, any Error>) -> String? = { _ in nil },
        _ operation: @escaping @Sendable (Attempt) async throws -> Value
    ) async -> HedgingOutcome<Value> {
        let clock = self.clock
        let start = clock.now
        let budget = self.budget
        let deadline = self.deadline
        let policy = self.policy
        let onTransition = self.onTransition
        return await withTaskGroup(of: Arrival<Value>.self) { group in
            func elapsed() -> Duration { start.duration(to: clock.now) }
            var machine = HedgingMachine(table: .hedging, rules: HedgingRules(policy: policy))
            var trace = HedgingTrace()
            var sentAt: [Int: Duration] = [:]
            var ended: [Int: HedgeAttemptRecord] = [:]
            var timer = 0
            var armed: TimerWait?
            var result: Result<Value, any Error>?
            var pending: [HedgingInput] = [.start]

            // Each attempt's task counts itself out as it ends: what the record says was in flight at
            // return is measured, not derived from this loop's own bookkeeping.
            let running = Locked(0)

            func end(_ number: Int, _ ending: HedgeAttemptRecord.Ending, _ answer: Result<Value, any Error>) {
                var error: (any Error)?
                if case .failure(let thrown) = answer { error = thrown }
                ended[number] = HedgeAttemptRecord(
                    number: number, start: sentAt[number] ?? .zero, end: elapsed(), ending: ending, error: error,
                    detail: describe(answer))
            }

            if let deadline {
                let due = start.advanced(by: deadline)
                group.addTask {
                    do { try await clock.sleep(until: due, tolerance: nil) } catch { return .nothing }
                    return .deadline
                }
            }
            while true {
                while !pending.isEmpty {
                    let input = pending.removeFirst()
                    let now = elapsed()
                    let step: HedgingMachine.Step
                    do throws(HedgingMachine.Rejection) { step = try machine.handle(input, at: now) } catch {
                        trace.rejections.append(error)
                        continue
                    }
                    let taken = step.taken(detail: input.detail)
                    trace.steps += taken
                    if let onTransition { taken.forEach(onTransition) }
                    for action in step.produced {
                        switch action {
                        case .send(let number):
                            sentAt[number] = now
                            running.withLock { $0 += 1 }
                            group.addTask {
                                defer { running.withLock { $0 -= 1 } }
                                do {
                                    return .answer(
                                        number: number, .success(try await operation(Attempt(number: number))))
                                } catch {
                                    return .answer(number: number, .failure(error))
                                }
                            }
                        case .armHedgeTimer(let after):
                            timer += 1
                            let (generation, due) = (timer, clock.now.advanced(by: after))
                            // A timer of its own so that re-arming or disarming ends it at once (a
                            // child of the group cannot be cancelled alone); on the real clock the
                            // shared timer's thread fires it (TimerWait). The child awaits it, so it
                            // never outlives the run.
                            let wait = TimerWait(clock: clock, until: due)
                            armed?.cancel()
                            armed = wait
                            group.addTask {
                                let fired = await withTaskCancellationHandler {
                                    await wait.wait()
                                } onCancel: {
                                    wait.cancel()
                                }
                                return fired ? .hedgeDue(generation: generation) : .nothing
                            }
                        case .disarmHedgeTimer:
                            timer += 1 // a firing already on its way is stale
                            armed?.cancel()
                            armed = nil
                        case .askBudget:
                            pending.append(
                                .budgetAnswered(granted: budget.map { $0.ask() != .refused } ?? true))
                        case .cancelTheRest:
                            group.cancelAll()
                        }
                    }
                }
                if machine.isFinished { break }
                // Racing and awaiting always have an attempt or a timer pending: the group is not empty.
                guard let arrival = await group.next() else { break }
                if Task.isCancelled {
                    if case .answer(let number, let answer) = arrival { end(number, .cancelled, answer) }
                    pending.append(.cancelled)
                    continue
                }
                switch arrival {
                case .answer(let number, let answer):
                    result = answer
                    switch classify(answer) {
                    case .accept:
                        end(number, .won, answer)
                        pending.append(.answerAccepted(attempt: number))
                    case .final:
                        end(number, .final, answer)
                        pending.append(.answerFinal(attempt: number, detail: ended[number]?.detail))
                    case .nonFatal(let pushback):
                        end(number, .failed, answer)
                        pending.append(
                            .attemptFailed(attempt: number, pushback: pushback, detail: ended[number]?.detail))
                    }
                case .hedgeDue(let generation):
                    // Only the armed timer's firing is an event: every row that leaves `racing` for a
                    // waiting state disarms it (a new generation), so the table decides the rest.
                    if generation == timer { pending.append(.hedgeDue) }
                case .deadline:
                    pending.append(.deadlinePassed)
                case .nothing:
                    break
                }
            }
            // Every loser (and timer) is cancelled by `cancel the rest`; await each before returning.
            group.cancelAll()
            while let arrival = await group.next() {
                if case .answer(let number, let answer) = arrival { end(number, .cancelled, answer) }
            }
            let reason = trace.steps.last.flatMap { step in
                HedgingTable.hedging.rows.first {
                    $0.from == step.from && $0.event == step.event && $0.condition == step.condition && $0.to == step.to
                }?.reason
            }
            if machine.state == .cancelled || reason == .deadline { result = nil }
            let record = HedgingRecord(
                finalState: machine.state, reason: reason,
                attempts: ended.values.sorted { $0.number < $1.number }, deniedHedges: machine.rules.denied,
                trace: trace, duration: elapsed(), inFlightAtReturn: running.withLock { $0 })
            return HedgingOutcome(result: result, record: record)
        }
    }
}
