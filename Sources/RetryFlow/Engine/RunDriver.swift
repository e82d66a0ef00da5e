/// What the driver awaits next, as ``RunDriver/advance(now:)`` says.
enum RunNext {
    /// Run this attempt.
    case attempt(Int)
    /// Sleep until this instant after the run's start.
    case sleep(until: Duration)
    /// Run the user's step.
    case step(RetryStep.ID)
    /// The run is over.
    case finished(RetryState, StopReason, at: Duration)
}

/// One run's driver: the loop of a ``Retry`` run. It delivers the pending input to the
/// `RetryMachine`, performs the actions the machine answers with (start an attempt, ask or report
/// to the fleet's guards, sleep, run a step, finish), one await at a time, and turns what happened
/// into the next input. It decides nothing: "stop after N attempts" is the row `[no attempts left]`
/// of ``TransitionTable/retry`` (RetryTable.swift). Used by one task only (the run's), never shared.
final class RunDriver<C: Clock<Duration>, Value: Sendable> {
    // What the run was given.
    /// The engine's clock from the instant the run started: time since the start, waits, timers.
    let time: ClockTime<C>
    let operation: @Sendable (RetryAttempt) async throws -> Value
    let classifyResult: (@Sendable (Value) -> RetryVerdict?)?
    let onRetry: (@Sendable (RetryNotice) -> Void)?
    let onTransition: (@Sendable (RetryTrace.Step) -> Void)?
    let describeError: @Sendable (any Error) -> String
    let transitions: AsyncStream<RetryTrace.Step>.Continuation?
    let runsAttemptsInline: Bool
    let interruptsInlineAttempts: Bool
    let madeProgress: (@Sendable (any Error) -> Bool)?
    /// The fleet's guards; what the run holds from them is carried by ``state``.
    let guards: FleetGuards

    // What the run keeps, whatever its state.
    var machine: RetryMachine
    var policy: RetryPolicy { machine.policy }
    var trace = RetryTrace()
    var attempts: [AttemptRecord] = []
    /// Every visit of a user step, in order.
    var steps: [StepRecord] = []
    /// What the user's steps produced, merged: each attempt after them receives it.
    var values = RetryStep.Values()
    var lastValue: Value?
    var lastError: (any Error)?

    // Where it is.
    /// The next input to deliver (the driver holds no other copy of the machine's state).
    var pending: RetryInput
    /// The actions of the last step, performed in order from `nextAction`.
    private var actions = RetryActions()
    private var nextAction = 0
    /// When the last step was decided: its waits are anchored there.
    private var decidedAt: Duration = .zero
    /// What the run holds meanwhile: the try being prepared, the token being waited for, the
    /// breaker's ticket, the attempt in flight.
    private var state = RunState<Value>.between(NextTry())

    init(
        engine: Retry<C>, transitions: AsyncStream<RetryTrace.Step>.Continuation?,
        classifyResult: (@Sendable (Value) -> RetryVerdict?)?,
        operation: @escaping @Sendable (RetryAttempt) async throws -> Value, cancelled: Bool
    ) {
        self.time = ClockTime(clock: engine.clock, start: engine.clock.now)
        self.operation = operation
        self.classifyResult = classifyResult
        self.onRetry = engine.onRetry
        self.onTransition = engine.onTransition
        self.describeError = engine.describeError
        self.transitions = transitions
        self.runsAttemptsInline = engine.runsAttemptsInline
        self.interruptsInlineAttempts = engine.interruptsInlineAttempts
        self.madeProgress = engine.madeProgress
        self.guards = engine.guards
        self.machine = RetryMachine(
            policy: engine.policy, waitsOutBreak: engine.guards.whenCircuitOpen == .waitOutBreak,
            waitsForToken: engine.guards.whenRateLimited == .waitForToken, table: engine.policy.table,
            random: engine.randomness.nextRun())
        self.pending = cancelled ? .cancelled(detail: nil) : .start
    }

