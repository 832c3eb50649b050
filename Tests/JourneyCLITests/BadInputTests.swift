import Foundation
import Testing

/// A row of Tests/Fixtures/bad/expected.tsv, with the position its README gives.
struct BadFixture: Sendable, CustomTestStringConvertible {
    var file: String
    var id: String

    var url: URL { Paths.badFixtures.appendingPathComponent(file) }
    var testDescription: String { "\(file) → [\(id)]" }

    /// The rows of expected.tsv after its `file<TAB>id` header. Empty when the table is
    /// missing; `tableIsComplete` fails in that case, so nothing passes by having no rows.
    static let all: [BadFixture] = {
        guard
            let text = try? String(
                contentsOf: Paths.badFixtures.appendingPathComponent("expected.tsv"), encoding: .utf8)
        else { return [] }
        return RunResult.lines(text).dropFirst().compactMap { row in
            let columns = row.split(separator: "\t").map { $0.trimmingCharacters(in: .whitespaces) }
            guard columns.count == 2, !columns[0].isEmpty else { return nil }
            return BadFixture(file: columns[0], id: columns[1])
        }
    }()

    /// `file → "line:column"` from the README table's "where" column (its first `L:C`).
    static let readmePositions: [String: String] = {
        guard let text = try? String(contentsOf: Paths.badFixtures.appendingPathComponent("README.md"), encoding: .utf8)
        else { return [:] }
        var result: [String: String] = [:]
        for line in RunResult.lines(text) where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count >= 7, let name = cells[1].wholeMatch(of: #/`([^`]+)`/#)?.1 else { continue }
            if let position = cells[cells.count - 2].firstMatch(of: #/(\d+):(\d+)/#) {
                result[String(name)] = "\(position.1):\(position.2)"
            }
        }
        return result
    }()

    /// Fixtures whose exact position the README does not promise ("a guide, not a contract:
    /// for the depth and syntax errors the exact position depends on where the loader notices").
    static let positionIsAGuide: Set<String> = ["yaml.too-deep", "yaml.syntax"]

    static var withExactPositions: [BadFixture] { all.filter { !positionIsAGuide.contains($0.id) } }
}

/// Runs `journey check` on a single file copied alone into a fresh folder, so that the exit
/// code can only come from that file (the CLI may read nearby files for sub-journeys).
func checkAlone(_ name: String, contents: (URL) throws -> Void) async throws -> (result: RunResult, path: String) {
    try await withTemporaryDirectory { directory in
        let file = directory.appendingPathComponent(name)
        try contents(file)
        let result = try await runJourney(["check", file.path], cwd: directory)
        return (result, file.path)
    }
}

@Suite("Bad input: journey check rejects it cleanly", .timeLimit(.minutes(30)))
struct BadInputTests {
    @Test("expected.tsv lists every fixture in the folder, and only those")
    func tableIsComplete() throws {
        let listed = Set(BadFixture.all.map(\.file))
        let present = Set(entries(of: Paths.badFixtures).filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") })
        #expect(BadFixture.all.count >= 20, "expected.tsv should list the bad-input corpus")
        #expect(
            listed == present,
            "listed but missing: \(listed.subtracting(present)); present but unlisted: \(present.subtracting(listed))")
        #expect(BadFixture.all.allSatisfy { $0.id.contains(".") && !$0.id.contains(" ") })
    }

