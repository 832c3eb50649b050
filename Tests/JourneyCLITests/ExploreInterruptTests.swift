import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Ctrl-C (SIGINT) or SIGTERM during `journey explore`: the exploration under way stops and
/// says what it found until then, the journeys explored before it are said in full, and the
/// process answers the signal (130, 143).
@Suite("journey explore, interrupted", .timeLimit(.minutes(30)))
struct ExploreInterruptTests {
    /// Three counters with no end: an exploration of it goes on until it is stopped.
    static let endless = FileManager.default.currentDirectoryPath + "/Tests/Fixtures/endless/counters.journey.yaml"

    /// Starts `journey explore` on the planted-bug PIN journey, then the endless one, and sends
    /// `signal` once the first has been explored and said (its counterexample written, its result
    /// printed, or with --json the process well into its CPU seconds): the second is under way.
    static func interrupt(
        _ signal: Int32, json: Bool, in directory: URL
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        let bug = FileManager.default.currentDirectoryPath + "/Tests/Fixtures/explore/pin-model-bug.journey.yaml"
        let (process, out, err) = try IsolationTests.start(
            [
                "explore", bug, endless, "--depth", "1000000", "--states", "100000000", "--jobs", "1",
                "--emit", "found",
            ] + (json ? ["--json"] : []), in: directory)
        let written = directory.appendingPathComponent("found/examples.pin-model-bug.counter-survives.scenario.yaml")
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, !FileManager.default.fileExists(atPath: written.path) {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(FileManager.default.fileExists(atPath: written.path), "the first journey was explored")
        // Then its transcript is played and its result printed (the JSON is printed at the end):
        // after that, the endless exploration spends the CPU.
        let said = Date().addingTimeInterval(60)
        let start = cpuSeconds(of: process.processIdentifier)
        while Date() < said {
            let printed = ((try? String(contentsOf: out, encoding: .utf8)) ?? "").contains("coverage:")
            if (json || printed) && cpuSeconds(of: process.processIdentifier) > start + 1 { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        kill(process.processIdentifier, signal)
        try await Self.requireStopped(process)
        return (
            process.terminationStatus, try String(contentsOf: out, encoding: .utf8),
            try String(contentsOf: err, encoding: .utf8)
        )
    }

    @Test("SIGINT: the journey under way says it was interrupted and what it found; exit 130")
    func interruptedByCtrlC() async throws {
        try await withProcessSlot {
            try await withTemporaryDirectory { directory in
                let (status, stdout, stderr) = try await Self.interrupt(SIGINT, json: false, in: directory)
                #expect(status == 130, "\(stdout)\(stderr)")
                // The journey explored before it, in full, with its violation.
                #expect(stdout.hasPrefix("examples.pin-model-bug: 45 states, 140 transitions"), "\(stdout)")
                #expect(stdout.contains("  explore.counter-survives: "), "\(stdout)")
                let endless = try #require(
                    stdout.split(separator: "\n").first { $0.hasPrefix("t.endless: ") }, "\(stdout)")
                #expect(endless.hasSuffix(": clean"), "\(stdout)")
                #expect(
                    stdout.contains(
                        #/bounds: depth 1000000, 100000000 states; interrupted; [0-9]+ states? found but not expanded\n/#
                    ),
                    "\(stdout)")
                #expect(
                    stdout.hasSuffix("explored 2 journeys: 1 clean, 1 with violations, interrupted by SIGINT\n"),
                    "\(stdout)")
            }
        }
    }

    @Test("SIGTERM with --json: the results so far, the one under way marked interrupted; exit 143")
    func terminatedWithJSON() async throws {
        try await withProcessSlot {
            try await withTemporaryDirectory { directory in
                let (status, stdout, stderr) = try await Self.interrupt(SIGTERM, json: true, in: directory)
                #expect(status == 143, "\(stdout)\(stderr)")
                let results = try #require(
                    try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [[String: Any]], "\(stdout)")
                #expect(results.map { $0["journey"] as? String } == ["examples.pin-model-bug", "t.endless"])
                #expect(results[0]["interrupted"] == nil)
                #expect(results[1]["interrupted"] as? Bool == true)
                #expect((results[1]["frontier"] as? Int ?? 0) > 0)
            }
        }
    }
}

extension ExploreInterruptTests {
    /// Requires `process` to end within a minute of the signal; one that does not is killed, so
    /// that no exploration is left running.
    static func requireStopped(_ process: Process) async throws {
        let stopped = await IsolationTests.wait(process, seconds: 60)
        if !stopped {
            kill(process.processIdentifier, SIGKILL)
            _ = await IsolationTests.wait(process, seconds: 10)
        }
        try #require(stopped, "it stops when signalled")
    }

    /// The CPU time a process has spent, in seconds (Linux: /proc; elsewhere the time since the
    /// system started stands for it: only differences are read).
    static func cpuSeconds(of pid: Int32) -> Double {
        #if os(Linux)
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        // After "pid (name)": state is field 3, utime 14 and stime 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
        #else
        return ProcessInfo.processInfo.systemUptime
        #endif
    }

    @Test("journey test --explore stops the same way: the journey under way skipped, not passed; exit 130")
    func testCommandInterrupted() async throws {
        try await withProcessSlot {
            try await withTemporaryDirectory { directory in
                try writeText(
                    try String(contentsOfFile: Self.endless, encoding: .utf8),
                    to: directory.appendingPathComponent("journeys/endless.journey.yaml"))
                let (process, out, _) = try IsolationTests.start(
                    ["test", "journeys", "--explore", "--json", "report.json"], in: directory)
                // No scenario to run: the exploration, which has no end, starts at once; once the
                // process has spent seconds of CPU, it is under way (loading takes a fraction).
                let deadline = Date().addingTimeInterval(60)
                let start = Self.cpuSeconds(of: process.processIdentifier)
                while Date() < deadline, Self.cpuSeconds(of: process.processIdentifier) < start + 2 {
                    try await Task.sleep(for: .milliseconds(50))
                }
                kill(process.processIdentifier, SIGINT)
                try await Self.requireStopped(process)
                #expect(process.terminationStatus == 130)
                let stdout = try String(contentsOf: out, encoding: .utf8)
                #expect(
                    stdout.contains(
                        #/^SKIP t.endless › explore: interrupted: from the default device, [0-9]+ states? found but not expanded\n/#
                    ),
                    "\(stdout)")
                #expect(!stdout.contains("PASS"), "\(stdout)")
                #expect(
                    RunResult.lines(stdout).last == "0 passed, 0 failed, 1 skipped, interrupted by SIGINT", "\(stdout)")
                let report =
                    try JSONSerialization.jsonObject(
                        with: Data(contentsOf: directory.appendingPathComponent("report.json"))) as? [String: Any]
                #expect(report?["state"] as? String == "interrupted", "\(String(describing: report))")
                // The exploration is not counted as a scenario beyond those selected.
                #expect(
                    report?["message"] as? String
                        == "the run was interrupted by SIGINT after 0 of 0 scenarios and 1 exploration; the rest was not explored",
                    "\(String(describing: report))")
                let results = report?["scenarios"] as? [[String: Any]] ?? []
                #expect(results.map { $0["status"] as? String } == ["skipped"], "\(String(describing: report))")
                // Skipped for the signal, not for an invariant: the problem's kind says so.
                let kinds = results.flatMap { ($0["problems"] as? [[String: Any]] ?? []).map { $0["kind"] as? String } }
                #expect(kinds == ["interrupted"], "\(String(describing: report))")
            }
        }
    }
}
