/// Calling the blocking API where it would deadlock.
public struct SynchronousCallError: Error, CustomStringConvertible {
    /// Why the call was refused.
    public let description: String
}
