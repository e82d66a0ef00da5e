import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a redirect may carry: as curl does, the credentials (`Authorization`, `Cookie`,
/// `Proxy-Authorization`) go only to the origin they were given for. URLSession on Linux copies
/// every header onto the redirected request, so without this a server could redirect to another
/// host or port and receive the password. Used by downloads and `retryflow fetch` (their sessions'
/// delegates) and by every data surface on a caller's session (`RedirectGuard`, a task delegate).
package enum RedirectCredentials {
    /// The headers that carry credentials, dropped when a redirect leaves the original origin.
    package static let headers = ["Authorization", "Cookie", "Proxy-Authorization"]

    /// `request` as it may be sent after a redirect from `original`: unchanged on the same
    /// origin (scheme, host, port), without the credential headers anywhere else.
    package static func redirect(_ request: URLRequest, from original: URL?) -> URLRequest {
        guard leavesOrigin(request, from: original) else { return request }
        var stripped = request
        for name in headers { stripped.setValue(nil, forHTTPHeaderField: name) }
        return stripped
    }

    /// Whether `request` goes to another origin than `original`'s (unknown URLs: no).
    package static func leavesOrigin(_ request: URLRequest, from original: URL?) -> Bool {
        guard let original, let target = request.url else { return false }
        return origin(of: target) != origin(of: original)
    }

    /// Scheme, host and port (the scheme's default when the URL gives none), compared as curl does.
    package static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(url.host?.lowercased() ?? ""):\(port)"
    }

    /// `request` with the cookies `configuration`'s jar holds for its URL added, as URLSession adds
    /// them to a request it makes or redirects by itself (when `httpShouldSetCookies`).
    package static func withStoredCookies(_ request: URLRequest, in configuration: URLSessionConfiguration)
        -> URLRequest
    {
        guard configuration.httpShouldSetCookies, let url = request.url,
            let cookies = configuration.httpCookieStorage?.cookies(for: url), !cookies.isEmpty,
            let value = HTTPCookie.requestHeaderFields(with: cookies)["Cookie"], !value.isEmpty
        else { return request }
        var withCookies = request
        withCookies.addValue(value, forHTTPHeaderField: "Cookie")
        return withCookies
    }
}