    @Test("each fixture: exit 2, its id at a file:line:column, no crash", arguments: BadFixture.all)
    func fixtureIsRejected(_ fixture: BadFixture) async throws {
        let (result, path) = try await checkAlone(fixture.file) { target in
            try FileManager.default.copyItem(at: fixture.url, to: target)
        }
        expectNoCrash(result)
        #expect(result.status == Exit.invalid, "\(result)")
        let mine = result.diagnostics.filter { $0.path == path && $0.severity == "error" }
        #expect(
            mine.contains { $0.id == fixture.id },
            "no `\(path):L:C: error: … [\(fixture.id)]` line in:\n\(result.stderr)")
        #expect(mine.allSatisfy { $0.line >= 1 && $0.column >= 1 })
        // Nothing may execute: an unsafe loader would run `echo pwned-by-journey-file`.
        #expect(!result.stdout.contains("pwned-by-journey-file"))
        // Every problem is a located diagnostic, plus the summary line.
        let stray = result.stderrLines.filter { DiagnosticLine($0) == nil && !$0.hasPrefix("checked ") }
        #expect(stray.isEmpty, "unexpected stderr lines: \(stray)")
    }

    @Test(
        "the loader reports the position the README gives",
        arguments: BadFixture.withExactPositions)
    func positionMatchesReadme(_ fixture: BadFixture) async throws {
        let expected = try #require(
            BadFixture.readmePositions[fixture.file], "README.md gives no line:column for \(fixture.file)")
        let (result, path) = try await checkAlone(fixture.file) { target in
            try FileManager.default.copyItem(at: fixture.url, to: target)
        }
        let positions = result.errors(fixture.id).filter { $0.path == path }.map(\.position)
        if fixture.file == "duplicate-key.yaml" {
            #expect(positions.contains(expected), "README says \(expected), the loader printed \(positions)")
        } else {
            #expect(
                positions.contains(expected),
                "README says \(expected), the loader printed \(positions)\n\(result.stderr)")
        }
    }

    @Test("the three positions the README calls out, checked against the fixture text")
    func positionsAgainstFixtureText() async throws {
        // tabs.yaml: the first tab is the first character of line 7.
        let tabs = try String(contentsOf: Paths.badFixtures.appendingPathComponent("tabs.yaml"), encoding: .utf8)
        let tabLine = try #require(RunResult.lines(tabs).firstIndex { $0.hasPrefix("\t") }) + 1
        #expect(tabLine == 7)
        // unknown-key.yaml: `stpes:` starts line 6.
        let unknown = try String(
            contentsOf: Paths.badFixtures.appendingPathComponent("unknown-key.yaml"), encoding: .utf8)
        #expect(RunResult.lines(unknown)[5].hasPrefix("stpes:"))
        // duplicate-key.yaml: the second `  welcome:` is line 15.
        let duplicate = try String(
            contentsOf: Paths.badFixtures.appendingPathComponent("duplicate-key.yaml"), encoding: .utf8)
        let duplicateLines = RunResult.lines(duplicate)
        let welcomes = duplicateLines.indices.filter { duplicateLines[$0] == "  welcome:" }.map { $0 + 1 }
        #expect(welcomes == [7, 15])

        let (tabResult, tabPath) = try await checkAlone("tabs.yaml") {
            try FileManager.default.copyItem(at: Paths.badFixtures.appendingPathComponent("tabs.yaml"), to: $0)
        }
        #expect(tabResult.errors("yaml.tab").map(\.description).contains { $0.hasPrefix("\(tabPath):7:1: error: ") })

        let (unknownResult, unknownPath) = try await checkAlone("unknown-key.yaml") {
            try FileManager.default.copyItem(at: Paths.badFixtures.appendingPathComponent("unknown-key.yaml"), to: $0)
        }
        let unknownKey = unknownResult.errors("key.unknown").filter { $0.path == unknownPath }
        #expect(unknownKey.map(\.position) == ["6:1"], "\(unknownResult)")
        #expect(unknownKey.first?.message.contains("did you mean 'steps'") == true)

        let (duplicateResult, duplicatePath) = try await checkAlone("duplicate-key.yaml") {
            try FileManager.default.copyItem(at: Paths.badFixtures.appendingPathComponent("duplicate-key.yaml"), to: $0)
        }
        let duplicates = duplicateResult.errors("yaml.duplicate-key").filter { $0.path == duplicatePath }
        #expect(duplicates.count == 1, "\(duplicateResult)")
        #expect(duplicates.first?.message.contains("'welcome'") == true)
        #expect(duplicates.map(\.position) == ["15:3"])
    }

    @Test(
        "a guard written with an unquoted '!' is read as YAML syntax: the error says to quote it",
        arguments: [
            ("!stored.asked", "yaml.tag"), ("!stored.asked && device.online", "yaml.syntax"),
        ])
    func unquotedNegation(_ guardText: String, _ id: String) async throws {
        try await withTemporaryDirectory { directory in
            try writeText(
                """
                journey: t.bang
                version: 1
                title: Bang
                stored:
                  asked: { type: bool, default: false }
                start: decide
                steps:
                  decide:
                    handler: flow.decide
                    on:
                      next:
                        - if: \(guardText)
                          to: done
                        - else: done
                ends:
                  done: { kind: success }

                """, to: directory.appendingPathComponent("bang.journey.yaml"))
            let result = try await runJourney(["check", "bang.journey.yaml"], cwd: directory)
            expectNoCrash(result)
            #expect(result.status == Exit.invalid, "\(result)")
            let error = try #require(result.errors(id).first, "\(result)")
            #expect(error.line == 12, "\(result)")
            #expect(error.message.contains("write it in quotes"), "\(result)")
        }
    }

    @Test("checking one bad file in place reports only that file, not its siblings")
    func checkingOneFileIgnoresSiblings() async throws {
        // Every other fixture in the folder is broken too: none of their errors may show.
        let result = try await runJourney(["check", "Tests/Fixtures/bad/empty.yaml"])
        expectNoCrash(result)
        #expect(result.status == Exit.invalid)
        #expect(result.errors("yaml.empty").contains { $0.path == "Tests/Fixtures/bad/empty.yaml" })
        let others = Set(result.diagnostics.map(\.path)).subtracting(["Tests/Fixtures/bad/empty.yaml"])
        #expect(others.isEmpty, "diagnostics for files that were not named: \(others.sorted())")
    }

    @Test("a folder with nothing to read is warned about by every command, not passed in silence")
    func emptyFolder() async throws {
        try await withTemporaryDirectory { directory in
            let empty = directory.appendingPathComponent("journeys")
            try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
            try Data("not a journey".utf8).write(to: empty.appendingPathComponent("README.md"))
            let warning = "journeys:1:1: warning: no journey or scenario files (.yaml) in this folder [files.none]"
            for command in [["check"], ["test"], ["explore"], ["docs", "--out", "site"]] {
                let result = try await runJourney(command + ["journeys"], cwd: directory)
                expectNoCrash(result)
                #expect(result.stderrLines.contains(warning), "\(command): \(result)")
            }
            // A suite with nothing in it did not pass: CI given a wrong folder fails, with or
            // without --explore, and writes no report.
            for extra in [[], ["--explore"]] {
                let test = try await runJourney(["test", "journeys", "--junit", "report.xml"] + extra, cwd: directory)
                #expect(test.status == Exit.invalid && test.stdout.isEmpty, "\(extra): \(test)")
                #expect(
                    test.stderrLines.last
                        == "error: no scenario to run in journeys: journey test runs the scenarios it finds there (files with a `scenario:` line); `journey new scenario --journey ID NAME` writes one",
                    "\(extra): \(test)")
                #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("report.xml").path))
            }
            // A missing folder is an error, not this warning as well.
            let missing = try await runJourney(["test", "jouneys"], cwd: directory)
            #expect(missing.status == Exit.invalid, "\(missing)")
            #expect(!missing.stderr.contains("files.none") && missing.stderr.contains("file.missing"), "\(missing)")
            // An empty path is said to be one, not shown as a file with no name.
            for command in [["check"], ["explore"]] {
                let nothing = try await runJourney(command + [""], cwd: directory)
                #expect(nothing.status == Exit.invalid, "\(command): \(nothing)")
                #expect(
                    nothing.stderrLines.first
                        == "'':1:1: error: an empty path names no file or folder [file.missing]",
                    "\(command): \(nothing)")
            }
            // A folder with a journey in it is not warned about.
            try Data("journey: t.one\n".utf8).write(to: empty.appendingPathComponent("one.journey.yaml"))
            let found = try await runJourney(["check", "journeys"], cwd: directory)
            #expect(!found.stderr.contains("files.none"), "\(found)")
        }
    }

    @Test("with no path, no project file and no journeys folder, every command says where it looked and what to do")
    func nothingToWorkOn() async throws {
        try await withTemporaryDirectory { directory in
            let commands: [(arguments: [String], usage: String)] = [
                (["check"], "journey check path/to/journeys"), (["test"], "journey test path/to/journeys"),
                (["explore"], "journey explore path/to/journeys"),
                (["play", "app.main"], "journey play app.main path/to/journeys"),
                (["docs", "--out", "site"], "journey docs path/to/journeys --out site"),
            ]
            for (arguments, usage) in commands {
                let result = try await runJourney(arguments, cwd: directory)
                expectNoCrash(result)
                #expect(result.status == Exit.invalid, "\(arguments): \(result)")
                #expect(
                    result.stderrLines == [
                        "error: no journeys found: there is no journeykit.yaml in this folder or a folder above it, and no folder 'journeys' here; name their files or folders (\(usage)), or start a project with `journey new project`"
                    ], "\(arguments): \(result)")
            }
            // A project file that names no folder, from a folder below it.
            try Data("defaults: { locale: en }\n".utf8).write(to: directory.appendingPathComponent("journeykit.yaml"))
            let below = directory.appendingPathComponent("app")
            try FileManager.default.createDirectory(at: below, withIntermediateDirectories: true)
            let result = try await runJourney(["check"], cwd: below)
            #expect(result.status == Exit.invalid, "\(result)")
            #expect(
                result.stderrLines == [
                    "error: no journeys found: ../journeykit.yaml names no journey folders and there is no folder 'journeys' beside it; name their files or folders (journey check path/to/journeys), or list the folders in ../journeykit.yaml (journeys: [flows])"
                ], "\(result)")
            // A journeys folder beside the project file is the project's.
            try FileManager.default.createDirectory(
                at: directory.appendingPathComponent("journeys"), withIntermediateDirectories: true)
            let found = try await runJourney(["check"], cwd: below)
            #expect(!found.stderr.contains("no journeys found"), "\(found)")
        }
    }

    @Test(
        "a link to a folder of journeys or scenarios inside a folder walked is not followed, and says so; one to a folder of goldens is none of the walk's business"
    )
    func linkToAFolderIsSaid() async throws {
        try await withTemporaryDirectory { directory in
            let made = try await runJourney(["new", "project", "p"], cwd: directory)
            #expect(made.status == Exit.ok, "\(made)")
            let project = directory.appendingPathComponent("p")
            let scenarios = project.appendingPathComponent("journeys/app/scenarios")
            try FileManager.default.moveItem(at: scenarios, to: directory.appendingPathComponent("elsewhere"))
            try FileManager.default.createSymbolicLink(
                atPath: scenarios.path, withDestinationPath: directory.appendingPathComponent("elsewhere").path)
            let check = try await runJourney(["check"], cwd: project)
            expectNoCrash(check)
            #expect(
                check.stderrLines == [
                    "journeys/app/scenarios:1:1: warning: a link to a folder, not followed: its files are skipped; name the folder it links to, or keep the files here [file.special]",
                    "checked 1 journey and 0 scenarios: 0 errors, 1 warning",
                ], "\(check)")
            let strict = try await runJourney(["check", "--strict"], cwd: project)
            #expect(strict.status == Exit.invalid, "\(strict)")
            // Named, the folder behind the link is checked.
            let named = try await runJourney(["check", "journeys/app/scenarios"], cwd: project)
            #expect(
                named.status == Exit.ok && named.stderr.contains("checked 0 journeys and 1 scenario"), "\(named)")
        }
    }

    @Test("a loop of links named on the command line says so, as it does when found in a folder")
    func linkLoopNamed() async throws {
        try await withTemporaryDirectory { directory in
            let a = directory.appendingPathComponent("a.journey.yaml")
            let b = directory.appendingPathComponent("b.journey.yaml")
            try FileManager.default.createSymbolicLink(atPath: a.path, withDestinationPath: b.path)
            try FileManager.default.createSymbolicLink(atPath: b.path, withDestinationPath: a.path)
            for command in [["check"], ["explore"]] {
                let result = try await runJourney(command + ["a.journey.yaml"], cwd: directory)
                expectNoCrash(result)
                #expect(result.status == Exit.invalid, "\(command): \(result)")
                #expect(
                    result.stderrLines.contains(
                        "a.journey.yaml:1:1: error: cannot open a.journey.yaml: Too many levels of symbolic links [file.unreadable]"
                    ), "\(command): \(result)")
            }
        }
    }

    @Test(
        "a file of the project that cannot be opened may declare any stored key secret: every one is kept secret in what the suite shows and the goldens an update writes"
    )
    func unopenedFileFailsClosed() async throws {
        try await withTemporaryDirectory { directory in
            try writeText("journeys: [journeys]\n", to: directory.appendingPathComponent("journeykit.yaml"))
            let journey = """
                journey: t.b
                version: 1
                title: Token
                stored:
                  tok: { type: string }
                start: show
                steps:
                  show:
                    handler: ui.screen
                    screen: { title: "Hello", actions: { ok: OK } }
                    on: { ok: done }
                ends:
                  done: { kind: success }

                """
            try writeText(journey, to: directory.appendingPathComponent("journeys/b/b.journey.yaml"))
            let scenario = """
                scenario: one
                journey: t.b
                device: { store: { tok: "scen-token-7777" } }
                script:
                  - at: show
                    action: ok
                expect: { end: done }

                """
            try writeText(scenario, to: directory.appendingPathComponent("journeys/b/scenarios/one.scenario.yaml"))
            // The journey that declares `tok` secret, in a file that cannot be opened.
            let folder = directory.appendingPathComponent("journeys/a")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(
                atPath: folder.appendingPathComponent("a.journey.yaml").path, withDestinationPath: "b.journey.yaml")
            try FileManager.default.createSymbolicLink(
                atPath: folder.appendingPathComponent("b.journey.yaml").path, withDestinationPath: "a.journey.yaml")
            let update = try await runJourney(["test", "--update"], cwd: directory)
            expectNoCrash(update)
            #expect(update.status == Exit.invalid, "\(update)")
            #expect(update.stderr.contains("[file.unreadable]"), "\(update)")
            #expect(
                !update.stdout.contains("scen-token-7777") && !update.stderr.contains("scen-token-7777"), "\(update)")
            for golden in ["one.txt", "one.jsonl"] {
                let url = directory.appendingPathComponent("journeys/b/transcripts/\(golden)")
                guard let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
                #expect(!text.contains("scen-token-7777"), "\(golden): \(text)")
                #expect(text.contains("tok"), "\(golden): \(text)")
            }
            let run = try await runJourney(["test", "--json", "out.json"], cwd: directory)
            #expect(!run.stdout.contains("scen-token-7777") && !run.stderr.contains("scen-token-7777"), "\(run)")
            let report = try String(contentsOf: directory.appendingPathComponent("out.json"), encoding: .utf8)
            #expect(!report.contains("scen-token-7777"), "\(report)")
        }
    }

    // MARK: Generated inputs

    enum Generated: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case fiftyMegabytes, billionLaughs, deepFlow, deepExplicitKeys, deepIndentedMapping

        var testDescription: String { rawValue }

        var expectedId: String {
            switch self {
            case .fiftyMegabytes: "yaml.too-large"
            case .billionLaughs: "yaml.alias"
            case .deepFlow, .deepExplicitKeys, .deepIndentedMapping: "yaml.too-deep"
            }
        }

        /// Writes the input to `url`.
        func write(to url: URL) throws {
            switch self {
            case .fiftyMegabytes:
                // One huge scalar, written in 1 MiB chunks.
                _ = FileManager.default.createFile(atPath: url.path, contents: nil)
                let handle = try FileHandle(forWritingTo: url)
                defer { try? handle.close() }
                try handle.write(contentsOf: Data("journey: \"".utf8))
                let chunk = Data(repeating: UInt8(ascii: "a"), count: 1 << 20)
                for _ in 0..<50 { try handle.write(contentsOf: chunk) }
                try handle.write(contentsOf: Data("\"\n".utf8))
            case .billionLaughs:
                // 9 levels × 9 aliases: lol9 would expand to 9^9 strings.
                var lines = [
                    "journey: demo.laughs", "version: 1", "title: Laughs", "start: welcome", "steps:", "  welcome:",
                    "    handler: ui.screen", "    with:", "      lol1: &lol1 \"lol\"",
                ]
                for level in 2...9 {
                    let aliases = Array(repeating: "*lol\(level - 1)", count: 9).joined(separator: ", ")
                    lines.append("      lol\(level): &lol\(level) [\(aliases)]")
                }
                lines += [
                    "    screen: { title: Welcome, actions: { next: Next } }", "    on: { next: done }", "ends:",
                    "  done: { kind: success, title: Done }",
                ]
                try writeText(lines.joined(separator: "\n") + "\n", to: url)
            case .deepFlow:
                try writeText(String(repeating: "[", count: 10_000) + "\n", to: url)
            case .deepExplicitKeys:
                try writeText(String(repeating: "? ", count: 5_000) + "deep\n", to: url)
            case .deepIndentedMapping:
                // 1300 block mappings, each one space deeper: ~850 KB, under the 1 MiB cap.
                var text = ""
                for level in 0..<1300 {
                    text += String(repeating: " ", count: level) + "k\(level):" + (level == 1299 ? " v" : "") + "\n"
                }
                try writeText(text, to: url)
            }
        }
    }

    @Test("generated hostile inputs are refused with exit 2", arguments: Generated.allCases)
    func generatedInput(_ input: Generated) async throws {
        let (result, path) = try await checkAlone("\(input.rawValue).yaml") { url in
            try input.write(to: url)
            let size = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue ?? 0
            switch input {
            case .fiftyMegabytes: #expect(size > 50_000_000)
            // Must stay under the 1 MiB size cap, or it would test the cap, not the depth.
            case .deepIndentedMapping: #expect((800_000..<1_048_576).contains(size), "size \(size)")
            default: break
            }
        }
        expectNoCrash(result)
        #expect(result.status == Exit.invalid, "\(result)")
        let found = result.errors(input.expectedId).filter { $0.path == path }
        #expect(!found.isEmpty, "no [\(input.expectedId)] for \(path) in:\n\(result.stderr)")
        if input == .fiftyMegabytes {
            #expect(found.first?.position == "1:1")
            // The size cap fires before anything is parsed.
            #expect(result.diagnostics.count == 1, "\(result.stderr)")
        }
    }
}