    /// The loop: perform what the machine asks, one await at a time, until it finishes the run.
    func run() async -> RetryOutcome<Value> {
        while true {
            switch advance(now: time.elapsed()) {
            case .attempt(let number):
                if beginAttempt(number, at: time.elapsed()) {
                    await inlineAttempt()
                } else {
                    await racedAttempt()
                }
            case .sleep(let until):
                // Anchored at the decision, not started after the hooks: a wait the machine
                // planned to end before the deadline ends before it, whatever the hooks cost.
                do {
                    try await sleep(until: until)
                    pending = .delayElapsed
                } catch {
                    pending = .cancelled(detail: nil)
                }
            case .step(let id):
                await runStep(id)
            case .finished(let state, let reason, let at):
                return outcome(state: state, reason: reason, at: at)
            }
        }
    }

    /// Sleeps until `until`; the wait for a reserved token (`token wait`) instead follows the
    /// limiter's bucket, sooner or later than planned as the rate changes, never past the deadline
    /// (``AdaptiveRateLimiter/nextWake(for:now:latest:)``).
    private func sleep(until: Duration) async throws {
        guard case .paced(let next, let refusal, let reservation?) = state, let limiter = guards.limiter else {
            return try await time.sleep(until: until)
        }
        state = .paced(next, refusal, nil)
        while let wake = limiter.nextWake(for: reservation, now: time.elapsed(), latest: policy.deadline) {
            try await time.sleep(until: wake)
        }
    }

    /// Runs the action of the user's step `id` in this task, keeps what it produced for the attempts
    /// after it, and makes the next input the exit it ended in, `step failed`, or `cancelled`.
    private func runStep(_ id: RetryStep.ID) async {
        guard let step = policy.steps.first(where: { $0.id == id }) else {
            // validate() gives every step state an action; a table changed since cannot reach here.
            preconditionFailure("no action for the step '\(id.name)': validate() the policy")
        }
        let visit = 1 + steps.filter { $0.name == id.name }.count
        let context = RetryStep.Context(attempt: machine.attempt, error: lastError, values: values, visit: visit)
        let started = time.elapsed()
        var error: (any Error)?
        var exit: RetryStep.Exit?
        do {
            let output = try await step.action(context)
            if step.exits.contains(output.exit) {
                values.merge(output.values, from: id)
                exit = output.exit
                error = output.error
                pending = .stepExit(output.exit, detail: output.error.map(describeError))
            } else {
                // An exit no row routes: the step failed, and what it produced is not kept.
                let wrong = UnknownStepExit(step: id, exit: output.exit, exits: step.exits)
                error = wrong
                pending = .stepFailed(detail: wrong.description)
            }
        } catch let thrown {
            error = thrown
            if RetryClassifier.isCancellation(thrown) || Task.isCancelled {
                pending = .cancelled(detail: describeError(thrown))
            } else {
                pending = .stepFailed(detail: describeError(thrown))
            }
        }
        steps.append(
            StepRecord(name: id.name, start: started, duration: time.elapsed() - started, exit: exit, error: error))
    }

    /// The attempt begun, in this task: untimed, or ended by its timer through ``AttemptInterrupt``.
    private func inlineAttempt() async {
        let end: AttemptEnd<Value>
        if let timer = attempt.timer {
            end = await interruptibleAttempt(timerAt: timer.at)
        } else {
            do {
                end = .returned(try await operation(attemptInfo()))
            } catch {
                end = .threw(error)
            }
        }
        attemptEnded(end, now: time.elapsed(), cancelled: Task.isCancelled)
    }

    /// The attempt begun, in a task of its own, raced against its timer and the run's cancellation.
    private func racedAttempt() async {
        let race = AttemptRace.start(
            timerAt: attempt.timer?.at, time: time, attempt: attemptInfo(), operation: operation)
        if case .attempting(var attempt) = state {
            attempt.race = race
            state = .attempting(attempt)
        }
        attemptEnded(await race.end(), now: time.elapsed(), cancelled: Task.isCancelled)
    }

