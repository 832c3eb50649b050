import Foundation
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

@Suite("journey test: reports, shards, jobs")
struct TestReportsTests {
    /// How many scenarios journeys/examples has.
    static var examples: Int {
        files(under: Paths.journeys.appendingPathComponent("examples"), endingWith: ".scenario.yaml").count
    }

    static func scenarioCount() -> Int {
        files(under: Paths.journeys, endingWith: ".scenario.yaml").count
    }

    @Test("--junit parses as JUnit XML and its counts match the summary line")
    func junitMatchesSummary() async throws {
        try await withTemporaryDirectory { directory in
            let journeys = try copyShippedJourneys(into: directory)
            let golden = journeys.appendingPathComponent("examples/transcripts/forgot-pin.jsonl")
            try writeText(
                try String(contentsOf: golden, encoding: .utf8).replacingOccurrences(
                    of: #""values":{"action":"forgot"}"#, with: #""values":{"action":"remembered"}"#),
                to: golden)
            let result = try await runJourney(
                ["test", "journeys", "--junit", "out.xml", "--json", "out.json", "--jobs", "2"], cwd: directory)
            #expect(result.status == Exit.failed, "\(result)")
            let total = Self.scenarioCount()
            #expect(result.stdoutLines.last == "\(total - 1) passed, 1 failed")
            let xml = try String(contentsOf: directory.appendingPathComponent("out.xml"), encoding: .utf8)
            #if canImport(FoundationXML) || canImport(Darwin)
            let document = try XMLDocument(xmlString: xml)
            #expect(document.rootElement()?.attribute(forName: "tests")?.stringValue == "\(total)")
            #expect(document.rootElement()?.attribute(forName: "failures")?.stringValue == "1")
            let failure = try document.nodes(forXPath: "//testcase[@name='forgot-pin']/failure").first as? XMLElement
            #expect(failure?.attribute(forName: "message")?.stringValue?.contains("at step 'enterPin'") == true)
            #expect(failure?.stringValue?.contains("+++ this run") == true, "the diff is in the failure's body")
            #endif
            let json =
                try JSONSerialization.jsonObject(
                    with: Data(contentsOf: directory.appendingPathComponent("out.json"))) as? [String: Any]
            #expect((json?["summary"] as? [String: Int])?["failed"] == 1)
            // Each scenario says where its run stopped: the end it reached.
            let scenarios = json?["scenarios"] as? [[String: Any]] ?? []
            let correct = scenarios.first { $0["scenario"] as? String == "correct-pin" }
            #expect(
                correct?["end"] as? String == "unlocked" && correct?["waits"] == nil, "\(String(describing: correct))")
            #expect(scenarios.count == total && scenarios.allSatisfy { $0["end"] is String || $0["waits"] is String })
            #expect(entries(of: directory).filter { $0.hasSuffix(".tmp") }.isEmpty, "reports are written atomically")
        }
    }

