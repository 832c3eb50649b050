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
struct CLIError: Error, CustomStringConvertible {
    var message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}
