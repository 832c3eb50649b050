import ArgumentParser
import Foundation
import JourneyCore
import JourneyHandlers
import JourneySuite

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract:
            "Measure the runner, the loader and a whole `journey run` on a generated suite; with --explore, `journey explore`.",
        discussion: """
            Generates the 20-event PIN journey used by the reference peers (create, repeat, \
            biometry, a three-strike lock, re-authorisation) and a suite of scenarios over it, \
            then reports:
              • scenarios/s and steps/s of the in-process runner with transcripts on
                (every event encoded as JSON Lines and streamed to a counting sink,
                never held);
              • peak memory after a small and a full suite (it should stay flat);
              • load + validate throughput in MB/s over generated journey files (files
                are read and journeys compiled on every core; `taskset -c 0` gives the
                one-core figure);
              • the median wall time of `journey run` as a whole process;
              • the start-up of `journey run` inside a generated project of many
                journeys (--project-journeys) beside the same run with only its
                journeys, run in turn, and the ratio: a run loads only what its
                scenario reaches, so it should stay near 1;
              • steps/s through a handler program that answers every step at once
                (--external-steps): a journey loops on the program's step, in Python
                and, when a C compiler (`cc`) is found, in C compiled for the bench;
                with the CPU time per step of each side, and Python's own side timed
                alone.

            With --explore it measures `journey explore` instead, from the repository's root: \
            the PIN journey the reference peers model (journeys/examples/pin-model.journey.yaml) \
            explored with the default bounds and with depth 2000 and 1000 restarts \
            (--explore-restarts), on one \
            thread and on every core, in states/s and transitions/s (medians of five runs, \
            each repeated until it lasts 0.2 s, as the peers time theirs), and again on one \
            thread with every move played (none taken over from a state equal but for its \
            restarts), saying how many transitions were taken over and how many of those were \
            played again all the same (to see what a state new on their path asks); the peers' own \
            explorers on the same bounds (--peers, --python), with the ratios; the memory each \
            stored state costs; and every journey under journeys/ explored with the default \
            bounds, as `journey explore journeys` plays them.

            Run it from a release build with the Swift runtime linked statically, as \
            scripts/bench does (debug builds are several times slower):
              swift build -c release --static-swift-stdlib
              .build/release/journey bench
            """
    )

    // A number option takes the next word as its value even when it starts with a dash, so that
    // `-1` is refused by validate() with the range, not reported as a missing value.
    @Option(parsing: .unconditional, help: "Scenarios in the suite.")
    var scenarios: Int = 10_000

    @Option(parsing: .unconditional, help: "Megabytes of journey YAML to load and validate.")
    var loadMegabytes: Int = 8

    @Option(parsing: .unconditional, help: "Whole-process runs of `journey run` to time (0 skips).")
    var processRuns: Int = 30

    @Option(
        parsing: .unconditional,
        help:
            "Journeys in the generated project that `journey run` starts inside, timed against the same run alone (0 skips)."
    )
    var projectJourneys: Int = 1_000

    @Option(
        parsing: .unconditional,
        help:
            "Steps to run through a handler program that answers at once, in Python and, when `cc` is found, in C (0 skips)."
    )
    var externalSteps: Int = 100_000

    @Option(
        help: ArgumentHelp(
            "Write the generated project (`project/`) and the same run alone (`alone/`) into this folder, which must not exist yet or be empty, and keep them, to time or profile by hand.",
            valueName: "folder"))
    var projectFolder: String?

    @Option(
        help: ArgumentHelp(
            "Time the whole-process runs with this journey binary instead of this one (another build, to compare).",
            valueName: "path"))
    var executable: String?

    @Flag(
        help:
            "Measure `journey explore` instead: the PIN journey the reference peers model (default bounds, and depth 2000 with 1000 restarts) on one thread and on every core, beside the peers' explorers; memory per stored state; and every journey under journeys/ explored with the default bounds."
    )
    var explore = false

    @Option(
        help: ArgumentHelp(
            "With --explore: the folder of the reference peers' explorers (bench_explore_bfs.py and the others); default: $JOURNEY_PEERS, else they are skipped.",
            valueName: "folder"))
    var peers: String?

    @Option(
        parsing: .unconditional,
        help:
            "With --explore: the restarts of the larger exploration, whose depth is twice as many (the peers' figures use 1000)."
    )
    var exploreRestarts = 1000

    @Option(help: "With --explore: the Python that runs the peers (one with their requirements installed).")
    var python = "python3"

    @Flag(
        help:
            "Print the results as one JSON object, keyed by the names printed (a figure printed under a section as 'SECTION › NAME')."
    )
    var json = false

    func validate() throws {
        guard (100...10_000_000).contains(scenarios) else {
            throw ValidationError("--scenarios must be from 100 to 10000000")
        }
        guard (1...4096).contains(loadMegabytes) else {
            throw ValidationError("--load-megabytes must be from 1 to 4096")
        }
        if !explore, peers != nil || python != "python3" {
            throw ValidationError("--peers and --python go with --explore: the peers are timed only there")
        }
        if let projectFolder { try Self.requireNewFolder(projectFolder) }
        if explore, let folder = peersFolder {
            try Self.requirePeersFolder(folder, named: peers != nil ? "--peers" : "JOURNEY_PEERS")
        }
        guard (1...100_000).contains(exploreRestarts) else {
            throw ValidationError("--explore-restarts must be from 1 to 100000")
        }
        guard (0...10_000).contains(processRuns) else {
            throw ValidationError("--process-runs must be from 0 to 10000")
        }
        guard externalSteps == 0 || (100...100_000_000).contains(externalSteps) else {
            throw ValidationError("--external-steps must be 0 or from 100 to 100000000")
        }
        // Checked before anything is timed: a wrong path found after the runner and the loader
        // were measured loses their figures.
        if let executable {
            guard Files.exists(executable), !Files.isFolder(executable) else {
                throw ValidationError(
                    "--executable \(executable): \(Files.exists(executable) ? "is a folder" : "no such file"); give a journey binary"
                )
            }
            guard FileManager.default.isExecutableFile(atPath: executable) else {
                throw ValidationError("--executable \(executable) is not executable; give a journey binary")
            }
        }
        guard
            projectJourneys == 0
                || (projectJourneys >= BenchProject.perArea && projectJourneys % BenchProject.perArea == 0)
        else {
            throw ValidationError(
                "--project-journeys must be 0 or a multiple of \(BenchProject.perArea) (the project is made of areas of \(BenchProject.perArea) journeys)"
            )
        }
    }

    /// `--project-folder` takes a folder bench may fill: one not there yet, or an empty one;
    /// what is in any other is the user's, and stays as it is.
    /// The reference peers' folder: --peers, else `$JOURNEY_PEERS` when set and not empty.
    var peersFolder: String? {
        peers ?? ProcessInfo.processInfo.environment["JOURNEY_PEERS"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Refuses, before anything is timed, a peers folder that is not there or not a folder.
    static func requirePeersFolder(_ path: String, named option: String) throws {
        let shown = PrintableText.escaped(path)
        let said = option == "--peers" ? "--peers \(shown)" : "JOURNEY_PEERS (\(shown))"
        guard Files.exists(path) else {
            throw ValidationError(
                "\(said): no such folder: give the folder of the reference peers' explorers (bench_explore_bfs.py and the others)"
            )
        }
        guard Files.isFolder(path) else {
            throw ValidationError(
                "\(said) is not a folder: give the folder of the reference peers' explorers (bench_explore_bfs.py and the others)"
            )
        }
    }

    static func requireNewFolder(_ path: String) throws {
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        let shown = PrintableText.escaped(path)
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw ValidationError(
                "--project-folder \(shown) is a file: give a folder that does not exist yet, or an empty one")
        }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        guard entries.isEmpty else {
            throw ValidationError(
                "--project-folder \(shown) is not empty: give a folder that does not exist yet, or an empty one (bench writes project/ and alone/ there, and replaces nothing of yours)"
            )
        }
    }

    func run() async throws {
        let console = Console()
        var results: [(String, String)] = []
        func report(_ name: String, _ value: String) {
            results.append((name, value))
            if !json { console.out("\(name): \(value)\n") }
        }

        if explore {
            try await exploreSection(report)
            if json { console.out(Self.json(results)) }
            return
        }

        let project = Toolkit.current.loader().load([
            SourceFile(path: "bench.journey.yaml", data: Data(BenchSuite.journey(id: "bench.pin").utf8)),
            SourceFile(path: "bench.scenario.yaml", data: Data(BenchSuite.scenario.utf8)),
        ])
        guard let library = project.library, let scenario = project.scenarios.first else {
            console.print(project.diagnostics)
            throw ExitCode(ExitStatus.invalid)
        }

        // Warm up, then a small suite and the full one: memory must not grow with the suite.
        _ = try await BenchSuite.runSuite(scenario, library: library, count: 200)
        let small = try await BenchSuite.runSuite(scenario, library: library, count: max(100, scenarios / 10))
        let rssSmall = BenchSuite.peakRSSKilobytes()
        let full = try await BenchSuite.runSuite(scenario, library: library, count: scenarios)
        let rssFull = BenchSuite.peakRSSKilobytes()
        report(
            "suite",
            "\(scenarios) scenarios × \(full.steps / scenarios) steps, transcripts on (\(full.bytes / scenarios) bytes of JSON Lines each)"
        )
        report("scenarios/s", String(format: "%.0f", Double(scenarios) / full.seconds))
        report("steps/s", String(format: "%.0f", Double(full.steps) / full.seconds))
        report("steps/s (CPU time)", String(format: "%.0f", Double(full.steps) / full.cpuSeconds))
        report(
            "peak memory",
            "\(rssSmall / 1024) MiB after \(small.scenarios) scenarios, \(rssFull / 1024) MiB after \(scenarios)")

        let load = BenchSuite.loadThroughput(megabytes: loadMegabytes)
        let cores = BenchSuite.usableCores()
        report(
            "load + validate",
            String(format: "%.1f MB/s (%d files, %.1f MB, ", load.mbPerSecond, load.files, load.megabytes)
                + "\(counted(cores, "core")))")

        let timed = try executable.map { URL(fileURLWithPath: $0) } ?? BenchSuite.executable()
        if processRuns > 0 {
            let median = try BenchSuite.processMedian(runs: processRuns, executable: timed)
            report(
                "journey run, whole process", String(format: "%.1f ms median of ", median) + counted(processRuns, "run")
            )
        }
        if processRuns > 0 && projectJourneys > 0 {
            let startUp = try BenchProject.startUp(
                journeys: projectJourneys, runs: processRuns, executable: timed,
                keepingIn: projectFolder.map { URL(fileURLWithPath: $0) })
            report(
                "journey run in a \(projectJourneys)-journey project",
                String(
                    format: "%.1f ms inside, %.1f ms alone: %.2f× (median of ", startUp.inside, startUp.alone,
                    startUp.ratio) + counted(processRuns, "pair") + ")")
        }
        if externalSteps > 0 { try await external(report) }
        if json { console.out(Self.json(results)) }
    }

    /// The results as one JSON object, a line. A figure printed indented under a section (each
    /// exploration's rates) is keyed `SECTION › NAME`: two sections' figures of one name are two
    /// keys, not one key twice.
    static func json(_ results: [(String, String)]) -> String {
        var section = ""
        let body = results.map { name, value in
            let figure = name.drop { $0 == " " }
            let key: String
            if figure.count == name.count {
                section = name
                key = name
            } else {
                key = "\(section) › \(figure)"
            }
            return "\(JSONLinesEncoder.quoted(key)): \(JSONLinesEncoder.quoted(value))"
        }
        return "{\(body.joined(separator: ", "))}\n"
    }
}