    /// Runs a timed attempt in this task: its timer ends it through ``AttemptInterrupt``, a
    /// cancellation of this task through the operation's own cancellation handler. Whichever ends
    /// the operation first decides, at that moment (an answer that arrived first is kept).
    private func interruptibleAttempt(timerAt: Duration) async -> AttemptEnd<Value> {
        let time = self.time
        let interrupt = AttemptInterrupt(due: { time.elapsed() >= timerAt })
        let timer = time.arm(at: timerAt) { interrupt.fire() }
        defer { timer.disarm() }
        let operation = self.operation
        let attempt = attemptInfo()
        let result: Result<Value, any Error>
        do {
            result = .success(try await AttemptInterrupt.$current.withValue(interrupt) { try await operation(attempt) })
        } catch {
            result = .failure(error)
        }
        if Task.isCancelled, case .failure = result { return .cancelled }
        if interrupt.fired { return .timerFired }
        switch result {
        case .success(let value): return .returned(value)
        case .failure(let error): return .threw(error)
        }
    }

    /// Performs the step's actions that need no waiting, delivering the pending input when none is
    /// left, up to the first that does: an attempt, a wait, or the end. `now` is the run's clock.
    func advance(now: Duration) -> RunNext {
        while true {
            if nextAction == actions.count {
                // The instant the machine decides at: every wait it plans is anchored here.
                decidedAt = now
                // An event with no row ends the run in `failure`: a run always ends in a terminal state.
                guard let step = deliver(at: now) else { return .finished(.failure, .invalidTransition, at: now) }
                actions = step
                nextAction = 0
                continue
            }
            let action = actions[nextAction]
            nextAction += 1
            switch action {
            case .startAttempt(let number):
                return .attempt(number)
            case .askLimiter:
                askLimiter()
            case .returnToken:
                returnToken(now: now)
            case .askBreaker(let number):
                askBreaker(number, now: now)
            case .cancelAttempt:
                if case .attempting(var attempt) = state {
                    attempt.race?.operationTask?.cancel()
                    attempt.race = nil
                    state = .attempting(attempt)
                }
            case .reportHealth(let result, let throttled):
                reportHealth(result, throttled: throttled)
            case .askRetryBudget(let afterTimeout):
                askBudget(afterTimeout: afterTimeout)
            case .notifyRetry(let attempt, let delay):
                notifyRetry(attempt: attempt, delay: delay)
            case .sleep(let delay):
                dropAttemptTask() // a finished attempt's task is not kept through the wait
                return .sleep(until: decidedAt + delay)
            case .runStep(let id):
                dropAttemptTask()
                return .step(id)
            case .finish(let state, let reason):
                return .finished(state, reason, at: now)
            }
        }
    }

    /// Delivers the pending event; the actions to perform, or `nil` for an event with no row.
    private func deliver(at now: Duration) -> RetryActions? {
        do {
            let step = try machine.handle(pending, at: now)
            for index in step.rows.indices {
                record(step.traceStep(index, detail: index == 0 ? pending.detail : nil))
            }
            return step.produced
        } catch {
            trace.rejections.append(error)
            return nil
        }
    }

    private func record(_ step: RetryTrace.Step) {
        trace.steps.append(step)
        onTransition?(step)
        transitions?.yield(step)
    }

    /// The attempt in flight, as ``beginAttempt(_:at:)`` set it; only while the run is `attempting`.
    private var attempt: AttemptInFlight<Value> {
        guard case .attempting(let attempt) = state else {
            // Only `run()` awaits an attempt, right after `beginAttempt` made the run `attempting`.
            preconditionFailure("no attempt in flight: \(state)")
        }
        return attempt
    }

    /// Lets go of a finished attempt's task (its race), keeping the rest of the attempt.
    private func dropAttemptTask() {
        guard case .attempting(var attempt) = state, attempt.race != nil else { return }
        attempt.race = nil
        state = .attempting(attempt)
    }

