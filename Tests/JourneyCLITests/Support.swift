import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Shared helpers for the end-to-end tests: where the package and the built `journey` binary
// are, running the binary as a subprocess with a timeout, temporary folders, and parsing
// `path:line:column: severity: message [id]` diagnostics.

/// The documented exit codes.
enum Exit {
    static let ok: Int32 = 0
    static let failed: Int32 = 1
    static let invalid: Int32 = 2
}

enum Paths {
    /// The package root: this file is Tests/JourneyCLITests/Support.swift.
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let journeys = root.appendingPathComponent("journeys")
    static let badFixtures = root.appendingPathComponent("Tests/Fixtures/bad")

    /// The `journey` executable built together with this test bundle.
    ///
    /// Found by walking up from the running test executable (`/proc/self/exe`,
    /// `CommandLine.arguments[0]`, the `.xctest` bundle) to the build products folder that
    /// holds `journey`; failing that, whichever of `<root>/.build-cli/debug/journey` and
    /// `<root>/.build/debug/journey` was modified last. `JOURNEY_BINARY` overrides both.
    static let journeyBinary: URL? = locateJourneyBinary()

    private static func isExecutableFile(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        let fm = FileManager.default
        return fm.fileExists(atPath: url.path, isDirectory: &isDirectory) && !isDirectory.boolValue
            && fm.isExecutableFile(atPath: url.path)
    }

    private static func locateJourneyBinary() -> URL? {
        let fm = FileManager.default
        if let override = ProcessInfo.processInfo.environment["JOURNEY_BINARY"], !override.isEmpty {
            return URL(fileURLWithPath: override)
        }
        var starts: [URL] = []
        if let exe = try? fm.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            starts.append(URL(fileURLWithPath: exe))
        }
        if let first = CommandLine.arguments.first, !first.isEmpty {
            let cwd = URL(fileURLWithPath: fm.currentDirectoryPath, isDirectory: true)
            starts.append(URL(fileURLWithPath: first, relativeTo: cwd).standardizedFileURL)
        }
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            starts.append(bundle.bundleURL.appendingPathComponent("x"))
        }
        if let executable = Bundle.main.executableURL { starts.append(executable) }
        for start in starts {
            var directory = start.resolvingSymlinksInPath().deletingLastPathComponent()
            for _ in 0..<4 {
                let candidate = directory.appendingPathComponent("journey")
                if isExecutableFile(candidate) { return candidate }
                let parent = directory.deletingLastPathComponent()
                if parent.path == directory.path { break }
                directory = parent
            }
        }
        let fallbacks = [".build-cli", ".build"].map { root.appendingPathComponent("\($0)/debug/journey") }
            .filter(isExecutableFile)
        return fallbacks.max { modificationDate($0) < modificationDate($1) }
    }

    private static func modificationDate(_ url: URL) -> Date {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date) ?? .distantPast
    }
}

/// What a subprocess did.
struct RunResult: Sendable, CustomStringConvertible {
    var status: Int32
    var stdoutData: Data
    var stderrData: Data
    var timedOut: Bool
    var crashedBySignal: Bool

    var stdout: String { String(decoding: stdoutData, as: UTF8.self) }
    var stderr: String { String(decoding: stderrData, as: UTF8.self) }
    var output: String { stdout + stderr }

    /// The lines of stdout, without the empty string after the final newline.
    var stdoutLines: [String] { Self.lines(stdout) }
    var stderrLines: [String] { Self.lines(stderr) }

