import Foundation
import JourneyCore
import JourneySuite

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a suite's scenarios in a worker process (`journey test --worker`) and watches it, so
/// that no single scenario can take the suite down: a scenario that crashes its process, or
/// runs past its wall-clock limit, is that scenario's failure; the worker is replaced and the
/// other scenarios run on. SIGINT and SIGTERM stop the run and keep what finished.
///
/// The worker streams one JSON line when a scenario starts to play and one with its outcome
/// when it ends (``WorkerMessage``). When a worker dies with one scenario playing, that
/// scenario crashed it; with several playing (`--jobs`), each of them runs again alone to find
/// out which. Scenarios that were playing when a worker was stopped for another's timeout run
/// again.
final class SuiteSupervisor {
    /// One scenario to run: its place in the selection, and how the worker finds it.
    struct Job: Sendable {
        var index: Int
        var file: String
        var scenario: String
        var name: String
    }

    let executable: String
    /// The worker's arguments after the executable (`test --worker` and run options), and
    /// the paths it loads.
    let arguments: [String]
    let paths: [String]
    let jobs: Int
    /// Wall-clock seconds a scenario may play.
    let timeout: Double

    /// Set when SIGINT or SIGTERM arrived: the signal's name.
    private(set) var interruption: String?

    init(executable: String, arguments: [String], paths: [String], jobs: Int, timeout: Double) {
        self.executable = executable
        self.arguments = arguments
        self.paths = paths
        self.jobs = max(1, jobs)
        self.timeout = timeout
    }

