import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// No single scenario can take `journey test` down: one whose process crashes, or that never
/// ends, is that scenario's failure; every other scenario still runs and is reported; the
/// reports are written; an interrupted run says so.
@Suite("journey test: a crash or a hang is one scenario's failure", .serialized, .timeLimit(.minutes(30)))
struct IsolationTests {
    /// A TCP server on 127.0.0.1 that accepts connections and never answers; `onAccept` runs
    /// for each connection.
    final class SilentServer: @unchecked Sendable {
        let port: UInt16
        private let listener: Int32
        private var connections: [Int32] = []
        private let lock = NSLock()

        init(onAccept: @escaping @Sendable () -> Void = {}) throws {
            listener = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            let listener = self.listener
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
            }
            guard bound == 0, listen(listener, 16) == 0 else { throw POSIXError(.EADDRNOTAVAIL) }
            withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(listener, $0, &length) }
            }
            port = UInt16(bigEndian: address.sin_port)
            Thread.detachNewThread { [weak self] in
                while true {
                    let connection = accept(listener, nil, nil)
                    guard connection >= 0 else { return }
                    self?.lock.withLock { self?.connections.append(connection) }
                    onAccept()
                }
            }
        }

        deinit {
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
            lock.withLock { for connection in connections { close(connection) } }
        }
    }

    /// The processes whose parent is `pid`.
    static func children(of pid: Int32) -> [Int32] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return names.compactMap(Int32.init).filter { child in
            guard let stat = try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 2 && Int32(fields[1]) == pid
        }
    }

    static func isAlive(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        return !stat[stat.index(after: close)...].hasPrefix(" Z")
    }

    static let journey = """
        journey: t.net
        version: 1
        title: Calls a server
        params:
          url: { type: string, default: "http://127.0.0.1:9/x" }
        start: call
        steps:
          call:
            handler: http.request
            with: { url: "${params.url}" }
            on: { ok: done, failed: done, offline: done }
        ends:
          done: { kind: success }
        """

    static func scenario(_ name: String, url: String, stubbed: Bool = false) -> String {
        var text = "scenario: \(name)\njourney: t.net\nparams: { url: \"\(url)\" }\nscript: []\nexpect: { end: done }\n"
        if stubbed { text += "network:\n  - request: GET \(url)\n    response: { status: 200 }\n" }
        return text
    }

    /// `journeys/net/` in `directory`: the journey, and a scenario per (name, URL, stubbed).
    static func project(in directory: URL, _ scenarios: [(String, String, Bool)]) throws {
        let folder = directory.appendingPathComponent("journeys/net")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("scenarios"), withIntermediateDirectories: true)
        try writeText(journey, to: folder.appendingPathComponent("net.journey.yaml"))
        for (name, url, stubbed) in scenarios {
            try writeText(
                scenario(name, url: url, stubbed: stubbed),
                to: folder.appendingPathComponent("scenarios/\(name).scenario.yaml"))
        }
    }

    /// Starts `journey` with the arguments in `directory`, output to files.
    ///
    /// The Swift runtime's crash reporter is off: it would catch a SIGSEGV sent from outside
    /// (where a real fault would kill the process) and let the process go on.
    static func start(_ arguments: [String], in directory: URL) throws -> (Process, URL, URL) {
        let binary = try #require(Paths.journeyBinary)
        let process = Process()
        process.executableURL = binary
        process.environment = ProcessInfo.processInfo.environment.merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 }
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let out = directory.appendingPathComponent("stdout.txt")
        let err = directory.appendingPathComponent("stderr.txt")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        return (process, out, err)
    }

    static func wait(_ process: Process, seconds: Double) async -> Bool {
        await waitForExit(process, seconds: seconds)
    }

    @Test("a crashing and a never-ending scenario fail; the others pass; summary and reports are written")
    func crashAndHang() async throws {
        try await withProcessSlot {
            try await withTemporaryDirectory { directory in
                let hang = try SilentServer()
                let parent = Mutex<Int32>(0)
                let crashed = Mutex(false)
                // When the scenario's request arrives, its process dies as if the handler crashed.
                let crash = try SilentServer {
                    let pid = parent.withLock { $0 }
                    for worker in IsolationTests.children(of: pid) { kill(worker, SIGSEGV) }
                    crashed.withLock { $0 = true }
                }
                try Self.project(
                    in: directory,
                    [
                        ("a-crashes", "http://127.0.0.1:\(crash.port)/x", false),
                        ("b-never-ends", "http://127.0.0.1:\(hang.port)/x", false),
                        ("c-passes", "https://api.example.org/ok", true),
                        ("d-passes-too", "https://api.example.org/ok", true),
                    ])
                let recorded = try await runJourney(
                    ["test", "journeys", "--update", "--filter", "passes"], cwd: directory)
                #expect(recorded.status == Exit.ok, "\(recorded)")

                let (process, out, _) = try Self.start(
                    [
                        "test", "journeys", "--timeout", "3s", "--jobs", "1", "--junit", "out/junit.xml", "--json",
                        "out/report.json",
                    ], in: directory)
                parent.withLock { $0 = process.processIdentifier }
                let ended = await Self.wait(process, seconds: 60)
                if !ended { process.terminate() }
                #expect(ended, "journey test did not finish")
                #expect(crashed.withLock { $0 }, "the crashing scenario's request arrived")
                let stdout = try String(contentsOf: out, encoding: .utf8)
                let lines = RunResult.lines(stdout)
                #expect(process.terminationStatus == Exit.failed, "\(stdout)")
                #expect(lines.last == "2 passed, 2 failed", "\(stdout)")
                #expect(
                    lines.contains("FAIL t.net › a-crashes (0 ms)")
                        || lines.contains { $0.hasPrefix("FAIL t.net › a-crashes") })
                #expect(stdout.contains("crashed: its process was killed by SIGSEGV"), "\(stdout)")
                #expect(stdout.contains("did not finish within 3s (--timeout)"), "\(stdout)")
                #expect(lines.contains { $0.hasPrefix("PASS t.net › c-passes") })
                #expect(lines.contains { $0.hasPrefix("PASS t.net › d-passes-too") })

                let json =
                    try JSONSerialization.jsonObject(
                        with: Data(contentsOf: directory.appendingPathComponent("out/report.json"))) as? [String: Any]
                #expect(json?["state"] as? String == "finished")
                let kinds = (json?["scenarios"] as? [[String: Any]] ?? []).map {
                    (($0["problems"] as? [[String: Any]])?.first?["kind"] as? String) ?? "none"
                }
                #expect(kinds == ["crash", "timeout", "none", "none"], "\(kinds)")
                let junit = try String(contentsOf: directory.appendingPathComponent("out/junit.xml"), encoding: .utf8)
                #expect(junit.contains(#"tests="4" failures="2" errors="0""#), "\(junit)")
                #expect(junit.contains(#"type="crash""#) && junit.contains(#"type="timeout""#))
                // No worker outlives the run.
                #expect(Self.children(of: process.processIdentifier).isEmpty)
            }
        }
    }

    @Test("SIGINT stops the run: the report, marked running until then, says interrupted and what finished")
    func interrupted() async throws {
        try await withProcessSlot {
            try await withTemporaryDirectory { directory in
                let hang = try SilentServer()
                try Self.project(
                    in: directory,
                    [
                        ("a-passes", "https://api.example.org/ok", true),
                        ("b-waits", "http://127.0.0.1:\(hang.port)/x", false),
                    ])
                _ = try await runJourney(["test", "journeys", "--update", "--filter", "passes"], cwd: directory)
                // A complete-looking report from an earlier run, which this run must not leave behind.
                try writeText(
                    #"{"state": "finished", "summary": {"passed": 9}}"#,
                    to: directory.appendingPathComponent("report.json")
                )

                let (process, out, _) = try Self.start(
                    ["test", "journeys", "--jobs", "1", "--json", "report.json"], in: directory)
                var sawRunning = false
                let deadline = Date().addingTimeInterval(20)
                while Date() < deadline && !sawRunning {
                    let text =
                        (try? String(contentsOf: directory.appendingPathComponent("report.json"), encoding: .utf8))
                        ?? ""
                    sawRunning = text.contains(#""state": "running""#)
                    try await Task.sleep(for: .milliseconds(20))
                }
                #expect(sawRunning, "the report says the run is in progress while it is")
                // Let the first scenario finish and the second start waiting.
                let passed = Date().addingTimeInterval(20)
                while Date() < passed, !((try? String(contentsOf: out, encoding: .utf8)) ?? "").contains("PASS") {
                    try await Task.sleep(for: .milliseconds(20))
                }
                try await Task.sleep(for: .milliseconds(300))
                kill(process.processIdentifier, SIGINT)
                #expect(await Self.wait(process, seconds: 20))
                #expect(process.terminationStatus == 130)
                let stdout = try String(contentsOf: out, encoding: .utf8)
                #expect(RunResult.lines(stdout).last == "1 passed, 0 failed, interrupted by SIGINT", "\(stdout)")
                let json =
                    try JSONSerialization.jsonObject(
                        with: Data(contentsOf: directory.appendingPathComponent("report.json"))) as? [String: Any]
                #expect(json?["state"] as? String == "interrupted")
                #expect((json?["message"] as? String)?.contains("after 1 of 2 scenarios") == true)
                #expect((json?["scenarios"] as? [Any])?.count == 1)
            }
        }
    }

    @Test("journey run stops a run past --timeout: FAIL, exit 1, and no transcript file or temporary left")
    func runTimeout() async throws {
        try await withTemporaryDirectory { directory in
            let hang = try SilentServer()
            try writeText(Self.journey, to: directory.appendingPathComponent("net.journey.yaml"))
            try writeText(
                Self.scenario("waits", url: "http://127.0.0.1:\(hang.port)/x"),
                to: directory.appendingPathComponent("waits.scenario.yaml"))
            try writeText("an earlier transcript\n", to: directory.appendingPathComponent("out.txt"))
            let result = try await runJourney(
                ["run", "--scenario", "waits.scenario.yaml", "--timeout", "1500ms", "--transcript", "out.txt"],
                cwd: directory, timeout: 30)
            expectNoCrash(result)
            #expect(result.status == Exit.failed, "\(result)")
            #expect(result.stderr.contains("FAIL t.net › waits: did not finish within 1500ms (--timeout); stopped"))
            #expect(entries(of: directory).sorted() == ["net.journey.yaml", "out.txt", "waits.scenario.yaml"])
            #expect(
                try String(contentsOf: directory.appendingPathComponent("out.txt"), encoding: .utf8)
                    == "an earlier transcript\n")
        }
    }

    @Test("a killed journey test leaves no worker running, and no file of a worker's")
    func noOrphanWorker() async throws {
        try await withProcessSlot {
            try await withTemporaryDirectory { directory in
                let hang = try SilentServer()
                try Self.project(in: directory, [("waits", "http://127.0.0.1:\(hang.port)/x", false)])
                let (process, _, _) = try Self.start(["test", "journeys"], in: directory)
                var workers: [Int32] = []
                let deadline = Date().addingTimeInterval(20)
                while workers.isEmpty && Date() < deadline {
                    workers = Self.children(of: process.processIdentifier)
                    try await Task.sleep(for: .milliseconds(20))
                }
                #expect(!workers.isEmpty)
                kill(process.processIdentifier, SIGKILL)
                #expect(await Self.wait(process, seconds: 10))
                let gone = Date().addingTimeInterval(10)
                while workers.contains(where: Self.isAlive) && Date() < gone {
                    try await Task.sleep(for: .milliseconds(20))
                }
                #expect(!workers.contains(where: Self.isAlive), "the worker ended with its parent")
                // Where a worker's standard error went has no name to leave behind.
                let left = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory()).filter {
                    $0.hasPrefix("journey-worker-\(process.processIdentifier)-")
                }
                #expect(left.isEmpty, "\(left)")
            }
        }
    }
}