extension BenchCommand {
    /// The "external handler" section: steps per second through a Python program and a C one.
    func external(_ report: (String, String) -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("journey-external-\(getpid())").path
        try Files.makeFolders(folder)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try AtomicFile.write(BenchExternal.python, to: folder + "/tick.py")
        try AtomicFile.write(BenchExternal.c, to: folder + "/tick.c")
        if BenchExternal.onPath("python3") == nil {
            report("external handler, Python", "skipped: no python3 on PATH")
        } else {
            let python = try await BenchExternal.measure(
                command: ["python3", "tick.py"], folder: folder, steps: externalSteps)
            report("external handler, Python", BenchExternal.describe(python))
            let alone = try BenchExternal.pythonAlone(folder: folder, count: externalSteps)
            report(
                "external handler, Python's own side alone",
                String(
                    format: "%.1f µs per step (json.loads + json.dumps, no pipe): at most %.0f steps/s", alone,
                    1e6 / alone))
        }
        guard let compiler = BenchExternal.onPath("cc") else {
            report("external handler, C", "skipped: no C compiler (cc) on PATH")
            return
        }
        guard BenchExternal.compile(with: compiler, in: folder) else {
            report("external handler, C", "skipped: \(compiler) could not compile the program")
            return
        }
        let c = try await BenchExternal.measure(command: ["./tick"], folder: folder, steps: externalSteps)
        report("external handler, C", BenchExternal.describe(c))
    }
}