    /// The path of the running `journey` executable, to start workers with.
    static func currentExecutable() -> String? {
        #if os(Linux)
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return path }
        #endif
        return Bundle.main.executableURL?.resolvingSymlinksInPath().path
    }

    /// Runs the jobs; `deliver` gets each outcome in job order as soon as it and every earlier
    /// one are known. Returns the outcomes of the jobs that finished (all of them unless the
    /// run was interrupted).
    func run(_ jobs: [Job], deliver: (Int, ScenarioOutcome) -> Void) -> [Int: ScenarioOutcome] {
        var results: [Int: ScenarioOutcome] = [:]
        let order = jobs.map(\.index)
        var delivered = 0
        func record(_ index: Int, _ outcome: ScenarioOutcome) {
            results[index] = outcome
            while delivered < order.count, let ready = results[order[delivered]] {
                deliver(order[delivered], ready)
                delivered += 1
            }
        }
        let byIndex = Dictionary(uniqueKeysWithValues: jobs.map { ($0.index, $0) })
        var pending = order
        var solo: [Int] = []
        SignalPipe.shared.install()
        defer { SignalPipe.shared.uninstall() }
        while interruption == nil, !pending.isEmpty || !solo.isEmpty {
            let alone = !solo.isEmpty
            let batch = alone ? [solo.removeFirst()] : pending
            if !alone { pending = [] }
            let ended = runWorker(batch.map { byIndex[$0]! }, jobs: alone ? 1 : self.jobs, record: record)
            switch ended {
            case .finished, .interrupted:
                break
            case .timedOut(let index, let playing, let notStarted):
                let limit = Self.seconds(timeout)
                record(
                    index,
                    Self.failure(
                        byIndex[index]!, .timeout,
                        "did not finish within \(limit) (--timeout); it was stopped, the other scenarios ran on",
                        milliseconds: timeout * 1000))
                pending = (pending + playing + notStarted).sorted()
            case .crashed(let status, let playing, let notStarted):
                if playing.isEmpty && notStarted.count == batch.count {
                    // The worker died before running anything: it would again.
                    for index in batch {
                        let message = "could not run: the scenario runner process \(status) before running any scenario"
                        record(index, Self.failure(byIndex[index]!, .crash, message))
                    }
                } else if playing.count == 1 || alone {
                    for index in playing {
                        let message = "crashed: its process \(status); the other scenarios ran on"
                        record(index, Self.failure(byIndex[index]!, .crash, message))
                    }
                } else {
                    solo += playing.sorted()
                }
                pending = (pending + notStarted).sorted()
            }
        }
        return results
    }

    /// How a worker's run ended.
    enum Ended {
        case finished
        case interrupted
        case timedOut(Int, playing: [Int], notStarted: [Int])
        case crashed(String, playing: [Int], notStarted: [Int])
    }

    /// What is known of a worker while it plays its batch: what it wrote and has not been read
    /// as a whole line yet, the scenarios it started and when, those it finished, and the process
    /// groups of its handler programs that are running.
    struct WorkerWatch {
        let batch: [Job]
        let clock = ContinuousClock()
        var buffer: [UInt8] = []
        var started: [Int: ContinuousClock.Instant] = [:]
        var done: Set<Int> = []
        var groups = Set<pid_t>()

        /// Reads the worker's complete lines in `bytes` (with what came before), and records
        /// each outcome it gives.
        mutating func take(_ bytes: ArraySlice<UInt8>, record: (Int, ScenarioOutcome) -> Void) {
            buffer += bytes
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[..<newline])
                buffer.removeFirst(newline + 1)
                guard let message = try? JSONDecoder().decode(WorkerMessage.self, from: Data(line)) else {
                    continue
                }
                if let group = message.group { groups.insert(group) }
                if let group = message.groupEnded { groups.remove(group) }
                if let index = message.start { started[index] = clock.now }
                if let index = message.done, var outcome = message.outcome {
                    done.insert(index)
                    // A worker that could not find the scenario knows only its file and id.
                    if outcome.journey.isEmpty, let job = batch.first(where: { $0.index == index }) {
                        outcome.journey = SuiteSupervisor.failure(job, .invalid, "").journey
                    }
                    record(index, outcome)
                }
            }
        }

        /// Kills the worker, and reads what it wrote until then for the groups it started.
        ///
        /// `gently`, for a run the user stopped: the worker is sent SIGTERM first and given a
        /// moment to end of it, finishing a change of files it is making (a golden pair being
        /// updated) and removing the files it was writing (``SignalCleanup``); then it is killed.
        /// A second signal meanwhile kills it at once.
        mutating func stop(_ worker: Worker, gently: Bool = false, record: (Int, ScenarioOutcome) -> Void) {
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            if gently {
                worker.signal(SIGTERM)
                let deadline = clock.now + .seconds(10)
                while SignalPipe.shared.wait(for: worker.output, until: deadline) == .ready {
                    let count = read(worker.output, &chunk, chunk.count)
                    if count < 0 && errno == EINTR { continue }
                    // The end of its output: the worker has ended (or closed it, ending).
                    guard count > 0 else { break }
                    take(chunk[..<count], record: record)
                }
            }
            worker.signal(SIGKILL)
            while true {
                let count = read(worker.output, &chunk, chunk.count)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                take(chunk[..<count], record: record)
            }
            worker.wait()
        }

        /// The scenarios of the batch not finished: those started, and those not.
        func unfinished() -> (playing: [Int], notStarted: [Int]) {
            let remaining = batch.map(\.index).filter { !done.contains($0) }
            return (remaining.filter { started[$0] != nil }, remaining.filter { started[$0] == nil })
        }

        /// The scenario under way that started first, and when its time is up.
        func earliest(_ limit: Swift.Duration) -> (index: Int, deadline: ContinuousClock.Instant)? {
            started.filter { !done.contains($0.key) }.min { $0.value < $1.value }.map { ($0.key, $0.value + limit) }
        }
    }

    private func runWorker(_ batch: [Job], jobs: Int, record: (Int, ScenarioOutcome) -> Void) -> Ended {
        var input = ""
        for job in batch { input += "\(job.index)\t\(job.file)\t\(job.scenario)\n" }
        let worker: Worker
        do {
            worker = try Worker(
                executable: executable, arguments: arguments + ["--jobs", String(jobs), "--"] + paths, input: input)
        } catch {
            return .crashed("could not start: \(error)", playing: [], notStarted: batch.map(\.index))
        }
        let limit = Swift.Duration.milliseconds(Int64((timeout * 1000).rounded()))
        var watch = WorkerWatch(batch: batch)
        // The process groups of the worker's handler programs that are running are stopped when
        // the worker ends, however it ends, so that a worker killed for a scenario's timeout (or
        // one that crashed) leaves none of them behind.
        defer { for group in watch.groups { _ = kill(-group, SIGKILL) } }
        while true {
            // Wait for the worker's output, a signal, or the nearest deadline.
            let earliest = watch.earliest(limit)
            if let earliest, earliest.deadline <= watch.clock.now {
                watch.stop(worker, record: record)
                let rest = watch.unfinished()
                return .timedOut(
                    earliest.index, playing: rest.playing.filter { $0 != earliest.index }, notStarted: rest.notStarted)
            }
            switch SignalPipe.shared.wait(for: worker.output, until: earliest?.deadline) {
            case .timedOut: continue
            case .failed:
                watch.stop(worker, record: record)
                let rest = watch.unfinished()
                return .crashed("could not be watched", playing: rest.playing, notStarted: rest.notStarted)
            case .signal(let signal):
                interruption = signal
                watch.stop(worker, gently: true, record: record)
                return .interrupted
            case .ready: break
            }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let count = read(worker.output, &chunk, chunk.count)
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
            }
            if count > 0 {
                watch.take(chunk[..<count], record: record)
                continue
            }
            // End of output: the worker exited, or died.
            let status = worker.wait()
            let rest = watch.unfinished()
            if rest.playing.isEmpty && rest.notStarted.isEmpty { return .finished }
            if let signal = SignalPipe.shared.take() {
                interruption = signal
                return .interrupted
            }
            return .crashed(status, playing: rest.playing, notStarted: rest.notStarted)
        }
    }

    static func failure(
        _ job: Job, _ kind: ScenarioOutcome.Problem.Kind, _ message: String, milliseconds: Double = 0
    ) -> ScenarioOutcome {
        let parts = job.name.components(separatedBy: " › ")
        return ScenarioOutcome(
            journey: parts.first ?? "", scenario: parts.count > 1 ? parts[1] : job.scenario, file: job.file, tags: [],
            status: .failed, milliseconds: milliseconds, steps: 0, problems: [.init(kind: kind, message: message)])
    }

    static func seconds(_ value: Double) -> String {
        JourneyCore.Duration.format(milliseconds: Int((value * 1000).rounded()))
    }
}