    @Test("--json says the step a scenario's run waits at when its script ran out there")
    func jsonSaysWhereARunWaits() async throws {
        try await withTemporaryDirectory { directory in
            let fixtures = Paths.root.appendingPathComponent("Tests/Fixtures/explore")
            for file in ["server.journey.yaml", "scenarios/server-refuses-all.scenario.yaml"] {
                try writeText(
                    try String(contentsOf: fixtures.appendingPathComponent(file), encoding: .utf8),
                    to: directory.appendingPathComponent("journeys/" + file))
            }
            let result = try await runJourney(["test", "journeys", "--update", "--json", "out.json"], cwd: directory)
            #expect(result.status == Exit.ok, "\(result)")
            let json =
                try JSONSerialization.jsonObject(
                    with: Data(contentsOf: directory.appendingPathComponent("out.json"))) as? [String: Any]
            let scenario = (json?["scenarios"] as? [[String: Any]])?.first
            #expect(scenario?["status"] as? String == "recorded")
            #expect(
                scenario?["waits"] as? String == "code" && scenario?["end"] == nil, "\(String(describing: scenario))")
        }
    }

    @Test("invalid files still write both reports, listing each error, over an earlier run's")
    func invalidInputReplacesOldReports() async throws {
        try await withTemporaryDirectory { directory in
            let journeys = try copyShippedJourneys(into: directory)
            _ = try await runJourney(
                ["test", "journeys/examples", "--junit", "out.xml", "--json", "out.json"], cwd: directory)
            let broken = journeys.appendingPathComponent("examples/unlock.journey.yaml")
            let text = try String(contentsOf: broken, encoding: .utf8)
            #expect(text.contains("handler: pin.verify"))
            try writeText(text.replacingOccurrences(of: "handler: pin.verify", with: "handler: pin.vrify"), to: broken)
            let scenarios = scenarioFiles(under: journeys.appendingPathComponent("examples"), of: "examples.unlock")
                .count
            // The folder's other journeys still run.
            let others =
                files(under: journeys.appendingPathComponent("examples"), endingWith: ".scenario.yaml").count
                - scenarios
            let result = try await runJourney(
                ["test", "journeys/examples", "--junit", "out.xml", "--json", "out.json"], cwd: directory)
            #expect(result.status == Exit.invalid, "\(result)")
            #expect(result.stdoutLines.last == "\(others) passed, 0 failed, \(scenarios) errors")
            let xml = try String(contentsOf: directory.appendingPathComponent("out.xml"), encoding: .utf8)
            #expect(
                xml.firstMatch(of: /<testcase classname="examples.unlock"[^>]*\/>/) == nil,
                "the earlier run's passing cases of the broken journey are gone")
            #if canImport(FoundationXML) || canImport(Darwin)
            let document = try XMLDocument(xmlString: xml)
            let errors = try document.nodes(forXPath: "//testcase/error") as? [XMLElement] ?? []
            #expect(document.rootElement()?.attribute(forName: "errors")?.stringValue == "\(errors.count)")
            let checks = errors.filter { $0.attribute(forName: "type")?.stringValue == "handler.unknown" }
            #expect(!checks.isEmpty)
            #expect(checks.first?.stringValue?.contains("unlock.journey.yaml:") == true)
            // Each scenario of the broken journey is an error of its own, saying why.
            let cases =
                try document.nodes(forXPath: "//testcase[@classname='examples.unlock']/error") as? [XMLElement] ?? []
            #expect(cases.count == scenarios)
            #expect(cases.allSatisfy { $0.attribute(forName: "type")?.stringValue == "invalid" })
            #expect(checks.count + cases.count == errors.count)
            #endif
            let json =
                try JSONSerialization.jsonObject(
                    with: Data(contentsOf: directory.appendingPathComponent("out.json"))) as? [String: Any]
            #expect(json?["invalid"] as? Bool == true)
            #expect(json?["state"] as? String == "finished")
            let diagnostics = json?["diagnostics"] as? [[String: Any]] ?? []
            #expect(!diagnostics.isEmpty && diagnostics.allSatisfy { $0["id"] as? String == "handler.unknown" })
            let statuses = (json?["scenarios"] as? [[String: Any]] ?? []).map { $0["status"] as? String }
            #expect(statuses.filter { $0 == "error" }.count == scenarios)
            #expect(statuses.filter { $0 == "passed" }.count == others)
        }
    }

    static let noneRun = "note: no scenario was run: give --junit and --json paths where a file can be written"

    @Test(
        "a report that cannot be written: one line naming it, exit 2 before any scenario runs, and neither report written"
    )
    func unwritableReport() async throws {
        try await withTemporaryDirectory { directory in
            try writeText("a file\n", to: directory.appendingPathComponent("blocker"))
            try writeText("an earlier report\n", to: directory.appendingPathComponent("out.json"))
            let result = try await runJourney(
                [
                    "test", Paths.journeys.appendingPathComponent("examples").path, "--junit", "blocker/out.xml",
                    "--json", "out.json",
                ], cwd: directory)
            expectNoCrash(result)
            #expect(result.status == Exit.invalid, "\(result)")
            #expect(
                result.stderrLines == [
                    "error: cannot write the JUnit report to blocker/out.xml: blocker is a file, not a folder",
                    Self.noneRun,
                ], "\(result)")
            #expect(result.stdout.isEmpty, "\(result)")
            #expect(entries(of: directory) == ["blocker", "out.json"])
            #expect(
                try String(contentsOf: directory.appendingPathComponent("out.json"), encoding: .utf8)
                    == "an earlier report\n")
            // A folder given for a report is the same mistake.
            try FileManager.default.createDirectory(
                at: directory.appendingPathComponent("reports"), withIntermediateDirectories: false)
            let folder = try await runJourney(
                ["test", Paths.journeys.appendingPathComponent("examples").path, "--junit", "reports"], cwd: directory)
            #expect(folder.status == Exit.invalid, "\(folder)")
            #expect(
                folder.stderrLines == [
                    "error: cannot write the JUnit report to reports: is a directory", Self.noneRun,
                ],
                "\(folder)")
            #expect(folder.stdout.isEmpty, "\(folder)")
        }
    }

    #if os(Linux)
    @Test(
        "a report in a folder that takes no new file says the folder is why, not that a file there is missing",
        .enabled(if: FileManager.default.fileExists(atPath: "/proc/version")))
    func reportInAFolderTakingNoFile() async throws {
        try await withTemporaryDirectory { directory in
            let result = try await runJourney(
                ["test", Paths.journeys.appendingPathComponent("examples").path, "--junit", "/proc/version"],
                cwd: directory)
            expectNoCrash(result)
            #expect(result.status == Exit.invalid, "\(result)")
            #expect(
                result.stderrLines == [
                    "error: cannot write the JUnit report to /proc/version: cannot create a new file in /proc, where it is written before it is renamed into place: No such file or directory",
                    Self.noneRun,
                ], "\(result)")
            #expect(result.stdout.isEmpty, "\(result)")
        }
    }

    @Test(
        "a report that cannot be written in full (a full device) stops the run before any other report is put in place: the user's earlier one is kept",
        .enabled(if: FileManager.default.fileExists(atPath: "/dev/full")))
    func reportOnAFullDevice() async throws {
        try await withTemporaryDirectory { directory in
            try writeText("an earlier report\n", to: directory.appendingPathComponent("out.xml"))
            for order in [
                ["--junit", "out.xml", "--json", "/dev/full"], ["--json", "/dev/full", "--junit", "out.xml"],
            ] {
                let result = try await runJourney(
                    ["test", Paths.journeys.appendingPathComponent("examples").path] + order, cwd: directory)
                expectNoCrash(result)
                #expect(result.status == Exit.invalid, "\(result)")
                #expect(
                    result.stderrLines == [
                        "error: cannot write the JSON report to /dev/full: No space left on device", Self.noneRun,
                    ], "\(result)")
                #expect(result.stdout.isEmpty, "\(result)")
                // Nothing of the run is left in the folder: no report of it, no temporary.
                #expect(entries(of: directory) == ["out.xml"])
                #expect(
                    try String(contentsOf: directory.appendingPathComponent("out.xml"), encoding: .utf8)
                        == "an earlier report\n")
            }
        }
    }
    #endif

    @Test("an output that would replace a file the run reads is refused before anything runs, and the file is kept")
    func outputOverAnInput() async throws {
        try await withTemporaryDirectory { directory in
            try copyShippedJourneys(into: directory)
            try writeText("journeys: [journeys]\n", to: directory.appendingPathComponent("journeykit.yaml"))
            let journey = "journeys/examples/unlock.journey.yaml"
            let scenario = "journeys/examples/scenarios/correct-pin.scenario.yaml"
            let golden = "journeys/examples/transcripts/correct-pin.jsonl"
            let other = "journeys/diia/login.journey.yaml"
            let sibling = "journeys/examples/scenarios/forgot-pin.scenario.yaml"
            let siblingGolden = "journeys/examples/transcripts/forgot-pin.txt"
            let cases: [([String], String)] = [
                (
                    ["test", "journeys/examples", "--junit", journey],
                    "--junit \(journey) is journey examples.unlock's file, which the suite reads: give another path"
                ),
                (
                    ["test", "journeys/examples", "--json", golden],
                    "--json \(golden) is a golden transcript, which the suite reads: give another path"
                ),
                (
                    ["test", "journeys/examples", "--json", "journeykit.yaml"],
                    "--json journeykit.yaml is the project file, which the suite reads: give another path"
                ),
                (
                    ["test", "journeys/examples", "--junit", "out/r.xml", "--json", "out/r.xml"],
                    "--junit and --json name the same file, out/r.xml: give each its own"
                ),
                (
                    ["run", "--scenario", scenario, "--transcript", "./\(scenario)"],
                    "--transcript ./\(scenario) is a scenario, which the run reads: give another path"
                ),
                // Files of the project's folders that the run or the suite does not play are
                // the project's all the same: another journey, and another scenario and its golden.
                (
                    ["run", "--scenario", scenario, "--transcript", other],
                    "--transcript \(other) is a file of the project, which the run reads: give another path"
                ),
                (
                    ["run", "--scenario", scenario, "--transcript", sibling],
                    "--transcript \(sibling) is a scenario, which the run reads: give another path"
                ),
                (
                    ["run", "--scenario", scenario, "--transcript", siblingGolden],
                    "--transcript \(siblingGolden) is a golden transcript, which the run reads: give another path"
                ),
                (
                    ["test", "journeys/examples", "--json", other],
                    "--json \(other) is a file of the project, which the suite reads: give another path"
                ),
            ]
            let kept = [journey, scenario, golden, "journeykit.yaml", other, sibling, siblingGolden]
            let before = try kept.map {
                try Data(contentsOf: directory.appendingPathComponent($0))
            }
            for (arguments, message) in cases {
                let result = try await runJourney(arguments, cwd: directory)
                expectNoCrash(result)
                #expect(result.status == Exit.invalid, "\(arguments): \(result)")
                #expect(result.stderr.contains("error: \(message)"), "\(arguments): \(result)")
                #expect(!result.stdout.contains("PASS"), "nothing ran: \(result)")
            }
            let after = try kept.map {
                try Data(contentsOf: directory.appendingPathComponent($0))
            }
            #expect(before == after)
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("out").path))
            // A link to a report not written yet names that report: the two are one file.
            try FileManager.default.createSymbolicLink(
                atPath: directory.appendingPathComponent("same.xml").path, withDestinationPath: "a.xml")
            let linked = try await runJourney(
                ["test", "journeys/examples", "--junit", "a.xml", "--json", "same.xml"], cwd: directory)
            #expect(linked.status == Exit.invalid, "\(linked)")
            #expect(
                linked.stderr.contains("error: --junit and --json name the same file, same.xml: give each its own"),
                "\(linked)")
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("a.xml").path))
        }
    }

    @Test("goldens no scenario plays any more (a scenario renamed) are warned of, once each; the suite still passes")
    func orphanGoldensAreNamed() async throws {
        try await withTemporaryDirectory { directory in
            try copyShippedJourneys(into: directory)
            try writeText("journeys: [journeys]\n", to: directory.appendingPathComponent("journeykit.yaml"))
            let transcripts = directory.appendingPathComponent("journeys/examples/transcripts")
            let scenarios = directory.appendingPathComponent("journeys/examples/scenarios")
            try FileManager.default.moveItem(
                at: scenarios.appendingPathComponent("forgot-pin.scenario.yaml"),
                to: scenarios.appendingPathComponent("forgot-the-pin.scenario.yaml"))
            try FileManager.default.copyItem(
                at: transcripts.appendingPathComponent("forgot-pin.txt"),
                to: transcripts.appendingPathComponent("forgot-the-pin.txt"))
            try FileManager.default.copyItem(
                at: transcripts.appendingPathComponent("forgot-pin.jsonl"),
                to: transcripts.appendingPathComponent("forgot-the-pin.jsonl"))
            let result = try await runJourney(["test", "journeys/examples"], cwd: directory)
            #expect(result.status == Exit.ok, "\(result)")
            let warnings = result.stderrLines.filter { $0.contains("[golden.orphan]") }
            #expect(
                warnings
                    == ["jsonl", "txt"].map {
                        "journeys/examples/transcripts/forgot-pin.\($0):1:1: warning: a golden transcript of no scenario: no scenarios/forgot-pin.scenario.yaml plays it (renamed or removed?); remove it, or give a scenario that name [golden.orphan]"
                    }, "\(result)")
            // Run on the one scenario, the others' goldens are still theirs.
            let one = try await runJourney(
                ["test", "journeys/examples/scenarios/correct-pin.scenario.yaml"], cwd: directory)
            #expect(one.stderrLines.filter { $0.contains("[golden.orphan]") }.count == 2, "\(one)")
        }
    }

    @Test("reports follow the --transcript rules: a link is written through and kept; stale temporaries go")
    func reportsThroughLinks() async throws {
        try await withTemporaryDirectory { directory in
            let reports = directory.appendingPathComponent("reports")
            let stale = ".junit.xml.journey-\(InterruptedWriteTests.deadPID).tmp"
            try writeText("partial\n", to: reports.appendingPathComponent(stale))
            try FileManager.default.createSymbolicLink(
                atPath: directory.appendingPathComponent("out.xml").path, withDestinationPath: "reports/junit.xml")
            let result = try await runJourney(
                ["test", Paths.journeys.appendingPathComponent("examples").path, "--junit", "out.xml"], cwd: directory)
            #expect(result.status == Exit.ok, "\(result)")
            #expect(
                (try? FileManager.default.destinationOfSymbolicLink(
                    atPath: directory.appendingPathComponent("out.xml").path)) == "reports/junit.xml")
            let xml = try String(contentsOf: reports.appendingPathComponent("junit.xml"), encoding: .utf8)
            #expect(xml.contains("<testsuites name=\"journey test\" tests=\"\(Self.examples)\""), "\(xml.prefix(300))")
            #expect(entries(of: reports) == ["junit.xml"])
        }
    }

    @Test(
        "a report written to standard output or a FIFO is one whole document, written once at the end; what the run says goes to standard error then"
    )
    func reportsToStreams() async throws {
        let examples = Paths.journeys.appendingPathComponent("examples").path
        let json = try await runJourney(["test", examples, "--json", "/dev/stdout"])
        #expect(json.status == Exit.ok, "\(json)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: json.stdoutData) as? [String: Any], "\(json.stdout.prefix(300))")
        #expect(report["state"] as? String == "finished")
        #expect(json.stderr.hasSuffix("\(Self.examples) passed, 0 failed\n"), "\(json.stderr)")
        try await withTemporaryDirectory { directory in
            let fifo = directory.appendingPathComponent("junit.fifo").path
            let reader = TranscriptPathTests.fifoWithReader(at: fifo)
            #expect(reader >= 0)
            defer { close(reader) }
            let result = try await runJourney(["test", examples, "--junit", fifo], cwd: directory)
            #expect(result.status == Exit.ok, "\(result)")
            let xml = TranscriptPathTests.drain(reader)
            let text = String(decoding: xml, as: UTF8.self)
            #expect(text.components(separatedBy: "<?xml").count == 2, "\(text.prefix(300))")
            #expect(!text.contains("journey test is running"), "\(text.prefix(300))")
            _ = try XMLDocument(data: xml)
            #expect(result.stdout.hasSuffix("\(Self.examples) passed, 0 failed\n"), "\(result.stdout)")
        }
    }

    @Test("--shard 1/3, 2/3 and 3/3 together run every scenario exactly once")
    func shardsPartitionTheSuite() async throws {
        var names: [String] = []
        for index in 1...3 {
            let result = try await runJourney(["test", "journeys", "--shard", "\(index)/3"], cwd: Paths.root)
            #expect(result.status == Exit.ok, "\(result)")
            names += result.stdoutLines.filter { $0.hasPrefix("PASS ") }.map { String($0.split(separator: " (")[0]) }
        }
        #expect(names.count == Self.scenarioCount())
        #expect(Set(names).count == names.count, "no scenario ran twice")
    }

    @Test("--jobs 4 and --jobs 1 give the same output and reports, apart from timings")
    func jobsDoNotChangeResults() async throws {
        try await withTemporaryDirectory { directory in
            var outputs: [String] = []
            var reports: [String] = []
            for jobs in ["1", "4"] {
                let junit = directory.appendingPathComponent("junit-\(jobs).xml").path
                let result = try await runJourney(
                    ["test", "journeys", "--jobs", jobs, "--junit", junit], cwd: Paths.root)
                #expect(result.status == Exit.ok)
                outputs.append(
                    result.stdout.replacingOccurrences(of: #"\(\d+ ms\)"#, with: "", options: .regularExpression))
                reports.append(
                    try String(contentsOfFile: junit, encoding: .utf8).replacingOccurrences(
                        of: #"time="[0-9.]+""#, with: "", options: .regularExpression))
            }
            #expect(outputs[0] == outputs[1])
            #expect(reports[0] == reports[1])
        }
    }

    @Test(
        "bad --shard, --jobs and --repeat values are usage errors",
        arguments: [
            ["--shard", "4/3"], ["--shard", "0/3"], ["--shard", "x"], ["--jobs", "0"], ["--repeat", "0"],
        ])
    func badOptions(arguments: [String]) async throws {
        let result = try await runJourney(["test", "journeys"] + arguments, cwd: Paths.root)
        #expect(result.status == Exit.invalid, "\(result)")
    }

    @Test("a negative --timeout is refused with the rule of a duration, by journey test and journey run")
    func negativeTimeout() async throws {
        for command in [
            ["test", "journeys/examples"],
            ["run", "--scenario", "journeys/examples/scenarios/correct-pin.scenario.yaml"],
        ] {
            let result = try await runJourney(command + ["--timeout", "-5m"], cwd: Paths.root)
            #expect(result.status == Exit.invalid, "\(command): \(result)")
            #expect(result.stderr.contains("--timeout takes "), "\(command): \(result)")
            #expect(result.stderr.contains("found '-5m'"), "\(command): \(result)")
        }
        let folders = try await runJourney(
            ["run", "--scenario", "journeys/examples/scenarios/correct-pin.scenario.yaml", "--journeys", "README.md"],
            cwd: Paths.root)
        #expect(folders.status == Exit.invalid, "\(folders)")
        #expect(folders.stderr.contains("--journeys README.md is not a folder"), "\(folders)")
    }

    @Test("a --filter or --tag that chooses no scenario is a usage error, not a suite that passed")
    func filterChoosesNothing() async throws {
        for (arguments, says) in [
            (["--filter", "zzznomatch"], "error: --filter 'zzznomatch' chooses none of the"),
            (["--tag", "no-such-tag"], "error: --tag 'no-such-tag' chooses none of the"),
            // Misspelt, what was meant is said: the closest tag, or journey or scenario id.
            (
                ["--tag", "ofline"],
                "error: --tag 'ofline' chooses none of the 29 scenarios found; did you mean --tag 'offline'?\n"
            ),
            (
                ["--filter", "examples.unlok"],
                "error: --filter 'examples.unlok' chooses none of the 29 scenarios found; did you mean --filter 'examples.unlock'?\n"
            ),
            (
                ["--filter", "corect-pin", "--tag", "ofline"],
                "error: --filter 'corect-pin' and --tag 'ofline' choose none of the 29 scenarios found; did you mean --filter 'correct-pin' and --tag 'offline'?\n"
            ),
            // Each given exists, and only together do they choose none: nothing to suggest.
            (
                ["--filter", "correct-pin", "--tag", "offline"],
                "error: --filter 'correct-pin' and --tag 'offline' choose none of the 29 scenarios found\n"
            ),
        ] {
            let result = try await runJourney(["test", "journeys/examples"] + arguments, cwd: Paths.root)
            #expect(result.status == Exit.invalid, "\(arguments): \(result)")
            #expect(result.stderr.contains(says), "\(arguments): \(result)")
            #expect(!result.stdout.contains("0 passed"), "\(result)")
        }
        // An empty shard is no mistake, but is said.
        let shard = try await runJourney(
            ["test", "journeys/examples", "--filter", "correct-pin", "--shard", "3/3"], cwd: Paths.root)
        #expect(shard.status == Exit.ok, "\(shard)")
        #expect(shard.stderr.contains("note: shard 3/3 holds none of the 1 scenario chosen\n"), "\(shard)")
    }

    @Test("--repeat runs every scenario several times and passes when they agree")
    func repeatPasses() async throws {
        let result = try await runJourney(["test", "journeys/examples", "--repeat", "3"], cwd: Paths.root)
        let count = files(under: Paths.journeys.appendingPathComponent("examples"), endingWith: ".scenario.yaml").count
        #expect(result.status == Exit.ok, "\(result)")
        #expect(result.stdoutLines.last == "\(count) passed, 0 failed")
    }

    @Test("--tag selects tagged scenarios")
    func tags() async throws {
        let result = try await runJourney(["test", "journeys", "--tag", "D5", "--tag", "D8"], cwd: Paths.root)
        #expect(result.status == Exit.ok)
        #expect(result.stdoutLines.last == "3 passed, 0 failed", "\(result.stdout)")
    }
}
