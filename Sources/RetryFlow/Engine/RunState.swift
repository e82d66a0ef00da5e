/// Where one run is between its awaits, with what is valid there: the driver's one value in place
/// of fields that would each be valid in some states only. The machine's state says what happens
/// next; this says what the run holds meanwhile (the breaker's ticket, the limiter's refusal, the
/// attempt's timer and task), so nothing held outlives the state it belongs to.
enum RunState<Value: Sendable> {
    /// No try under way: before the first, after an attempt's report, through a wait or a step.
    case between(NextTry)
    /// The limiter reserved a token for a later try (`rate limited`): its refusal, the try's error if
    /// the token goes back (`return token`) rather than being waited for in `token wait`, and the
    /// reservation, until that wait begins (it follows the limiter's bucket as the rate changes).
    case paced(NextTry, RateLimitRefusal, TokenReservation?)
    /// The breaker admitted the try (`admitted`): its ticket (`nil` without a breaker), reported with
    /// the attempt's health or given back.
    case admitted(NextTry, CircuitTicket?)
    /// The attempt in flight, or ended and not yet reported.
    case attempting(AttemptInFlight<Value>)

    /// What the coming (or current) try carries, in every state.
    var next: NextTry {
        get {
            switch self {
            case .between(let next), .paced(let next, _, _), .admitted(let next, _): next
            case .attempting(let attempt): attempt.next
            }
        }
        set {
            switch self {
            case .between: self = .between(newValue)
            case .paced(_, let refusal, let reservation): self = .paced(newValue, refusal, reservation)
            case .admitted(_, let ticket): self = .admitted(newValue, ticket)
            case .attempting(var attempt):
                attempt.next = newValue
                self = .attempting(attempt)
            }
        }
    }

    /// The breaker's ticket the run holds, if any: admitted, or the attempt's not yet reported.
    var ticket: CircuitTicket? {
        switch self {
        case .between, .paced: nil
        case .admitted(_, let ticket): ticket
        case .attempting(let attempt): attempt.ticket
        }
    }
}

/// What a try carries from the decision to retry to its attempt's report.
struct NextTry {
    /// The delay waited before it (`notify retry`), kept in its attempt's record.
    var delayBefore: Duration = .zero
    /// The tokens the retry took from the budget (`ask retry budget`): AWS gives them back when the
    /// attempt succeeds.
    var budgetTicket: RetryBudgetTicket?
}

/// The attempt in flight: its number, its timer, its start, the breaker's ticket it was admitted
/// with, and its task when it runs in a task of its own.
struct AttemptInFlight<Value: Sendable> {
    let number: Int
    /// The per-attempt timeout or the deadline, whichever comes first (`nil`: neither).
    let timer: AttemptTimer?
    /// When it began, as time since the run started.
    let started: Duration
    var ticket: CircuitTicket?
    var next: NextTry
    /// The race of its task against its timer; `nil` when it runs inline, or once `cancel attempt`
    /// cancelled it.
    var race: AttemptRace<Value>?
}