/// One line a worker writes: a scenario started to play, or one finished with its outcome.
struct WorkerMessage: Codable {
    var start: Int?
    var done: Int?
    var outcome: ScenarioOutcome?
    /// A handler program started, in a process group of its own with this id.
    var group: pid_t?
    /// That program ended and its group was stopped.
    var groupEnded: pid_t?
}

/// A worker process: `journey test --worker …` with the jobs on its standard input and its
/// messages on a pipe.
final class Worker {
    let pid: pid_t
    /// The read end of the worker's standard output.
    let output: Int32
    /// The write end of its standard input, open while it lives (see ``WorkerLifetime``).
    private let input: Int32
    private var reaped: String?

    /// Where the worker's standard error goes (a crash report, mostly): a file with no name,
    /// read when it ends. Made in the temporary folder and unlinked at once, so that nothing is
    /// left there however the run ends (a `kill -9` of `journey test` included).
    private let errorLog: Int32

    init(executable: String, arguments: [String], input: String) throws {
        // A name no file has (mkstemp picks it): one left by a process killed before it could
        // unlink its own, whose process id this one now has, is never in the way.
        var template = Array((NSTemporaryDirectory() + "/journey-worker-\(getpid())-XXXXXX").utf8CString)
        errorLog = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        let logPath = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard errorLog >= 0 else { throw CLIError("cannot make \(logPath): \(String(cString: strerror(errno)))") }
        _ = fcntl(errorLog, F_SETFD, FD_CLOEXEC)
        unlink(logPath)
        var toWorker: [Int32] = [0, 0]
        var fromWorker: [Int32] = [0, 0]
        guard pipe(&toWorker) == 0 else {
            close(errorLog)
            throw CLIError(String(cString: strerror(errno)))
        }
        guard pipe(&fromWorker) == 0 else {
            close(errorLog)
            close(toWorker[0])
            close(toWorker[1])
            throw CLIError(String(cString: strerror(errno)))
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toWorker[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromWorker[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errorLog, 2)
        for fd in toWorker + fromWorker { posix_spawn_file_actions_addclose(&actions, fd) }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        close(toWorker[0])
        close(fromWorker[1])
        guard result == 0 else {
            close(errorLog)
            close(toWorker[1])
            close(fromWorker[0])
            throw CLIError("cannot start \(executable): \(String(cString: strerror(result)))")
        }
        self.pid = pid
        self.output = fromWorker[0]
        self.input = toWorker[1]
        // The job list is small; a worker that dies before reading it gives EPIPE, ignored
        // here: its death is seen on its output.
        var bytes = Array((input + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeMutableBytes { write(toWorker[1], $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                break
            }
            offset += written
        }
        bytes.removeAll()
    }

    /// Stops the worker at once and reaps it.
    func kill() {
        signal(SIGKILL)
        _ = wait()
    }

    /// Sends the worker `number`, unless it was reaped.
    func signal(_ number: Int32) {
        if reaped == nil { send(number, to: pid) }
    }

    /// Waits for the worker to end: how it ended, in words (`exited with status 3`, `was
    /// killed by signal 11 (SIGSEGV)`).
    @discardableResult
    func wait() -> String {
        if let reaped { return reaped }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        close(output)
        close(input)
        let signal = status & 0x7F
        var text =
            signal == 0
            ? "exited with status \((status >> 8) & 0xFF)"
            : "was killed by \(SignalPipe.name(signal))"
        // The runtime's crash report names the fault; anything else it wrote is passed on.
        let log = Self.read(errorLog)
        close(errorLog)
        if let crash = log.lines.first(where: { $0.hasPrefix("*** Program crashed: ") }) {
            text += ": " + crash.dropFirst("*** Program crashed: ".count).replacingOccurrences(of: " ***", with: "")
        } else if !log.isEmpty {
            Console().err(log)
        }
        reaped = text
        return text
    }

    /// What the worker wrote to its standard error, from the start: its first mebibyte.
    private static func read(_ log: Int32) -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while bytes.count < 1 << 20 {
            let count = chunk.withUnsafeMutableBytes { pread(log, $0.baseAddress, $0.count, off_t(bytes.count)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    deinit { if reaped == nil { kill() } }
}

/// SIGINT and SIGTERM turned into bytes on a pipe (the self-pipe trick), so a `poll` loop
/// sees them with its other inputs.
final class SignalPipe: @unchecked Sendable {
    static let shared = SignalPipe()

    let readEnd: Int32
    let writeEnd: Int32

    private init() {
        var fds: [Int32] = [0, 0]
        _ = pipe(&fds)
        readEnd = fds[0]
        writeEnd = fds[1]
        _ = fcntl(readEnd, F_SETFL, fcntl(readEnd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(writeEnd, F_SETFL, fcntl(writeEnd, F_GETFL) | O_NONBLOCK)
        signalWriteEnd = writeEnd
    }

    private let lock = NSLock()
    /// How many callers are between ``install()`` and ``uninstall()``: `journey test --watch`
    /// keeps the signals caught while it waits for changes and while a run it starts does.
    private var installs = 0

    func install() {
        lock.lock()
        defer { lock.unlock() }
        installs += 1
        guard installs == 1 else { return }
        // A worker that dies gives EPIPE on its pipe, not a SIGPIPE that would end this process.
        signal(SIGPIPE, SIG_IGN)
        for number in [SIGINT, SIGTERM] {
            signal(number) { received in
                var byte = UInt8(truncatingIfNeeded: received)
                _ = write(signalWriteEnd, &byte, 1)
            }
        }
    }

    func uninstall() {
        lock.lock()
        defer { lock.unlock() }
        installs -= 1
        guard installs == 0 else { return }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }

    /// How a ``wait(for:until:)`` ended.
    enum Wait: Equatable {
        /// A signal this pipe carries arrived, by name.
        case signal(String)
        /// The descriptor can be read.
        case ready
        /// The deadline passed.
        case timedOut
        /// The descriptor cannot be waited on.
        case failed
    }

    /// Waits until `descriptor` can be read, a signal arrives, or `deadline` passes (nil: no
    /// deadline); a wait the system interrupts is taken up again.
    func wait(for descriptor: Int32, until deadline: ContinuousClock.Instant?) -> Wait {
        let clock = ContinuousClock()
        while true {
            var wait: Int32 = -1
            if let deadline {
                let left = deadline - clock.now
                if left <= .zero { return .timedOut }
                let ms = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1
                wait = Int32(min(Int64(Int32.max), ms))
            }
            var fds = [
                pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0),
                pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&fds, 2, wait)
            if ready < 0 {
                if errno == EINTR { continue }
                return .failed
            }
            if fds[0].revents != 0, let signal = take() { return .signal(signal) }
            if fds[1].revents != 0 { return .ready }
        }
    }

    /// The signal that arrived, by name, if one did.
    func take() -> String? {
        var byte: UInt8 = 0
        guard read(readEnd, &byte, 1) == 1 else { return nil }
        return Self.name(Int32(byte))
    }

    static func name(_ signal: Int32) -> String {
        switch signal {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGKILL: "SIGKILL"
        case SIGSEGV: "SIGSEGV"
        case SIGILL: "SIGILL"
        case SIGABRT: "SIGABRT"
        case SIGBUS: "SIGBUS"
        case SIGTRAP: "SIGTRAP"
        case SIGFPE: "SIGFPE"
        default: "signal \(signal)"
        }
    }
}

/// Sends a signal (outside ``Worker``, whose `kill()` would hide the C function).
private func send(_ signal: Int32, to pid: pid_t) { _ = kill(pid, signal) }

/// Where the signal handler writes: a C function cannot capture context.
nonisolated(unsafe) private var signalWriteEnd: Int32 = -1

/// The worker's output: one ``WorkerMessage`` per line, written whole from any thread.
final class WorkerOutput: @unchecked Sendable {
    private let lock = NSLock()
    private let encoder = JSONEncoder()

    init() { encoder.outputFormatting = [.sortedKeys] }

    func send(_ message: WorkerMessage) {
        guard var data = try? encoder.encode(message) else { return }
        data.append(UInt8(ascii: "\n"))
        lock.lock()
        defer { lock.unlock() }
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(1, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }
}

/// A worker lives only as long as the `journey test` that started it, and leaves SIGINT to it.
///
/// Its jobs arrive on standard input, ended by an empty line; the parent keeps the pipe open
/// afterwards, so the end of the input means the parent is gone (even killed with SIGKILL),
/// and the worker stops.
enum WorkerLifetime {
    /// Reads the job lines, then watches standard input on a thread of its own.
    static func readJobs() -> [String] {
        signal(SIGINT, SIG_IGN)
        var lines: [String] = []
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while read(0, &byte, 1) == 1 {
            guard byte != UInt8(ascii: "\n") else {
                if line.isEmpty { break }
                lines.append(String(decoding: line, as: UTF8.self))
                line.removeAll()
                continue
            }
            line.append(byte)
        }
        Thread.detachNewThread {
            var rest = [UInt8](repeating: 0, count: 256)
            while true {
                let count = read(0, &rest, rest.count)
                if count == 0 || (count < 0 && errno != EINTR) {
                    // No exit hook runs after `_exit`: the handler programs go first, and the
                    // files being written are finished or removed.
                    HandlerProcess.killAllBeforeExit()
                    SignalCleanup.exit(3)
                }
            }
        }
        return lines
    }
}
