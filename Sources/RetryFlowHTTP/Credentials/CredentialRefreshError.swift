/// Why a credential step ended a run, besides the refresh's own error.
public enum CredentialRefreshError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A refresh was needed, and the refresh window already holds as many refreshes as it allows.
    case excessiveRefresh
    /// The refresh failed (when its own error is not at hand).
    case refreshFailed

    /// `excessive refresh`, `refresh failed`.
    public var description: String {
        switch self {
        case .excessiveRefresh: "excessive refresh"
        case .refreshFailed: "refresh failed"
        }
    }
}
