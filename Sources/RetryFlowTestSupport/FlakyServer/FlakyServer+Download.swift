import Foundation

/// One request's turn in a download script: the step to play and the resource version to serve.
struct PlayedDownload {
    var step: FlakyServer.DownloadStep
    var index: Int
    var resource: FlakyServer.Resource
}

extension StateLock.State {
    /// The next step of `path`'s download script, applying a version change it carries; `nil`
    /// when `path` serves no download.
    mutating func playDownload(_ path: String) -> PlayedDownload? {
        guard var script = downloads[path] else { return nil }
        let index = min(script.played, script.steps.count - 1)
        script.played += 1
        let step = script.steps[index]
        if let newVersion = step.changeTo { script.resource = newVersion }
        downloads[path] = script
        return PlayedDownload(step: step, index: index, resource: script.resource)
    }
}

extension FlakyServer {
    /// What a download request is answered with: status, headers and the body's byte range.
    struct DownloadAnswer: Equatable {
        var status: Int
        var headers: [Header]
        var body: Range<Int>
    }

    /// RFC 9110 §14: a single `bytes=N-` or `bytes=N-M` range, checked against `If-Range`.
    static func downloadAnswer(
        for request: (range: String?, ifRange: String?), step: DownloadStep, resource: Resource
    ) -> DownloadAnswer {
        let size = resource.size
        var headers = [Header(name: "Accept-Ranges", value: "bytes")]
        if let etag = resource.etag { headers.append(Header(name: "ETag", value: etag)) }
        if let date = resource.lastModified { headers.append(Header(name: "Last-Modified", value: date)) }
        let whole = DownloadAnswer(status: 200, headers: headers, body: 0..<size)
        let notSatisfiable = DownloadAnswer(
            status: 416, headers: headers + [Header(name: "Content-Range", value: "bytes */\(size)")], body: 0..<0)
        func partial(_ start: Int, _ end: Int) -> DownloadAnswer {
            DownloadAnswer(
                status: 206,
                headers: headers + [Header(name: "Content-Range", value: "bytes \(start)-\(end - 1)/\(size)")],
                body: start..<end)
        }
        let range = request.range.flatMap(parseRange)
        // One past the range's last byte, within the file: `end + 1` would trap on `bytes=0-<Int.max>`.
        let end = range?.end.map { min(size - 1, $0) + 1 } ?? size
        switch step.answer {
        case .rangeNotSatisfiable:
            return notSatisfiable
        case .ignoreRange:
            return whole
        case .wrongStart(let by):
            guard let range, size > 0 else { return whole }
            let (shifted, overflow) = range.start.addingReportingOverflow(by)
            let start = overflow ? (by > 0 ? size - 1 : 0) : min(max(0, shifted), size - 1)
            return partial(start, max(start + 1, end))
        case .honourRange:
            guard let range else { return whole }
            if let validator = request.ifRange, !matches(validator, resource) { return whole }
            guard range.start < size else { return notSatisfiable }
            return partial(range.start, end)
        }
    }

    /// `bytes=N-` or `bytes=N-M` (one range; anything else is ignored, as RFC 9110 allows).
    private static func parseRange(_ value: String) -> (start: Int, end: Int?)? {
        guard value.hasPrefix("bytes="), !value.contains(",") else { return nil }
        let parts = value.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let start = Int(parts[0].trimmingCharacters(in: .whitespaces)), start >= 0 else {
            return nil
        }
        let endText = parts[1].trimmingCharacters(in: .whitespaces)
        if endText.isEmpty { return (start, nil) }
        guard let end = Int(endText), end >= start else { return nil }
        return (start, end)
    }

    /// If-Range: an entity tag compares strongly (a weak tag never matches), a date exactly.
    private static func matches(_ validator: String, _ resource: Resource) -> Bool {
        if validator.hasPrefix("\"") || validator.hasPrefix("W/") {
            guard let etag = resource.etag, !etag.hasPrefix("W/"), !validator.hasPrefix("W/") else { return false }
            return etag == validator
        }
        return resource.lastModified == validator
    }

    /// Answers a download request: the head, then the body in slices (generated as they go, so a
    /// 256 MB body never sits in memory), cut, reset or stalled as the step says.
    func answerDownload(_ request: ParsedRequest, played: PlayedDownload, record: Int, on connection: Connection) {
        func header(_ name: String) -> String? {
            request.headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
        let answer = Self.downloadAnswer(
            for: (header("Range"), header("If-Range")), step: played.step, resource: played.resource)
        let keepAlive = !request.wantsClose
        markAnswered(record)
        let head = Self.head(
            status: answer.status, headers: answer.headers, contentLength: answer.body.count, keepAlive: keepAlive)
        let body = request.method == "HEAD" ? answer.body.lowerBound..<answer.body.lowerBound : answer.body
        let limit = played.step.cutAfter.map { min(body.count, $0) } ?? body.count
        let cuts = played.step.cutAfter.map { $0 < body.count } ?? false
        let path = request.path
        let resource = played.resource
        let step = played.step
        let slice = 256 * 1024

        /// Sends body bytes from `offset` (relative to the body), one slice per turn of the queue.
        @Sendable func pump(_ offset: Int) {
            guard !connection.isClosed else { return }
            guard offset < limit else {
                if !cuts {
                    if keepAlive { connection.finishedAnswer() } else { connection.close(reset: false) }
                } else if !step.stall {
                    connection.close(reset: step.reset)
                } // a stall sends nothing more and leaves the connection open
                return
            }
            let count = min(slice, limit - offset)
            let start = body.lowerBound + offset
            let bytes = resource.bytes(start..<(start + count))
            withState { $0.downloads[path]?.bodyBytesSent += count }
            connection.send(bytes) { [weak self] in self?.later { pump(offset + count) } }
        }
        connection.send(head) { [weak self] in self?.later { pump(0) } }
    }
}