extension BenchCommand: DescribesStandardOutput {
    static let standardOutput = "the measurements"
}

/// The generated benchmark suite and its measurements.
enum BenchSuite {
    /// The reference peers' 20-event PIN journey in JourneyKit's language.
    static func journey(id: String) -> String {
        """
        journey: \(id)
        version: 1
        title: PIN journey (create, repeat, biometry, three-strike lock)
        exceptions:
          auth.counter-in-state: "the reference peers keep the count in memory (script.py), and the bench plays the same journey"
        state:
          failures: { type: int, default: 0 }
        limits:
          strikes: { max: 3, counter: state.failures, exceeded: reauth }
        start: create
        steps:
          create:
            handler: ui.screen
            screen: { title: Create a PIN, actions: { pin_entered: Next } }
            on: { pin_entered: repeat }
          repeat:
            handler: ui.screen
            screen: { title: Repeat the PIN, actions: { pin_match: Match, pin_mismatch: Mismatch } }
            on: { pin_match: biometry, pin_mismatch: create }
          biometry:
            handler: ui.screen
            screen: { title: Use Face ID?, actions: { bio_accept: Allow, bio_decline: Later } }
            on: { bio_accept: locked, bio_decline: locked }
          locked:
            handler: ui.screen
            screen: { title: Enter your PIN, actions: { pin_ok: Correct, pin_wrong: Wrong } }
            attempts: { limit: strikes, counts: [pin_wrong], resets: [pin_ok] }
            on: { pin_ok: unlocked, pin_wrong: locked }
          reauth:
            handler: ui.screen
            screen: { title: Sign in again, actions: { reauth_ok: Signed in } }
            on: { reauth_ok: create }
          unlocked:
            handler: ui.screen
            screen: { title: Welcome, actions: { lock: Lock, finish: Finish } }
            on: { lock: locked, finish: done }
        ends:
          done: { kind: success }

        """
    }

