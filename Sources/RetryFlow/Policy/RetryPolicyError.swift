/// A policy value that cannot work, naming the field: e.g. `maxAttempts must be at least 1 (got 0)`.
public struct RetryPolicyError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The field's name as written in Swift and in the policy's JSON form, e.g. `maxDelay`.
    public let field: String
    /// What is wrong with it.
    public let problem: String

    /// Makes an error for `field`.
    package init(field: String, problem: String) {
        self.field = field
        self.problem = problem
    }

    /// `invalid retry policy: <field> <problem>`.
    public var description: String { "invalid retry policy: \(field) \(problem)" }
}
