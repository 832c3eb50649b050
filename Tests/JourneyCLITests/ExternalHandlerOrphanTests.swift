import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Handler programs that start programs of their own, killed at random moments while a suite
/// runs: every scenario still gets a result, `journey test` ends, and nothing the run started
/// is left running.
@Suite(.timeLimit(.minutes(30)))
struct ExternalHandlerOrphanTests {
    /// A program that starts a sleeper that keeps its standard input and output open, then
    /// answers each step after a moment; with `word: hang` it never answers.
    static let program = """
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1000)", HERE])
        def step(m):
            if m["params"]["parameters"]["word"] == "hang":
                time.sleep(1000)
            time.sleep(0.02)
            answer(m["id"], {"outcome": "yes", "data": {"heard": "ok"}})
        serve(step)
        """

    /// A journey that runs the program's step six times.
    static func journey(word: String, id: String) -> String {
        """
        journey: \(id)
        version: 1
        title: Loop
        state:
          n: {type: int, default: 0}
        start: ask
        steps:
          ask:
            handler: acme.x
            with: {word: "\(word)", pin: "\(ExternalProject.pin)"}
            on:
              yes:
                - if: state.n < 5
                  set: {state.n: "${state.n + 1}"}
                  to: ask
                - else: done
              no: done
        ends:
          done: {kind: success}

        """
    }

    /// A project of `count` scenarios of the looping journey, and one whose program (another
    /// handler's, `acme.hang`, which the test does not kill) hangs.
    static func project(in folder: URL, count: Int) throws -> ExternalProject {
        var scenarios: [String: String] = [:]
        for index in 0..<count {
            scenarios["s\(index)"] = "scenario: s\(index)\njourney: acme.flow\nscript: []\nexpect: {end: done}\n"
        }
        scenarios["hang"] = "scenario: hang\njourney: acme.hang\nscript: []\nexpect: {end: done}\n"
        let project = try ExternalProject(
            in: folder, program: program, timeout: "60s", journey: journey(word: "go", id: "acme.flow"),
            scenarios: scenarios)
        try writeText(
            journey(word: "hang", id: "acme.hang").replacingOccurrences(
                of: "handler: acme.x", with: "handler: acme.hang"),
            to: folder.appendingPathComponent("journeys/hang.journey.yaml"))
        try writeText(
            ExternalProject.prelude + program, to: folder.appendingPathComponent("hang.py"))
        let file = folder.appendingPathComponent("journeykit.yaml")
        try writeText(
            try String(contentsOf: file, encoding: .utf8)
                + ExternalProject.handler("acme.hang", file: "hang.py", folder: folder, timeout: "60s"),
            to: file)
        return project
    }

    /// SplitMix64: the same delays for the same seed.
    struct Seeded {
        var state: UInt64
        mutating func next(below bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
    }