    static let events = [
        ("create", "pin_entered"), ("repeat", "pin_mismatch"), ("create", "pin_entered"), ("repeat", "pin_match"),
        ("biometry", "bio_accept"), ("locked", "pin_wrong"), ("locked", "pin_ok"), ("unlocked", "lock"),
        ("locked", "pin_wrong"), ("locked", "pin_wrong"), ("locked", "pin_wrong"), ("reauth", "reauth_ok"),
        ("create", "pin_entered"), ("repeat", "pin_match"), ("biometry", "bio_decline"), ("locked", "pin_ok"),
        ("unlocked", "lock"), ("locked", "pin_wrong"), ("locked", "pin_ok"), ("unlocked", "finish"),
    ]

    static var scenario: String {
        "scenario: twenty-events\njourney: bench.pin\nscript:\n"
            + events.map { "  - at: \($0.0)\n    action: \($0.1)\n" }.joined()
            + "expect: { end: done }\n"
    }

    /// Counts bytes of JSON Lines without keeping them.
    final class CountingSink: TranscriptSink {
        let encoder = JSONLinesEncoder()
        var bytes = 0
        var buffer: [UInt8] = []
        func record(_ record: TranscriptRecord) {
            buffer.removeAll(keepingCapacity: true)
            encoder.encode(record, into: &buffer)
            bytes += buffer.count
        }
    }

    struct SuiteRun {
        var scenarios: Int
        var steps: Int
        var bytes: Int
        var seconds: Double
        var cpuSeconds: Double
    }

    static func runSuite(_ scenario: CompiledScenario, library: CompiledLibrary, count: Int) async throws -> SuiteRun {
        let runner = Toolkit.current.player()
        let cpu0 = cpuSeconds()
        let start = DispatchTime.now().uptimeNanoseconds
        var steps = 0
        var bytes = 0
        for _ in 0..<count {
            let sink = CountingSink()
            let report = await runner.run(scenario, in: library, transcript: sink)
            guard report.passed else { throw CLIError("the benchmark scenario failed: \(report.problems)") }
            steps += report.result.steps
            bytes += sink.bytes
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return SuiteRun(scenarios: count, steps: steps, bytes: bytes, seconds: seconds, cpuSeconds: cpuSeconds() - cpu0)
    }

    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
            + Double(usage.ru_stime.tv_usec) / 1e6
    }

