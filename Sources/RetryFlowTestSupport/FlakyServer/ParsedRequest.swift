/// An HTTP/1.1 request read off a connection.
struct ParsedRequest {
    var method: String
    var path: String
    var query: String?
    var headers: [FlakyServer.Header]
    var body: [UInt8]
    var wantsClose: Bool

    enum Parse {
        /// Not all of it has arrived yet.
        case incomplete
        /// The head has arrived and the client waits for `100 Continue` before sending the body.
        case expectsContinue
        /// A whole request, and how many bytes it used.
        case request(ParsedRequest, consumed: Int)
        /// Not HTTP we can read; answer 400 and close.
        case malformed(String)
    }

    static let headerLimit = 64 * 1024

    /// Parses the first request in `buffer` (request line, headers, Content-Length body).
    static func parse(_ buffer: [UInt8]) -> Parse {
        guard let end = headerEnd(buffer) else {
            return buffer.count > headerLimit ? .malformed("headers too large") : .incomplete
        }
        let text = String(decoding: buffer[..<end], as: UTF8.self)
        var lines = text.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ", omittingEmptySubsequences: true)
        guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/1.") else { return .malformed("bad request line") }
        var headers: [FlakyServer.Header] = []
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { return .malformed("bad header line") }
            headers.append(
                FlakyServer.Header(
                    name: String(line[..<colon]),
                    value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        func value(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
        if value("Transfer-Encoding") != nil { return .malformed("chunked request bodies are not supported") }
        let length = Int(value("Content-Length") ?? "0") ?? -1
        guard length >= 0 else { return .malformed("bad Content-Length") }
        let bodyStart = end + 4
        guard buffer.count >= bodyStart + length else {
            let expects = value("Expect")?.lowercased() == "100-continue" && buffer.count == bodyStart
            return expects ? .expectsContinue : .incomplete
        }
        let target = String(requestLine[1])
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let request = ParsedRequest(
            method: String(requestLine[0]),
            path: String(parts[0]),
            query: parts.count > 1 ? String(parts[1]) : nil,
            headers: headers,
            body: Array(buffer[bodyStart..<(bodyStart + length)]),
            wantsClose: value("Connection")?.lowercased() == "close" || requestLine[2] == "HTTP/1.0")
        return .request(request, consumed: bodyStart + length)
    }

    private static func headerEnd(_ buffer: [UInt8]) -> Int? {
        guard buffer.count >= 4 else { return nil }
        for index in 0...(buffer.count - 4)
        where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
            return index
        }
        return nil
    }
}
