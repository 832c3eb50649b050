import Foundation
import Testing

/// `journey run --scenario X` and `journey check FILE` load what that file reaches, not every
/// journey of the project: a broken journey elsewhere changes nothing for them, one they call
/// is reported where it is, and a stored key another journey of the project declares secret
/// is still never shown.
@Suite("A run or a check of one file inside a larger project", .timeLimit(.minutes(30)))
struct LazyProjectTests {
    static let main = """
        journey: app.main
        version: 1
        title: Main
        stored:
          token: { type: string, default: "" }
        start: sub
        steps:
          sub:
            call: app.sub
            on: { done: decide }
          decide:
            handler: flow.decide
            on: { next: done }
        ends:
          done: { kind: success }

        """

    static let sub = """
        journey: app.sub
        version: 1
        title: Sub
        start: decide
        steps:
          decide:
            handler: flow.decide
            on: { next: done }
        ends:
          done: { kind: success }

        """

    /// Never reached from app.main: declares the key app.main declares not secret, secret.
    static let declares = """
        journey: other.declares
        version: 1
        title: Declares
        stored:
          token: { type: string, secret: true, default: "" }
        start: decide
        steps:
          decide:
            handler: flow.decide
            on: { next: done }
        ends:
          done: { kind: success }

        """

    static let unparseable = "journey: other.broken\nversion: 1\ntitle: \"unclosed\nstart: a\n"

    static let scenario = """
        scenario: s
        journey: app.main
        device: { store: { token: user-token-4711 } }
        script: []
        expect: { end: done }

        """

    static let scenarioPath = "journeys/app/scenarios/s.scenario.yaml"

    /// A project with app.main (calling app.sub) and its scenario, and beside them a journey
    /// declaring `token` secret and one that does not parse, neither reached.
    static func project(in directory: URL, sub: String = Self.sub) throws {
        let files = [
            "journeykit.yaml": "journeys: [journeys]\n",
            "journeys/app/main.journey.yaml": main,
            "journeys/app/sub.journey.yaml": sub,
            scenarioPath: scenario,
            "journeys/other/declares.journey.yaml": declares,
            "journeys/other/broken.journey.yaml": unparseable,
        ]
        for (path, text) in files { try writeText(text, to: directory.appendingPathComponent(path)) }
    }

    @Test("a journey elsewhere that does not parse changes nothing for `journey run`; a key secret elsewhere is hidden")
    func runIgnoresTheRestButKeepsItsSecrets() async throws {
        try await withTemporaryDirectory { directory in
            try Self.project(in: directory)
            for format in ["text", "jsonl"] {
                let run = try await runJourney(
                    ["run", "--scenario", Self.scenarioPath, "--format", format], cwd: directory)
                expectNoCrash(run)
                #expect(run.status == Exit.ok, "\(run)")
                #expect(!run.output.contains("broken"), "\(run)")
                #expect(!run.output.contains("4711"), "the secret stored value leaked: \(run)")
                #expect(run.stdout.contains("•••"), "\(run)")
            }
            let text = try await runJourney(["run", "--scenario", Self.scenarioPath], cwd: directory)
            #expect(text.stdout.contains("# store: {token: •••}"), "\(text)")
        }
    }

