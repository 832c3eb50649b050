import Foundation
import JourneyCore
import Testing

@testable import JourneyCLI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `journey test --watch`: which scenarios a change touches, the file events it waits on, and
/// the command itself running against a copy of the shipped examples while files change.
@Suite("journey test --watch", .timeLimit(.minutes(30)))
struct WatchTests {
    // MARK: - Which scenarios a change touches

    /// A suite of four journeys: `app` calls `pin`, which calls `lock`; `other` calls nothing.
    static let suite = SuiteFiles(
        scenarios: [
            "/p/j/scenarios/app-1.scenario.yaml": "app",
            "/p/j/scenarios/pin-1.scenario.yaml": "pin",
            "/p/j/scenarios/pin-2.scenario.yaml": "pin",
            "/p/j/scenarios/lock-1.scenario.yaml": "lock",
            "/p/j/scenarios/other-1.scenario.yaml": "other",
        ],
        journeys: [
            "app": "/p/j/app.journey.yaml", "pin": "/p/j/pin.journey.yaml", "lock": "/p/j/lock.journey.yaml",
            "other": "/p/j/other.journey.yaml",
        ],
        calls: ["app": ["pin"], "pin": ["lock"], "lock": [], "other": []])

    static func names(_ files: Set<String>) -> [String] {
        files.map { Path.removingSuffix(Path.lastComponent($0), [".scenario.yaml"]) }.sorted()
    }

    @Test("a changed scenario touches that scenario alone; a changed golden, its scenario")
    func scenarioAndGolden() {
        let suite = Self.suite
        #expect(Self.names(suite.affected(by: ["/p/j/scenarios/pin-2.scenario.yaml"], before: suite)) == ["pin-2"])
        #expect(Self.names(suite.affected(by: ["/p/j/transcripts/pin-1.jsonl"], before: suite)) == ["pin-1"])
        #expect(Self.names(suite.affected(by: ["/p/j/transcripts/lock-1.txt"], before: suite)) == ["lock-1"])
        #expect(suite.affected(by: ["/p/j/transcripts/nobody.txt"], before: suite).isEmpty)
    }

