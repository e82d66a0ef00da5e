import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Output files are written to a temporary file beside the target and renamed over it, so a
/// failure never leaves a half-written file.
enum AtomicFile {
    /// Fails early, before any work, when `path` cannot be written (its folder is missing or read-only).
    static func checkWritable(_ path: String, option: String) throws(UsageError) {
        let url = URL(fileURLWithPath: target(path))
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw UsageError("\(option) \(path): is a directory")
        }
        // A device or FIFO is written into, so its own permission counts, not its folder's
        // (`-o /dev/null` as a user who cannot write /dev).
        if isSpecial(path) {
            guard access(path, W_OK) == 0 else { throw UsageError("\(option) \(path): not writable") }
            return
        }
        let folder = url.deletingLastPathComponent().path
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw UsageError("\(option) \(path): folder \(folder) does not exist")
        }
        guard FileManager.default.isWritableFile(atPath: folder) else {
            throw UsageError("\(option) \(path): folder \(folder) is not writable")
        }
    }

    /// Whether `path` names something other than a regular file (a device such as `/dev/null`, a
    /// FIFO): such a target is written into, never replaced (a rename over `/dev/null` as root
    /// would swap the machine's device for a regular file).
    /// `path` with its symbolic links followed when it is one (`/dev/stdout` redirected to a file: that
    /// file), so a rename replaces what the link points to, never the link itself (as root, a rename
    /// over `/dev/stdout` would swap the machine's link for a regular file). A link that leads nowhere
    /// resolvable (a pipe behind `/proc/self/fd/1`) stays as given: `isSpecial` then sees the pipe.
    static func target(_ path: String) -> String {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK, let resolved = realpath(path, nil) else {
            return path
        }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    static func isSpecial(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT != S_IFREG
    }

    /// Writes `data` to `path` atomically (a device or FIFO: straight into it).
    static func write(_ data: Data, to path: String) throws(OperationFailed) {
        if isSpecial(path) {
            guard let handle = FileHandle(forWritingAtPath: path) else {
                throw OperationFailed("cannot write \(path): cannot open it")
            }
            defer { try? handle.close() }
            do { try handle.write(contentsOf: data) } catch {
                throw OperationFailed("cannot write \(path): \(error.localizedDescription)")
            }
            return
        }
        try replace(path) { temporary, _ in try data.write(to: temporary) }
    }

    /// Puts `head` before the contents of the file at `path`, atomically, copying in 1 MiB
    /// chunks so a large file is never held in memory (fetch -i -o: the head before a download).
    static func prepend(_ head: Data, to path: String) throws(OperationFailed) {
        guard !isSpecial(path) else { throw OperationFailed("cannot put a head before \(path): not a regular file") }
        try replace(path) { temporary, target in
            try head.write(to: temporary)
            let reader = try FileHandle(forReadingFrom: target)
            defer { try? reader.close() }
            let writer = try FileHandle(forWritingTo: temporary)
            defer { try? writer.close() }
            try writer.seekToEnd()
            while let chunk = try reader.read(upToCount: 1 << 20), !chunk.isEmpty {
                try writer.write(contentsOf: chunk)
            }
        }
    }

    /// Fills a temporary file beside `path`'s target (`fill` gets the temporary and the target), then
    /// renames it over the target; on any failure the temporary is removed and the target left as it was.
    private static func replace(_ path: String, fill: (URL, URL) throws -> Void) throws(OperationFailed) {
        let target = URL(fileURLWithPath: Self.target(path))
        let temporary = target.deletingLastPathComponent()
            .appendingPathComponent(".\(target.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).tmp")
        do { try fill(temporary, target) } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw OperationFailed("cannot write \(path): \(error.localizedDescription)")
        }
        // The new file keeps the replaced one's permissions, as writing into it would have (a trace
        // kept 0600 stays private; an executable stays executable): a new file gets the umask's 0644.
        var replaced = stat()
        if stat(target.path, &replaced) == 0 { chmod(temporary.path, replaced.st_mode & 0o7777) }
        // rename(2) replaces an existing file atomically (FileManager.replaceItemAt fails on Linux here).
        guard rename(temporary.path, target.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw OperationFailed("cannot write \(path): \(reason)")
        }
    }
}
