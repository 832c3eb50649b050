import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("journey docs")
struct DocsTests {
    @Test("the committed docs/journeys are what `journey docs` generates now")
    func committedDocsAreFresh() async throws {
        let result = try await runJourney(["docs", "journeys", "--out", "docs/journeys", "--check"], cwd: Paths.root)
        #expect(result.status == Exit.ok, "\(result.stderr)")
    }

    @Test(
        "pages name files from the project's folder: --check agrees from a subfolder, and pages made there are the same",
        arguments: ["md", "html"])
    func sameFromAnywhereInTheProject(format: String) async throws {
        try await withTemporaryDirectory { directory in
            try copyShippedJourneys(into: directory)
            try writeText("journeys: [journeys]\n", to: directory.appendingPathComponent("journeykit.yaml"))
            let made = try await runJourney(["docs", "--out", "site", "--format", format], cwd: directory)
            #expect(made.status == Exit.ok, "\(made)")
            for (folder, out) in [("journeys", "../site"), ("journeys/examples/scenarios", "../../../site")] {
                let check = try await runJourney(
                    ["docs", "--out", out, "--format", format, "--check"],
                    cwd: directory.appendingPathComponent(folder))
                #expect(check.status == Exit.ok, "from \(folder): \(check)")
            }
            let again = try await runJourney(
                ["docs", "--out", "../again", "--format", format], cwd: directory.appendingPathComponent("journeys"))
            #expect(again.status == Exit.ok, "\(again)")
            let site = directory.appendingPathComponent("site")
            for name in entries(of: site) {
                #expect(
                    (try? Data(contentsOf: site.appendingPathComponent(name)))
                        == (try? Data(contentsOf: directory.appendingPathComponent("again/\(name)"))), "\(name)")
            }
        }
    }

    @Test(
        "--format html stopped by SIGTERM while dot draws: the dot it runs is stopped too, nothing is written; a program the dot started that holds its output does not hold journey up",
        arguments: [false, true])
    func stoppedWhileDotDraws(startsAChild: Bool) async throws {
        try await withProcessSlot {
            try await withTemporaryDirectory { directory in
                // A dot that never answers, and says where it runs.
                let bin = directory.appendingPathComponent("bin")
                try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
                let pidFile = directory.appendingPathComponent("dot.pid")
                let dot = bin.appendingPathComponent("dot")
                let childFile = directory.appendingPathComponent("sleep.pid")
                try writeText(
                    startsAChild
                        ? "#!/bin/sh\necho $$ > '\(pidFile.path)'\nsleep 600 &\necho $! > '\(childFile.path)'\nwait\n"
                        : "#!/bin/sh\necho $$ > '\(pidFile.path)'\nexec sleep 600\n", to: dot)
                defer {
                    if let orphan = (try? String(contentsOf: childFile, encoding: .utf8)).flatMap({
                        pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines))
                    }) {
                        kill(orphan, SIGKILL)
                    }
                }
                chmod(dot.path, 0o755)
                let process = Process()
                process.executableURL = try #require(Paths.journeyBinary)
                process.arguments = [
                    "docs", Paths.root.appendingPathComponent("journeys/examples").path, "--format", "html", "--out",
                    "site",
                ]
                process.currentDirectoryURL = directory
                var environment = ProcessInfo.processInfo.environment
                environment["PATH"] = bin.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
                process.environment = environment
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                try process.run()
                let deadline = Date().addingTimeInterval(60)
                var dotPID: pid_t?
                while Date() < deadline, dotPID == nil {
                    dotPID = (try? String(contentsOf: pidFile, encoding: .utf8)).flatMap {
                        pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines))
                    }
                    try await Task.sleep(for: .milliseconds(20))
                }
                let child = try #require(dotPID, "dot was started")
                kill(process.processIdentifier, SIGTERM)
                try await ExploreInterruptTests.requireStopped(process)
                #expect(process.terminationStatus == 143)
                // The dot is gone (not left running, orphaned), and no page was written.
                var gone = false
                for _ in 0..<100 where !gone {
                    gone = kill(child, 0) != 0
                    if !gone { try await Task.sleep(for: .milliseconds(20)) }
                }
                if !gone { kill(child, SIGKILL) }
                #expect(gone, "dot \(child) was left running")
                #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("site").path))
            }
        }
    }

    @Test("without a project file, the pages are the same however the folder is spelled, and name no absolute path")
    func pagesFromTheWorkingFolder() async throws {
        try await withTemporaryDirectory { directory in
            try FileManager.default.copyItem(
                at: Paths.root.appendingPathComponent("journeys/examples"), to: directory.appendingPathComponent("ex"))
            var sites: [[String: Data]] = []
            for (index, spelled) in ["ex", "./ex/", directory.appendingPathComponent("ex").path].enumerated() {
                let out = "site\(index)"
                let docs = try await runJourney(["docs", spelled, "--out", out], cwd: directory)
                #expect(docs.status == Exit.ok, "\(spelled): \(docs)")
                let folder = directory.appendingPathComponent(out)
                var pages: [String: Data] = [:]
                for name in entries(of: folder) {
                    pages[name] = try Data(contentsOf: folder.appendingPathComponent(name))
                }
                sites.append(pages)
            }
            #expect(sites[0] == sites[1] && sites[1] == sites[2])
            let page = String(decoding: sites[2]["examples.unlock.md"] ?? Data(), as: UTF8.self)
            #expect(page.contains("ex/unlock.journey.yaml"), "\(page.prefix(800))")
            #expect(!page.contains(directory.path), "\(page.prefix(800))")
        }
    }

    @Test("pages written through a link to their folder link the files from where the pages really are")
    func outThroughALink() async throws {
        try await withTemporaryDirectory { directory in
            try FileManager.default.copyItem(
                at: Paths.root.appendingPathComponent("journeys/examples"), to: directory.appendingPathComponent("ex"))
            try FileManager.default.createDirectory(
                at: directory.appendingPathComponent("docs/j"), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(
                atPath: directory.appendingPathComponent("linkout").path, withDestinationPath: "docs/j")
            let linked = try await runJourney(["docs", "ex", "--out", "linkout"], cwd: directory)
            #expect(linked.status == Exit.ok, "\(linked)")
            let page = try String(
                contentsOf: directory.appendingPathComponent("docs/j/examples.unlock.md"), encoding: .utf8)
            #expect(page.contains("](../../ex/unlock.journey.yaml)"), "\(page.prefix(600))")
            let check = try await runJourney(["docs", "ex", "--out", "docs/j", "--check"], cwd: directory)
            #expect(check.status == Exit.ok, "\(check)")
        }
    }

    @Test("--out through '..' of a folder that is missing says which, and makes nothing")
    func outThroughAMissingFolder() async throws {
        try await withTemporaryDirectory { directory in
            let examples = Paths.root.appendingPathComponent("journeys/examples").path
            let docs = try await runJourney(["docs", examples, "--out", "docs/x/../j4"], cwd: directory)
            #expect(docs.status == Exit.invalid, "\(docs)")
            #expect(docs.stderr.contains("docs/x does not exist, so docs/x/.. names no folder"), "\(docs)")
            #expect(entries(of: directory).isEmpty)
        }
    }

    @Test("a page no journey makes any more is removed, and named as it goes")
    func obsoletePagesAreNamed() async throws {
        try await withTemporaryDirectory { directory in
            let examples = Paths.root.appendingPathComponent("journeys/examples").path
            let first = try await runJourney(["docs", examples, "--out", "site"], cwd: directory)
            #expect(first.status == Exit.ok, "\(first)")
            // A page copied under another name keeps its generated header: journey docs takes it
            // for one of its own that no journey makes now.
            let site = directory.appendingPathComponent("site")
            try FileManager.default.copyItem(
                at: site.appendingPathComponent("examples.unlock.md"), to: site.appendingPathComponent("my-notes.md"))
            let again = try await runJourney(["docs", examples, "--out", "site"], cwd: directory)
            #expect(again.status == Exit.ok, "\(again)")
            #expect(
                again.stderrLines.last == "removed 1 page no journey given makes any more: site/my-notes.md",
                "\(again)")
            #expect(!FileManager.default.fileExists(atPath: site.appendingPathComponent("my-notes.md").path))
            let quiet = try await runJourney(["docs", examples, "--out", "site"], cwd: directory)
            #expect(!quiet.stderr.contains("removed"), "\(quiet)")
        }
    }

    @Test(
        "a journey called index, whose page would replace the index, is refused before anything is written",
        arguments: ["md", "dot"])
    func aJourneyCalledIndexIsRefused(format: String) async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.appendingPathComponent("journeys/app")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for id in ["index", "other"] {
                try writeText(
                    """
                    journey: \(id)
                    version: 1
                    title: Journey \(id)
                    start: a
                    steps:
                      a: { handler: flow.decide, on: { next: done } }
                    ends:
                      done: { kind: success }

                    """, to: folder.appendingPathComponent("\(id).journey.yaml"))
            }
            let result = try await runJourney(
                ["docs", "journeys", "--out", "site", "--format", format], cwd: directory)
            #expect(result.status == Exit.invalid, "\(result)")
            #expect(
                result.stderr.contains(
                    "journeys/app/index.journey.yaml:1:10: error: journey 'index' would have its page written as index.\(format), the page that lists every journey; give the journey another id [docs.index-page]"
                ), "\(result)")
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("site").path))
        }
    }

    @Test("an empty --out or --locale is a usage error that says what the option takes")
    func emptyOptions() async throws {
        for (arguments, message) in [
            (["--out", ""], "Error: --out takes a folder to write the documentation to"),
            (["--out", "site", "--locale", ""], "Error: --locale takes a language tag, like 'en' or 'nl'"),
        ] {
            let result = try await runJourney(["docs", "journeys"] + arguments, cwd: Paths.root)
            expectNoCrash(result)
            #expect(result.status == Exit.invalid, "\(result)")
            #expect(result.stderrLines.first == message, "\(result)")
        }
    }

    @Test("a --locale none of the journeys has texts in is refused, before anything is written")
    func unknownLocale() async throws {
        try await withTemporaryDirectory { directory in
            let result = try await runJourney(
                [
                    "docs", Paths.root.appendingPathComponent("journeys/examples").path, "--out", "site", "--locale",
                    "zz",
                ],
                cwd: directory)
            #expect(result.status == Exit.invalid, "\(result)")
            #expect(result.stderr.contains("error: no journey here has texts in 'zz': they have en, nl"), "\(result)")
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("site").path))
        }
    }

    @Test("editing a journey without regenerating fails --check, naming the stale page")
    func stalePagesAreNamed() async throws {
        try await withTemporaryDirectory { directory in
            let journeys = try copyShippedJourneys(into: directory)
            try FileManager.default.createDirectory(
                at: directory.appendingPathComponent("docs"), withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                at: Paths.root.appendingPathComponent("docs/journeys"),
                to: directory.appendingPathComponent("docs/journeys"))
            let journey = journeys.appendingPathComponent("examples/unlock.journey.yaml")
            try writeText(
                try String(contentsOf: journey, encoding: .utf8).replacingOccurrences(
                    of: "title: Unlock with a PIN", with: "title: Unlock with your PIN"), to: journey)
            let result = try await runJourney(
                ["docs", "journeys", "--out", "docs/journeys", "--check"], cwd: directory)
            #expect(result.status == Exit.failed)
            #expect(result.stderr.contains("docs/journeys/examples.unlock.md: stale"), "\(result.stderr)")
            #expect(result.stderr.contains("docs/journeys/index.md: stale"))
            #expect(!result.stderr.contains("eduid.onboarding.md"), "only stale pages are named")
            #expect(result.stderr.contains("regenerate with `journey docs journeys --out docs/journeys`"))
            // A page edited by hand is stale too, and the reason does not blame the journeys alone.
            let page = directory.appendingPathComponent("docs/journeys/eduid.onboarding.md")
            try writeText(try String(contentsOf: page, encoding: .utf8) + "an edit\n", to: page)
            let edited = try await runJourney(
                ["docs", "journeys", "--out", "docs/journeys", "--check"], cwd: directory)
            #expect(
                edited.stderr.contains(
                    "docs/journeys/eduid.onboarding.md: stale: it is not what the journeys make now (they changed, or the page was edited)"
                ), "\(edited.stderr)")
            // A page removed is missing, not stale; the command to run again names no empty path.
            try FileManager.default.removeItem(at: directory.appendingPathComponent("docs/journeys/diia.login.md"))
            let missing = try await runJourney(["docs", "--out", "docs/journeys", "--check"], cwd: directory)
            #expect(missing.status == Exit.failed, "\(missing)")
            #expect(
                missing.stderr.contains("docs/journeys/diia.login.md: missing: not generated in this folder"),
                "\(missing.stderr)")
            #expect(missing.stderr.contains("regenerate with `journey docs --out docs/journeys`"), "\(missing.stderr)")
            // The command said is the one that writes these pages: their locale included.
            let dutch = try await runJourney(
                ["docs", "journeys/eduid", "--out", "docs/eduid nl", "--locale", "nl", "--check"], cwd: directory)
            #expect(dutch.status == Exit.failed, "\(dutch)")
            #expect(
                dutch.stderr.contains(
                    "regenerate with `journey docs journeys/eduid --out 'docs/eduid nl' --locale nl`"),
                "\(dutch.stderr)")
        }
    }

    @Test("every journey gets a page with a diagram, a steps table and a walkthrough per scenario; output is stable")
    func pagesAndDeterminism() async throws {
        try await withTemporaryDirectory { directory in
            let first = directory.appendingPathComponent("a").path
            let second = directory.appendingPathComponent("b").path
            for out in [first, second] {
                let result = try await runJourney(["docs", "journeys", "--out", out], cwd: Paths.root)
                #expect(result.status == Exit.ok, "\(result.stderr)")
            }
            let journeyFiles = files(under: Paths.journeys, endingWith: ".journey.yaml")
            let pages = entries(of: URL(fileURLWithPath: first)).filter { $0.hasSuffix(".md") && $0 != "index.md" }
            #expect(pages.count == journeyFiles.count)
            for page in pages {
                let a = try String(contentsOfFile: first + "/" + page, encoding: .utf8)
                let b = try String(contentsOfFile: second + "/" + page, encoding: .utf8)
                #expect(a == b, "\(page) differs between two runs")
                #expect(a.contains("```mermaid\nflowchart TD"), "\(page) has no diagram")
                #expect(a.contains("| step | what the user sees | handler | outcome → next |"))
            }
            let unlock = try String(contentsOfFile: first + "/examples.unlock.md", encoding: .utf8)
            let scenarios = scenarioFiles(
                under: Paths.journeys.appendingPathComponent("examples"), of: "examples.unlock")
            #expect(unlock.components(separatedBy: "\n### ").count - 1 == scenarios.count)
            #expect(unlock.contains("pin = •••"), "walkthroughs come from transcripts, secrets masked")
            #expect(!unlock.contains("0420"))
        }
    }

    @Test(
        "every link to a journey or scenario file resolves from the output folder, wherever it is",
        arguments: ["site", "a/b/c/site", "../outside/site", "journeys/examples/docs"])
    func linksResolveFromTheOutputFolder(out: String) async throws {
        try await withTemporaryDirectory { directory in
            let cwd = directory.appendingPathComponent("work")
            try FileManager.default.createDirectory(at: cwd, withIntermediateDirectories: true)
            try copyShippedJourneys(into: cwd)
            let result = try await runJourney(["docs", "journeys/examples", "--out", out], cwd: cwd)
            #expect(result.status == Exit.ok, "\(result)")
            let site = cwd.appendingPathComponent(out).standardizedFileURL
            let page = try String(contentsOf: site.appendingPathComponent("examples.unlock.md"), encoding: .utf8)
            let links = page.matches(of: /\]\(([^)]+\.yaml)\)/).map { String($0.output.1) }
            let scenarios = scenarioFiles(
                under: Paths.journeys.appendingPathComponent("examples"), of: "examples.unlock")
            #expect(links.count == 1 + scenarios.count, "the journey and each of its scenarios: \(links)")
            for link in links {
                #expect(!link.hasPrefix("/"), "\(link) is relative")
                let target = site.appendingPathComponent(link).standardizedFileURL
                #expect(FileManager.default.fileExists(atPath: target.path), "\(link) from \(out) leads nowhere")
            }
        }
    }

    @Test("walkthroughs come from the goldens: a scenario is shown as its golden says, not played")
    func walkthroughsComeFromTheGoldens() async throws {
        try await withTemporaryDirectory { directory in
            let journeys = try copyShippedJourneys(into: directory)
            let golden = journeys.appendingPathComponent("examples/transcripts/forgot-pin.jsonl")
            let original = try String(contentsOf: golden, encoding: .utf8)
            #expect(original.contains(#""values":{"action":"forgot"}"#))
            try writeText(
                original.replacingOccurrences(
                    of: #""values":{"action":"forgot"}"#, with: #""values":{"action":"golden"}"#),
                to: golden)
            let out = directory.appendingPathComponent("docs")
            let result = try await runJourney(["docs", "journeys/examples", "--out", out.path], cwd: directory)
            #expect(result.status == Exit.ok, "\(result)")
            let page = try String(contentsOf: out.appendingPathComponent("examples.unlock.md"), encoding: .utf8)
            #expect(
                page.contains("- `enterPin` — “Enter your PIN” · action = “golden” → *forgot* → `locked`"), "\(page)")
        }
    }

    @Test(
        "scenarios whose service does not answer are documented from their goldens, byte for byte, and the summary line says so",
        .timeLimit(.minutes(30)))
    func servicesThatDoNotAnswer() async throws {
        try await withTemporaryDirectory { directory in
            let journeys = try copyShippedJourneys(into: directory)
            try FileManager.default.createDirectory(
                at: directory.appendingPathComponent("docs"), withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                at: Paths.root.appendingPathComponent("docs/journeys"),
                to: directory.appendingPathComponent("docs/journeys"))
            // Every service a shipped scenario needs moves to a loopback port nothing listens on.
            let scenarios = files(under: journeys, endingWith: ".scenario.yaml")
            var needing = 0
            var needingInEiam = 0
            for scenario in scenarios {
                let text = try String(contentsOf: scenario, encoding: .utf8)
                let moved = text.replacingOccurrences(of: "127.0.0.1:4593/", with: "127.0.0.1:9/")
                    .replacingOccurrences(of: "127.0.0.1:4594/", with: "127.0.0.1:9/")
                if moved != text {
                    needing += 1
                    if scenario.path.contains("/journeys/eiam/") { needingInEiam += 1 }
                    try writeText(moved, to: scenario)
                }
            }
            #expect(needingInEiam > 0)
            let test = try await runJourney(["test", "journeys/eiam"], cwd: directory, timeout: 120)
            #expect(test.status == Exit.ok, "\(test)")
            #expect(
                test.stdout.contains(
                    "needs http://127.0.0.1:9/api/oidc/.well-known/openid-configuration, which does not answer"))
            #expect(
                test.stdoutLines.filter { $0.hasPrefix("SKIP ") }.count == needingInEiam,
                "every scenario that needs the service is skipped: \(test.stdout)")

            let pages = entries(of: directory.appendingPathComponent("docs/journeys")).filter { $0.hasSuffix(".md") }
            let note =
                ": walkthroughs from the committed goldens of \(scenarios.count) scenarios (\(needing) need"
                + " http://127.0.0.1:9, https://127.0.0.1:9, which journey docs never contacts:"
                + " `journey test` keeps their goldens current where they answer)"
            let check = try await runJourney(
                ["docs", "journeys", "--out", "docs/journeys", "--check"], cwd: directory, timeout: 120)
            #expect(check.status == Exit.ok, "the committed pages are what the goldens give: \(check)")
            #expect(check.stderrLines == ["\(pages.count) pages in docs/journeys are up to date\(note)"], "\(check)")
            for _ in 0..<2 {
                let written = try await runJourney(["docs", "journeys", "--out", "site"], cwd: directory, timeout: 120)
                #expect(written.status == Exit.ok, "\(written)")
                #expect(written.stderrLines == ["wrote \(pages.count) files to site\(note)"], "\(written)")
            }
            let login = try String(
                contentsOf: directory.appendingPathComponent("site/eiam.login.md"), encoding: .utf8)
            #expect(login.contains("### i1-sign-in-with-pkce"), "the walkthrough of a scenario that could not run")
        }
    }

    @Test("a scenario without a golden, or with one that does not read, is an error naming it; nothing is written")
    func missingAndUnreadableGoldens() async throws {
        try await withTemporaryDirectory { directory in
            let journeys = try copyShippedJourneys(into: directory)
            let transcripts = journeys.appendingPathComponent("examples/transcripts")
            try FileManager.default.removeItem(at: transcripts.appendingPathComponent("forgot-pin.jsonl"))
            let lockout = transcripts.appendingPathComponent("three-strikes-across-restart.jsonl")
            try writeText(try String(contentsOf: lockout, encoding: .utf8) + "{\"t\":0,\n", to: lockout)
            let lines = try String(contentsOf: lockout, encoding: .utf8).split(separator: "\n").count
            let out = directory.appendingPathComponent("docs")
            let result = try await runJourney(["docs", "journeys/examples", "--out", out.path], cwd: directory)
            expectNoCrash(result)
            #expect(result.status == Exit.invalid, "\(result)")
            #expect(
                result.stderrLines == [
                    "journeys/examples/scenarios/forgot-pin.scenario.yaml:2:11: error: scenario 'forgot-pin' has no golden transcript at journeys/examples/transcripts/forgot-pin.jsonl; record it with `journey test --update` [golden.missing]",
                    "journeys/examples/transcripts/three-strikes-across-restart.jsonl:\(lines):8: error: the line ends in the middle of the event (a truncated or hand-edited line?); restore the golden, or re-record it with `journey test --update` [golden.unreadable]",
                ], "\(result)")
            #expect(!FileManager.default.fileExists(atPath: out.path), "nothing is written")
        }
    }

    @Test("--format dot writes Graphviz sources")
    func dotFormat() async throws {
        try await withTemporaryDirectory { directory in
            let result = try await runJourney(
                ["docs", "journeys", "--out", directory.path, "--format", "dot"], cwd: Paths.root)
            #expect(result.status == Exit.ok)
            let dot = try String(contentsOf: directory.appendingPathComponent("diia.pin-enter.dot"), encoding: .utf8)
            #expect(dot.hasPrefix("// Generated by `journey docs`"))
            #expect(dot.contains("\ndigraph \"diia.pin-enter\" {\n"))
            #expect(dot.contains("style=dashed"), "an exceeded limit is drawn dashed")
        }
    }

    @Test("only files `journey docs` wrote are replaced or removed; the user's own stay")
    func userFilesInTheOutputFolderSurvive() async throws {
        try await withTemporaryDirectory { directory in
            let notes = "# Notes\n\nRegenerate with `journey docs journeys`.\n"
            let graph = "digraph mine { a -> b; }\n"
            try writeText(notes, to: directory.appendingPathComponent("notes.md"))
            try writeText(graph, to: directory.appendingPathComponent("mine.dot"))
            for format in ["md", "dot"] {
                let stale =
                    (format == "md"
                        ? "<!-- Generated by `journey docs` from the journey and its scenarios; edit those, not this page. -->"
                        : "// Generated by `journey docs` from the journeys and their scenarios; edit those.")
                    + "\nold\n"
                try writeText(stale, to: directory.appendingPathComponent("gone.journey.\(format)"))
                let result = try await runJourney(
                    ["docs", "journeys/examples", "--out", directory.path, "--format", format], cwd: Paths.root)
                #expect(result.status == Exit.ok, "\(result)")
                #expect(
                    !FileManager.default.fileExists(
                        atPath: directory.appendingPathComponent("gone.journey.\(format)").path))
            }
            #expect(try String(contentsOf: directory.appendingPathComponent("notes.md"), encoding: .utf8) == notes)
            #expect(try String(contentsOf: directory.appendingPathComponent("mine.dot"), encoding: .utf8) == graph)
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("examples.unlock.md").path))
        }
    }

    @Test("a hand-written file with a page's name is never overwritten: the run stops and says so")
    func aUserFileWithAPagesNameStopsTheRun() async throws {
        try await withTemporaryDirectory { directory in
            let mine = "# Our index\n\nHand-written.\n"
            try writeText(mine, to: directory.appendingPathComponent("index.md"))
            let result = try await runJourney(["docs", "journeys/examples", "--out", directory.path], cwd: Paths.root)
            #expect(result.status == Exit.invalid, "\(result)")
            #expect(
                result.stderrLines.last?.hasSuffix(
                    "index.md:1:1: error: this file was not written by journey docs, which never replaces such files; move it or choose another --out [docs.foreign]"
                ) == true, "\(result)")
            #expect(try String(contentsOf: directory.appendingPathComponent("index.md"), encoding: .utf8) == mine)
            #expect(entries(of: directory) == ["index.md"], "nothing else is written either")
        }
    }

    /// The pages in `folder` and their contents, hidden files included.
    static func snapshot(_ folder: URL) -> [String: Data] {
        var result: [String: Data] = [:]
        for name in entries(of: folder) { result[name] = try? Data(contentsOf: folder.appendingPathComponent(name)) }
        return result
    }

    @Test("--out under a regular file: one line naming the folder and the reason, exit 2, nothing written")
    func outUnderAFile() async throws {
        try await withTemporaryDirectory { directory in
            try writeText("a file\n", to: directory.appendingPathComponent("file.txt"))
            let out = directory.appendingPathComponent("file.txt/docs").path
            let result = try await runJourney(["docs", "journeys/examples", "--out", out], cwd: Paths.root)
            expectNoCrash(result)
            #expect(result.status == Exit.invalid, "\(result)")
            let file = directory.appendingPathComponent("file.txt").path
            #expect(
                result.stderrLines == ["error: cannot write the docs to \(out): \(file) is a file, not a folder"],
                "\(result)")
            #expect(entries(of: directory) == ["file.txt"])
            // --out naming the file itself says "it".
            let itself = try await runJourney(
                ["docs", "journeys/examples", "--out", directory.appendingPathComponent("file.txt").path],
                cwd: Paths.root)
            #expect(itself.status == Exit.invalid, "\(itself)")
            #expect(
                itself.stderrLines == ["error: cannot write the docs to \(file): it is a file, not a folder"],
                "\(itself)"
            )
            #expect(entries(of: directory) == ["file.txt"])
            // What is in the way and is no file is named for what it is.
            let device = try await runJourney(
                ["docs", "journeys/examples", "--out", "/dev/null/docs"], cwd: Paths.root)
            #expect(device.status == Exit.invalid, "\(device)")
            #expect(
                device.stderrLines == [
                    "error: cannot write the docs to /dev/null/docs: /dev/null is a character device, not a folder"
                ], "\(device)")
        }
    }

    @Test("a write that fails half-way (a file size limit) leaves every page as it was")
    func failedWriteLeavesTheOldSite() async throws {
        let binary = try #require(Paths.journeyBinary)
        try await withTemporaryDirectory { directory in
            let out = directory.appendingPathComponent("docs")
            let first = try await runJourney(["docs", "journeys/diia", "--out", out.path], cwd: Paths.root)
            #expect(first.status == Exit.ok, "\(first)")
            for name in entries(of: out) {
                let page = out.appendingPathComponent(name)
                try writeText(try String(contentsOf: page, encoding: .utf8) + "old\n", to: page)
            }
            let before = Self.snapshot(out)
            // 16 blocks (8 or 16 KB, by shell) is more than the first pages and less than
            // diia.login.md (~17 KB): some pages are written before one fails with EFBIG.
            let result = try await runProcess(
                URL(fileURLWithPath: "/bin/sh"),
                [
                    "-c", "trap '' XFSZ; ulimit -f 16; exec \"$@\"", "sh", binary.path, "docs", "journeys/diia",
                    "--out",
                    out.path,
                ], cwd: Paths.root)
            expectNoCrash(result)
            #expect(result.status == Exit.invalid, "\(result)")
            #expect(result.stderrLines == ["error: cannot write the docs to \(out.path): File too large"], "\(result)")
            #expect(Self.snapshot(out) == before, "pages changed or files left: \(entries(of: out))")
        }
    }

    #if os(Linux)
    @Test("a read-only --out: one line with the reason, exit 2, every page as it was", .enabled(if: getuid() == 0))
    func readOnlyFileSystem() async throws {
        let binary = try #require(Paths.journeyBinary)
        try await withTemporaryDirectory { directory in
            let out = directory.appendingPathComponent("docs")
            let first = try await runJourney(["docs", "journeys/examples", "--out", out.path], cwd: Paths.root)
            #expect(first.status == Exit.ok, "\(first)")
            let page = out.appendingPathComponent("examples.unlock.md")
            try writeText(try String(contentsOf: page, encoding: .utf8) + "old\n", to: page)
            let before = Self.snapshot(out)
            // A read-only bind mount of the folder, in a mount namespace of its own that ends
            // with the command.
            let script = "mount --bind \"$1\" \"$1\" && mount -o remount,ro,bind \"$1\" || exit 99; shift; exec \"$@\""
            let result = try await runProcess(
                URL(fileURLWithPath: "/usr/bin/env"),
                [
                    "unshare", "-m", "sh", "-c", script, "sh", out.path, binary.path, "docs", "journeys/examples",
                    "--out", out.path,
                ], cwd: Paths.root)
            try #require(result.status != 99 && !result.stderr.contains("unshare:"), "cannot mount here: \(result)")
            expectNoCrash(result)
            #expect(result.status == Exit.invalid, "\(result)")
            #expect(
                result.stderrLines == ["error: cannot write the docs to \(out.path): Read-only file system"],
                "\(result)")
            #expect(Self.snapshot(out) == before)
        }
    }
    #endif

    @Test("a link in --out with a page's name is never replaced or followed, nor removed when obsolete")
    func linksInTheOutputFolderAreForeign() async throws {
        try await withTemporaryDirectory { directory in
            let out = directory.appendingPathComponent("docs")
            let first = try await runJourney(["docs", "journeys/examples", "--out", out.path], cwd: Paths.root)
            #expect(first.status == Exit.ok, "\(first)")
            // A generated page moved elsewhere and linked back, and a link to an obsolete one.
            let kept = directory.appendingPathComponent("kept")
            try FileManager.default.createDirectory(at: kept, withIntermediateDirectories: true)
            let page = try String(contentsOf: out.appendingPathComponent("examples.unlock.md"), encoding: .utf8)
            try writeText(page + "old\n", to: kept.appendingPathComponent("unlock.md"))
            try writeText(page, to: kept.appendingPathComponent("gone.md"))
            try FileManager.default.removeItem(at: out.appendingPathComponent("examples.unlock.md"))
            let fm = FileManager.default
            try fm.createSymbolicLink(
                atPath: out.appendingPathComponent("examples.unlock.md").path, withDestinationPath: "../kept/unlock.md")
            try fm.createSymbolicLink(
                atPath: out.appendingPathComponent("gone.md").path, withDestinationPath: "../kept/gone.md")
            let before = Self.snapshot(kept)
            for arguments in [["--out", out.path], ["--out", out.path, "--check"]] {
                let result = try await runJourney(["docs", "journeys/examples"] + arguments, cwd: Paths.root)
                expectNoCrash(result)
                #expect(result.status == Exit.invalid, "\(result)")
                #expect(
                    result.stderrLines == [
                        "\(out.path)/examples.unlock.md:1:1: error: this is a symbolic link, which journey docs never replaces or follows; move it or choose another --out [docs.foreign]"
                    ], "\(result)")
            }
            #expect(
                (try? fm.destinationOfSymbolicLink(atPath: out.appendingPathComponent("examples.unlock.md").path))
                    == "../kept/unlock.md")
            #expect(
                (try? fm.destinationOfSymbolicLink(atPath: out.appendingPathComponent("gone.md").path))
                    == "../kept/gone.md")
            #expect(Self.snapshot(kept) == before)

            // Without the link with a page's name, the run writes the page and leaves the other link.
            try fm.removeItem(at: out.appendingPathComponent("examples.unlock.md"))
            let again = try await runJourney(["docs", "journeys/examples", "--out", out.path], cwd: Paths.root)
            #expect(again.status == Exit.ok, "\(again)")
            #expect(
                (try? fm.destinationOfSymbolicLink(atPath: out.appendingPathComponent("gone.md").path))
                    == "../kept/gone.md")
            #expect(Self.snapshot(kept) == before)
        }
    }

    @Test("--format html without Graphviz says what is missing")
    func htmlWithoutGraphviz() async throws {
        try await withTemporaryDirectory { directory in
            let result = try await runJourney(
                ["docs", "journeys", "--out", directory.path, "--format", "html"], cwd: Paths.root,
                environment: ["PATH": "/nonexistent"])
            #expect(result.status == Exit.invalid)
            #expect(result.stderr.contains("apt-get install graphviz"), "\(result.stderr)")
            #expect(entries(of: directory).isEmpty, "nothing is written")
        }
    }

    @Test("the HTML site renders in headless Chromium with diagrams and tables", .timeLimit(.minutes(30)))
    func htmlRendersInChromium() async throws {
        let binary = try #require(Paths.journeyBinary)
        let result = try await runProcess(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["python3", "Tests/docs/check_screenshots.py", "--journey-bin", binary.path], cwd: Paths.root, timeout: 170)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdoutLines.last?.hasSuffix(" passed, 0 failed") == true)
    }
}
