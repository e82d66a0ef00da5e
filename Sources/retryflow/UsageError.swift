/// Bad usage or bad input: the tool prints the message and exits with status 2.
struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The operation itself failed (a fetch gave up, a render failed): exit status 1.
struct OperationFailed: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
