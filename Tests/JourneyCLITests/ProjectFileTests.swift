import Foundation
import Testing

/// A project file (`journeykit.yaml`), found from the working folder up, tells every command
/// where the project's journeys are, which other journeys they may call, and the defaults a
/// scenario falls back to.
@Suite("The project file", .timeLimit(.minutes(30)))
struct ProjectFileTests {
    /// A team's own folder holding a copy of Diia's resume journey (renamed `team.resume`),
    /// which calls the shipped `diia.pin-enter`, and a scenario of it with no locale and no
    /// `kdfRounds`. Returns the team's folder.
    static func teamProject(in directory: URL, projectFile: String?) throws -> URL {
        let team = directory.appendingPathComponent("team")
        let flows = team.appendingPathComponent("flows")
        let journey = try String(
            contentsOf: Paths.journeys.appendingPathComponent("diia/resume.journey.yaml"), encoding: .utf8)
        try writeText(
            journey.replacingOccurrences(of: "journey: diia.resume", with: "journey: team.resume"),
            to: flows.appendingPathComponent("resume.journey.yaml"))
        let scenario = try String(
            contentsOf: Paths.journeys.appendingPathComponent("diia/scenarios/d11-back-after-300s.scenario.yaml"),
            encoding: .utf8)
        try writeText(
            scenario.replacingOccurrences(of: "journey: diia.resume", with: "journey: team.resume")
                .replacingOccurrences(of: "  kdfRounds: 1000\n", with: ""),
            to: flows.appendingPathComponent("scenarios/back-after-300s.scenario.yaml"))
        try FileManager.default.createDirectory(
            at: team.appendingPathComponent("docs/deep"), withIntermediateDirectories: true)
        if let projectFile { try writeText(projectFile, to: team.appendingPathComponent("journeykit.yaml")) }
        return team
    }

    static var usesShippedDiia: String {
        "journeys: [flows]\nuses: [\(Paths.journeys.appendingPathComponent("diia").path)]\n"
    }

