#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file an output such as `journey run --transcript PATH` goes to, opened for what PATH
/// is (`lstat`, so a link is seen as a link):
/// - nothing, or a regular file: replaced atomically (``AtomicFile``);
/// - a symbolic link: written through, by these same rules for its target; the link stays;
/// - a character device (`/dev/null`, a terminal), a FIFO or a socket: opened (a socket
///   connected to) and written directly, with no temporary file and no rename; while no
///   process reads a FIFO, standard error says that `journey` waits for one;
/// - a folder or a block device: refused, before anything runs.
final class OutputFile {
    private enum Destination {
        case atomic(AtomicFile)
        case direct(Int32)
    }

    /// The path as the user gave it, for messages.
    let path: String
    /// What is written, for messages: "the transcript".
    private let content: String
    private let destination: Destination
    private var buffer: [UInt8] = []
    private var failure: SystemError?
    /// Whether everything is written out and the output closed (``stage()``).
    private var staged = false
    /// Whether the output is in place (``commit()``) or abandoned (``discard()``).
    private var finished = false

    /// Opens the output; with `makingFolders`, the folders missing above it are made first, as
    /// for `journey test --junit out/junit.xml`.
    init(path: String, content: String, makingFolders: Bool = false) throws {
        self.path = path
        self.content = content
        do {
            if makingFolders { _ = try Files.makeFolders(Path.parent(path)) }
            destination = try Self.destination(for: path)
        } catch let error as SystemError {
            throw CLIError("cannot write \(content) to \(path): \(Files.reason(error, at: path))")
        } catch let error as Refusal {
            throw CLIError("cannot write \(content) to \(path): \(error.reason)")
        } catch let error as WriteError {
            throw CLIError("cannot write \(content) to \(path): \(error.reason)")
        }
    }

    func write(_ text: String) {
        switch destination {
        case .atomic(let file): file.write(text)
        case .direct:
            buffer.append(contentsOf: text.utf8)
            if buffer.count >= 1 << 16 { flush() }
        }
    }

    /// The temporary file an atomic output is written to, if it is one: what to remove when
    /// the run is stopped before it finishes.
    var temporaryPath: String? {
        if case .atomic(let file) = destination { return file.temporaryPath }
        return nil
    }

    /// Writes out everything written so far and closes the output, without yet putting an
    /// atomic one in place: its temporary is complete and flushed to disk, its target untouched
    /// (on failure the temporary is removed). A direct output is written through and cannot be
    /// held back. Throws the first write error; staging again does nothing.
    func stage() throws {
        guard !staged else { return }
        staged = true
        switch destination {
        case .atomic(let file):
            do { try file.stage() } catch {
                throw CLIError("cannot write \(content) to \(path): \(error.reason)")
            }
        case .direct(let descriptor):
            flush()
            close(descriptor)
            if let failure { throw CLIError("cannot write \(content) to \(path): \(failure)") }
        }
    }

    /// Finishes the output: staged if it is not yet (``stage()``), then an atomic file is
    /// renamed into place. Throws the first write error.
    func commit() throws {
        try stage()
        guard case .atomic(let file) = destination else {
            finished = true
            return
        }
        do { try file.commit() } catch {
            throw CLIError("cannot write \(content) to \(path): \(error.reason)")
        }
        finished = true
    }

    /// Abandons the output: an atomic one's temporary is removed, staged or not, and its target
    /// left as it was; a direct one is closed with what it was given so far.
    func discard() {
        guard !finished else { return }
        switch destination {
        case .atomic(let file): file.discard()
        case .direct(let descriptor): if !staged { close(descriptor) }
        }
        staged = true
        finished = true
    }

    /// An output let go without being committed is discarded: a staged temporary is not left.
    deinit { discard() }

    /// Whether the output is written straight to what its path is (a device, a FIFO, a
    /// socket), with nothing to hold back, rather than staged and renamed into place.
    var isDirect: Bool {
        if case .direct = destination { return true }
        return false
    }