    /// The cores this process may run on (fewer than the machine's under `taskset`).
    static func usableCores() -> Int {
        // Linux lists the affinity mask in hex, e.g. `Cpus_allowed:\t3` for cores 0 and 1.
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") })
        {
            let count = line.dropFirst("Cpus_allowed:".count).reduce(0) { total, digit in
                total + (digit.hexDigitValue?.nonzeroBitCount ?? 0)
            }
            if count > 0 { return count }
        }
        return ProcessInfo.processInfo.activeProcessorCount
    }

    static func peakRSSKilobytes() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #if canImport(Darwin)
        return Int(usage.ru_maxrss) / 1024  // bytes on Darwin
        #else
        return Int(usage.ru_maxrss)  // kilobytes on Linux
        #endif
    }

    /// The bench journey repeated `copies` times in one file (each copy's steps renamed and
    /// chained to the next), to make files the size real journeys have.
    static func largeJourney(id: String, copies: Int) -> String {
        let base = journey(id: id)
        let head = base[..<base.range(of: "steps:\n")!.upperBound]
        let steps = base[base.range(of: "steps:\n")!.upperBound..<base.range(of: "ends:")!.lowerBound]
        var body = ""
        for copy in 0..<copies {
            var block = String(steps)
            for name in ["create", "repeat", "biometry", "locked", "reauth", "unlocked"] {
                block = block.replacingOccurrences(of: "\(name)", with: "\(name)\(copy)")
            }
            block = block.replacingOccurrences(
                of: "finish: done", with: copy + 1 < copies ? "finish: create\(copy + 1)" : "finish: done")
            body += block
        }
        return head.replacingOccurrences(of: "start: create", with: "start: create0")
            .replacingOccurrences(of: "exceeded: reauth", with: "exceeded: reauth0") + body
            + "ends:\n  done: { kind: success }\n"
    }

    /// Loads and validates generated journeys of about 20 KB each (the size of the shipped
    /// eduID onboarding) until `megabytes` of YAML have been read.
    static func loadThroughput(megabytes: Int) -> (mbPerSecond: Double, files: Int, megabytes: Double) {
        var files: [SourceFile] = []
        var total = 0
        var index = 0
        while total < megabytes * 1_000_000 {
            let text = largeJourney(id: "bench.pin-\(index)", copies: 16)
            files.append(SourceFile(path: "bench-\(index).yaml", data: Data(text.utf8)))
            total += text.utf8.count
            index += 1
        }
        let loader = Toolkit.current.loader()
        let start = DispatchTime.now().uptimeNanoseconds
        let project = loader.load(files)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        precondition(project.library != nil, "generated journeys must compile")
        let mb = Double(total) / 1_000_000
        return (mb / seconds, files.count, mb)
    }

    /// This very binary, however it was started (argv[0] may be a bare name found on PATH).
    static func executable() throws -> URL {
        guard let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() else {
            throw ValidationError("cannot find the journey executable to time")
        }
        return executable
    }

    /// The wall time of one `journey run` as a whole process, in milliseconds.
    static func timeRun(_ executable: URL, arguments: [String], in folder: URL? = nil) throws -> Double {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let folder { process.currentDirectoryURL = folder }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let start = DispatchTime.now().uptimeNanoseconds
        try process.run()
        process.waitUntilExit()
        let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        guard process.terminationStatus == 0 else {
            throw CLIError("`journey \(arguments.joined(separator: " "))` failed (exit \(process.terminationStatus))")
        }
        return milliseconds
    }

    /// Runs timed before the measured ones, so that caches are warm.
    static let warmUps = 3

    /// The middle of `values` (the upper one of an even count).
    static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

    /// The median wall time of `journey run` on the bench scenario, as a whole process, run in
    /// a folder of its own: wherever the bench is started (inside a project, whose project file
    /// `journey run` would find and read), the same run is timed.
    static func processMedian(runs: Int, executable: URL) throws -> Double {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("journey-bench-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let scenarioPath = directory.appendingPathComponent("bench.scenario.yaml").path
        try AtomicFile.write(journey(id: "bench.pin"), to: directory.appendingPathComponent("bench.journey.yaml").path)
        try AtomicFile.write(scenario, to: scenarioPath)
        var times: [Double] = []
        for _ in 0..<(runs + warmUps) {
            times.append(try timeRun(executable, arguments: ["run", "--scenario", scenarioPath], in: directory))
        }
        return median(Array(times.dropFirst(warmUps)))
    }
}