    @Test("`journey check FILE` reports FILE and what it reaches; with no path it still checks every journey")
    func checkOneFile() async throws {
        try await withTemporaryDirectory { directory in
            try Self.project(in: directory)
            for file in ["journeys/app/main.journey.yaml", Self.scenarioPath] {
                let check = try await runJourney(["check", file], cwd: directory)
                #expect(check.status == Exit.ok, "\(check)")
                #expect(check.diagnostics.isEmpty, "\(check)")
                #expect(check.stderr.contains(": 0 errors, 0 warnings"), "\(check)")
            }
            for arguments in [["check"], ["check", "journeys"]] {
                let all = try await runJourney(arguments, cwd: directory)
                #expect(all.status == Exit.invalid, "\(all)")
                #expect(
                    all.diagnostics.map(\.path) == ["journeys/other/broken.journey.yaml"],
                    "\(arguments): \(all)")
            }
        }
    }

    @Test("a copy given from outside the project's folders is reported at the copy, however its path is spelt")
    func duplicateAtTheCopy() async throws {
        try await withTemporaryDirectory { directory in
            try Self.project(in: directory)
            let copy = directory.appendingPathComponent("scratch/main.journey.yaml")
            try writeText(Self.main, to: copy)
            for spelt in ["scratch/main.journey.yaml", copy.path] {
                let check = try await runJourney(["check", spelt], cwd: directory)
                expectNoCrash(check)
                #expect(check.status == Exit.invalid, "\(check)")
                #expect(
                    check.diagnostics.filter { $0.id == "id.duplicate" }.map { "\($0.path) \($0.message)" } == [
                        "\(spelt) journey id 'app.main' is already used by journeys/app/main.journey.yaml:1"
                    ], "\(check)")
            }
        }
    }

    @Test("a journey id declared by a second file is an error for run, check and test alike, never a silent choice")
    func duplicateIdElsewhere() async throws {
        try await withTemporaryDirectory { directory in
            try Self.project(in: directory)
            // Sorts before main.journey.yaml: the file a lookup by id would find first.
            try writeText(Self.sub, to: directory.appendingPathComponent("journeys/app/a-copy.journey.yaml"))
            try writeText(
                Self.main.replacingOccurrences(
                    of: "decide:\n    handler", with: "decide:\n    note: copy\n    handler"),
                to: directory.appendingPathComponent("journeys/app/copy.journey.yaml"))
            let run = try await runJourney(["run", "--scenario", Self.scenarioPath], cwd: directory)
            let checkFile = try await runJourney(["check", "journeys/app/main.journey.yaml"], cwd: directory)
            let checkScenario = try await runJourney(["check", Self.scenarioPath], cwd: directory)
            for result in [run, checkFile, checkScenario] {
                expectNoCrash(result)
                #expect(result.status == Exit.invalid, "\(result)")
                let duplicates = result.diagnostics.filter { $0.id == "id.duplicate" }
                #expect(
                    duplicates.contains {
                        $0.path == "journeys/app/main.journey.yaml"
                            && $0.message.contains("'app.main' is already used by journeys/app/copy.journey.yaml:1")
                    }, "\(result)")
            }
            #expect(!run.stdout.contains("■ end"), "nothing is run: \(run)")
            // app.sub, which app.main calls, is declared twice too.
            #expect(
                checkFile.stderr.contains(
                    "sub.journey.yaml:1:10: error: journey id 'app.sub' is already used by journeys/app/a-copy.journey.yaml:1"
                ),
                "\(checkFile)")
            let test = try await runJourney(["test", "journeys/app"], cwd: directory)
            #expect(test.status == Exit.invalid, "\(test)")
            #expect(test.stdout.contains("ERROR app.main › s: cannot run"), "\(test)")
        }
    }

    @Test("a journey that does not parse and is called is reported at its own file by run and by check")
    func brokenCalledJourney() async throws {
        try await withTemporaryDirectory { directory in
            try Self.project(
                in: directory, sub: Self.unparseable.replacingOccurrences(of: "other.broken", with: "app.sub"))
            let run = try await runJourney(["run", "--scenario", Self.scenarioPath], cwd: directory)
            let check = try await runJourney(["check", "journeys/app/main.journey.yaml"], cwd: directory)
            for result in [run, check] {
                expectNoCrash(result)
                #expect(result.status == Exit.invalid, "\(result)")
                let errors = result.diagnostics.filter { $0.severity == "error" }
                #expect(errors.map(\.path) == ["journeys/app/sub.journey.yaml"], "\(result)")
                #expect(!result.output.contains("other/broken"), "\(result)")
            }
        }
    }

    @Test("`journey bench` times its whole-process run in a folder of its own, not in the project it is started from")
    func benchRunsInItsOwnFolder() async throws {
        try await withTemporaryDirectory { directory in
            // A project file that `journey run` would refuse, were it started here.
            try "journeys: [missing-folder\n".write(
                to: directory.appendingPathComponent("journeykit.yaml"), atomically: true, encoding: .utf8)
            let here = try await runJourney(["check"], cwd: directory)
            #expect(here.status != Exit.ok, "\(here)")
            let bench = try await runJourney(
                [
                    "bench", "--scenarios", "100", "--load-megabytes", "1", "--process-runs", "1",
                    "--project-journeys", "0", "--external-steps", "0", "--json",
                ], cwd: directory, timeout: 120)
            #expect(bench.status == Exit.ok, "\(bench)")
            let json = try JSONSerialization.jsonObject(with: bench.stdoutData) as? [String: String]
            #expect(json?["journey run, whole process"]?.hasSuffix(" ms median of 1 run") == true, "\(bench)")
        }
    }

    @Test("`journey bench --project-folder` fills only a new or empty folder, and says so before it measures anything")
    func benchProjectFolderIsNew() async throws {
        try await withTemporaryDirectory { directory in
            let mine = directory.appendingPathComponent("mine/project/journeykit.yaml")
            try FileManager.default.createDirectory(
                at: mine.deletingLastPathComponent(), withIntermediateDirectories: true)
            try writeText("journeys: [mine]\n", to: mine)
            let file = directory.appendingPathComponent("afile")
            try writeText("notes\n", to: file)
            let cases = [
                (["--project-folder", "mine"], "Error: --project-folder mine is not empty"),
                (["--project-folder", "afile"], "Error: --project-folder afile is a file"),
                (["--peers", "peers"], "Error: --peers and --python go with --explore"),
                (["--scenarios", "99999999"], "Error: --scenarios must be from 100 to 10000000"),
            ]
            for (options, said) in cases {
                let bench = try await runJourney(["bench", "--external-steps", "0"] + options, cwd: directory)
                #expect(bench.status == Exit.invalid, "\(options): \(bench)")
                #expect(bench.stderr.contains(said), "\(options): \(bench)")
                #expect(bench.stdout.isEmpty, "nothing is measured: \(bench)")
            }
            #expect(try String(contentsOf: mine, encoding: .utf8) == "journeys: [mine]\n")
            #expect(try String(contentsOf: file, encoding: .utf8) == "notes\n")
        }
    }

    @Test("`journey bench` times a run inside a generated project against the same run alone, and can keep both")
    func benchProject() async throws {
        try await withTemporaryDirectory { directory in
            let bench = try await runJourney(
                [
                    "bench", "--scenarios", "100", "--load-megabytes", "1", "--process-runs", "1",
                    "--project-journeys", "20", "--external-steps", "0", "--project-folder", directory.path, "--json",
                ], timeout: 120)
            #expect(bench.status == Exit.ok, "\(bench)")
            let json = try JSONSerialization.jsonObject(with: bench.stdoutData) as? [String: String]
            let line = json?["journey run in a 20-journey project"] ?? ""
            #expect(line.contains("ms inside") && line.contains("ms alone") && line.contains("×"), "\(bench)")
            let project = directory.appendingPathComponent("project")
            let alone = directory.appendingPathComponent("alone")
            let all = try await runJourney(["check"], cwd: project)
            #expect(all.stderr.contains("checked 20 journeys and 2 scenarios: 0 errors, 0 warnings"), "\(all)")
            let reached = try await runJourney(["check"], cwd: alone)
            #expect(reached.stderr.contains("checked 3 journeys and 1 scenario: 0 errors, 0 warnings"), "\(reached)")
            let scenario = "journeys/area-000/scenarios/three-flows.scenario.yaml"
            for folder in [project, alone] {
                let run = try await runJourney(["run", "--scenario", scenario], cwd: folder)
                #expect(run.status == Exit.ok, "\(run)")
                #expect(run.stdout.contains("stored.area000Failures"), "the run writes the key its area shares")
            }
        }
    }
}