    /// Gives back the breaker's ticket the run holds, if any: a table of the user's may leave an
    /// attempt unreported, and a ticket is never kept past the try it admitted.
    private func giveBackTicket() {
        if let held = state.ticket { guards.breaker?.record(held, .abandoned) }
    }

    /// Begins attempt `number` at `now` (time since the run started); whether it runs in the run's
    /// own task (inline: untimed, or interrupted by its timer) rather than in a task of its own.
    func beginAttempt(_ number: Int, at now: Duration) -> Bool {
        let timer = policy.attemptTimer(startingAt: now)
        state = .attempting(
            AttemptInFlight(number: number, timer: timer, started: now, ticket: state.ticket, next: state.next))
        return runsAttemptsInline && (timer == nil || interruptsInlineAttempts)
    }

    /// What the operation is told of the attempt in flight.
    func attemptInfo() -> RetryAttempt {
        RetryAttempt(number: attempt.number, maxAttempts: policy.maxAttempts, previousError: lastError, values: values)
    }

    /// Turns how the attempt ended into the next input and the attempt's record.
    func attemptEnded(_ end: AttemptEnd<Value>, now: Duration, cancelled: Bool) {
        let (number, timer, started) = (attempt.number, attempt.timer, attempt.started)
        let error: (any Error)?
        var decision = RetryDecision.fail
        var returned = false
        switch end {
        case .returned(let value):
            lastValue = value
            returned = true
            if let verdict = classifyResult?(value) {
                let rejected = RejectedResult(verdict.description)
                error = rejected
                decision = verdict.decision
                pending = .failed(decision, detail: describeError(rejected), throttled: verdict.throttled)
            } else {
                error = nil
                pending = .succeeded
            }
        case .threw(let thrown):
            error = thrown
            if RetryClassifier.isCancellation(thrown) && cancelled {
                pending = .cancelled(detail: describeError(thrown))
            } else {
                decision = policy.retryIf.decision(for: thrown)
                pending =
                    madeProgress?(thrown) == true
                    ? .failedAfterProgress(decision, detail: describeError(thrown))
                    : .failed(decision, detail: describeError(thrown))
            }
        case .timerFired where timer?.kind == .deadline:
            let passed = DeadlineExceeded(deadline: policy.deadline ?? .zero)
            error = passed
            pending = .deadlineExceeded(detail: describeError(passed))
        case .timerFired:
            let timeout = AttemptTimeout(timeout: policy.perAttemptTimeout ?? .zero)
            error = timeout
            decision = policy.retryIf.decision(for: timeout)
            pending = .attemptTimedOut(decision, detail: describeError(timeout))
        case .cancelled:
            error = CancellationError()
            pending = .cancelled(detail: describeError(CancellationError()))
        }
        lastError = error
        attempts.append(
            AttemptRecord(
                number: number, start: started, duration: now - started, delayBefore: attempt.next.delayBefore,
                error: error,
                decision: error == nil ? nil : decision, errorDescription: pending.detail, returnedValue: returned))
    }

    /// Performs `ask breaker` for the try that would be attempt `number`: `admitted` at once without
    /// a breaker; else the breaker's answer. A refusal is kept with the attempts (its error is the
    /// run's to report, under the number the attempt would have had) and makes the next input
    /// `circuit open`, the break's rest as a Retry-After; the table's rows decide what follows.
    func askBreaker(_ number: Int, now: Duration) {
        giveBackTicket()
        let next = state.next
        guard let breaker = guards.breaker else {
            state = .admitted(next, nil)
            pending = .admitted
            return
        }
        switch breaker.ask() {
        case .admitted(let admitted):
            state = .admitted(next, admitted)
            pending = .admitted
        case .rejected(let rejection):
            state = .between(next)
            let decision = rejection.remainingBreak.map { RetryDecision.retryAfter($0) } ?? .retry
            pending = .circuitOpen(decision, detail: rejection.description)
            lastError = rejection
            attempts.append(
                AttemptRecord(
                    number: number, start: now, duration: .zero, delayBefore: next.delayBefore, error: rejection,
                    decision: decision, errorDescription: rejection.description, returnedValue: false))
        }
    }