    static func lines(_ text: String) -> [String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// Signs that the process crashed rather than failing cleanly.
    var crashSignatures: [String] {
        var found = ["Fatal error", "Program crashed", "Backtrace", "Segmentation fault", "Illegal instruction"]
            .filter { output.contains($0) }
        if crashedBySignal { found.append("killed by signal \(status)") }
        return found
    }

    var diagnostics: [DiagnosticLine] { stderrLines.compactMap(DiagnosticLine.init) }

    var description: String {
        "exit \(status)\(timedOut ? " (timed out)" : "")\n--- stdout ---\n\(stdout.prefix(4000))\n--- stderr ---\n\(stderr.prefix(4000))"
    }
}

enum SubprocessError: Error, CustomStringConvertible {
    case binaryNotFound
    var description: String {
        "cannot find the built `journey` executable next to the test bundle or in .build/.build-cli; run `swift build` first"
    }
}

/// Runs an executable with a timeout (the process is killed with SIGKILL and the test fails
/// when it runs longer), capturing stdout and stderr separately. Output goes to files rather
/// than pipes so that a chatty process can never block on a full pipe.
///
/// The wait holds no thread: tests run on a pool as wide as the machine has cores, and a test
/// that blocked one while its process ran would stall every other test on the pool. The
/// process waits for one of the slots that ``withProcessSlot(_:)`` hands out, and its timeout
/// counts from when it starts. That timeout is what catches a hang: a suite's own time limit
/// also counts the turns its tests wait for a slot, so the suites here set theirs generously.
func runProcess(
    _ executable: URL, _ arguments: [String], cwd: URL? = nil, environment extra: [String: String] = [:],
    input: String? = nil, timeout: TimeInterval = 20, sourceLocation: SourceLocation = #_sourceLocation
) async throws -> RunResult {
    try await withProcessSlot {
        try await runProcessNow(
            executable, arguments, cwd: cwd, environment: extra, input: input, timeout: timeout,
            sourceLocation: sourceLocation)
    }
}

private func runProcessNow(
    _ executable: URL, _ arguments: [String], cwd: URL?, environment extra: [String: String], input: String?,
    timeout: TimeInterval, sourceLocation: SourceLocation
) async throws -> RunResult {
    let fm = FileManager.default
    let captureDirectory = fm.temporaryDirectory.appendingPathComponent("journey-cli-capture-\(UUID().uuidString)")
    try fm.createDirectory(at: captureDirectory, withIntermediateDirectories: true)
    defer { try? fm.removeItem(at: captureDirectory) }
    let outURL = captureDirectory.appendingPathComponent("stdout")
    let errURL = captureDirectory.appendingPathComponent("stderr")
    _ = fm.createFile(atPath: outURL.path, contents: nil)
    _ = fm.createFile(atPath: errURL.path, contents: nil)
    let out = try FileHandle(forWritingTo: outURL)
    let err = try FileHandle(forWritingTo: errURL)

    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.currentDirectoryURL = cwd ?? Paths.root
    var environment = ProcessInfo.processInfo.environment
    environment["NO_COLOR"] = "1"
    for (key, value) in extra { environment[key] = value }
    process.environment = environment
    if let input {
        // Standard input from a file: the process reads it to its end, then sees end of file.
        let inURL = captureDirectory.appendingPathComponent("stdin")
        try Data(input.utf8).write(to: inURL)
        process.standardInput = try FileHandle(forReadingFrom: inURL)
    } else {
        process.standardInput = FileHandle.nullDevice
    }
    process.standardOutput = out
    process.standardError = err
    try process.run()
    try? out.close()
    try? err.close()

    var timedOut = false
    if await !waitForExit(process, seconds: timeout) {
        timedOut = true
        kill(process.processIdentifier, SIGKILL)
        _ = await waitForExit(process, seconds: .infinity)
        Issue.record(
            "`\(executable.lastPathComponent) \(arguments.joined(separator: " "))` ran longer than \(Int(timeout)) s and was killed",
            sourceLocation: sourceLocation)
    }
    return RunResult(
        status: process.terminationStatus,
        stdoutData: (try? Data(contentsOf: outURL)) ?? Data(),
        stderrData: (try? Data(contentsOf: errURL)) ?? Data(),
        timedOut: timedOut,
        crashedBySignal: process.terminationReason == .uncaughtSignal)
}

/// Runs `body` holding one of as many process slots as the machine has cores, so that the
/// tests' processes take turns instead of all starting at once and each running past its
/// timeout. A body that already holds a slot (a test that starts a process of its own and
/// also calls ``runJourney(_:cwd:environment:timeout:sourceLocation:)``) does not take another.
func withProcessSlot<T>(_ body: () async throws -> T) async throws -> T {
    if ProcessSlots.held { return try await body() }
    await ProcessSlots.shared.acquire()
    do {
        let result = try await ProcessSlots.$held.withValue(true) { try await body() }
        await ProcessSlots.shared.release()
        return result
    } catch {
        await ProcessSlots.shared.release()
        throw error
    }
}

/// The slots ``withProcessSlot(_:)`` hands out, waited for without holding a thread.
actor ProcessSlots {
    static let shared = ProcessSlots(width: max(2, ProcessInfo.processInfo.activeProcessorCount))
    @TaskLocal static var held = false

    private let width: Int
    private var inUse = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(width: Int) { self.width = width }

    func acquire() async {
        if inUse < width {
            inUse += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty {
            inUse -= 1
        } else {
            // The slot passes straight to the next in line.
            waiting.removeFirst().resume()
        }
    }
}

/// Whether `process` ends within `seconds`, watched without holding a thread.
func waitForExit(_ process: Process, seconds: Double) async -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(seconds.isFinite ? Int(seconds * 1000) : Int(Int32.max))
    while process.isRunning {
        guard ContinuousClock.now < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(10))
    }
    process.waitUntilExit()
    return true
}

