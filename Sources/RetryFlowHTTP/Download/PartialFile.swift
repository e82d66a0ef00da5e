import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The file a download writes into (`FILE.part` beside its destination): opened once, written in
/// place, truncated when a transfer restarts, renamed over the destination when complete.
/// Not thread-safe: the download's book serialises every call.
final class PartialFile {
    let url: URL
    let destination: URL
    private let fd: Int32
    /// Bytes in the file (what a resume asks the server to skip).
    private(set) var size: Int

    /// Opens (creating) `destination`'s partial file. With `resume`, its bytes are kept (and a
    /// complete-looking `destination` with no partial beside it becomes the partial, as curl's
    /// `-C -` continues the output file itself); otherwise it is emptied.
    init(destination: URL, resume: Bool) throws(DownloadProblem) {
        self.destination = destination
        url = destination.deletingLastPathComponent().appendingPathComponent(destination.lastPathComponent + ".part")
        // A device, FIFO or socket (`/dev/null`) is never replaced: renaming a file over it, as a
        // finished download does, would swap the machine's /dev/null for a regular file.
        var info = stat()
        if stat(destination.path, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
            throw .file("cannot download into \(destination.path): not a regular file", EINVAL)
        }
        let manager = FileManager.default
        if resume, !manager.fileExists(atPath: url.path), manager.fileExists(atPath: destination.path) {
            guard rename(destination.path, url.path) == 0 else {
                throw .file("cannot resume \(destination.path)", errno)
            }
        }
        // O_NOFOLLOW: a FILE.part planted as a link (in a shared folder such as /tmp) must not make the
        // download truncate and overwrite whatever file it points to.
        let flags = O_RDWR | O_CREAT | O_NOFOLLOW | (resume ? 0 : O_TRUNC)
        fd = open(url.path, flags, 0o644)
        guard fd >= 0 else { throw .file("cannot open \(url.path)", errno) }
        // The partial file is renamed over the destination at the end: a `.part` that is a device or
        // FIFO (or a link to one) would put it in the destination's place.
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw .file("cannot download into \(url.path): not a regular file", EINVAL)
        }
        let end = lseek(fd, 0, SEEK_END)
        size = end < 0 ? 0 : Int(end)
    }

    deinit { close(fd) }

    /// Cuts the file to `length` bytes; writes continue from there.
    func truncate(to length: Int) throws(DownloadProblem) {
        guard ftruncate(fd, off_t(length)) == 0, lseek(fd, off_t(length), SEEK_SET) >= 0 else {
            throw .file("cannot truncate \(url.path)", errno)
        }
        size = length
    }

    /// Appends `data` at the end of what is written.
    func append(_ data: Data) throws(DownloadProblem) {
        let failed: Int32? = data.withUnsafeBytes { buffer -> Int32? in
            var offset = 0
            while offset < buffer.count {
                let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
        if let failed { throw .file("cannot write \(url.path)", failed) }
        size += data.count
    }

    /// The SHA-256 of the file's bytes, read back in 1 MiB slices (lowercase hex).
    func sha256() throws(DownloadProblem) -> String {
        var hasher = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset = 0
        while offset < size {
            let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(offset)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw .file("cannot read \(url.path)", errno) }
            buffer.withUnsafeBytes { hasher.update(buffer: UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            offset += count
        }
        return hasher.hexDigest()
    }

    /// Renames the file over the destination (atomic: rename(2)).
    func install() throws(DownloadProblem) {
        fsync(fd)
        guard rename(url.path, destination.path) == 0 else {
            throw .file("cannot move into \(destination.path)", errno)
        }
    }

    /// Removes the partial file when it holds nothing worth resuming.
    func removeIfEmpty() {
        if size == 0 { unlink(url.path) }
    }
}