    @Test("a changed journey touches its scenarios and those of every journey that calls it, directly or not")
    func journeyAndCallers() {
        let suite = Self.suite
        #expect(
            Self.names(suite.affected(by: ["/p/j/lock.journey.yaml"], before: suite)) == [
                "app-1", "lock-1", "pin-1", "pin-2",
            ])
        #expect(
            Self.names(suite.affected(by: ["/p/j/pin.journey.yaml"], before: suite)) == ["app-1", "pin-1", "pin-2"])
        #expect(Self.names(suite.affected(by: ["/p/j/app.journey.yaml"], before: suite)) == ["app-1"])
        #expect(Self.names(suite.affected(by: ["/p/j/other.journey.yaml"], before: suite)) == ["other-1"])
    }

    @Test("a journey file that no longer reads is known by what it held before the change")
    func brokenJourney() {
        var now = Self.suite
        // pin.journey.yaml no longer parses: the project knows no journey `pin`.
        now.journeys["pin"] = nil
        now.calls["pin"] = nil
        #expect(
            Self.names(now.affected(by: ["/p/j/pin.journey.yaml"], before: Self.suite)) == ["app-1", "pin-1", "pin-2"])
        // Without what was before, only the scenarios of the file itself would be found.
        #expect(now.affected(by: ["/p/j/pin.journey.yaml"], before: now).isEmpty)
    }

    @Test("a changed folder touches everything under it; other files touch nothing")
    func foldersAndOtherFiles() {
        let suite = Self.suite
        #expect(suite.affected(by: ["/p/j"], before: suite).count == 5)
        #expect(Self.names(suite.affected(by: ["/p/j/scenarios/"], before: suite)).count == 5)
        #expect(suite.affected(by: ["/p/j/README.md", "/p/jx/app.journey.yaml"], before: suite).isEmpty)
        #expect(!suite.concerns("/p/j/README.md"))
        #expect(!suite.concerns("/p/j/scenarios/.pin-1.scenario.yaml.swp"))
        #expect(suite.concerns("/p/j/new.yaml"))
        #expect(suite.concerns("/p/j/transcripts/pin-1.jsonl"))
        #expect(!suite.concerns("/p/j/transcripts/nobody.jsonl"))
        #expect(suite.concerns("/p/j/scenarios"))
        #expect(!suite.concerns("/p/other"))
    }

    @Test("the shipped Diia journeys: a change to three-strikes runs the scenarios of each journey that reaches it")
    func shippedCallGraph() throws {
        let folder = Paths.journeys.appendingPathComponent("diia").path
        let (project, diagnostics) = Workspace.load(paths: [folder])
        #expect(!diagnostics.hasErrors)
        let suite = SuiteFiles(project, cwd: "/")
        #expect(suite.calls["diia.pin-enter"] == ["diia.logout", "diia.three-strikes"])
        let affected = suite.affected(by: [folder + "/three-strikes.journey.yaml"], before: suite)
        let journeys = Set(affected.compactMap { suite.scenarios[$0] })
        #expect(journeys == ["diia.pin-enter", "diia.pin-change", "diia.resume", "diia.app-start"])
        let expected = project.scenarios.filter { journeys.contains($0.journey.id) }.count
        #expect(affected.count == expected && expected >= 10)
        // Nothing that does not reach it: the scenarios of login and logout stay.
        #expect(!journeys.contains("diia.login") && !journeys.contains("diia.logout"))
    }

    // MARK: - File events

    #if os(Linux)
    @Test(
        "inotify reports writes, editor-style saves, new folders and their files, and deletions, a burst as one batch")
    func inotify() throws {
        try withTemporaryDirectory { directory in
            let root = directory.path
            let events = try FileWatch.platform()
            try events.watch([root])
            #expect(events.folderCount == 1)
            func next() -> FileWatch.Wake { FileWatch.next(events, quiet: .seconds(10)) }

            try writeText("a", to: directory.appendingPathComponent("a.yaml"))
            #expect(next() == .changed([root + "/a.yaml"]))

            // Written beside it, then renamed over it.
            try writeText("b", to: directory.appendingPathComponent(".a.yaml.tmp"))
            #expect(rename(root + "/.a.yaml.tmp", root + "/a.yaml") == 0)
            guard case .changed(let saved) = next() else { Issue.record("no batch for the rename"); return }
            #expect(saved.contains(root + "/a.yaml"), "\(saved)")

            // A folder made with a file in it: the file is reported, and the folder watched.
            try writeText("c", to: directory.appendingPathComponent("sub/deeper/c.yaml"))
            guard case .changed(let made) = next() else { Issue.record("no batch for the new folder"); return }
            #expect(made.contains(root + "/sub/deeper/c.yaml"), "\(made)")
            #expect(events.folderCount == 3)
            try writeText("d", to: directory.appendingPathComponent("sub/deeper/d.yaml"))
            #expect(next() == .changed([root + "/sub/deeper/d.yaml"]))

            // Saves close together make one batch, each path named once.
            try writeText("e", to: directory.appendingPathComponent("a.yaml"))
            try writeText("f", to: directory.appendingPathComponent("sub/deeper/c.yaml"))
            try writeText("g", to: directory.appendingPathComponent("a.yaml"))
            #expect(next() == .changed([root + "/a.yaml", root + "/sub/deeper/c.yaml"]))

            #expect(unlink(root + "/sub/deeper/d.yaml") == 0)
            #expect(next() == .changed([root + "/sub/deeper/d.yaml"]))
            #expect(FileWatch.next(events, quiet: .milliseconds(300)) == .quiet)
        }
    }

    @Test("a folder watched that is deleted and made again (a branch switched) is watched again, its files reported")
    func inotifyFolderMadeAgain() throws {
        try withTemporaryDirectory { directory in
            let journeys = directory.appendingPathComponent("journeys")
            try writeText("a", to: journeys.appendingPathComponent("a.yaml"))
            let events = try FileWatch.platform()
            try events.watch([journeys.path])
            func next() -> FileWatch.Wake { FileWatch.next(events, quiet: .seconds(10)) }

            try FileManager.default.removeItem(at: journeys)
            guard case .changed(let deleted) = next() else { Issue.record("no batch for the deletion"); return }
            #expect(deleted.contains(journeys.path), "\(deleted)")
            #expect(events.folderCount == 0 && events.awaited == [journeys.path])

            try writeText("b", to: journeys.appendingPathComponent("sub/b.yaml"))
            guard case .changed(let back) = next() else { Issue.record("no batch for the folder made again"); return }
            #expect(back.contains(journeys.path + "/sub/b.yaml"), "\(back)")
            #expect(events.folderCount == 2 && events.awaited.isEmpty)
            try writeText("c", to: journeys.appendingPathComponent("sub/b.yaml"))
            #expect(next() == .changed([journeys.path + "/sub/b.yaml"]))

            // Deleted and made again before the deletion is read: watched again all the same.
            try FileManager.default.removeItem(at: journeys)
            try writeText("d", to: journeys.appendingPathComponent("d.yaml"))
            guard case .changed(let quick) = next() else { Issue.record("no batch for the quick swap"); return }
            #expect(quick.contains(journeys.path + "/d.yaml"), "\(quick)")
            #expect(events.folderCount == 1 && events.awaited.isEmpty, "\(events.awaited)")
            try writeText("e", to: journeys.appendingPathComponent("d.yaml"))
            #expect(next() == .changed([journeys.path + "/d.yaml"]))
        }
    }
    #endif

    // MARK: - The command

    /// Copies the shipped examples' PIN unlock journey with two of its scenarios, and the PIN
    /// model with one, into `directory`/journeys/examples. With `gate`, adds a journey that
    /// calls the unlock journey and a scenario of it, its golden recorded.
    static func examples(in directory: URL, gate: Bool) async throws -> URL {
        let shipped = Paths.journeys.appendingPathComponent("examples")
        let target = directory.appendingPathComponent("journeys/examples")
        let fm = FileManager.default
        for folder in ["scenarios", "transcripts"] {
            try fm.createDirectory(at: target.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        var copied = ["unlock.journey.yaml", "pin-model.journey.yaml"]
        for name in ["correct-pin", "one-wrong-then-right", "pin-model-twenty-events"] {
            copied += ["scenarios/\(name).scenario.yaml", "transcripts/\(name).jsonl", "transcripts/\(name).txt"]
        }
        for file in copied {
            try fm.copyItem(at: shipped.appendingPathComponent(file), to: target.appendingPathComponent(file))
        }
        guard gate else { return target }
        try writeText(
            """
            journey: examples.gate
            version: 1
            title: A door behind the PIN unlock
            start: unlock
            steps:
              unlock:
                call: examples.unlock
                on:
                  unlocked: open
                  locked: shut
            ends:
              open: { kind: success, title: Open }
              shut: { kind: failure, title: Shut }

            """, to: target.appendingPathComponent("gate.journey.yaml"))
        try writeText(
            """
            scenario: through-unlock
            journey: examples.gate
            title: The right PIN opens the door
            device:
              pins: { pin: "0420" }
              kdfRounds: 1000
            script:
              - at: enterPin
                pin: "0420"
            expect:
              end: open

            """, to: target.appendingPathComponent("scenarios/through-unlock.scenario.yaml"))
        let record = try await runJourney(
            ["test", "--update", "journeys/examples/scenarios/through-unlock.scenario.yaml"], cwd: directory)
        #expect(record.status == Exit.ok, "\(record)")
        return target
    }

    /// The runs a watch printed: the text before its first `watching … press Ctrl-C` line,
    /// then between each two.
    static func runs(_ output: String) -> [String] {
        var runs: [String] = []
        var run = ""
        for line in RunResult.lines(output) {
            if line.wholeMatch(of: #/watching \d+ folders? — press Ctrl-C to stop/#) != nil {
                runs.append(run)
                run = ""
            } else {
                run += line + "\n"
            }
        }
        return runs
    }

    /// The PASS, FAIL and ERROR lines of a run, as `STATUS journey › scenario`.
    static func results(_ run: String) -> [String] {
        RunResult.lines(run).compactMap { line in
            guard let match = line.firstMatch(of: #/^(PASS|FAIL|ERROR) ([^(:]*[^ (:])/#) else { return nil }
            return "\(match.1) \(match.2)"
        }
    }

    @Test("a changed scenario, journey or golden runs only what it touches; a README runs nothing; Ctrl-C exits 130")
    func runsWhatChanged() async throws {
        try await withProcessSlot {
            try await withTemporaryDirectory { directory in
                let examples = try await Self.examples(in: directory, gate: true)
                let watch = try WatchedProcess(["test", "--watch", "journeys/examples"], cwd: directory)
                defer { watch.stop() }

                let first = try await watch.run(1)
                #expect(
                    Self.results(first) == [
                        "PASS examples.gate › through-unlock", "PASS examples.pin-model › pin-model-twenty-events",
                        "PASS examples.unlock › correct-pin", "PASS examples.unlock › one-wrong-then-right",
                    ], "\(watch.output)")
                #expect(first.contains("4 passed, 0 failed\n"))
                #expect(watch.output.contains("watching 4 folders — press Ctrl-C to stop\n"), "\(watch.output)")

                // A README runs nothing; the scenario saved after it runs alone.
                try writeText("# Examples\n", to: examples.appendingPathComponent("README.md"))
                try await Task.sleep(for: .milliseconds(400))
                try append("# reviewed\n", to: examples.appendingPathComponent("scenarios/correct-pin.scenario.yaml"))
                let second = try await watch.run(2)
                #expect(Self.results(second) == ["PASS examples.unlock › correct-pin"], "\(watch.output)")
                #expect(
                    second.contains(
                        "journeys/examples/scenarios/correct-pin.scenario.yaml changed: running 1 scenario\n"),
                    "\(second)")
                #expect(second.hasSuffix("1 passed, 0 failed\n"), "\(second)")
                #expect(!second.contains("README"))

                // The unlock journey: its scenarios and the gate's, which calls it; not the PIN model's.
                try append("# reviewed\n", to: examples.appendingPathComponent("unlock.journey.yaml"))
                let third = try await watch.run(3)
                #expect(
                    Self.results(third) == [
                        "PASS examples.gate › through-unlock", "PASS examples.unlock › correct-pin",
                        "PASS examples.unlock › one-wrong-then-right",
                    ], "\(watch.output)")
                #expect(third.contains("journeys/examples/unlock.journey.yaml changed: running 3 scenarios\n"))
                #expect(third.hasSuffix("3 passed, 0 failed\n"), "\(third)")

                // The gate journey: only its own scenario.
                try append("# reviewed\n", to: examples.appendingPathComponent("gate.journey.yaml"))
                let fourth = try await watch.run(4)
                #expect(Self.results(fourth) == ["PASS examples.gate › through-unlock"], "\(watch.output)")

                // A golden edited by hand: its scenario fails, with the diff.
                try append("# edited\n", to: examples.appendingPathComponent("transcripts/one-wrong-then-right.txt"))
                let fifth = try await watch.run(5)
                #expect(Self.results(fifth) == ["FAIL examples.unlock › one-wrong-then-right"], "\(watch.output)")
                #expect(fifth.contains("is not the text rendering of"), "\(fifth)")
                #expect(fifth.contains("    -# edited\n"), "\(fifth)")
                #expect(fifth.hasSuffix("0 passed, 1 failed\n"), "\(fifth)")

                let ended = try await watch.interrupt(SIGINT)
                #expect(ended == 130, "\(watch.output)")
                #expect(watch.output.hasSuffix("stopped watching\n"), "\(watch.output)")
                #expect(Self.runs(watch.output).count == 5, "\(watch.output)")
                #expect(!watch.output.contains("Fatal error"))
            }
        }
    }

    @Test("an invalid file is reported and the watch goes on; an editor-style save that fixes it runs again")
    func keepsWatchingThroughErrors() async throws {
        try await withProcessSlot {
            try await withTemporaryDirectory { directory in
                let examples = try await Self.examples(in: directory, gate: false)
                let scenario = examples.appendingPathComponent("scenarios/correct-pin.scenario.yaml")
                let original = try String(contentsOf: scenario, encoding: .utf8)
                let watch = try WatchedProcess(["test", "--watch", "journeys/examples"], cwd: directory)
                defer { watch.stop() }
                let first = try await watch.run(1)
                #expect(first.contains("3 passed, 0 failed\n"), "\(watch.output)")

                try writeText("scenario: [\n", to: scenario)
                let broken = try await watch.run(2)
                let diagnostics = RunResult.lines(broken).compactMap(DiagnosticLine.init)
                #expect(
                    diagnostics.contains {
                        $0.path == "journeys/examples/scenarios/correct-pin.scenario.yaml" && $0.severity == "error"
                            && $0.id == "yaml.syntax"
                    }, "\(broken)")
                #expect(Self.results(broken).count == 1 && Self.results(broken)[0].hasPrefix("ERROR"), "\(broken)")
                #expect(broken.hasSuffix("0 passed, 0 failed, 1 error\n"), "\(broken)")

                // Saved as editors do: written beside it, then renamed over it. The change alters
                // the transcript's header, so the run fails with the diff.
                func save(_ text: String) throws {
                    let temporary = examples.appendingPathComponent("scenarios/.correct-pin.scenario.yaml.tmp")
                    try writeText(text, to: temporary)
                    #expect(rename(temporary.path, scenario.path) == 0)
                }
                try save(original.replacingOccurrences(of: "kdfRounds: 1000", with: "kdfRounds: 1001"))
                let changed = try await watch.run(3)
                #expect(Self.results(changed) == ["FAIL examples.unlock › correct-pin"], "\(watch.output)")
                #expect(changed.contains("    -# settings: {kdfRounds: 1000}\n"), "\(changed)")
                #expect(changed.contains("    +# settings: {kdfRounds: 1001}\n"), "\(changed)")
                #expect(changed.hasSuffix("0 passed, 1 failed\n"), "\(changed)")

                try save(original)
                let fixed = try await watch.run(4)
                #expect(Self.results(fixed) == ["PASS examples.unlock › correct-pin"], "\(watch.output)")
                #expect(!fixed.contains("error:"), "\(fixed)")

                let ended = try await watch.interrupt(SIGTERM)
                #expect(ended == 143, "\(watch.output)")
            }
        }
    }

    @Test("--watch with an option that makes no sense in a watch is a usage error, and so is nothing to watch")
    func conflictingOptions() async throws {
        for (options, named) in [
            (["--update"], "--update"), (["--junit", "out.xml"], "--junit"), (["--json", "out.json"], "--json"),
            (["--shard", "1/2"], "--shard"), (["--explore"], "--explore"),
        ] {
            let result = try await runJourney(["test", "--watch"] + options + ["journeys/examples"])
            #expect(result.status == Exit.invalid, "\(result)")
            #expect(result.stderr.contains("--watch cannot be used with \(named):"), "\(result)")
            #expect(result.stdout.isEmpty, "\(result)")
        }
        // Nothing to watch: an error at once, not a watch that waits for nothing.
        try await withTemporaryDirectory { directory in
            let missing = try await runJourney(["test", "--watch", "no/such/folder"], cwd: directory)
            #expect(missing.status == Exit.invalid, "\(missing)")
            #expect(missing.stderr.contains("error: --watch found no folder to watch"), "\(missing)")
            #expect(missing.errors("file.missing").first?.path == "no/such/folder", "\(missing)")
        }
    }

    func append(_ text: String, to url: URL) throws {
        let old = try String(contentsOf: url, encoding: .utf8)
        try writeText(old + text, to: url)
    }
}

