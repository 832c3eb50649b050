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

/// A file written atomically: bytes go to a temporary file in the same folder, which is
/// flushed to disk and renamed over the target only when complete. A failed or interrupted
/// write leaves the previous file untouched and no partial file behind.
final class AtomicFile {
    let path: String
    private let temporaryPath: String
    private var descriptor: Int32
    private var buffer: [UInt8] = []
    private var failure: String?

    init(path: String) throws {
        self.path = path
        temporaryPath = Path.join(Path.parent(path), ".\(Path.lastComponent(path)).\(getpid()).tmp")
        descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        if descriptor < 0 { throw WriteError(path: path, reason: SystemError().description) }
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

    /// Makes the file visible under its name, or removes the temporary file and throws.
    func commit() throws {
        flushBuffer()
        if failure == nil && fsync(descriptor) != 0 { failure = String(cString: strerror(errno)) }
        close(descriptor)
        descriptor = -1
        if failure == nil && rename(temporaryPath, path) != 0 { failure = String(cString: strerror(errno)) }
        if let failure {
            unlink(temporaryPath)
            throw WriteError(path: path, reason: failure)
        }
        let dir = open(Path.parent(path), O_RDONLY | O_CLOEXEC)
        if dir >= 0 {
            fsync(dir)
            close(dir)
        }
    }

    /// Abandons the write: the temporary file is removed, the target is untouched.
    func discard() {
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
        unlink(temporaryPath)
    }

    deinit {
        if descriptor >= 0 { discard() }
    }

    /// Writes `text` to `path` atomically.
    static func write(_ text: String, to path: String) throws {
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
