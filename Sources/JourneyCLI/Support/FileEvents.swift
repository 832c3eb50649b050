import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Changes to the files under a set of folders, as the platform reports them (inotify on
/// Linux, FSEvents on macOS), never found by polling: what `journey test --watch` waits on.
protocol FileEvents: AnyObject {
    /// Starts watching each folder and every folder under it, and the folders made in them
    /// later.
    func watch(_ folders: [String]) throws(CLIError)

    /// How many folders are watched, subfolders included.
    var folderCount: Int { get }

    /// The folders asked for that are gone (deleted, or replaced), waited for: one that comes
    /// back is watched again, and its files are among the paths that changed.
    var awaited: [String] { get }

    /// A descriptor that is readable while changes wait to be taken: what a `poll` loop
    /// waits on with its other inputs.
    var descriptor: Int32 { get }

    /// The paths that changed since the last call (written, made, deleted, or moved in or
    /// out), without waiting. A folder that appears is watched from then on, and the files
    /// already in it are among the paths. A path may come more than once.
    func take() -> [String]
}

extension FileEvents {
    var awaited: [String] { [] }
}

/// Waiting for file events: a burst of saves becomes one batch.
enum FileWatch {
    /// The platform's file events.
    static func platform() throws(CLIError) -> any FileEvents {
        #if os(Linux)
        return try InotifyFileEvents()
        #elseif canImport(CoreServices)
        return try FSEventsFileEvents()
        #else
        throw CLIError("--watch needs file events (inotify or FSEvents), which this platform does not have")
        #endif
    }

    /// What ended a wait.
    enum Wake: Equatable {
        /// These paths changed, each named once, in the order they first changed.
        case changed([String])
        /// SIGINT or SIGTERM arrived (by name).
        case signal(String)
        /// Nothing changed for as long as the caller would wait.
        case quiet
    }

    /// Waits for changes, then for `settle` to pass without another (an editor that saves
    /// several files, or writes one in steps, makes one batch), but no longer than
    /// `longest` after the first. SIGINT and SIGTERM, caught by ``SignalPipe`` (which the
    /// caller installs), end the wait at once. With `quiet`, a wait in which nothing changes
    /// for that long ends too.
    static func next(
        _ events: any FileEvents, settle: Swift.Duration = .milliseconds(100),
        longest: Swift.Duration = .seconds(2), quiet: Swift.Duration? = nil
    ) -> Wake {
        let clock = ContinuousClock()
        let started = clock.now
        var paths: [String] = []
        var seen: Set<String> = []
        var first: ContinuousClock.Instant?
        var last = started
        while true {
            var deadline = quiet.map { started + $0 }
            if let first { deadline = min(last + settle, first + longest) }
            switch SignalPipe.shared.wait(for: events.descriptor, until: deadline) {
            case .timedOut: return first == nil ? .quiet : .changed(paths)
            // Nothing left to wait on: stop as if interrupted rather than spin.
            case .failed: return .signal("SIGTERM")
            case .signal(let signal): return .signal(signal)
            case .ready: break
            }
            let taken = events.take()
            guard !taken.isEmpty else { continue }
            for path in taken where seen.insert(path).inserted { paths.append(path) }
            last = clock.now
            if first == nil { first = last }
        }
    }
}

#if os(Linux)
/// ``FileEvents`` from Linux's inotify: one watch per folder, added for every folder under
/// the ones asked for and for each folder that appears later.
///
/// Editors that save by writing another file and renaming it over the original are seen
/// by the rename (`IN_MOVED_TO`); those that write in place, by the close (`IN_CLOSE_WRITE`).
final class InotifyFileEvents: FileEvents {
    let descriptor: Int32
    /// The folder each watch is on, by watch descriptor.
    private var folders: [Int32: String] = [:]
    /// The folders asked for: reported whole when the kernel's queue overflowed.
    private var roots: [String] = []
    /// Folders asked for that are gone, by the watch on the folder that held them: when one
    /// is made there again (a branch switched, a folder deleted and copied back), it is
    /// watched again.
    private var gone: [Int32: [String]] = [:]

    var awaited: [String] { gone.values.flatMap { $0 }.sorted() }

    private static let mask: UInt32 =
        UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_TO) | UInt32(IN_CREATE) | UInt32(IN_DELETE)
        | UInt32(IN_MOVED_FROM) | UInt32(IN_DELETE_SELF) | UInt32(IN_ONLYDIR)

    init() throws(CLIError) {
        let fd = inotify_init1(Int32(IN_NONBLOCK) | Int32(IN_CLOEXEC))
        guard fd >= 0 else { throw CLIError("cannot watch files: inotify: \(String(cString: strerror(errno)))") }
        descriptor = fd
    }

    deinit { close(descriptor) }

    var folderCount: Int { folders.count }

    func watch(_ folders: [String]) throws(CLIError) {
        for folder in folders {
            roots.append(folder)
            var found: [String] = []
            try add(folder, found: &found)
        }
    }

    /// Watches `folder` and every folder under it (hidden ones and links aside). The files
    /// found in the folders added are appended to `found`.
    private func add(_ folder: String, found: inout [String]) throws(CLIError) {
        let wd = inotify_add_watch(descriptor, folder, Self.mask)
        guard wd >= 0 else {
            let reason = String(cString: strerror(errno))
            let hint = errno == ENOSPC ? " (raise fs.inotify.max_user_watches)" : ""
            throw CLIError("cannot watch \(Workspace.display(folder)): \(reason)\(hint)")
        }
        folders[wd] = folder
        for name in ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted() {
            let path = folder + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            if (info.st_mode & S_IFMT) == S_IFDIR {
                if !name.hasPrefix(".") { try add(path, found: &found) }
            } else {
                found.append(path)
            }
        }
    }

    /// Waits for `root`, a folder asked for that is gone, to be made again in its parent; one
    /// made again already (before its deletion was read) is watched again at once.
    private func awaitReturn(of root: String, into paths: inout [String]) {
        let wd = inotify_add_watch(
            descriptor, Path.parent(root),
            UInt32(IN_CREATE) | UInt32(IN_MOVED_TO) | UInt32(IN_ONLYDIR) | UInt32(IN_MASK_ADD))
        guard wd >= 0 else { return }
        if !(gone[wd]?.contains(root) ?? false) { gone[wd, default: []].append(root) }
        if Files.isFolder(root) { rewatch(root, parent: wd, into: &paths) }
    }

    /// An event in the parent of a folder asked for that is gone: the folder made again there
    /// is watched again.
    private func returned(_ wd: Int32, name: String, mask: UInt32, into paths: inout [String]) {
        guard mask & UInt32(IN_ISDIR) != 0, mask & (UInt32(IN_CREATE) | UInt32(IN_MOVED_TO)) != 0,
            let root = gone[wd]?.first(where: { Path.lastComponent($0) == name })
        else { return }
        rewatch(root, parent: wd, into: &paths)
    }

    /// Watches `root` again, now that it is back: it and its files are among the paths that
    /// changed, and its parent is watched no longer for it.
    private func rewatch(_ root: String, parent wd: Int32, into paths: inout [String]) {
        var found: [String] = []
        guard (try? add(root, found: &found)) != nil else { return }
        paths += [root] + found
        gone[wd]?.removeAll { $0 == root }
        if gone[wd]?.isEmpty == true {
            gone[wd] = nil
            inotify_rm_watch(descriptor, wd)
        }
    }

    /// Stops watching `folder` and the folders under it: it moved away, and its watches
    /// would report paths it no longer has.
    private func remove(_ folder: String) {
        for (wd, path) in folders where path == folder || path.hasPrefix(folder + "/") {
            inotify_rm_watch(descriptor, wd)
            folders[wd] = nil
        }
    }

    func take() -> [String] {
        var paths: [String] = []
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        let header = 16  // wd, mask, cookie, len: four 32-bit fields, then the name.
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            var offset = 0
            while offset + header <= count {
                let (wd, mask, length) = buffer.withUnsafeBytes { bytes in
                    (
                        bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self),
                        bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self),
                        Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    )
                }
                let nameBytes = buffer[(offset + header)..<min(count, offset + header + length)]
                let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                offset += header + length
                if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                    // Events were lost: everything may have changed.
                    paths += roots
                    continue
                }
                guard let folder = folders[wd] else {
                    if gone[wd] != nil { returned(wd, name: name, mask: mask, into: &paths) }
                    continue
                }
                if mask & UInt32(IN_IGNORED) != 0 {
                    folders[wd] = nil
                    // A folder asked for that is gone is waited for, to be watched again.
                    if roots.contains(folder) { awaitReturn(of: folder, into: &paths) }
                    continue
                }
                guard !name.isEmpty else {
                    // The watched folder itself was deleted.
                    paths.append(folder)
                    continue
                }
                let path = folder + "/" + name
                paths.append(path)
                guard mask & UInt32(IN_ISDIR) != 0 else { continue }
                if mask & (UInt32(IN_CREATE) | UInt32(IN_MOVED_TO)) != 0, !name.hasPrefix(".") {
                    // Files may be written in it before its watch is added: they are
                    // reported from what is there.
                    var found: [String] = []
                    try? add(path, found: &found)
                    paths += found
                } else if mask & UInt32(IN_MOVED_FROM) != 0 {
                    remove(path)
                }
            }
        }
        return paths
    }
}
#endif