    @Test("a journey folder copied elsewhere calls the shipped diia.pin-enter through the project file")
    func callsResolveThroughTheProject() async throws {
        try await withTemporaryDirectory { directory in
            let team = try Self.teamProject(in: directory, projectFile: nil)
            let alone = try await runJourney(["check", "flows"], cwd: team)
            #expect(alone.status == Exit.invalid, "\(alone)")
            #expect(
                alone.diagnostics.contains {
                    $0.id == "journey.unknown" && $0.path == "flows/resume.journey.yaml" && $0.line == 44
                }, "\(alone)")

            try writeText(Self.usesShippedDiia, to: team.appendingPathComponent("journeykit.yaml"))
            let check = try await runJourney(["check", "flows"], cwd: team)
            #expect(check.status == Exit.ok, "\(check)")
            // The journeys called from the project file's `uses:` are checked too, and counted.
            #expect(
                check.stderr.contains("checked 1 journey and 1 scenario, with 3 journeys they play or call: 0 errors"),
                "\(check)")
            let scenario = try await runJourney(["check", "flows/scenarios/back-after-300s.scenario.yaml"], cwd: team)
            #expect(
                scenario.stderr.contains(
                    "checked 0 journeys and 1 scenario, with 4 journeys they play or call: 0 errors, 0 warnings"),
                "\(scenario)")
        }
    }

    @Test("found from a folder below the project's root, it gives check, test and docs their paths")
    func everyCommandFromBelowTheRoot() async throws {
        try await withTemporaryDirectory { directory in
            let team = try Self.teamProject(in: directory, projectFile: Self.usesShippedDiia)
            let below = team.appendingPathComponent("docs/deep")

            let check = try await runJourney(["check"], cwd: below)
            #expect(check.status == Exit.ok, "\(check)")
            #expect(check.stderr.contains("checked 1 journey and 1 scenario"), "only the project's own: \(check)")

            let record = try await runJourney(["test", "--update"], cwd: below)
            #expect(record.status == Exit.ok, "\(record)")
            // Only the project's scenario runs: the used journeys' scenarios are not its own,
            // and their goldens are never recorded from here.
            #expect(record.stdoutLines.last == "1 passed, 0 failed", "\(record)")
            #expect(record.stdout.contains("PASS team.resume › d11-back-after-300s"), "\(record)")
            let golden = team.appendingPathComponent("flows/transcripts/back-after-300s.txt")
            #expect(FileManager.default.fileExists(atPath: golden.path))

            let test = try await runJourney(["test"], cwd: below)
            #expect(test.status == Exit.ok, "\(test)")
            #expect(test.stdoutLines.last == "1 passed, 0 failed", "\(test)")

            let docs = try await runJourney(["docs", "--out", "site"], cwd: below)
            #expect(docs.status == Exit.ok, "\(docs)")
            // The project's journey, and the used ones it calls (its pages link to them), only.
            let pages = entries(of: below.appendingPathComponent("site"))
            #expect(pages.contains("team.resume.md") && pages.contains("diia.pin-enter.md"), "\(pages)")
            #expect(!pages.contains("diia.login.md") && !pages.contains("diia.resume.md"), "\(pages)")

            let run = try await runJourney(
                ["run", "--scenario", "../../flows/scenarios/back-after-300s.scenario.yaml"], cwd: below)
            #expect(run.status == Exit.ok, "\(run)")
            #expect(run.stdout.contains("↲ return from diia.pin-enter: unlocked (success)"), "\(run)")
        }
    }

    @Test("defaults: the project's locale and kdfRounds apply where the scenario says nothing; --locale still wins")
    func defaults() async throws {
        try await withTemporaryDirectory { directory in
            let team = try Self.teamProject(
                in: directory,
                projectFile: Self.usesShippedDiia + "defaults:\n  locale: en\n  kdfRounds: 2000\n  jobs: 1\n")
            let scenario = "flows/scenarios/back-after-300s.scenario.yaml"
            let run = try await runJourney(["run", "--scenario", scenario], cwd: team)
            #expect(run.status == Exit.ok, "\(run)")
            #expect(run.stdoutLines.first?.hasSuffix("· locale en") == true, "\(run)")
            #expect(run.stdout.contains("# settings: {kdfRounds: 2000}"), "\(run)")

            let uk = try await runJourney(["run", "--scenario", scenario, "--locale", "uk"], cwd: team)
            #expect(uk.stdoutLines.first?.hasSuffix("· locale uk") == true, "\(uk)")

            // Without the defaults, the journey's own default locale (uk) and no settings line.
            try writeText(Self.usesShippedDiia, to: team.appendingPathComponent("journeykit.yaml"))
            let plain = try await runJourney(["run", "--scenario", scenario], cwd: team)
            #expect(plain.stdoutLines.first?.hasSuffix("· locale uk") == true, "\(plain)")
            #expect(!plain.stdout.contains("# settings:"), "\(plain)")

            // A default locale the journey has no texts in: runs show the journey's default, and
            // journey check says so where the locale is written.
            try writeText(
                Self.usesShippedDiia + "defaults:\n  locale: zz\n", to: team.appendingPathComponent("journeykit.yaml"))
            let zz = try await runJourney(["run", "--scenario", scenario], cwd: team)
            #expect(zz.status == Exit.ok && zz.stdoutLines.first?.hasSuffix("· locale uk") == true, "\(zz)")
            let check = try await runJourney(["check"], cwd: team)
            #expect(check.status == Exit.ok, "\(check)")
            #expect(
                check.stderr.contains(
                    "journeykit.yaml:4:11: warning: defaults.locale 'zz': none of the journeys checked has texts in it, so each shows its default's (they have "
                ), "\(check)")
            let strict = try await runJourney(["check", "--strict"], cwd: team)
            #expect(strict.status == Exit.invalid, "\(strict)")
        }
    }

    @Test("checking the project's root folder checks its project file as a project file, and one inside as well")
    func projectFilesAmongTheCheckedFiles() async throws {
        try await withTemporaryDirectory { directory in
            let team = try Self.teamProject(in: directory, projectFile: Self.usesShippedDiia)
            let clean = try await runJourney(["check", "."], cwd: team)
            #expect(clean.status == Exit.ok, "\(clean)")
            #expect(!clean.stdout.contains("file.kind") && !clean.stderr.contains("file.kind"), "\(clean)")
            // A project kept inside the checked folder: its file's own mistakes are reported.
            try writeText(
                "journeys: [.]\ndefaults: { kdfRound: 10 }\n",
                to: team.appendingPathComponent("flows/vendored/journeykit.yaml"))
            let nested = try await runJourney(["check", "."], cwd: team)
            #expect(nested.status == Exit.invalid, "\(nested)")
            #expect(
                nested.errors("key.unknown").map(\.path) == ["flows/vendored/journeykit.yaml"], "\(nested)")
        }
    }

    @Test("an empty project file marks the root and keeps every default")
    func emptyProjectFile() async throws {
        try await withTemporaryDirectory { directory in
            try copyShippedJourneys(into: directory)
            try writeText("# the project's root\n", to: directory.appendingPathComponent("journeykit.yaml"))
            let below = directory.appendingPathComponent("journeys/examples/scenarios")
            let check = try await runJourney(["check"], cwd: below)
            #expect(check.status == Exit.ok, "\(check)")
            #expect(check.stderr.contains("scenarios: 0 errors, 0 warnings"), "\(check)")
        }
    }

    @Test(
        "a project file's problems stop every command with exit 2, each at its line and column",
        arguments: [["check"], ["test"], ["docs", "--out", "site"], ["run", "--scenario", "x.scenario.yaml"]])
    func problems(arguments: [String]) async throws {
        try await withTemporaryDirectory { directory in
            try writeText(
                """
                journeys: [flows]
                use: [x]
                defaults:
                  locale: "e n"
                  jobs: 0
                  kdfRounds: 600001
                handlers:
                  ui.screen: { command: [python3, x.py], outcomes: { ok: {} } }

                """, to: directory.appendingPathComponent("journeykit.yaml"))
            let result = try await runJourney(arguments, cwd: directory)
            expectNoCrash(result)
            #expect(result.status == Exit.invalid, "\(result)")
            // Every problem at once: the file's own, and those of the folders and handler ids
            // it names (`use:` read as the `uses:` it most likely means).
            let found = result.diagnostics.map { "\($0.line):\($0.column) \($0.id)" }
            #expect(
                found == [
                    "1:12 project.folder", "2:1 key.unknown", "2:7 project.folder", "4:11 value.type",
                    "5:9 value.range",
                    "6:14 value.range", "8:3 project.handler",
                ], "\(result)")
            #expect(result.diagnostics.allSatisfy { $0.path == "journeykit.yaml" })
            #expect(result.stderr.contains("did you mean 'uses'?"), "\(result)")
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("site").path))
        }
    }

    @Test("a default written at the top of the project file says it goes under defaults:")
    func defaultAtTheTop() async throws {
        try await withTemporaryDirectory { directory in
            try writeText(
                "journeys: [journeys]\nlocale: en\nexplore: { depth: 10 }\nkdfrounds: 3\njourney: [x]\n",
                to: directory.appendingPathComponent("journeykit.yaml"))
            try copyShippedJourneys(into: directory)
            let result = try await runJourney(["check"], cwd: directory)
            expectNoCrash(result)
            #expect(result.status == Exit.invalid, "\(result)")
            #expect(
                result.stderrLines == [
                    "journeykit.yaml:2:1: error: unknown key 'locale' in a project file; it goes under 'defaults:' (defaults.locale) [key.unknown]",
                    "journeykit.yaml:3:1: error: unknown key 'explore' in a project file; it goes under 'defaults:' (defaults.explore) [key.unknown]",
                    "journeykit.yaml:4:1: error: unknown key 'kdfrounds' in a project file; did you mean 'defaults.kdfRounds'? [key.unknown]",
                    "journeykit.yaml:5:1: error: unknown key 'journey' in a project file; did you mean 'journeys'? [key.unknown]",
                ], "\(result)")
        }
    }

    @Test("a folder the project file names must exist; broken YAML is located")
    func missingFolderAndBrokenYAML() async throws {
        try await withTemporaryDirectory { directory in
            try writeText(
                "journeys: [journeys]\nuses: [../nowhere]\n", to: directory.appendingPathComponent("journeykit.yaml"))
            try copyShippedJourneys(into: directory)
            let below = directory.appendingPathComponent("journeys")
            let missing = try await runJourney(["check"], cwd: below)
            #expect(missing.status == Exit.invalid, "\(missing)")
            #expect(
                missing.diagnostics.map { "\($0.path):\($0.line):\($0.column) \($0.id)" }
                    == ["../journeykit.yaml:2:8 project.folder"], "\(missing)")

            try writeText("journeys: [journeys\n", to: directory.appendingPathComponent("journeykit.yaml"))
            let broken = try await runJourney(["check"], cwd: below)
            #expect(broken.status == Exit.invalid, "\(broken)")
            #expect(broken.diagnostics.first?.id == "yaml.syntax", "\(broken)")
        }
    }
}