    /// Whether the output goes straight to a stream whose reader takes all that is written as one
    /// document (a FIFO, a pipe, a socket, a file reached through `/dev/stdout`), where what is
    /// written twice is read as two; not a device (`/dev/null`, a terminal, `/dev/full`), which
    /// takes each write as it comes.
    var isStream: Bool {
        guard case .direct(let descriptor) = destination else { return false }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return false }
        return status.st_mode & S_IFMT != S_IFCHR
    }

    /// Whether the output is written straight to the file standard output is open on (`--json
    /// /dev/stdout`, or the same pipe): then what a command says for people belongs on
    /// standard error, or the report would come mixed with it.
    var isStandardOutput: Bool {
        guard case .direct(let descriptor) = destination else { return false }
        var output = stat()
        var own = stat()
        guard fstat(STDOUT_FILENO, &output) == 0, fstat(descriptor, &own) == 0 else { return false }
        return output.st_dev == own.st_dev && output.st_ino == own.st_ino
    }

    private func flush() {
        guard case .direct(let descriptor) = destination, failure == nil, !buffer.isEmpty else { return }
        do throws(SystemError) {
            try Descriptor(raw: descriptor).write(buffer)
        } catch {
            failure = error
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// A kind of file that is never written.
    private struct Refusal: Error {
        var reason: String
    }

    private static func destination(for path: String) throws -> Destination {
        var current = path
        for _ in 0..<40 {
            var status = stat()
            if lstat(current, &status) != 0 {
                guard errno == ENOENT, !current.hasSuffix("/") else { throw SystemError() }
                return .atomic(try AtomicFile(path: current))
            }
            switch status.st_mode & S_IFMT {
            case S_IFREG: return .atomic(try AtomicFile(path: current))
            case S_IFDIR: throw Refusal(reason: "is a directory")
            case S_IFBLK: throw Refusal(reason: "is a block device, which journey never writes to")
            case S_IFSOCK: return .direct(try connectSocket(current))
            case S_IFIFO: return .direct(try openFIFO(current, shownAs: path))
            case S_IFLNK:
                // A link that the kernel resolves from an open file (/dev/stdout → /proc/self/fd/1)
                // is written through as it is, appending, so `>> log` keeps the log.
                if let parent = Files.realPath(Path.parent(current)), parent.hasPrefix("/proc/") {
                    return .direct(try openDirect(current, flags: O_APPEND))
                }
                let target = try readLink(current)
                current = target.hasPrefix("/") ? target : Path.join(Path.parent(current), target)
            default: return .direct(try openDirect(current, flags: 0))
            }
        }
        throw SystemError(ELOOP)
    }

    private static func openDirect(_ path: String, flags: Int32) throws(SystemError) -> Int32 {
        let descriptor = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | flags)
        guard descriptor >= 0 else { throw SystemError() }
        return descriptor
    }

    /// The FIFO at `path` opened for writing. Opening a FIFO waits for a reader, and a reader
    /// that never comes would leave `journey` stopped with no word: it is asked without
    /// waiting, and while no process reads it, standard error says so once (Ctrl-C stops
    /// `journey` as ever) and it is asked again every few milliseconds. Written to blocking,
    /// as a pipe is.
    private static func openFIFO(_ path: String, shownAs shown: String) throws(SystemError) -> Int32 {
        var said = false
        while true {
            let descriptor = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK)
            if descriptor >= 0 {
                _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
                return descriptor
            }
            guard errno == ENXIO else { throw SystemError() }
            if !said {
                said = true
                StandardStreams.shared.write(
                    "journey: waiting for a process to read \(shown), a FIFO (Ctrl-C stops)\n", to: .error)
            }
            usleep(20_000)
        }
    }

    /// A stream socket connected to the Unix socket at `path`.
    private static func connectSocket(_ path: String) throws(SystemError) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8) + [0]
        guard bytes.count <= MemoryLayout.size(ofValue: address.sun_path) else { throw SystemError(ENAMETOOLONG) }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let descriptor = socket(AF_UNIX, streamSocket, 0)
        guard descriptor >= 0 else { throw SystemError() }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let error = SystemError()
            close(descriptor)
            throw error
        }
        return descriptor
    }

    private static func readLink(_ path: String) throws(SystemError) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count >= 0 else { throw SystemError() }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

#if canImport(Glibc)
private let streamSocket = Int32(SOCK_STREAM.rawValue)
#elseif canImport(Darwin)
private let streamSocket = SOCK_STREAM
#endif