/// A `journey` process that keeps running (`journey test --watch`), its standard output and
/// error read together as they come, on a thread of their own.
final class WatchedProcess: @unchecked Sendable {
    private let process = Process()
    private let lock = NSLock()
    private var data = Data()

    init(_ arguments: [String], cwd: URL) throws {
        guard let binary = Paths.journeyBinary else { throw SubprocessError.binaryNotFound }
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = cwd
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        process.environment = environment
        let pipe = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        try? pipe.fileHandleForWriting.close()
        let reading = pipe.fileHandleForReading
        Thread.detachNewThread { [self] in
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = read(reading.fileDescriptor, &chunk, chunk.count)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                lock.withLock { data.append(contentsOf: chunk[..<count]) }
            }
            try? reading.close()
        }
    }

    var output: String { lock.withLock { String(decoding: data, as: UTF8.self) } }

    /// The `number`th run's output (1: the first run), waited for until its `watching …` line
    /// is printed, at most `timeout` seconds.
    func run(
        _ number: Int, timeout: Double = 90, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) async throws
        -> String
    {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while ContinuousClock.now < deadline {
            let runs = WatchTests.runs(output)
            if runs.count >= number { return runs[number - 1] }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record(
            "run \(number) did not finish within \(Int(timeout)) s:\n\(output)", sourceLocation: sourceLocation)
        throw CancellationError()
    }

    /// Sends `signal` and returns the exit status, or nil when the process did not end
    /// within 30 s (it is then killed).
    func interrupt(_ signal: Int32) async throws -> Int32? {
        kill(process.processIdentifier, signal)
        guard await waitForExit(process, seconds: 30) else {
            stop()
            return nil
        }
        // Let the reading thread take the last output.
        try await Task.sleep(for: .milliseconds(100))
        return process.terminationStatus
    }

    /// Kills the process if it still runs.
    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
