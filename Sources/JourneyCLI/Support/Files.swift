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
                    let file = Path.join(path, relative)
                    // A FIFO would block the read for ever; a device or socket is no file of ours.
                    if let kind = specialKind(file) {
                        if kind != "a folder" {
                            diagnostics.warning(
                                specialFile, "\(kind), not a regular file; skipped",
                                at: SourceLocation(file: file, line: 1, column: 1))
                        }
                        continue
                    }
                    found.append(file)
                }
            }
            result.append(contentsOf: found.sorted())
        }
        var seen = Set<String>()
        return result.filter { seen.insert($0).inserted }
    }

    static let specialFile = "file.special"

    /// What `path` is when it is not a regular file (following links): "a FIFO", "a character
    /// device", … Nil for a regular file or nothing at all.
    static func specialKind(_ path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return kind(of: status.st_mode)
    }

    static func kind(of mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR: "a folder"
        case S_IFIFO: "a FIFO"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        default: "not a file"
        }
    }

    /// A path that is not a regular file, named as an input.
    struct SpecialFile: Error, CustomStringConvertible {
        var kind: String
        var description: String { "\(kind), not a regular file; journeys and scenarios are read from files" }
    }

    /// Reads at most `limit + 1` bytes, so a huge file is refused without reading it whole. Only
    /// a regular file is read: a FIFO is opened without waiting for a writer and refused, as
    /// are devices and sockets, so no input can make a command hang.
    static func read(_ path: String, limit: Int) throws -> Data {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw CLIError("cannot open \(path): \(SystemError())") }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw CLIError("cannot read \(path): \(SystemError())") }
        if let kind = kind(of: status.st_mode) { throw SpecialFile(kind: kind) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while data.count <= limit {
            let count = systemRead(descriptor, &buffer, min(buffer.count, limit + 1 - data.count))
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw CLIError("cannot read \(path): \(SystemError())")
            }
            if count == 0 { break }
            data.append(contentsOf: buffer[..<count])
        }
        return data
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

    /// Whether anything is at `path` (a link is not followed).
    static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    /// Flushes a folder's entries (renames, new and deleted files) to disk.
    static func syncFolder(_ folder: String) throws(WriteError) {
        let descriptor = open(folder, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw WriteError(path: folder, reason: SystemError().description) }
        defer { close(descriptor) }
        // Some file systems cannot flush a folder (EINVAL); their renames are as durable as they get.
        if fsync(descriptor) != 0 && errno != EINVAL {
            throw WriteError(path: folder, reason: SystemError().description)
        }
    }

    /// The absolute path of `path` with every link resolved (`realpath(3)`), or nil when it does
    /// not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Loads files into memory for the pipeline, reporting unreadable ones.
    static func sources(_ paths: [String], limit: Int, diagnostics: inout DiagnosticList) -> [SourceFile] {
        paths.compactMap { path in
            do {
                return SourceFile(path: path, data: try read(path, limit: limit))
            } catch let error as SpecialFile {
                diagnostics.error(specialFile, error.description, at: SourceLocation(file: path, line: 1, column: 1))
                return nil
            } catch {
                diagnostics.error("file.unreadable", "\(error)", at: SourceLocation(file: path, line: 1, column: 1))
                return nil
            }
        }
    }
}

/// A file that could not be written, and why.
struct WriteError: Error, CustomStringConvertible {
    var path: String
    var reason: String
    var description: String { "cannot write \(path): \(reason)" }
}

/// A user-facing error with a message and the invalid-input exit code.
struct CLIError: Error, Equatable, CustomStringConvertible {
    var message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}

#if canImport(Glibc)
private let systemRead = Glibc.read
#elseif canImport(Darwin)
private let systemRead = Darwin.read
#endif
