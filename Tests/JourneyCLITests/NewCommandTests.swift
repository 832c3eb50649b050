import Foundation
import Testing

/// `journey new project`, `journey new journey` and `journey new scenario`: each writes
/// commented, schema-linked files that pass `journey check` (a project's scenario passes
/// `journey test` too), refuses to write over a file unless told to, and rejects bad ids and
/// names with exit 2.
@Suite("journey new", .timeLimit(.minutes(30)))
struct NewCommandTests {
    /// Every file under `directory` by its path from there, with its bytes.
    static func tree(_ directory: URL) -> [String: Data] {
        var tree: [String: Data] = [:]
        guard let enumerator = FileManager.default.enumerator(atPath: directory.path) else { return tree }
        for case let relative as String in enumerator {
            var isDirectory: ObjCBool = false
            let url = directory.appendingPathComponent(relative)
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue
            else { continue }
            tree[relative] = FileManager.default.contents(atPath: url.path)
        }
        return tree
    }

    /// A new project in `directory/name`, made with `journey new project`.
    static func newProject(in directory: URL, name: String = "my-app") async throws -> URL {
        let made = try await runJourney(["new", "project", name], cwd: directory)
        try #require(made.status == Exit.ok, "\(made)")
        return directory.appendingPathComponent(name)
    }

    @Test("new project: a project file, a journey, a scenario and its golden; check and test pass in it")
    func newProjectPasses() async throws {
        try await withTemporaryDirectory { directory in
            let made = try await runJourney(["new", "project", "my-app"], cwd: directory)
            #expect(made.status == Exit.ok, "\(made)")
            expectNoCrash(made)
            let project = directory.appendingPathComponent("my-app")
            #expect(
                Set(Self.tree(project).keys) == [
                    "journeykit.yaml", "journeys/app/unlock.journey.yaml",
                    "journeys/app/scenarios/wrong-then-right.scenario.yaml",
                    "journeys/app/transcripts/wrong-then-right.jsonl", "journeys/app/transcripts/wrong-then-right.txt",
                ], "\(Self.tree(project).keys.sorted())")
            #expect(made.stdout.contains("wrote my-app/journeykit.yaml\n"), "\(made)")
            #expect(made.stdout.contains("next: cd my-app && journey test\n"), "\(made)")
            let projectFile = try String(contentsOf: project.appendingPathComponent("journeykit.yaml"), encoding: .utf8)
            #expect(
                projectFile.hasPrefix(
                    "# yaml-language-server: $schema=https://journeykit.dev/schemas/project.schema.json\n"))
            #expect(RunResult.lines(projectFile).contains("journeys: [journeys]"))

            let check = try await runJourney(["check"], cwd: project)
            #expect(check.status == Exit.ok, "\(check)")
            #expect(check.stderr.contains("checked 1 journey and 1 scenario: 0 errors, 0 warnings"), "\(check)")
            let test = try await runJourney(["test"], cwd: project)
            #expect(test.status == Exit.ok, "\(test)")
            #expect(test.stdout.hasSuffix("1 passed, 0 failed\n"), "\(test)")
            // The golden is what the run writes, PIN masked.
            let golden = try String(
                contentsOf: project.appendingPathComponent("journeys/app/transcripts/wrong-then-right.txt"),
                encoding: .utf8)
            #expect(golden.contains("attempt pinEntry charged 1/3"), "\(golden)")
            #expect(!golden.contains("2580") && !golden.contains("1111"), "\(golden)")
            #expect(!made.stderr.contains("note:"), "a project in a folder of no project: \(made)")

