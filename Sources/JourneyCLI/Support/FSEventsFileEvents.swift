#if canImport(CoreServices) && !os(Linux)
import CoreServices
import Darwin
import Foundation

/// ``FileEvents`` from macOS's FSEvents: one stream over every folder asked for, which
/// FSEvents watches with all their subfolders (those made later too), reporting each file
/// (`kFSEventStreamCreateFlagFileEvents`). The stream's callback keeps the paths and writes a
/// byte to a pipe, whose read end is the ``descriptor`` a `poll` loop waits on.
final class FSEventsFileEvents: FileEvents, @unchecked Sendable {
    let descriptor: Int32
    private let writeEnd: Int32
    private let lock = NSLock()
    private var pending: [String] = []
    private var stream: FSEventStreamRef?
    private let queue = DispatchQueue(label: "journey.file-events")

    init() throws(CLIError) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw CLIError("cannot watch files: \(String(cString: strerror(errno)))") }
        descriptor = fds[0]
        writeEnd = fds[1]
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
    }

    deinit {
        if let stream {
            FSEventStreamStop(stream)
            FSEventStreamInvalidate(stream)
            FSEventStreamRelease(stream)
        }
        close(descriptor)
        close(writeEnd)
    }

    /// The folders under those asked for when the watch started (FSEvents watches those
    /// made later without being asked).
    private(set) var folderCount = 0

    func watch(_ folders: [String]) throws(CLIError) {
        var context = FSEventStreamContext(
            version: 0, info: Unmanaged.passUnretained(self).toOpaque(), retain: nil, release: nil,
            copyDescription: nil)
        let flags = FSEventStreamCreateFlags(
            kFSEventStreamCreateFlagFileEvents | kFSEventStreamCreateFlagNoDefer | kFSEventStreamCreateFlagUseCFTypes)
        let callback: FSEventStreamCallback = { _, info, _, paths, _, _ in
            guard let info else { return }
            let events = Unmanaged<FSEventsFileEvents>.fromOpaque(info).takeUnretainedValue()
            events.add(unsafeBitCast(paths, to: NSArray.self) as? [String] ?? [])
        }
        guard
            let stream = FSEventStreamCreate(
                kCFAllocatorDefault, callback, &context, folders as CFArray,
                FSEventStreamEventId(kFSEventStreamEventIdSinceNow), 0.05, flags)
        else { throw CLIError("cannot watch \(folders.joined(separator: ", ")): FSEvents refused") }
        FSEventStreamSetDispatchQueue(stream, queue)
        guard FSEventStreamStart(stream) else { throw CLIError("cannot watch files: FSEvents did not start") }
        self.stream = stream
        for folder in folders {
            folderCount += 1
            let enumerator = FileManager.default.enumerator(
                at: URL(fileURLWithPath: folder), includingPropertiesForKeys: [.isDirectoryKey],
                options: [.skipsHiddenFiles])
            while let url = enumerator?.nextObject() as? URL {
                if (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true { folderCount += 1 }
            }
        }
    }

    private func add(_ paths: [String]) {
        lock.lock()
        pending += paths
        lock.unlock()
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    func take() -> [String] {
        var bytes = [UInt8](repeating: 0, count: 256)
        while read(descriptor, &bytes, bytes.count) > 0 {}
        lock.lock()
        defer { lock.unlock() }
        let paths = pending
        pending = []
        return paths
    }
}
#endif