/// A generated project of many journeys, and the start-up of `journey run` inside it against
/// the same run with only the journeys it reaches.
///
/// The project is `journeykit.yaml` and areas of ten journeys (`journeys/area-007/flow-3.journey.yaml`,
/// id `area-007.flow-3`), each the bench's PIN journey with stored values: a session token
/// every journey declares secret, and a failure count its area's journeys share, not secret.
/// In each area flow-0 calls flow-1, which calls flow-2; one scenario per area plays flow-0
/// through all three, starting with the area's count in the device's store. The run timed is
/// area 0's scenario, from the project's folder; beside it, a project with only that
/// scenario and the three journeys it reaches. Inside the large project the run also reads
/// the other files and parses the seven other journeys of its area, which declare the key it
/// touches: a key any journey of the project declares secret is secret everywhere.
enum BenchProject {
    static let perArea = 10
    /// The flows of an area that the scenario reaches: flow-0 calls flow-1, which calls flow-2.
    static let reached = 3

    static func area(_ index: Int) -> String { "area-" + String(format: "%03d", index) }

    static func journey(area: Int, flow: Int) -> String {
        let name = Self.area(area)
        let counter = "area\(String(format: "%03d", area))Failures"
        var text = BenchSuite.journey(id: "\(name).flow-\(flow)")
        // Each edit must find its text: a change to the bench's journey must not quietly leave
        // the project measuring something else.
        func replace(_ old: String, with new: String) {
            precondition(text.contains(old), "the bench's journey no longer holds \(old.debugDescription)")
            text = text.replacingOccurrences(of: old, with: new)
        }
        replace(
            "title: PIN journey (create, repeat, biometry, three-strike lock)\n",
            with: """
                title: Flow \(flow) of area \(area)
                stored:
                  sessionToken: { type: string, secret: true, default: "" }
                  \(counter): { type: int, default: 0 }

                """)
        replace(
            "on: { lock: locked, finish: done }",
            with:
                "on:\n      lock: locked\n      finish:\n        set: { stored.\(counter): \"${state.failures}\" }\n        to: done"
        )
        if flow < reached - 1 {
            replace("start: create\n", with: "start: intro\n")
            replace(
                "steps:\n",
                with: "steps:\n  intro:\n    call: \(name).flow-\(flow + 1)\n    on: { done: create }\n")
        }
        return text
    }

    static func scenario(area: Int) -> String {
        let events = (0..<reached).flatMap { _ in BenchSuite.events }
        return "scenario: three-flows\njourney: \(self.area(area)).flow-0\n"
            + "device: { store: { area\(String(format: "%03d", area))Failures: 1 } }\nscript:\n"
            + events.map { "  - at: \($0.0)\n    action: \($0.1)\n" }.joined()
            + "expect: { end: done }\n"
    }

    static let projectFile = "journeys: [journeys]\n"

    /// Writes the project of `journeys` journeys into `folder`, and the same scenario with only
    /// the journeys it reaches into `alone`; returns the scenario's path, the same in both.
    static func write(journeys: Int, to folder: URL, alone: URL) throws -> String {
        let scenarioPath = "journeys/\(area(0))/scenarios/three-flows.scenario.yaml"
        for root in [folder, alone] {
            try Files.makeFolders(root.path)
            try AtomicFile.write(projectFile, to: root.appendingPathComponent("journeykit.yaml").path)
        }
        for index in 0..<(journeys / perArea) {
            let base = "journeys/\(area(index))"
            try Files.makeFolders(folder.appendingPathComponent(base + "/scenarios").path)
            for flow in 0..<perArea {
                let text = journey(area: index, flow: flow)
                let path = "\(base)/flow-\(flow).journey.yaml"
                try AtomicFile.write(text, to: folder.appendingPathComponent(path).path)
                if index == 0 && flow < reached {
                    try Files.makeFolders(alone.appendingPathComponent(base + "/scenarios").path)
                    try AtomicFile.write(text, to: alone.appendingPathComponent(path).path)
                }
            }
            let scenario = scenario(area: index)
            try AtomicFile.write(
                scenario, to: folder.appendingPathComponent("\(base)/scenarios/three-flows.scenario.yaml").path)
            if index == 0 { try AtomicFile.write(scenario, to: alone.appendingPathComponent(scenarioPath).path) }
        }
        return scenarioPath
    }