    /// Performs `ask limiter`: `token granted` at once without a limiter; else the limiter's answer,
    /// a token now or one reserved for later (`rate limited`, with the wait until it is due).
    func askLimiter() {
        // A try is asked for anew: the refusal of an earlier one, and its reservation, are not kept.
        if case .paced(let next, _, _) = state { state = .between(next) }
        guard let limiter = guards.limiter else {
            pending = .tokenGranted
            return
        }
        switch limiter.reserve() {
        case (.granted, _):
            pending = .tokenGranted
        case (.wait(let wait), let reserved):
            let refusal = RateLimitRefusal(wait: wait, fillRate: limiter.fillRate)
            giveBackTicket()
            state = .paced(state.next, refusal, reserved)
            pending = .rateLimited(wait: wait, detail: refusal.description)
        }
    }

    /// Performs `return token`: the try the limiter paced will not be sent. Its token goes back,
    /// and the refusal is kept with the attempts (under the number the attempt would have had).
    func returnToken(now: Duration) {
        guard case .paced(let next, let refusal, _) = state else { return }
        state = .between(next)
        guards.limiter?.withdraw()
        lastError = refusal
        attempts.append(
            AttemptRecord(
                number: machine.attempt + 1, start: now, duration: .zero, delayBefore: next.delayBefore, error: refusal,
                decision: .fail, errorDescription: refusal.description, returnedValue: false))
    }

    /// Performs `ask retry budget`: takes a token (granted at once without a budget).
    func askBudget(afterTimeout: Bool) {
        guard let budget = guards.budget else {
            pending = .budgetAnswered(granted: true, detail: nil)
            return
        }
        switch budget.ask(afterTimeout: afterTimeout) {
        case .granted(let ticket):
            state.next.budgetTicket = ticket
            pending = .budgetAnswered(granted: true, detail: nil)
        case .refused:
            let refusal = "retry budget exhausted (\(budget.mode.name): \(budget.tokens) tokens left)"
            pending = .budgetAnswered(granted: false, detail: refusal)
        }
    }

    /// Performs `report health`: the breaker records the attempt's ticket, the limiter measures the
    /// answer (slowing down for a throttle), the budget records its success (refunding the last
    /// retry's tokens, as AWS does) or its failure. The machine chose the result.
    private func reportHealth(_ result: CircuitResult, throttled: Bool) {
        let next = state.next
        if let breaker = guards.breaker, let ticket = state.ticket { breaker.record(ticket, result) }
        // The try is over: its ticket reported, its task (if any) let go.
        switch state {
        case .admitted, .attempting: state = .between(next)
        case .between, .paced: break
        }
        guards.limiter?.record(throttled: throttled)
        guard let budget = guards.budget else { return }
        switch result {
        case .success: budget.record(.success(refunding: next.budgetTicket))
        case .failure: budget.record(.failure)
        case .abandoned: break
        }
    }

    func notifyRetry(attempt: Int, delay: Duration) {
        if let onRetry = onRetry, let lastError {
            onRetry(
                RetryNotice(
                    attempt: attempt, error: lastError, delay: delay,
                    remainingAttempts: policy.maxAttempts - machine.core.rules.attemptInSeries))
        }
        state.next.delayBefore = delay
    }

    func outcome(state: RetryState, reason: StopReason, at now: Duration) -> RetryOutcome<Value> {
        giveBackTicket()
        // Debug builds (and so every test) check each run against the table it ran.
        assert(
            reason == .invalidTransition || trace.isConsistent(with: machine.table),
            "trace disagrees with the table: \(trace.inconsistencies(with: machine.table))")
        return RetryOutcome(
            finalState: state, reason: reason, value: lastValue, attempts: attempts, steps: steps, trace: trace,
            duration: now)
    }
}
