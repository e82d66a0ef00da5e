import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a redirect may carry: as curl does, the credentials (`Authorization`, `Cookie`,
/// `Proxy-Authorization`) go only to the origin they were given for. URLSession on Linux copies
/// every header onto the redirected request, so without this a server could redirect to another
/// host or port and receive the password. Used by downloads and by `retryflow fetch`'s session.
package enum RedirectCredentials {
    /// The headers that carry credentials, dropped when a redirect leaves the original origin.
    package static let headers = ["Authorization", "Cookie", "Proxy-Authorization"]

    /// `request` as it may be sent after a redirect from `original`: unchanged on the same
    /// origin (scheme, host, port), without the credential headers anywhere else.
    package static func redirect(_ request: URLRequest, from original: URL?) -> URLRequest {
        guard let original, let target = request.url, origin(of: target) != origin(of: original) else { return request }
        var stripped = request
        for name in headers { stripped.setValue(nil, forHTTPHeaderField: name) }
        return stripped
    }

    /// Scheme, host and port (the scheme's default when the URL gives none), compared as curl does.
    package static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(url.host?.lowercased() ?? ""):\(port)"
    }
}