    /// `journey run` of the scenario inside the project and alone, in turn, `runs` times each
    /// after three warm-up pairs: the median of each, in milliseconds, and the median of the
    /// pairs' ratios (pairing keeps the ratio meaningful when the machine's speed drifts). The
    /// projects are written into a temporary folder and removed, or into `folder` and kept.
    static func startUp(
        journeys: Int, runs: Int, executable: URL, keepingIn folder: URL? = nil
    ) throws -> (
        inside: Double, alone: Double, ratio: Double
    ) {
        let directory =
            folder ?? FileManager.default.temporaryDirectory.appendingPathComponent("journey-project-\(getpid())")
        defer { if folder == nil { try? FileManager.default.removeItem(at: directory) } }
        let project = directory.appendingPathComponent("project")
        let alone = directory.appendingPathComponent("alone")
        let scenario = try write(journeys: journeys, to: project, alone: alone)
        var inside: [Double] = []
        var single: [Double] = []
        for _ in 0..<(runs + BenchSuite.warmUps) {
            inside.append(try BenchSuite.timeRun(executable, arguments: ["run", "--scenario", scenario], in: project))
            single.append(try BenchSuite.timeRun(executable, arguments: ["run", "--scenario", scenario], in: alone))
        }
        let pairs = zip(inside, single).dropFirst(BenchSuite.warmUps)
        return (
            BenchSuite.median(pairs.map(\.0)), BenchSuite.median(pairs.map(\.1)),
            BenchSuite.median(pairs.map { $0.0 / $0.1 })
        )
    }
}

/// Steps per second through a handler program: a journey that runs one program step again and
/// again, through the real machine and runner with transcripts on, each step a `step/run`
/// request and its answer over the program's standard input and output.
///
/// The programs answer every step at once: one in Python (standard library only) and, when a
/// C compiler (`cc`) is found, one in C compiled for the bench. The Python program also times
/// its own side alone (reading, parsing and answering the same request line, without a pipe),
/// which says how much of a step's time is Python's.
enum BenchExternal {
    static let handlerID = "bench.tick"

    /// The Python program: answers `initialize`, `step/run` with outcome `next`, `shutdown`
    /// and `exit`. With `--alone N LINE` it parses LINE and encodes its answer N times, and
    /// prints the seconds that took.
    static let python = #"""
        import json, sys, time

        def answer(message):
            method = message.get("method")
            if method == "initialize":
                return {"jsonrpc": "2.0", "id": message["id"], "result": {"protocolVersion": 1}}
            if method == "step/run":
                return {"jsonrpc": "2.0", "id": message["id"], "result": {"outcome": "next"}}
            if method == "shutdown":
                return {"jsonrpc": "2.0", "id": message["id"], "result": None}
            return None

        if len(sys.argv) == 4 and sys.argv[1] == "--alone":
            count, line = int(sys.argv[2]), sys.argv[3]
            start = time.perf_counter()
            for _ in range(count):
                json.dumps(answer(json.loads(line)))
            print(time.perf_counter() - start)
            sys.exit(0)

        out = sys.stdout
        for line in sys.stdin:
            message = json.loads(line)
            if message.get("method") == "exit":
                break
            reply = answer(message)
            if reply is not None:
                out.write(json.dumps(reply) + "\n")
                out.flush()
        """#

    /// The C program: the same answers, reading the id and method JourneyKit writes first in
    /// each request.
    static let c = #"""
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>

        int main(void) {
            char *line = NULL;
            size_t size = 0;
            while (getline(&line, &size, stdin) > 0) {
                if (strstr(line, "\"method\":\"exit\"")) break;
                char *id = strstr(line, "\"id\":");
                if (!id) continue;
                long number = strtol(id + 5, NULL, 10);
                const char *result = "{\"outcome\":\"next\"}";
                if (strstr(line, "\"method\":\"initialize\"")) result = "{\"protocolVersion\":1}";
                else if (strstr(line, "\"method\":\"shutdown\"")) result = "null";
                printf("{\"jsonrpc\":\"2.0\",\"id\":%ld,\"result\":%s}\n", number, result);
                fflush(stdout);
            }
            free(line);
            return 0;
        }
        """#

    /// A journey that runs the program's step `steps` times, then ends.
    static func journey(steps: Int) -> String {
        """
        journey: bench.external
        version: 1
        title: A handler program's step, again and again
        state:
          n: { type: int, default: 0 }
        start: tick
        steps:
          tick:
            handler: \(handlerID)
            on:
              next:
                - if: state.n < \(steps - 1)
                  set: { state.n: "${state.n + 1}" }
                  to: tick
                - else: done
        ends:
          done: { kind: success }

