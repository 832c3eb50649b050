import Foundation
import JourneyCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A handler program as JourneyKit runs it: started in a process group of its own, spoken to
/// one line at a time on its standard input and output, its standard error kept in an unlinked
/// temporary file for the last words a failure quotes, and stopped with its whole group, so
/// that nothing it started outlives it.
///
/// Reads wait with `poll(2)` on the calling thread, with a time limit: a round trip costs two
/// system calls and no thread hop. One step talks to a process at a time.
final class HandlerProcess: HandlerTransport {
    typealias Failure = HandlerTransportFailure

    /// The longest line a program may send: 16 MiB.
    static let maximumLine = 16 << 20

    /// The process id, which is also its process group's.
    let pid: pid_t
    /// How long a message may wait for the program to take it, in milliseconds.
    let timeout: Int
    private var input: Int32
    private let output: Int32
    private let errors: Int32
    private var buffer: [UInt8] = []
    /// Where the unread part of ``buffer`` starts.
    private var start = 0
    private var scratch = [UInt8](repeating: 0, count: 65_536)
    /// How the process ended, once reaped.
    private var ended: String?

    /// Starts `command` in `folder` (through `/bin/sh`, which changes to the folder and then
    /// replaces itself with the program, found on `PATH` unless it names a path).
    init(command: [String], folder: String, timeout: Int = ExternalHandlerDeclaration.defaultTimeout) throws(Failure) {
        var toChild: [Int32] = [-1, -1]
        var fromChild: [Int32] = [-1, -1]
        let template = strdup(NSTemporaryDirectory() + "/journey-handler-XXXXXX")!
        defer { free(template) }
        Self.spawnLock.lock()
        defer { Self.spawnLock.unlock() }
        guard pipe(&toChild) == 0 else { throw .notStarted(Self.systemError()) }
        guard pipe(&fromChild) == 0 else {
            let error = Self.systemError()
            Self.closeAll(toChild)
            throw .notStarted(error)
        }
        let errors = mkstemp(template)
        guard errors >= 0 else {
            let error = Self.systemError()
            Self.closeAll(toChild + fromChild)
            throw .notStarted("cannot make a file for its standard error: \(error)")
        }
        unlink(template)
        // Other programs started from here must not hold these ends open.
        for fd in toChild + fromChild + [errors] { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errors, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // A group of its own: stopping the handler stops what it started, and a Ctrl-C at the
        // terminal reaches `journey`, which stops it, rather than racing it.
        posix_spawnattr_setpgroup(&attributes, 0)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGPIPE, SIGQUIT, SIGHUP] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let script = "cd -- \"$1\" || exit 126; shift; exec \"$@\""
        let arguments = ["/bin/sh", "-c", script, "sh", folder] + command
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, environ)
        close(toChild[0])
        close(fromChild[1])
        guard result == 0 else {
            Self.closeAll([toChild[1], fromChild[0], errors])
            throw .notStarted(String(cString: strerror(result)))
        }
        self.pid = pid
        self.timeout = timeout
        // Writes wait in `poll(2)` with the time limit, so a program that stops reading cannot
        // hold `journey` up.
        _ = fcntl(toChild[1], F_SETFL, fcntl(toChild[1], F_GETFL) | O_NONBLOCK)
        self.input = toChild[1]
        self.output = fromChild[0]
        self.errors = errors
        Self.live.insert(pid)
    }

    deinit {
        stop()
        close(output)
        close(errors)
    }

    /// Writes `bytes` (one message, with its newline) to the program's standard input,
    /// waiting at most ``timeout`` for room in the pipe.
    func send(_ bytes: [UInt8]) throws(Failure) {
        guard input >= 0 else { throw .ended(reap(waiting: 0)) }
        let deadline = Self.monotonicMilliseconds() + timeout
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(input, $0.baseAddress! + offset, $0.count - offset) }
            if written >= 0 {
                offset += written
                continue
            }
            if errno == EINTR { continue }
            // EPIPE: nobody reads its input any more.
            guard errno == EAGAIN || errno == EWOULDBLOCK else {
                throw .ended(reap(waiting: 100, after: "closed its input"))
            }
            let remaining = deadline - Self.monotonicMilliseconds()
            guard remaining > 0 else { throw .notReading }
            var descriptor = pollfd(fd: input, events: Int16(POLLOUT), revents: 0)
            let slice = min(remaining, Self.livenessMilliseconds)
            if poll(&descriptor, 1, Int32(slice)) == 0, let ending { throw .ended(ending) }
        }
    }

    /// How the program ended, once it has (it is then reaped, and its group stopped); nil
    /// while it runs. A program that died between steps is found out here, before a step is
    /// sent to it.
    var ending: String? {
        if let ended { return ended }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
        return finish(status)
    }

    /// How long a read waits before it looks whether the program is still alive: what it
    /// started may hold its output open after it died, so the output alone does not say so.
    static let livenessMilliseconds = 200

    /// The program's next line (without its newline), waiting at most `milliseconds` for it;
    /// with 0, a line the program has already written (the pipe is looked at once), or
    /// ``Failure/timedOut`` at once.
    func receive(within milliseconds: Int) throws(Failure) -> [UInt8] {
        var searched = start
        let deadline = Self.monotonicMilliseconds() + milliseconds
        var looked = false
        while true {
            if let newline = buffer[searched...].firstIndex(of: 0x0A) {
                let line = Array(buffer[start..<newline])
                start = newline + 1
                return line
            }
            searched = buffer.count
            if buffer.count - start > Self.maximumLine { throw .lineTooLong }
            let remaining = max(0, deadline - Self.monotonicMilliseconds())
            guard remaining > 0 || (milliseconds == 0 && !looked) else { throw .timedOut }
            looked = true
            var descriptor = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            let slice = min(remaining, Self.livenessMilliseconds)
            let ready = poll(&descriptor, 1, Int32(slice))
            if ready < 0 {
                if errno == EINTR { continue }
                throw .ended(reap(waiting: 100))
            }
            if ready == 0 {
                if let ending { throw .ended(ending) }
                if slice == remaining { throw .timedOut }
                continue
            }
            if start > 0 && start == buffer.count {
                buffer.removeAll(keepingCapacity: true)
                start = 0
                searched = 0
            } else if start > 65_536 {
                buffer.removeSubrange(0..<start)
                searched -= start
                start = 0
            }
            let count = scratch.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
            if count > 0 { buffer.append(contentsOf: scratch[0..<count]) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw .ended(reap(waiting: 100))
            }
            if count == 0 { throw .ended(reap(waiting: 100, after: "closed its output")) }
        }
    }

    /// Closes the program's standard input: a program told to `exit`, or one that reads to the
    /// end, then ends by itself.
    func closeInput() {
        if input >= 0 {
            close(input)
            input = -1
        }
    }

    /// Waits up to `milliseconds` for the program to end by itself, then stops its group; how
    /// it ended, in words. `cause` is what the program did that ends the conversation (it
    /// closed its output): a program still running then, stopped here, is said to have done
    /// that, not to have been killed.
    @discardableResult
    func reap(waiting milliseconds: Int) -> String { reap(waiting: milliseconds, after: nil) }

    @discardableResult
    func reap(waiting milliseconds: Int, after cause: String?) -> String {
        if let ended { return ended }
        var status: Int32 = 0
        let deadline = Self.monotonicMilliseconds() + milliseconds
        while true {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid { return finish(status) }
            if result < 0 && errno != EINTR { break }
            if Self.monotonicMilliseconds() >= deadline { break }
            usleep(1000)
        }
        _ = kill(-pid, SIGKILL)
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let killed = finish(status)
        guard let cause else { return killed }
        ended = "\(cause) and was stopped"
        return ended!
    }

    /// After the program was reaped with `status`: whatever it started goes with it, and its
    /// input is closed. How it ended, in words.
    private func finish(_ status: Int32) -> String {
        _ = kill(-pid, SIGKILL)
        closeInput()
        Self.live.remove(pid)
        let text = Self.describe(status)
        ended = text
        return text
    }

    /// Stops the program and its group now.
    func stop() {
        if ended == nil {
            _ = kill(-pid, SIGKILL)
            reap(waiting: 0)
        }
    }

    /// The end of what the program wrote to its standard error: at most `lines` lines of the
    /// last 4 KiB.
    func errorTail(lines: Int) -> String {
        var status = stat()
        guard fstat(errors, &status) == 0, status.st_size > 0 else { return "" }
        let size = Int(status.st_size)
        let length = min(size, 4096)
        var bytes = [UInt8](repeating: 0, count: length)
        let count = bytes.withUnsafeMutableBytes { pread(errors, $0.baseAddress, length, off_t(size - length)) }
        guard count > 0 else { return "" }
        let text = String(decoding: bytes[0..<count], as: UTF8.self)
        let all = text.split(whereSeparator: \.isNewline).map(String.init).filter {
            !$0.allSatisfy(\.isWhitespace)
        }
        // The first line of a cut tail is a fragment unless the tail is the whole file.
        let whole = length == size ? all : Array(all.dropFirst())
        return whole.suffix(lines).joined(separator: "\n")
    }

    /// How a wait status reads: `exited with status 3`, `was killed by SIGSEGV`.
    static func describe(_ status: Int32) -> String {
        let signal = status & 0x7F
        if signal == 0 { return "exited with status \((status >> 8) & 0xFF)" }
        return "was killed by \(signalName(signal))"
    }

    static func signalName(_ signal: Int32) -> String {
        switch signal {
        case SIGKILL: "SIGKILL"
        case SIGTERM: "SIGTERM"
        case SIGINT: "SIGINT"
        case SIGSEGV: "SIGSEGV"
        case SIGABRT: "SIGABRT"
        case SIGBUS: "SIGBUS"
        case SIGILL: "SIGILL"
        case SIGFPE: "SIGFPE"
        case SIGPIPE: "SIGPIPE"
        case SIGTRAP: "SIGTRAP"
        default: "signal \(signal)"
        }
    }

    static func monotonicMilliseconds() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return now.tv_sec * 1000 + now.tv_nsec / 1_000_000
    }

    private static func systemError() -> String { String(cString: strerror(errno)) }

    private static func closeAll(_ fds: [Int32]) { for fd in fds where fd >= 0 { close(fd) } }

    /// Held while a program is started, so that no other start in this process inherits the
    /// pipes of this one before they are marked close-on-exec.
    private static let spawnLock = NSLock()

    /// Kills every program's group at once, without waiting, for a process about to end with
    /// `_exit` (a worker whose `journey test` is gone). A program being started is waited for
    /// and killed too, and none starts after: the process must end next.
    static func killAllBeforeExit() {
        spawnLock.lock()
        live.killAll()
    }

    /// The programs started and not yet reaped, for stopping them when `journey` exits.
    static let live = LiveProcesses()

    /// Makes `journey`'s exit shut down every handler program: the idle ones are asked to
    /// (``ExternalHandler/shutdownAll()``), and any still running then is stopped with its
    /// group. Once per process, however often it is called.
    static func stopAllAtExit() {
        _ = exitHook
    }

    private static let exitHook: Void = {
        atexit {
            ExternalHandler.shutdownAll()
            HandlerProcess.live.stopAll()
        }
    }()

    final class LiveProcesses: @unchecked Sendable {
        private let lock = NSLock()
        private var pids = Set<pid_t>()
        private var observer: (@Sendable (pid_t, Bool) -> Void)?

        /// The same process group ids in a fixed table (0 for a free slot) that a signal
        /// handler may read: SIGINT, SIGTERM or SIGHUP stops every program's group before
        /// `journey` dies of it, as no exit hook runs then.
        static let capacity = 4096
        nonisolated(unsafe) static let table: UnsafeMutablePointer<pid_t> = {
            let table = UnsafeMutablePointer<pid_t>.allocate(capacity: capacity)
            table.initialize(repeating: 0, count: capacity)
            return table
        }()

        /// The signal `journey` is dying of, once the hook has taken one (0 before): a thread
        /// that reaches `exit` while the hook still stops the programs' groups dies of it too,
        /// so the process never ends with a status instead of the signal.
        nonisolated(unsafe) static var dyingOf: Int32 = 0

        private static let signalHook: Void = {
            _ = table
            _ = SignalCleanup.slots
            atexit {
                let signal = LiveProcesses.dyingOf
                guard signal != 0 else { return }
                SignalAction.die(of: signal)
            }
            // A signal this process ignores (a worker ignores SIGINT) stays ignored.
            for number in [SIGINT, SIGTERM, SIGHUP] where SignalAction.current(number) != .ignored {
                SignalAction.install(number) { received in LiveProcesses.stopGroups(andDieOf: received) }
            }
        }()

        /// Kills every group in the table, then dies of `signal` as if it had no handler.
        private static func stopGroups(andDieOf signal: Int32) {
            dyingOf = signal
            for slot in 0..<capacity where table[slot] > 0 { _ = kill(-table[slot], SIGKILL) }
            SignalCleanup.die(of: signal)
        }

        /// Tells `observer` of every program started (`true`) and reaped (`false`) from now
        /// on, by its process group id: a `journey test` worker passes them on to the
        /// supervisor, which stops the groups of a worker it had to kill.
        func observe(_ observer: @escaping @Sendable (pid_t, Bool) -> Void) {
            lock.lock()
            defer { lock.unlock() }
            self.observer = observer
        }

        func insert(_ pid: pid_t) {
            _ = Self.signalHook
            lock.lock()
            pids.insert(pid)
            if let slot = (0..<Self.capacity).first(where: { Self.table[$0] == 0 }) { Self.table[slot] = pid }
            let observer = self.observer
            lock.unlock()
            observer?(pid, true)
        }

        func remove(_ pid: pid_t) {
            lock.lock()
            let removed = pids.remove(pid) != nil
            if let slot = (0..<Self.capacity).first(where: { Self.table[$0] == pid }) { Self.table[slot] = 0 }
            let observer = self.observer
            lock.unlock()
            if removed { observer?(pid, false) }
        }

        /// Kills every program's group at once, without waiting: for a process that must
        /// end now (a worker whose supervisor is gone).
        func killAll() {
            for pid in all { _ = kill(-pid, SIGKILL) }
        }

        var all: Set<pid_t> {
            lock.lock()
            defer { lock.unlock() }
            return pids
        }

        /// Stops every program still running, with its group. Called as the process exits.
        func stopAll() {
            for pid in all {
                _ = kill(-pid, SIGKILL)
                var status: Int32 = 0
                _ = waitpid(pid, &status, 0)
            }
        }
    }
}
