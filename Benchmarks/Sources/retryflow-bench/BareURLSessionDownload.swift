import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The floor for any URLSession client streaming a file to disk: one data task on a session of its
/// own (no cache, a serial delegate queue, as RetryFlow's download uses), every chunk written with
/// `write(2)` as it arrives; no retry, no resume, no checks. `download-nginx` runs it beside RetryFlow
/// and curl, so the gap to curl that URLSession itself leaves is measured in the same run. With
/// `syncs`, it ends with `fsync(2)` as RetryFlow does before installing a file (curl does not):
/// the like-for-like baseline on a disk, where the sync of 200 MB takes longer than the transfer.
enum BareURLSessionDownload {
    /// Downloads `url` into `file`; the seconds it took, or `nil` when it failed.
    static func run(_ url: URL, to file: URL, configuration: URLSessionConfiguration, syncs: Bool) async -> Double? {
        let writer = Writer(path: file.path, syncs: syncs)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let uncached = (configuration.copy() as? URLSessionConfiguration) ?? configuration
        uncached.urlCache = nil
        let start = ContinuousClock.now
        let ok: Bool = await withCheckedContinuation { continuation in
            writer.finished = { continuation.resume(returning: $0) }
            let session = URLSession(configuration: uncached, delegate: writer, delegateQueue: queue)
            session.dataTask(with: url).resume()
            session.finishTasksAndInvalidate()
        }
        return ok ? (ContinuousClock.now - start).inSecondsValue : nil
    }

    /// The delegate: appends each chunk to the file, on the delegate queue.
    private final class Writer: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        // @unchecked: touched only on the serial delegate queue (and `finished` before the task starts).
        private let descriptor: Int32
        private let syncs: Bool
        private var failed = false
        var finished: ((Bool) -> Void)?

        init(path: String, syncs: Bool) {
            descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            self.syncs = syncs
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written != data.count { failed = true }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            if syncs && fsync(descriptor) != 0 { failed = true }
            close(descriptor)
            let status = (task.response as? HTTPURLResponse)?.statusCode
            finished?(!failed && descriptor >= 0 && error == nil && status == 200)
            finished = nil
        }
    }
}