        """
    }

    static let scenario = "scenario: loop\njourney: bench.external\nscript: []\nexpect: { end: done }\n"

    /// One program's figures: steps per second of the whole loop, JourneyKit's CPU time and
    /// the program's per step, in microseconds.
    struct Figures {
        var stepsPerSecond: Double
        var journeyMicroseconds: Double
        var programMicroseconds: Double
    }

    /// Steps one scenario runs: the runner stops a scenario at 10 000 steps.
    static let perScenario = 1_000

    /// Runs `steps` steps through the program `command` (in `folder`), in scenarios of
    /// ``perScenario`` steps, after a warm-up of a tenth of them, the program started once and
    /// reused.
    static func measure(command: [String], folder: String, steps: Int) async throws -> Figures {
        let declaration = ExternalHandlerDeclaration(
            id: Located(handlerID, at: SourceLocation(file: "bench", line: 1, column: 1)),
            summary: "Answers every step at once.", command: command,
            outcomes: [OutcomeSpec(name: "next", summary: "the step ran")])
        let handler = ExternalHandler(declaration) { () throws(HandlerTransportFailure) in
            try HandlerProcess(command: command, folder: folder)
        }
        let toolkit = Toolkit.current.adding(external: handler)
        func load(_ steps: Int) throws -> (CompiledScenario, CompiledLibrary) {
            let project = toolkit.loader().load([
                SourceFile(path: "external.journey.yaml", data: Data(journey(steps: steps).utf8)),
                SourceFile(path: "external.scenario.yaml", data: Data(BenchExternal.scenario.utf8)),
            ])
            guard let library = project.library, let scenario = project.scenarios.first else {
                throw CLIError("the external handler's bench journey does not load: \(project.diagnostics)")
            }
            return (scenario, library)
        }
        let each = min(steps, perScenario)
        let (scenario, library) = try load(each)
        let runner = toolkit.player()
        func run(_ count: Int) async throws {
            for _ in 0..<count {
                let report = await runner.run(scenario, in: library, transcript: BenchSuite.CountingSink())
                guard report.passed, report.result.steps == each else {
                    throw CLIError("the external handler's bench failed: \(report.problems)")
                }
            }
        }
        let scenarios = max(1, steps / each)
        let warmUp = max(1, scenarios / 10)
        let children0 = childCPUSeconds()
        try await run(warmUp)
        let cpu0 = BenchSuite.cpuSeconds()
        let start = DispatchTime.now().uptimeNanoseconds
        try await run(scenarios)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let cpu = BenchSuite.cpuSeconds() - cpu0
        // The program's CPU time is known once it has ended and been reaped.
        ExternalHandler.shutdownAll()
        let program = childCPUSeconds() - children0
        let measured = Double(scenarios * each)
        return Figures(
            stepsPerSecond: measured / seconds, journeyMicroseconds: cpu / measured * 1e6,
            programMicroseconds: program / Double((scenarios + warmUp) * each) * 1e6)
    }

    /// The Python program's own cost per step, in microseconds: parsing a request as
    /// JourneyKit sends it and encoding the answer, without a pipe.
    static func pythonAlone(folder: String, count: Int) throws -> Double {
        let line =
            #"{"jsonrpc":"2.0","id":7,"method":"step/run","params":{"journey":"bench.external","step":"tick","#
            + #""parameters":{},"secret":[],"inputs":[],"outcomes":["next"]}}"#
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", folder + "/tick.py", "--alone", String(count), line]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = try pipe.fileHandleForReading.readToEnd() ?? Data()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
            let seconds = Double(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        else { throw CLIError("python3 could not time its own side") }
        return seconds / Double(count) * 1e6
    }

    /// The path of the program `name` on `PATH` (`cc`, `python3`), if it is there.
    static func onPath(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") {
            let candidate = "\(folder)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Compiles the C program into `folder` with `compiler`; whether it worked.
    static func compile(with compiler: String, in folder: String) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: compiler)
        process.arguments = ["-O2", "-o", folder + "/tick", folder + "/tick.c"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    /// CPU time of this process's children that have ended.
    static func childCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
            + Double(usage.ru_stime.tv_usec) / 1e6
    }

    /// The figures in words, for the report.
    static func describe(_ figures: Figures) -> String {
        String(
            format: "%.0f steps/s (CPU per step: JourneyKit %.1f µs, the program %.1f µs)", figures.stepsPerSecond,
            figures.journeyMicroseconds, figures.programMicroseconds)
    }
}
