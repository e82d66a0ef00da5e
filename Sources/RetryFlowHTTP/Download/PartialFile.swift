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
/// Beside it, `FILE.part.meta` records which version of the resource its bytes belong to (see
/// ``Meta``). Not thread-safe: the download's transfer driver serialises every call.
final class PartialFile {
    /// What a later run needs to resume this partial file safely: the validator its `If-Range`
    /// carries (so a changed resource restarts instead of appending a new version's bytes) and the
    /// total length. A sidecar file rather than an extended attribute: xattrs are missing or
    /// limited on some file systems (tmpfs without user xattrs, FAT, many network mounts) and are
    /// dropped by plain copies; a small JSON file works everywhere Foundation does. Written
    /// atomically (a temporary file renamed over it), removed when the download completes or
    /// restarts; a missing or unreadable one only means no `If-Range` (curl's `-C -`).
    struct Meta: Codable, Equatable {
        var validator: String?
        var total: Int?
    }

    let url: URL
    let destination: URL
    /// `FILE.part.meta`.
    let metaURL: URL
    private let fd: Int32
    /// Bytes in the file (what a resume asks the server to skip).
    private(set) var size: Int
    /// What the sidecar held when the file was opened for a resume (checked against the bytes).
    private(set) var meta: Meta?
    /// What this run last wrote to the sidecar.
    private var written: Meta?

    /// Opens (creating) `destination`'s partial file. With `resume`, its bytes are kept (and a
    /// complete-looking `destination` with no partial beside it becomes the partial, as curl's
    /// `-C -` continues the output file itself); otherwise it is emptied.
    init(destination: URL, resume: Bool) throws(DownloadProblem) {
        self.destination = destination
        url = destination.deletingLastPathComponent().appendingPathComponent(destination.lastPathComponent + ".part")
        metaURL = URL(fileURLWithPath: url.path + ".meta")
        // A device, FIFO or socket (`/dev/null`) is never replaced: renaming a file over it, as a
        // finished download does, would swap the machine's /dev/null for a regular file.
        var info = stat()
        if stat(destination.path, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
            throw .file("cannot download into \(destination.path): not a regular file", EINVAL)
        }
        let manager = FileManager.default
        // A sidecar describes only the `.part` beside it: not the destination continued in its place,
        // nor a partial file this run empties.
        var keepsMeta = resume
        if resume, !manager.fileExists(atPath: url.path), manager.fileExists(atPath: destination.path) {
            guard rename(destination.path, url.path) == 0 else {
                throw .file("cannot resume \(destination.path)", errno)
            }
            keepsMeta = false
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
        if keepsMeta, size > 0, let read = Self.readMeta(metaURL), read.total.map({ $0 >= size }) ?? true {
            meta = read
            written = read
        } else {
            unlink(metaURL.path)
        }
    }

    /// The sidecar's record, or `nil` when it is missing, too large or not ours (never fatal).
    private static func readMeta(_ url: URL) -> Meta? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: 4096), data.count < 4096 else { return nil }
        return try? JSONDecoder().decode(Meta.self, from: data)
    }

    /// Records `meta` in the sidecar if it changed: written to a temporary file, then renamed over
    /// the sidecar, so a crash leaves the old record or the new one, never half of one. Call it
    /// after the bytes it describes were truncated, never before: a crash in between then leaves a
    /// stale validator, which makes the next resume restart rather than append. A failure only
    /// costs the next run its `If-Range`: it is not fatal.
    func record(_ meta: Meta) {
        guard meta != written else { return }
        written = meta
        guard meta.validator != nil || meta.total != nil, let data = try? JSONEncoder().encode(meta) else {
            unlink(metaURL.path)
            return
        }
        let temporary = metaURL.path + ".\(getpid()).tmp"
        let out = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0o644)
        guard out >= 0 else { return }
        let complete = data.withUnsafeBytes { write(out, $0.baseAddress, $0.count) == $0.count }
        close(out)
        if !complete || rename(temporary, metaURL.path) != 0 { unlink(temporary) }
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
        unlink(metaURL.path)
        written = nil
    }

    /// Removes the partial file (and its sidecar) when it holds nothing worth resuming.
    func removeIfEmpty() {
        if size == 0 {
            unlink(url.path)
            unlink(metaURL.path)
        }
    }
}