            // One made inside it is a project of its own, and said to be, from either folder.
            let inner = try await runJourney(["new", "project", "inner"], cwd: project)
            #expect(inner.status == Exit.ok, "\(inner)")
            #expect(
                inner.stderr.contains(
                    "note: inner is inside the project of journeykit.yaml and is now a project of its own, whose journeys that project's commands run only if its `journeys:` lists them; to add a journey to that project instead, run `journey new journey ID` in it"
                ), "\(inner)")
            let here = project.appendingPathComponent("journeys/here")
            try FileManager.default.createDirectory(at: here, withIntermediateDirectories: true)
            let inPlace = try await runJourney(["new", "project"], cwd: here)
            #expect(
                inPlace.stderr.contains(
                    "note: this folder is inside the project of \(project.path)/journeykit.yaml and is now a project of its own"
                ), "\(inPlace)")
        }
    }

    @Test("new project twice, in two folders: byte-identical trees, nothing hidden left behind")
    func newProjectIsDeterministic() async throws {
        try await withTemporaryDirectory { directory in
            let first = try await Self.newProject(in: directory, name: "one")
            let second = try await Self.newProject(in: directory, name: "two")
            let (a, b) = (Self.tree(first), Self.tree(second))
            #expect(a.count == 5)
            #expect(a == b)
            #expect(!a.keys.contains { $0.split(separator: "/").contains { $0.hasPrefix(".") } }, "\(a.keys)")
        }
    }

    @Test("new project in the working folder, where a file it writes exists: nothing written, the file kept")
    func newProjectRefusesToOverwrite() async throws {
        try await withTemporaryDirectory { directory in
            let mine = "# my own project file\njourneys: [flows]\n"
            try writeText(mine, to: directory.appendingPathComponent("journeykit.yaml"))
            let refused = try await runJourney(["new", "project"], cwd: directory)
            #expect(refused.status == Exit.invalid, "\(refused)")
            expectNoCrash(refused)
            #expect(
                refused.stderr == "error: journeykit.yaml already exists; nothing was written (--force replaces it)\n",
                "\(refused)")
            #expect(Self.tree(directory) == ["journeykit.yaml": Data(mine.utf8)])

            let forced = try await runJourney(["new", "project", "--force"], cwd: directory)
            #expect(forced.status == Exit.ok, "\(forced)")
            #expect(forced.stdout.contains("next: journey test\n"), "\(forced)")
            let test = try await runJourney(["test"], cwd: directory)
            #expect(test.status == Exit.ok, "\(test)")
            // Over a project it made, the refusal names every file --force would replace.
            let again = try await runJourney(["new", "project"], cwd: directory)
            #expect(again.status == Exit.invalid, "\(again)")
            let written = Self.tree(directory).keys.sorted()
            #expect(written.count == 5, "\(written)")
            for path in written { #expect(again.stderr.contains(path), "\(path): \(again)") }
            #expect(again.stderr.hasSuffix("already exist; nothing was written (--force replaces them)\n"), "\(again)")
        }
    }

    @Test(
        "new project --force over a project one of whose files cannot be replaced (immutable): refused before any folder's files are, every edit kept"
    )
    func forcedNewProjectFailsWhole() async throws {
        let chattr = URL(fileURLWithPath: "/usr/bin/chattr")
        guard FileManager.default.isExecutableFile(atPath: chattr.path) else { return }
        try await withTemporaryDirectory { directory in
            let made = try await runJourney(["new", "project"], cwd: directory)
            #expect(made.status == Exit.ok, "\(made)")
            let files = Self.tree(directory).keys.sorted()
            for locked in files {
                // Every file edited, then one of them marked immutable.
                for path in files {
                    let url = directory.appendingPathComponent(path)
                    try writeText(
                        try String(contentsOf: url, encoding: .utf8) + "# my edit\n", to: url)
                }
                let before = Self.tree(directory)
                let url = directory.appendingPathComponent(locked)
                // Where the file system cannot mark a file immutable, there is nothing to test.
                guard try await runProcess(chattr, ["+i", url.path]).status == 0 else { return }
                let forced = try await runJourney(["new", "project", "--force"], cwd: directory)
                _ = try await runProcess(chattr, ["-i", url.path])
                expectNoCrash(forced)
                #expect(forced.status == Exit.invalid, "\(locked): \(forced)")
                #expect(
                    forced.stderr.contains("error: cannot write \(locked): the file there is immutable"),
                    "\(locked): \(forced)")
                #expect(Self.tree(directory) == before, "\(locked): a file was replaced")
            }
        }
    }

    @Test("new project whose golden cannot be written: nothing is written, the folders it made are gone")
    func newProjectFailsWhole() async throws {
        try await withTemporaryDirectory { directory in
            // A file where the goldens' folder goes: the last folder written to cannot be made.
            let blocking = directory.appendingPathComponent("journeys/app/transcripts")
            try writeText("mine\n", to: blocking)
            let failed = try await runJourney(["new", "project"], cwd: directory)
            #expect(failed.status == Exit.invalid, "\(failed)")
            expectNoCrash(failed)
            #expect(failed.stderr.hasPrefix("error: cannot write journeys/app/transcripts"), "\(failed)")
            #expect(Self.tree(directory) == ["journeys/app/transcripts": Data("mine\n".utf8)])
            #expect(entries(of: directory.appendingPathComponent("journeys/app")) == ["transcripts"])
        }
    }

    @Test("new journey: under the project's journey folder by its id, schema-linked, passing check")
    func newJourneyPassesCheck() async throws {
        try await withTemporaryDirectory { directory in
            let project = try await Self.newProject(in: directory)
            let made = try await runJourney(["new", "journey", "acme.sign-in"], cwd: project)
            #expect(made.status == Exit.ok, "\(made)")
            #expect(made.stdout.hasPrefix("wrote journeys/acme/sign-in.journey.yaml\n"), "\(made)")
            let file = project.appendingPathComponent("journeys/acme/sign-in.journey.yaml")
            let text = try String(contentsOf: file, encoding: .utf8)
            #expect(
                text.hasPrefix("# yaml-language-server: $schema=https://journeykit.dev/schemas/journey.schema.json\n"))
            #expect(RunResult.lines(text).contains("journey: acme.sign-in"))
            let check = try await runJourney(["check", "--strict", "journeys/acme/sign-in.journey.yaml"], cwd: project)
            #expect(check.status == Exit.ok, "\(check)")
            #expect(try await runJourney(["check"], cwd: project).status == Exit.ok)

            // From a folder below the project's root, into a folder of one's choosing.
            let below = project.appendingPathComponent("journeys/app")
            let chosen = try await runJourney(["new", "journey", "acme.sign-up", "--folder", "flows"], cwd: below)
            #expect(chosen.status == Exit.ok, "\(chosen)")
            #expect(
                FileManager.default.fileExists(atPath: below.appendingPathComponent("flows/sign-up.journey.yaml").path))
            // Inside the project's journey folders, the next command names the journey by its id.
            #expect(chosen.stdout.contains("      journey new scenario --journey acme.sign-up NAME\n"), "\(chosen)")
            #expect(!chosen.stdout.contains("note:"), "\(chosen)")

            // Outside them, by its file, which is what finds it; and a note says so.
            let outside = try await runJourney(
                ["new", "journey", "acme.log-in", "--folder", "flows/acme"], cwd: project)
            #expect(outside.status == Exit.ok, "\(outside)")
            #expect(
                outside.stdout.contains("      journey new scenario --journey flows/acme/log-in.journey.yaml NAME\n"),
                "\(outside)")
            #expect(
                outside.stdout.contains(
                    "note: flows/acme is outside the project's journey folders (journeys): journey test and journey docs find the journey only when given its folder"
                ), "\(outside)")
            let scenario = try await runJourney(
                ["new", "scenario", "--journey", "flows/acme/log-in.journey.yaml", "happy"], cwd: project, timeout: 60)
            #expect(scenario.status == Exit.ok, "\(scenario)")
            #expect(scenario.stdout.hasPrefix("wrote flows/acme/scenarios/happy.scenario.yaml\n"), "\(scenario)")
            let test = try await runJourney(["test", "flows/acme", "--update"], cwd: project, timeout: 60)
            #expect(test.status == Exit.ok, "\(test)")
            #expect(test.stdout.contains("PASS acme.log-in › happy"), "\(test)")
            // A file that defines no journey is said as such.
            try writeText(
                "title: no journey here\n", to: project.appendingPathComponent("flows/acme/nothing.journey.yaml"))
            let none = try await runJourney(
                ["new", "scenario", "--journey", "flows/acme/nothing.journey.yaml", "happy"], cwd: project)
            #expect(none.status == Exit.invalid, "\(none)")
            #expect(none.stderr.contains("flows/acme/nothing.journey.yaml defines no journey"), "\(none)")
        }
    }

    @Test("new journey links the project's own schemas when it has them; with no project, the working folder")
    func newJourneySchemaLink() async throws {
        try await withTemporaryDirectory { directory in
            try writeText("journeys: [journeys]\n", to: directory.appendingPathComponent("repo/journeykit.yaml"))
            try writeText("{}\n", to: directory.appendingPathComponent("repo/schemas/journey.schema.json"))
            try FileManager.default.createDirectory(
                at: directory.appendingPathComponent("repo/journeys"), withIntermediateDirectories: true)
            let repo = directory.appendingPathComponent("repo")
            let made = try await runJourney(["new", "journey", "acme.login"], cwd: repo)
            #expect(made.status == Exit.ok, "\(made)")
            let text = try String(
                contentsOf: repo.appendingPathComponent("journeys/acme/login.journey.yaml"), encoding: .utf8)
            #expect(text.hasPrefix("# yaml-language-server: $schema=../../schemas/journey.schema.json\n"), "\(text)")

            let loose = directory.appendingPathComponent("loose")
            try FileManager.default.createDirectory(at: loose, withIntermediateDirectories: true)
            let alone = try await runJourney(["new", "journey", "acme.login"], cwd: loose)
            #expect(alone.status == Exit.ok, "\(alone)")
            #expect(Array(Self.tree(loose).keys) == ["login.journey.yaml"])
            #expect(try await runJourney(["check", "login.journey.yaml"], cwd: loose).status == Exit.ok)
            // With no project file there is no project to speak of: the note says where
            // journey test looks without one.
            #expect(
                alone.stdout.contains(
                    "note: with no journeykit.yaml, journey test and journey docs look in the folder journeys, and . is outside it: they find the journey only when given its folder, or when a journeykit.yaml lists the folder under journeys"
                ), "\(alone)")
        }
    }

    @Test("new journey refuses an invalid id, an id the project has, and a file that exists (unless --force)")
    func newJourneyRefusals() async throws {
        try await withTemporaryDirectory { directory in
            let project = try await Self.newProject(in: directory)
            // The example is the id meant, where lowering its case (spaces and underscores made
            // dashes) gives a valid one.
            let cases = [
                ("Acme.Login", "acme.login"), ("acme..login", "acme.sign-in"), ("", "acme.sign-in"),
                ("../acme", "acme.sign-in"), ("acme/login", "acme.sign-in"), ("Acme_Sign In", "acme-sign-in"),
            ]
            for (bad, example) in cases {
                let refused = try await runJourney(["new", "journey", bad], cwd: project)
                #expect(refused.status == Exit.invalid, "\(bad): \(refused)")
                expectNoCrash(refused)
                #expect(
                    refused.stderr.contains(
                        "is not a valid journey id; use lowercase words joined by '.' or '-', like '\(example)'"),
                    "\(bad): \(refused)")
            }
            // An empty folder is no folder, not the working one.
            for (arguments, said) in [
                (["new", "project", ""], "an empty path names no folder"),
                (["new", "journey", "x.a", "--folder", ""], "--folder '' names no folder"),
            ] {
                let empty = try await runJourney(arguments, cwd: project)
                #expect(empty.status == Exit.invalid && empty.stderr.contains(said), "\(arguments): \(empty)")
                #expect(!FileManager.default.fileExists(atPath: project.appendingPathComponent("a.journey.yaml").path))
            }
            // One character past the longest id, the length is what is wrong.
            let long = String(repeating: "a", count: 129)
            let tooLong = try await runJourney(["new", "journey", long], cwd: project)
            #expect(tooLong.status == Exit.invalid, "\(tooLong)")
            #expect(
                tooLong.stderr.contains("'\(long)' is 129 characters long; a journey id is at most 128"), "\(tooLong)")
            // The id of the docs' index page: its page would replace the index.
            let index = try await runJourney(["new", "journey", "index"], cwd: project)
            #expect(index.status == Exit.invalid, "\(index)")
            #expect(index.stderr.contains("journey docs would write its page over the index of journeys"), "\(index)")
            #expect(
                !FileManager.default.fileExists(
                    atPath: project.appendingPathComponent("journeys/index.journey.yaml").path))
            // An id a journey of a folder the project uses has: a call would find two.
            let shared = directory.appendingPathComponent("shared")
            try writeText(
                try String(
                    contentsOf: project.appendingPathComponent("journeys/app/unlock.journey.yaml"), encoding: .utf8
                )
                .replacingOccurrences(of: "journey: app.unlock\n", with: "journey: lib.pin\n"),
                to: shared.appendingPathComponent("lib/pin.journey.yaml"))
            let projectFile = project.appendingPathComponent("journeykit.yaml")
            let settings = try String(contentsOf: projectFile, encoding: .utf8)
            try writeText(settings + "uses: [../shared]\n", to: projectFile)
            let used = try await runJourney(["new", "journey", "lib.pin"], cwd: project)
            #expect(used.status == Exit.invalid, "\(used)")
            #expect(
                used.stderr.contains("journey id 'lib.pin' is already used by ../shared/lib/pin.journey.yaml:"),
                "\(used)")
            #expect(!FileManager.default.fileExists(atPath: project.appendingPathComponent("journeys/lib").path))
            try writeText(settings, to: projectFile)
            // A journey's file that is not there is said as such.
            let missing = try await runJourney(
                ["new", "scenario", "--journey", "journeys/app/none.journey.yaml", "s1"], cwd: project)
            #expect(missing.status == Exit.invalid, "\(missing)")
            #expect(
                missing.stderr.contains(
                    "journeys/app/none.journey.yaml: no such file; --journey takes a journey's file or id"),
                "\(missing)")

            let taken = try await runJourney(["new", "journey", "app.unlock", "--folder", "elsewhere"], cwd: project)
            #expect(taken.status == Exit.invalid, "\(taken)")
            #expect(
                taken.stderr.contains("journey id 'app.unlock' is already used by journeys/app/unlock.journey.yaml:"),
                "\(taken)")
            #expect(!FileManager.default.fileExists(atPath: project.appendingPathComponent("elsewhere").path))

            // A --folder that is a file is said as such, once.
            try writeText("notes\n", to: project.appendingPathComponent("notes.txt"))
            let onAFile = try await runJourney(["new", "journey", "acme.notes", "--folder", "notes.txt"], cwd: project)
            #expect(onAFile.status == Exit.invalid, "\(onAFile)")
            #expect(onAFile.stderrLines == ["error: cannot write notes.txt: it is a file, not a folder"], "\(onAFile)")
            #expect(try String(contentsOf: project.appendingPathComponent("notes.txt"), encoding: .utf8) == "notes\n")

            let file = project.appendingPathComponent("journeys/acme/login.journey.yaml")
            try writeText("journey: mine\n", to: file)
            let refused = try await runJourney(["new", "journey", "acme.login"], cwd: project)
            #expect(refused.status == Exit.invalid, "\(refused)")
            #expect(refused.stderr.contains("journeys/acme/login.journey.yaml already exists"), "\(refused)")
            #expect(try Data(contentsOf: file) == Data("journey: mine\n".utf8))
            #expect(entries(of: file.deletingLastPathComponent()) == ["login.journey.yaml"])

            let forced = try await runJourney(["new", "journey", "acme.login", "--force"], cwd: project)
            #expect(forced.status == Exit.ok, "\(forced)")
            #expect(try String(contentsOf: file, encoding: .utf8).contains("journey: acme.login\n"))
        }
    }

    @Test("new scenario plays the journey from its start to an end: check passes, run reaches it, test after --update")
    func newScenarioReachesItsEnd() async throws {
        try await withTemporaryDirectory { directory in
            let project = try await Self.newProject(in: directory)
            #expect(try await runJourney(["new", "journey", "acme.sign-in"], cwd: project).status == Exit.ok)
            let made = try await runJourney(
                ["new", "scenario", "--journey", "acme.sign-in", "right-pin"], cwd: project)
            #expect(made.status == Exit.ok, "\(made)")
            let path = "journeys/acme/scenarios/right-pin.scenario.yaml"
            #expect(made.stdout.hasPrefix("wrote \(path)\n"), "\(made)")
            #expect(made.stdout.contains("next: journey run --scenario \(path)\n"), "\(made)")
            let text = try String(contentsOf: project.appendingPathComponent(path), encoding: .utf8)
            #expect(
                text.hasPrefix("# yaml-language-server: $schema=https://journeykit.dev/schemas/scenario.schema.json\n"))
            #expect(text.contains("expect:\n  end: unlocked\n"), "\(text)")

            let check = try await runJourney(["check", "--strict", path], cwd: project)
            #expect(check.status == Exit.ok, "\(check)")
            let run = try await runJourney(["run", "--scenario", path], cwd: project)
            #expect(run.status == Exit.ok, "\(run)")
            #expect(run.stderr.contains("reached unlocked (success)"), "\(run)")
            let update = try await runJourney(["test", "--update", path], cwd: project)
            #expect(update.status == Exit.ok, "\(update)")
            let test = try await runJourney(["test"], cwd: project)
            #expect(test.status == Exit.ok, "\(test)")
            #expect(test.stdout.hasSuffix("2 passed, 0 failed\n"), "\(test)")
        }
    }

    @Test(
        "new scenario of shipped journeys (screens, PINs set up, sub-journeys): each plays to an end",
        arguments: ["examples.pin-model", "diia.pin-create", "diia.resume", "tinkoff.sign-in", "locker.session"])
    func newScenarioOfShippedJourneys(id: String) async throws {
        try await withTemporaryDirectory { directory in
            try copyShippedJourneys(into: directory)
            try writeText("journeys: [journeys]\n", to: directory.appendingPathComponent("journeykit.yaml"))
            let made = try await runJourney(["new", "scenario", "--journey", id, "written"], cwd: directory)
            #expect(made.status == Exit.ok, "\(made)")
            let path = try #require(
                RunResult.lines(made.stdout).first { $0.hasPrefix("wrote ") }.map { String($0.dropFirst(6)) })
            #expect(path == "journeys/\(id.split(separator: ".")[0])/scenarios/written.scenario.yaml")
            let text = try String(contentsOf: directory.appendingPathComponent(path), encoding: .utf8)
            let end = try #require(RunResult.lines(text).last { $0.hasPrefix("  end: ") }?.dropFirst(7))
            let run = try await runJourney(["run", "--scenario", path], cwd: directory)
            #expect(run.status == Exit.ok, "\(run)")
            #expect(run.stderr.contains("reached \(end) ("), "\(run)")
            #expect(try await runJourney(["check", path], cwd: directory).status == Exit.ok)
        }
    }

    @Test("new scenario of a journey whose own rule every path breaks says which rule stops the ways to an end")
    func newScenarioBlockedByARule() async throws {
        try await withTemporaryDirectory { directory in
            try writeText("journeys: [journeys]\n", to: directory.appendingPathComponent("journeykit.yaml"))
            try writeText(
                """
                journey: t.blocked
                version: 1
                title: Blocked
                invariants:
                  not-here:
                    summary: the welcome screen is never shown
                    never: "step == 'welcome'"
                start: welcome
                steps:
                  welcome:
                    handler: ui.screen
                    screen: { title: Welcome, actions: { go: Go } }
                    on: { go: done }
                ends:
                  done: { kind: success }

                """, to: directory.appendingPathComponent("journeys/blocked.journey.yaml"))
            let made = try await runJourney(["new", "scenario", "--journey", "t.blocked", "first"], cwd: directory)
            #expect(made.status == Exit.ok, "\(made)")
            #expect(
                made.stderr.contains(
                    "note: no way from the start to an end was found to play without breaking invariant.not-here"),
                "\(made)")
        }
    }

    @Test("new scenario of a journey whose ends lie past a request says that no stub answered it")
    func newScenarioBlockedByTheNetwork() async throws {
        try await withTemporaryDirectory { directory in
            try writeText("journeys: [journeys]\n", to: directory.appendingPathComponent("journeykit.yaml"))
            try writeText(
                """
                journey: t.online
                version: 1
                title: Online
                start: send
                steps:
                  send:
                    handler: http.request
                    with: { method: POST, url: "https://api.example.com/code" }
                    on: { ok: done, failed: retry, offline: retry }
                  retry:
                    handler: ui.screen
                    screen: { title: No connection, actions: { again: Try again } }
                    on: { again: send }
                ends:
                  done: { kind: success }

                """, to: directory.appendingPathComponent("journeys/online.journey.yaml"))
            let made = try await runJourney(["new", "scenario", "--journey", "t.online", "first"], cwd: directory)
            #expect(made.status == Exit.ok, "\(made)")
            #expect(
                made.stderr.contains(
                    "note: step t.online.send sends a request, which went as if offline with no stub to answer it: add the server's answers under the scenario's `stubs:`"
                ), "\(made)")
        }
    }

    @Test("new scenario rejects a name that is not a safe file name, and writes nothing")
    func newScenarioBadNames() async throws {
        try await withTemporaryDirectory { directory in
            let project = try await Self.newProject(in: directory)
            let before = Self.tree(project)
            for bad in ["../x", "", "a/b", "1st", "x y", "x.y", String(repeating: "a", count: 65)] {
                let refused = try await runJourney(["new", "scenario", "--journey", "app.unlock", bad], cwd: project)
                #expect(refused.status == Exit.invalid, "\(bad): \(refused)")
                expectNoCrash(refused)
                #expect(refused.stderr.contains("is not a valid scenario name"), "\(bad): \(refused)")
            }
            #expect(Self.tree(project) == before)
            #expect(Self.tree(directory).count == before.count)
        }
    }

    @Test("new scenario of a journey the project does not have: exit 2, with the closest id")
    func newScenarioUnknownJourney() async throws {
        try await withTemporaryDirectory { directory in
            let project = try await Self.newProject(in: directory)
            let refused = try await runJourney(["new", "scenario", "--journey", "app.unlok", "x"], cwd: project)
            #expect(refused.status == Exit.invalid, "\(refused)")
            expectNoCrash(refused)
            #expect(
                refused.stderr == "error: no journey 'app.unlok' in journeys; did you mean 'app.unlock'?\n",
                "\(refused)")
            #expect(
                !FileManager.default.fileExists(
                    atPath: project.appendingPathComponent("journeys/app/scenarios/x.scenario.yaml").path))
        }
    }

    @Test("new scenario of a journey with errors: its errors at their path:line:column, exit 2, nothing written")
    func newScenarioOfABrokenJourney() async throws {
        try await withTemporaryDirectory { directory in
            let project = try await Self.newProject(in: directory)
            let file = project.appendingPathComponent("journeys/app/unlock.journey.yaml")
            let text = try String(contentsOf: file, encoding: .utf8)
            try writeText(
                text.replacingOccurrences(of: "      wrong: enterPin\n", with: "      wrong: enterPim\n"), to: file)
            let refused = try await runJourney(["new", "scenario", "--journey", "app.unlock", "x"], cwd: project)
            #expect(refused.status == Exit.invalid, "\(refused)")
            expectNoCrash(refused)
            #expect(
                refused.diagnostics.contains {
                    $0.path == "journeys/app/unlock.journey.yaml" && $0.severity == "error"
                },
                "\(refused)")
            #expect(refused.stderr.hasSuffix("nothing was written\n"), "\(refused)")
            #expect(!entries(of: project.appendingPathComponent("journeys/app/scenarios")).contains("x.scenario.yaml"))
        }
    }

    @Test("new scenario over one that exists: refused with its bytes unchanged; --force replaces it")
    func newScenarioRefusesToOverwrite() async throws {
        try await withTemporaryDirectory { directory in
            let project = try await Self.newProject(in: directory)
            let path = "journeys/app/scenarios/wrong-then-right.scenario.yaml"
            let before = try Data(contentsOf: project.appendingPathComponent(path))
            let refused = try await runJourney(
                ["new", "scenario", "--journey", "app.unlock", "wrong-then-right"], cwd: project)
            #expect(refused.status == Exit.invalid, "\(refused)")
            #expect(refused.stderr == "error: \(path) already exists; nothing was written (--force replaces it)\n")
            #expect(try Data(contentsOf: project.appendingPathComponent(path)) == before)
            #expect(
                !entries(of: project.appendingPathComponent("journeys/app/scenarios")).contains { $0.hasPrefix(".") })

            let forced = try await runJourney(
                ["new", "scenario", "--journey", "app.unlock", "wrong-then-right", "--force"], cwd: project)
            #expect(forced.status == Exit.ok, "\(forced)")
            let replaced = try String(contentsOf: project.appendingPathComponent(path), encoding: .utf8)
            #expect(replaced.contains("Written by `journey new scenario`"), "\(replaced)")
            #expect(try await runJourney(["run", "--scenario", path], cwd: project).status == Exit.ok)
        }
    }

    @Test("journey new on its own prints its help and exits 2")
    func newAlone() async throws {
        let alone = try await runJourney(["new"])
        #expect(alone.status == Exit.invalid, "\(alone)")
        #expect(alone.stderr.contains("journey new project my-app"), "\(alone)")
        let help = try await runJourney(["new", "scenario", "--help"])
        #expect(help.status == Exit.ok, "\(help)")
        #expect(help.stdout.contains("journey new scenario --journey app.unlock right-pin"), "\(help)")
    }
}