    /// Starts `journey test` in `folder`, stdout and stderr into files there.
    static func startSuite(in folder: URL, _ arguments: [String]) throws -> Process {
        guard let binary = Paths.journeyBinary else { throw SubprocessError.binaryNotFound }
        let process = Process()
        process.executableURL = binary
        process.arguments = ["test"] + arguments
        process.currentDirectoryURL = folder
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        try #require(
            FileManager.default.createFile(atPath: folder.appendingPathComponent("out.txt").path, contents: nil))
        process.standardOutput = try FileHandle(forWritingTo: folder.appendingPathComponent("out.txt"))
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func killingProgramsAtRandomMomentsLeavesEveryScenarioAResultAndNoProcess(seed: UInt64) async throws {
        try await withProcessSlot {
            try await withTemporaryDirectory { folder in
                let project = try Self.project(in: folder, count: 10)
                let suite = try Self.startSuite(in: folder, ["--update", "--jobs", "2", "--timeout", "3s"])
                var random = Seeded(state: seed)
                var killed: Set<pid_t> = []
                let deadline = ContinuousClock.now + .seconds(60)
                while suite.isRunning && ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(30 + random.next(below: 400)))
                    let started = project.pids.filter { !killed.contains($0) }
                    guard !started.isEmpty, killed.count < 6 else { continue }
                    let victim = started[random.next(below: started.count)]
                    killed.insert(victim)
                    kill(victim, SIGKILL)
                }
                let ended = await waitForExit(suite, seconds: max(0, Double((deadline - .now).components.seconds)))
                if !ended { kill(suite.processIdentifier, SIGKILL) }
                #expect(ended, "journey test did not end")
                let out = RunResult.lines(
                    (try? String(contentsOf: folder.appendingPathComponent("out.txt"), encoding: .utf8)) ?? "")
                let results = out.filter { $0.hasPrefix("PASS ") || $0.hasPrefix("FAIL ") }
                #expect(results.count == 11, "\(out.joined(separator: "\n"))")
                #expect(out.contains("FAIL acme.hang › hang (3000 ms)"), "\(out.joined(separator: "\n"))")
                #expect(
                    out.contains(
                        "    did not finish within 3s (--timeout); it was stopped, the other scenarios ran on"),
                    "\(out.joined(separator: "\n"))")
                #expect(out.last?.hasSuffix(" failed") == true, "\(out.joined(separator: "\n"))")
                #expect(suite.terminationStatus == 1)
                let leftovers = await project.leftovers(after: 3)
                #expect(leftovers == [])
            }
        }
    }

    @Test func killingJourneyTestItselfLeavesNoProgramBehind() async throws {
        try await withProcessSlot {
            try await withTemporaryDirectory { folder in
                let project = try Self.project(in: folder, count: 6)
                let suite = try Self.startSuite(in: folder, ["--update", "--jobs", "2", "--timeout", "30s"])
                let deadline = ContinuousClock.now + .seconds(20)
                while project.pids.count < 2 && ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(20))
                }
                #expect(project.pids.count >= 2)
                kill(suite.processIdentifier, SIGKILL)
                _ = await waitForExit(suite, seconds: 10)
                let leftovers = await project.leftovers(after: 5)
                #expect(leftovers == [])
            }
        }
    }

    /// A program whose step starts a sleeper of its own, says it is busy and never answers.
    static let busy = """
        def step(m):
            subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1000)", HERE])
            note("busy.txt", "yes")
            time.sleep(1000)
        serve(step)
        """

    @Test(arguments: [SIGINT, SIGTERM])
    func aSignalToJourneyRunStopsItsProgramsAndWhatTheyStarted(signal: Int32) async throws {
        try await withProcessSlot {
            try await withTemporaryDirectory { folder in
                let project = try ExternalProject(in: folder, program: Self.busy, timeout: "60s")
                guard let binary = Paths.journeyBinary else { throw SubprocessError.binaryNotFound }
                let run = Process()
                run.executableURL = binary
                run.arguments = ["run", "--scenario", "journeys/scenarios/yes.scenario.yaml"]
                run.currentDirectoryURL = folder
                run.standardInput = FileHandle.nullDevice
                run.standardOutput = FileHandle.nullDevice
                run.standardError = FileHandle.nullDevice
                try run.run()
                let deadline = ContinuousClock.now + .seconds(20)
                while project.notes("busy.txt").isEmpty && ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(20))
                }
                #expect(project.notes("busy.txt") == ["yes"])
                kill(run.processIdentifier, signal)
                #expect(await waitForExit(run, seconds: 10))
                #expect(run.terminationReason == .uncaughtSignal && run.terminationStatus == signal)
                let leftovers = await project.leftovers(after: 3)
                #expect(leftovers == [])
            }
        }
    }

    @Test func aRunPastItsTimeoutStopsItsProgramsAndWhatTheyStarted() async throws {
        try await withProcessSlot {
            try await withTemporaryDirectory { folder in
                let project = try ExternalProject(in: folder, program: Self.busy, timeout: "60s")
                let result = try await runJourney(
                    ["run", "--scenario", "journeys/scenarios/yes.scenario.yaml", "--timeout", "2s"],
                    cwd: folder)
                #expect(project.notes("busy.txt") == ["yes"])
                #expect(result.status == 1)
                #expect(result.stderr.contains("did not finish within 2s (--timeout); stopped"))
                let leftovers = await project.leftovers(after: 3)
                #expect(leftovers == [])
            }
        }
    }
}