/// Runs the built `journey` binary; `cwd` defaults to the package root. Killed after `timeout`
/// seconds: a guard against a hang, long enough for the whole shipped suite on a loaded machine.
func runJourney(
    _ arguments: [String], cwd: URL? = nil, environment: [String: String] = [:], input: String? = nil,
    timeout: TimeInterval = 300, sourceLocation: SourceLocation = #_sourceLocation
) async throws -> RunResult {
    guard let binary = Paths.journeyBinary else { throw SubprocessError.binaryNotFound }
    return try await runProcess(
        binary, arguments, cwd: cwd, environment: environment, input: input, timeout: timeout,
        sourceLocation: sourceLocation)
}

/// Fails the test when the run shows any sign of a crash.
func expectNoCrash(_ result: RunResult, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(result.crashSignatures.isEmpty, "crashed: \(result)", sourceLocation: sourceLocation)
}

// MARK: - Temporary folders

/// Runs `body` with a fresh, empty folder under the system's temporary directory, removed
/// afterwards whatever happens.
func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let url = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: url) }
    return try body(url)
}

/// The same, for a body that waits.
func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let url = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: url) }
    return try await body(url)
}

/// A new, empty folder under the system's temporary directory, its path with symlinks
/// resolved (/tmp → /private/tmp on macOS) so that printed paths match ours.
private func makeTemporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.resolvingSymlinksInPath()
        .appendingPathComponent("journey-cli-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Copies the shipped `journeys` folder into `directory`, returning the copy's URL.
@discardableResult
func copyShippedJourneys(into directory: URL) throws -> URL {
    let target = directory.appendingPathComponent("journeys", isDirectory: true)
    try FileManager.default.copyItem(at: Paths.journeys, to: target)
    return target
}

/// Writes UTF-8 text, creating intermediate folders.
func writeText(_ text: String, to url: URL) throws {
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text.utf8).write(to: url)
}

/// The names in a folder, sorted (hidden ones included).
func entries(of directory: URL) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
}

/// Every file under `directory` whose path ends with `suffix`, sorted.
func files(under directory: URL, endingWith suffix: String) -> [URL] {
    guard let enumerator = FileManager.default.enumerator(atPath: directory.path) else { return [] }
    var result: [URL] = []
    for case let relative as String in enumerator where relative.hasSuffix(suffix) {
        result.append(directory.appendingPathComponent(relative))
    }
    return result.sorted { $0.path < $1.path }
}

/// The scenario files under `directory` that play `journey` (their `journey:` line names it).
func scenarioFiles(under directory: URL, of journey: String) -> [URL] {
    files(under: directory, endingWith: ".scenario.yaml").filter { file in
        let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        return RunResult.lines(text).contains { $0 == "journey: \(journey)" }
    }
}

// MARK: - Diagnostics

/// One `path:line:column: severity: message [id]` line.
struct DiagnosticLine: Sendable, Equatable, CustomStringConvertible {
    var path: String
    var line: Int
    var column: Int
    var severity: String
    var message: String
    var id: String

    init?(_ text: String) {
        // The path is greedy, so a path containing ':' still parses.
        let pattern = #/^(.+):(\d+):(\d+): (error|warning|note): (.*) \[([A-Za-z0-9_.-]+)\]$/#
        guard let match = text.wholeMatch(of: pattern), let line = Int(match.2), let column = Int(match.3)
        else { return nil }
        path = String(match.1)
        self.line = line
        self.column = column
        severity = String(match.4)
        message = String(match.5)
        id = String(match.6)
    }

    var position: String { "\(line):\(column)" }
    var description: String { "\(path):\(line):\(column): \(severity): \(message) [\(id)]" }
}

extension RunResult {
    /// The error diagnostics with this id.
    func errors(_ id: String) -> [DiagnosticLine] {
        diagnostics.filter { $0.severity == "error" && $0.id == id }
    }
}
