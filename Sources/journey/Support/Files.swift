import Foundation
import JourneyCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading inputs and writing outputs for the CLI; the libraries never touch files.
enum Files {
    /// Every `.yaml`/`.yml` file under the paths (directories are searched recursively), in a
    /// stable order. Missing paths are reported as diagnostics.
    static func yamlFiles(in paths: [String], diagnostics: inout DiagnosticList) -> [String] {
        var result: [String] = []
        let fm = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else {
                diagnostics.error(
                    "file.missing", "no such file or directory", at: SourceLocation(file: path, line: 1, column: 1))
                continue
            }
            if !isDirectory.boolValue {
                result.append(path)
                continue
            }
            guard let enumerator = fm.enumerator(atPath: path) else { continue }
            var found: [String] = []
            for case let relative as String in enumerator {
                let name = Path.lastComponent(relative)
                if name.hasPrefix(".") { continue }
                if name.hasSuffix(".yaml") || name.hasSuffix(".yml") {
                    found.append(Path.join(path, relative))
                }
            }
            result.append(contentsOf: found.sorted())
        }
        var seen = Set<String>()
        return result.filter { seen.insert($0).inserted }
    }

    /// Reads at most `limit + 1` bytes, so a huge file is refused without reading it whole.
    static func read(_ path: String, limit: Int) throws -> Data {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CLIError("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        defer { try? handle.close() }
        return try handle.read(upToCount: limit + 1) ?? Data()
    }

    /// Makes `path` and any missing folder above it (`mkdir -p`), returning the folders it made,
    /// outermost first. On failure, the folders it made are removed again and the error names
    /// `path`.
    @discardableResult
    static func makeFolders(_ path: String) throws(WriteError) -> [String] {
        var missing: [String] = []
        var current = path
        var status = stat()
        while stat(current, &status) != 0 {
            guard errno == ENOENT else { throw WriteError(path: path, reason: SystemError().description) }
            missing.append(current)
            let parent = Path.parent(current)
            if parent == current { break }
            current = parent
        }
        if missing.isEmpty && status.st_mode & S_IFMT != S_IFDIR {
            throw WriteError(path: path, reason: SystemError(ENOTDIR).description)
        }
        var made: [String] = []
        for folder in missing.reversed() {
            if mkdir(folder, 0o777) != 0 && errno != EEXIST {
                let reason = SystemError().description
                for folder in made.reversed() { rmdir(folder) }
                throw WriteError(path: path, reason: reason)
            }
            made.append(folder)
        }
        return made
    }

    /// Loads files into memory for the pipeline, reporting unreadable ones.
    static func sources(_ paths: [String], limit: Int, diagnostics: inout DiagnosticList) -> [SourceFile] {
        paths.compactMap { path in
            do {
                return SourceFile(path: path, data: try read(path, limit: limit))
            } catch {
                diagnostics.error("file.unreadable", "\(error)", at: SourceLocation(file: path, line: 1, column: 1))
                return nil
            }
        }
    }
}

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
        descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        if descriptor < 0 { throw WriteError(path: path, reason: SystemError().description) }
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
        try syncFolder(Path.parent(path))
    }

    /// Abandons the write: the temporary file is removed, the target is untouched.
    func discard() {
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
        unlink(temporaryPath)
        FolderRecovery.shared.unregister(temporaryPath)
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

/// A file that could not be written, and why.
struct WriteError: Error, CustomStringConvertible {
    var path: String
    var reason: String
    var description: String { "cannot write \(path): \(reason)" }
}

/// A user-facing error with a message and the invalid-input exit code.
struct CLIError: Error, CustomStringConvertible {
    var message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}
