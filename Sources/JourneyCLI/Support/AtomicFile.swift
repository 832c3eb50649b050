#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file written atomically: bytes go to a temporary `.NAME.journey-PID.tmp` in the same
/// folder, which is flushed to disk and renamed over the target only when complete. A failed
/// write leaves the previous file untouched and no partial file behind; a killed one leaves a
/// temporary that the next command writing in the folder deletes (``FolderRecovery``). The
/// single-file case of ``FileTransaction``, which stages its files with it.
final class AtomicFile {
    let path: String
    let temporaryPath: String
    private var descriptor: Int32
    private var buffer: [UInt8] = []
    private var failure: String?

    /// Opens the temporary, after clearing what an interrupted command left in the folder.
    init(path: String) throws(WriteError) {
        self.path = path
        let folder = Path.parent(path)
        try FolderRecovery.shared.prepare(folder)
        temporaryPath = Path.join(folder, TemporaryName.make(for: Path.lastComponent(path)))
        // Kept before it is made: a signal that comes as it is made still finds it.
        SignalCleanup.add(temporaryPath)
        descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        if descriptor < 0 {
            let error = SystemError()
            SignalCleanup.remove(temporaryPath)
            // The folder is there but takes no new file (`/proc`, a folder only its owner may
            // write in): the reason is the folder's, not the file's, which may well exist. A
            // full or read-only file system says so itself.
            let reason =
                Files.isFolder(folder) && ![EROFS, ENOSPC, EDQUOT].contains(error.code)
                ? "cannot create a new file in \(folder == "." ? "the current folder" : folder), where it is written before it is renamed into place: \(error)"
                : error.description
            throw WriteError(path: path, reason: reason)
        }
        SignalCleanup.made(temporaryPath)
        FolderRecovery.shared.register(temporaryPath)
        // A replaced file keeps its permissions.
        var status = stat()
        if lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG {
            fchmod(descriptor, status.st_mode & 0o7777)
        }
        buffer.reserveCapacity(1 << 16)
    }

    func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { flushBuffer() }
    }

    private func flushBuffer() {
        guard failure == nil, !buffer.isEmpty else { return }
        do throws(SystemError) {
            try Descriptor(raw: descriptor).write(buffer)
        } catch {
            failure = error.description
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes the temporary in full, flushes it to disk and closes it; the target is not
    /// touched. On failure the temporary is removed.
    func stage() throws(WriteError) {
        guard descriptor >= 0 else { return }
        flushBuffer()
        if failure == nil && fsync(descriptor) != 0 { failure = SystemError().description }
        if close(descriptor) != 0 && failure == nil { failure = SystemError().description }
        descriptor = -1
        if let failure {
            discard()
            throw WriteError(path: path, reason: failure)
        }
    }

    /// Makes the file visible under its name, or removes the temporary file and throws.
    func commit() throws(WriteError) {
        try stage()
        if rename(temporaryPath, path) != 0 {
            let reason = SystemError().description
            discard()
            throw WriteError(path: path, reason: reason)
        }
        FolderRecovery.shared.unregister(temporaryPath)
        SignalCleanup.remove(temporaryPath)
        try Files.syncFolder(Path.parent(path))
    }

    /// Abandons the write: the temporary file is removed, the target is untouched.
    func discard() {
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
        unlink(temporaryPath)
        FolderRecovery.shared.unregister(temporaryPath)
        SignalCleanup.remove(temporaryPath)
    }

    deinit {
        if descriptor >= 0 { discard() }
    }

    /// Writes `text` to `path` atomically.
    static func write(_ text: String, to path: String) throws(WriteError) {
        let file = try AtomicFile(path: path)
        file.write(text)
        try file.commit()
    }
}
