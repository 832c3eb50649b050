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
    /// stable order. Missing paths are reported as errors, folders with no such file as warnings.
    static func yamlFiles(in paths: [String], diagnostics: inout DiagnosticList) -> [String] {
        var result: [String] = []
        for path in paths {
            let errors = diagnostics.errorCount
            guard let found = yamlFiles(under: path, diagnostics: &diagnostics) else {
                result.append(path)
                continue
            }
            // A folder with nothing to read is most likely the wrong one: a run that checks
            // nothing must not pass unremarked.
            if found.isEmpty && diagnostics.errorCount == errors {
                diagnostics.warning(
                    "files.none", "no journey or scenario files (.yaml) in this folder",
                    at: SourceLocation(file: path, line: 1, column: 1))
            }
            result.append(contentsOf: found.map { Path.join(path, $0) })
        }
        var seen = Set<String>()
        return result.filter { seen.insert($0).inserted }
    }

    /// The `.yaml`/`.yml` files under the folder `path`, searched recursively, as sorted paths
    /// relative to it; nil when `path` is a file. A missing path is reported, with no files.
    /// Files whose names start with a dot are left out (folders that do are searched); links
    /// to folders are not followed. Folders are listed on every core.
    static func yamlFiles(under path: String, diagnostics: inout DiagnosticList) -> [String]? {
        yamlFiles(under: path, reading: nil, diagnostics: &diagnostics)?.map(\.path)
    }

    /// Starts ``yamlSources(under:limit:diagnostics:)`` of each of the `folders` (which that
    /// thread finds first) on a thread of its own, one folder after the other, for a later call with the same folder and limit to
    /// join rather than start: the command that will need them can go on with other work
    /// (parsing its arguments, finding its project) while its second core lists and reads.
    /// What the later call returns and reports is the same as without it: only a folder's
    /// files are gathered ahead, and whatever is found wrong is reported by that call.
    static func prefetchSources(limit: Int, under folders: @escaping @Sendable () -> [String]) {
        FolderWalk.prefetch(limit: limit, folders: folders)
    }

    /// ``yamlFiles(under:diagnostics:)`` with each file read (``read(_:limit:)``) by the thread
    /// that listed its folder: what it holds, or why it could not be read.
    static func yamlSources(
        under path: String, limit: Int, diagnostics: inout DiagnosticList
    ) -> [(path: String, data: Result<Data, any Error>)]? {
        yamlFiles(under: path, reading: limit, diagnostics: &diagnostics)?.map { ($0.path, $0.data!) }
    }

    private static func yamlFiles(
        under path: String, reading limit: Int?, diagnostics: inout DiagnosticList
    ) -> [FolderWalk.File]? {
        // An empty path (`journey check ""`) names nothing: said as such, not as a file at ":1:1".
        if path.isEmpty {
            diagnostics.error(
                "file.missing", "an empty path names no file or folder",
                at: SourceLocation(file: "''", line: 1, column: 1))
            return []
        }
        var status = stat()
        guard stat(path, &status) == 0 else {
            let error = SystemError()
            // Not there at all, or there but not to be opened (a loop of links, no permission
            // to look in its folder): said as a folder's walk says it of a file inside.
            if error.code == ENOENT || error.code == ENOTDIR {
                diagnostics.error(
                    "file.missing", "no such file or directory", at: SourceLocation(file: path, line: 1, column: 1))
            } else {
                diagnostics.error(
                    unreadableFile, "cannot open \(path): \(error)",
                    at: SourceLocation(file: path, line: 1, column: 1))
            }
            return []
        }
        guard status.st_mode & S_IFMT == S_IFDIR else { return nil }
        // A walk started ahead of time (``prefetchSources(limit:under:)``) is joined, not redone.
        if let limit, let walk = FolderWalk.prefetched(path, limit: limit) {
            walk.run(besides: 1)
            return finish(walk, diagnostics: &diagnostics)
        }
        let walk = FolderWalk(root: path, limit: limit)
        walk.run()
        return finish(walk, diagnostics: &diagnostics)
    }

    private static func finish(_ walk: FolderWalk, diagnostics: inout DiagnosticList) -> [FolderWalk.File] {
        for (file, said) in walk.special.sorted(by: { $0.file < $1.file }) {
            diagnostics.warning(specialFile, said, at: SourceLocation(file: file, line: 1, column: 1))
        }
        return walk.found.sorted { $0.path < $1.path }
    }

    /// What one folder holds: its YAML files (as paths relative to `root`, each read when a
    /// `limit` is given) and subfolders, and the YAML names in it that are not regular files
    /// (as paths with `root`), with what they are.
    fileprivate static func list(
        _ root: String, _ relative: String, reading limit: Int?, into scratch: UnsafeMutableRawBufferPointer
    ) -> (files: [FolderWalk.File], folders: [String], special: [(file: String, said: String)]) {
        var listed: (files: [FolderWalk.File], folders: [String], special: [(file: String, said: String)]) = (
            [], [], []
        )
        guard let directory = opendir(relative.isEmpty ? root : Path.join(root, relative)) else { return listed }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let type = Int32(entry.pointee.d_type)
            // Judged from the name's bytes before making it a string: most names are left out.
            let (isYAML, isHidden) = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                let length = strlen(raw.baseAddress!.assumingMemoryBound(to: CChar.self))
                let name = UnsafeRawBufferPointer(rebasing: raw[..<length])
                return (name.hasSuffix(".yaml") || name.hasSuffix(".yml"), name.first == UInt8(ascii: "."))
            }
            if !isYAML && type == Int32(DT_REG) { continue }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(cString: bytes.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            if name == "." || name == ".." { continue }
            let path = relative.isEmpty ? name : relative + "/" + name
            var isFolder = type == Int32(DT_DIR)
            if type == Int32(DT_UNKNOWN) {
                var status = stat()
                isFolder = lstat(Path.join(root, path), &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
            }
            if isFolder {
                listed.folders.append(path)
                continue
            }
            // A link to a folder is not followed (a link back up would walk for ever): said,
            // so that the files in it are not left out without a word.
            if !isHidden, type == Int32(DT_LNK) || type == Int32(DT_UNKNOWN), isLink(Path.join(root, path)),
                Files.isFolder(Path.join(root, path)), mayHoldYAML(Path.join(root, path))
            {
                listed.special.append(
                    (
                        Path.join(root, path),
                        "a link to a folder, not followed: its files are skipped; name the folder it links to, or keep the files here"
                    ))
                continue
            }
            if isHidden || !isYAML { continue }
            // A FIFO would block the read for ever; a device or socket is no file of ours. (A
            // link is judged by what it names.)
            if type != Int32(DT_REG), let kind = specialKind(Path.join(root, path)) {
                if kind != "a folder" {
                    listed.special.append((Path.join(root, path), "\(kind), not a regular file; skipped"))
                }
                continue
            }
            let data = limit.map { limit in
                Result {
                    type == Int32(DT_REG)
                        ? try read(
                            listed: name, in: dirfd(directory), path: Path.join(root, path), limit: limit, into: scratch
                        )
                        : try read(name, in: dirfd(directory), path: Path.join(root, path), limit: limit)
                }
            }
            listed.files.append(FolderWalk.File(path: path, data: data))
        }
        return listed
    }

    static let specialFile = "file.special"
    /// A file named in a folder walked, or on the command line, that cannot be opened.
    static let unreadableFile = "file.unreadable"

    /// Whether the folder `path` holds a YAML file, or a folder that may: a folder of goldens
    /// behind a link is none of a walk's business.
    static func mayHoldYAML(_ path: String) -> Bool {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return false }
        return names.contains { name in
            !name.hasPrefix(".")
                && (name.hasSuffix(".yaml") || name.hasSuffix(".yml") || isFolder(Path.join(path, name)))
        }
    }

    /// Whether `path` is a symbolic link (not following it).
    static func isLink(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK
    }

    /// Whether `path` is a folder (following links).
    static func isFolder(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
    }

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
        try read(opened: open(path, readFlags), path: path, limit: limit)
    }

    /// ``read(_:limit:)`` of the file `name` in the open folder `folder` (whose path with the
    /// name is `path`): no path to look up again.
    static func read(_ name: String, in folder: Int32, path: @autoclosure () -> String, limit: Int) throws -> Data {
        try read(opened: openat(folder, name, readFlags), path: path(), limit: limit)
    }

    /// ``read(_:in:path:limit:)`` of a file that its folder lists as a regular file: read into
    /// `scratch` without asking the file's size first, then copied out, which saves a system
    /// call a file in a project of a thousand. A file that gives nothing, fills `scratch`
    /// (without reaching the limit) or says to try again (no longer a regular file) is read
    /// again from its start as any other, so that what is not a regular file is still refused.
    static func read(
        listed name: String, in folder: Int32, path: @autoclosure () -> String, limit: Int,
        into scratch: UnsafeMutableRawBufferPointer
    ) throws -> Data {
        let descriptor = openat(folder, name, readFlags)
        guard descriptor >= 0 else { throw CLIError("cannot open \(path()): \(SystemError())") }
        let wanted = min(scratch.count, limit + 1)
        var count = 0
        repeat { count = systemRead(descriptor, scratch.baseAddress!, wanted) } while count < 0 && errno == EINTR
        // A regular file gives less than asked only at its end; limit + 1 bytes are too many.
        if count > 0 && (count < wanted || wanted == limit + 1) {
            close(descriptor)
            return Data(bytes: scratch.baseAddress!, count: count)
        }
        if count > 0 && lseek(descriptor, 0, SEEK_SET) != 0 {
            // Only what is not a regular file cannot go back to its start: refused for what it is.
            defer { close(descriptor) }
            var status = stat()
            if fstat(descriptor, &status) == 0, let kind = kind(of: status.st_mode) { throw SpecialFile(kind: kind) }
            throw CLIError("cannot read \(path()): \(SystemError())")
        }
        return try read(opened: descriptor, path: path(), limit: limit)
    }

    /// How much of a file ``read(listed:in:path:limit:into:)`` reads at once: more than most
    /// journeys hold.
    static let scratchBytes = 64 << 10

    private static let readFlags = O_RDONLY | O_NONBLOCK | O_CLOEXEC

    private static func read(opened descriptor: Int32, path: @autoclosure () -> String, limit: Int) throws -> Data {
        guard descriptor >= 0 else { throw CLIError("cannot open \(path()): \(SystemError())") }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw CLIError("cannot read \(path()): \(SystemError())") }
        if let kind = kind(of: status.st_mode) { throw SpecialFile(kind: kind) }
        // Room for the size the file says it has and one byte more (to see it grow past the
        // limit), so that a project's thousand small files cost one small buffer each, not
        // cleared first: only what is read is kept.
        var capacity = min(max(Int(status.st_size), 0), limit) + 1
        guard var buffer = malloc(capacity) else { throw CLIError("cannot read \(path()): out of memory") }
        var count = 0
        do {
            while count <= limit {
                if count == capacity {
                    capacity += min(capacity, limit + 1 - count)
                    guard let larger = realloc(buffer, capacity) else {
                        throw CLIError("cannot read \(path()): out of memory")
                    }
                    buffer = larger
                }
                let read = systemRead(descriptor, buffer + count, capacity - count)
                if read < 0 {
                    if errno == EINTR || errno == EAGAIN { continue }
                    throw CLIError("cannot read \(path()): \(SystemError())")
                }
                if read == 0 { break }
                count += read
                // A regular file gives less than asked only at its end: no need to ask again.
                if count < capacity { break }
            }
        } catch {
            free(buffer)
            throw error
        }
        return Data(bytesNoCopy: buffer, count: count, deallocator: .free)
    }

    /// Why no file can be made at or under `path` when the system says a part of it is not a
    /// folder (`ENOTDIR`): the part that is in the way, named as the user wrote it
    /// (`notes.txt is a file, not a folder`); nil when none is found (the path changed since).
    static func notAFolder(in path: String) -> String? {
        var current = Path.trimTrailingSlashes(path)
        for _ in 0..<256 {
            var status = stat()
            if stat(current, &status) == 0 {
                guard status.st_mode & S_IFMT != S_IFDIR else { return nil }
                return "\(current) is \(kind(of: status.st_mode) ?? "a file"), not a folder"
            }
            let parent = Path.parent(current)
            if parent == current || parent.hasSuffix("..") { return nil }
            current = parent
        }
        return nil
    }

    /// The reason a call on `path` failed with `error`, in the user's terms where the system's
    /// would leave them guessing which part of the path is wrong.
    static func reason(_ error: SystemError, at path: String) -> String {
        if error.code == ENOTDIR, let reason = notAFolder(in: path) { return reason }
        return error.description
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
            guard errno == ENOENT else {
                throw WriteError(path: path, reason: reason(SystemError(), at: current))
            }
            // `a/x/..` where `a/x` is missing names no folder that can be made (the parent of
            // a `..` is more `..`, without end).
            let trimmed = Path.trimTrailingSlashes(current)
            if trimmed == ".." || trimmed.hasSuffix("/..") {
                let before = trimmed == ".." ? "." : String(trimmed.dropLast(3))
                throw WriteError(path: path, reason: "\(before) does not exist, so \(trimmed) names no folder")
            }
            missing.append(current)
            let parent = Path.parent(current)
            if parent == current { break }
            current = parent
        }
        if missing.isEmpty && status.st_mode & S_IFMT != S_IFDIR {
            throw WriteError(path: path, reason: reason(SystemError(ENOTDIR), at: current))
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

    /// Why a file cannot be put at `path` by renaming another over it, when that can be told
    /// beforehand: a folder is there, or a file marked immutable or append-only (`chattr +i`,
    /// `+a`; `chflags uchg`), which no rename replaces, whoever runs it. Nil when nothing is
    /// there or a rename may replace what is.
    static func whyNotReplaceable(_ path: String) -> String? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        switch status.st_mode & S_IFMT {
        case S_IFDIR: return "a folder is there"
        case S_IFREG: break
        default: return nil
        }
        #if canImport(Glibc)
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var flags: CInt = 0
        // FS_IOC_GETFLAGS; FS_IMMUTABLE_FL and FS_APPEND_FL.
        guard ioctl(descriptor, UInt(0x8008_6601), &flags) == 0 else { return nil }
        if flags & 0x10 != 0 { return "the file there is immutable" }
        if flags & 0x20 != 0 { return "the file there is append-only" }
        #elseif canImport(Darwin)
        if status.st_flags & UInt32(UF_IMMUTABLE | SF_IMMUTABLE) != 0 { return "the file there is immutable" }
        if status.st_flags & UInt32(UF_APPEND | SF_APPEND) != 0 { return "the file there is append-only" }
        #endif
        return nil
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
    /// `absolute` with its longest part that exists resolved (``realPath(_:)``: links
    /// followed, `..` taken where the file system takes it) and the rest, not made yet, as
    /// written: where a file there will really be.
    static func realPathOfExisting(_ absolute: String) -> String {
        var existing = absolute
        var rest: [String] = []
        while realPath(existing) == nil {
            let parent = Path.parent(existing)
            guard parent != existing, !parent.hasSuffix("/.."), parent != ".." else { return absolute }
            rest.insert(Path.lastComponent(existing), at: 0)
            existing = parent
        }
        return ([realPath(existing) ?? existing] + rest).reduce("") { $0.isEmpty ? $1 : Path.join($0, $1) }
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Loads files into memory for the pipeline, reporting unreadable ones. Many files are read
    /// on every core; what they gave is taken in the order of `paths`.
    static func sources(_ paths: [String], limit: Int, diagnostics: inout DiagnosticList) -> [SourceFile] {
        let results = Parallel.map(paths, parallel: paths.count >= parallelFiles) { path in
            Result<Data, any Error> { try read(path, limit: limit) }
        }
        return sources(zip(paths, results), diagnostics: &diagnostics)
    }

    /// The files read, each unreadable one reported as it comes.
    static func sources(
        _ read: some Sequence<(String, Result<Data, any Error>)>, diagnostics: inout DiagnosticList
    ) -> [SourceFile] {
        read.compactMap { source($0, $1, diagnostics: &diagnostics) }
    }

    /// The file read, or nil when it could not be, reported.
    static func source(
        _ path: String, _ result: Result<Data, any Error>, diagnostics: inout DiagnosticList
    ) -> SourceFile? {
        do {
            return SourceFile(path: path, data: try result.get())
        } catch let error as SpecialFile {
            diagnostics.error(specialFile, error.description, at: SourceLocation(file: path, line: 1, column: 1))
            return nil
        } catch {
            diagnostics.error(unreadableFile, "\(error)", at: SourceLocation(file: path, line: 1, column: 1))
            return nil
        }
    }

    /// From this many files on, reading them on other threads saves more than it costs.
    static let parallelFiles = 64
}

extension UnsafeRawBufferPointer {
    fileprivate func hasSuffix(_ suffix: StaticString) -> Bool {
        let suffix = UnsafeRawBufferPointer(start: suffix.utf8Start, count: suffix.utf8CodeUnitCount)
        return count >= suffix.count && self[(count - suffix.count)...].elementsEqual(suffix)
    }
}

/// Lists a folder and all its subfolders on every core: each thread takes a folder still to
/// list, and adds the subfolders it finds.
private final class FolderWalk: @unchecked Sendable {
    struct File {
        /// Relative to the root.
        var path: String
        /// What it holds, when files are read.
        var data: Result<Data, any Error>?
    }

    let root: String
    /// Read each file found, up to this many bytes (see ``Files/read(_:limit:)``); nil: do not read.
    let limit: Int?
    private let condition = NSCondition()
    /// Folders still to list, relative to the root.
    private var pending = [""]
    /// Threads listing a folder: until none is, more folders may come.
    private var busy = 0
    private(set) var found: [File] = []
    private(set) var special: [(file: String, said: String)] = []

    init(root: String, limit: Int?) {
        self.root = root
        self.limit = limit
    }

    /// Lists on every core, this thread too, until every folder is listed. `others`: how many
    /// threads already list it (those of a prefetch), so that no more threads than cores work.
    func run(besides others: Int = 0) {
        let threads = max(1, ProcessInfo.processInfo.activeProcessorCount - others)
        if threads == 1 {
            work()
        } else {
            DispatchQueue.concurrentPerform(iterations: threads) { _ in work() }
        }
    }

    /// Lists folders on this thread until none is left to list and none is being listed.
    private func work() {
        let scratch = UnsafeMutableRawBufferPointer.allocate(
            byteCount: limit == nil ? 0 : Files.scratchBytes, alignment: 16)
        defer { scratch.deallocate() }
        while let folder = next() {
            let listed = Files.list(root, folder, reading: limit, into: scratch)
            condition.lock()
            pending += listed.folders
            found += listed.files
            special += listed.special
            busy -= 1
            condition.broadcast()
            condition.unlock()
        }
    }

    /// What was started ahead of time by ``prefetch(limit:folders:)``.
    private enum Prefetch {
        case none
        /// Its thread is still finding which folders to walk.
        case deciding
        /// A folder was asked for before it knew: it walks nothing.
        case abandoned
        /// The walks started, not taken yet.
        case started([FolderWalk])
    }

    nonisolated(unsafe) private static var prefetch = Prefetch.none
    private static let prefetchLock = NSLock()

    /// Walks each of the `folders` (reading files up to `limit` bytes) on a new thread, one
    /// after the other; each is taken over by ``prefetched(_:limit:)``. When a folder is asked
    /// for before `folders` has answered, the thread walks nothing: a walk is never done twice.
    static func prefetch(limit: Int, folders: @escaping @Sendable () -> [String]) {
        let first = prefetchLock.withLock {
            guard case .none = prefetch else { return false }
            prefetch = .deciding
            return true
        }
        guard first else { return }
        Thread {
            let walks = folders().map { FolderWalk(root: $0, limit: limit) }
            let go = prefetchLock.withLock {
                guard case .deciding = prefetch else { return false }
                prefetch = .started(walks)
                return true
            }
            if go { for walk in walks { walk.work() } }
        }.start()
    }

    /// The walk of `root` started ahead of time with this `limit`, if any: it is no longer
    /// offered. The caller joins it with ``run(besides:)``.
    static func prefetched(_ root: String, limit: Int) -> FolderWalk? {
        prefetchLock.withLock {
            switch prefetch {
            case .deciding:
                prefetch = .abandoned
                return nil
            case .started(var walks):
                guard let index = walks.firstIndex(where: { $0.root == root && $0.limit == limit }) else { return nil }
                let walk = walks.remove(at: index)
                prefetch = .started(walks)
                return walk
            case .none, .abandoned:
                return nil
            }
        }
    }

    private func next() -> String? {
        condition.lock()
        defer { condition.unlock() }
        while pending.isEmpty && busy > 0 { condition.wait() }
        guard let folder = pending.popLast() else { return nil }
        busy += 1
        return folder
    }
}

/// A file that could not be written, and why.
struct WriteError: Error, CustomStringConvertible {
    var path: String
    var reason: String
    var description: String { "cannot write \(path): \(reason(after: path))" }

    /// The reason, said after `shown`: when that is the error's path and the reason starts
    /// with it too, "it" says it the second time (`cannot write notes.txt: it is a file, not a
    /// folder`).
    func reason(after shown: String) -> String {
        guard shown == path, reason.hasPrefix(path + " ") else { return reason }
        return "it" + reason.dropFirst(path.count)
    }
}

extension CompiledJourney {
    /// Refuses a locale given with `--locale` that the journey has no texts in, naming those it has.
    func requireLocale(_ locale: String?) throws {
        guard let locale, !source.locales.contains(locale) else { return }
        throw CLIError("journey '\(id)' has no locale '\(locale)': it has \(source.locales.joined(separator: ", "))")
    }
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
