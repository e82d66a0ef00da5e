/// A step's action returned an exit the step does not have: no row routes it, so the step ends in
/// `step failed` with this error, kept in its record (``StepRecord/error``).
struct UnknownStepExit: Error, CustomStringConvertible {
    let step: RetryStep.ID
    let exit: RetryStep.Exit
    let exits: [RetryStep.Exit]

    var description: String {
        "the step '\(step.name)' ended in '\(exit.name)', which is not one of its exits ("
            + exits.map { "'\($0.name)'" }.joined(separator: ", ") + ")"
    }
}
