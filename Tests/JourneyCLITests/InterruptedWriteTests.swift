import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a `kill -9` leaves behind, and how the next command deals with it. Files are staged as
/// `.NAME.journey-PID.tmp` beside their target; a change of several files is recorded in a
/// journal `.LABEL.journey-journal` before anything is renamed. The next command that writes in
/// the folder finishes every journal and deletes stale temporaries; a command that only reads
/// reports an unfinished journal.
@Suite("interrupted writes: journals, roll-forward, stale temporaries", .timeLimit(.minutes(30)))
struct InterruptedWriteTests {
    /// A process id no process has: above Linux's largest `pid_max` (2^22).
    static let deadPID = 99_999_999

    static func temporary(_ name: String, pid: Int = deadPID) -> String { ".\(name).journey-\(pid).tmp" }

    /// This machine's boot id, which a journal written here records.
    static let boot = (try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8))?
        .trimmingCharacters(in: .whitespacesAndNewlines)

    /// A journal as a killed command leaves it (`boot` nil: one written on no machine's boot).
    static func journal(
        renames: [String], deletions: [String] = [], pid: Int = deadPID, boot: String? = Self.boot
    ) -> String {
        let renameList = renames.map { #"{"from":"\#(temporary($0, pid: pid))","to":"\#($0)"}"# }
        let deletionList = deletions.map { #""\#($0)""# }
        let bootField = boot.map { #""boot":"\#($0)","# } ?? ""
        return
            #"{\#(bootField)"deletions":[\#(deletionList.joined(separator: ","))],"pid":\#(pid),"renames":[\#(renameList.joined(separator: ","))],"version":1}"#
            + "\n"
    }

    /// Hidden names in a folder: temporaries and journals.
    static func leftovers(in directory: URL) -> [String] { entries(of: directory).filter { $0.hasPrefix(".") } }

    static func halfUpdatedMessage(_ base: String) -> String {
        "its golden pair \(base) (.txt and .jsonl) was left half-updated by an interrupted `journey test --update`; run `journey test --update` to finish it"
    }

    @Test("a golden pair whose update was cut between the two renames: test reports it, --update finishes it")
    func halfUpdatedGoldenPair() async throws {
        try await withTemporaryDirectory { directory in
            let journeys = try copyShippedJourneys(into: directory)
            let transcripts = journeys.appendingPathComponent("examples/transcripts")
            let jsonl = transcripts.appendingPathComponent("forgot-pin.jsonl")
            let newText = try Data(contentsOf: transcripts.appendingPathComponent("forgot-pin.txt"))
            let newJSONL = try String(contentsOf: jsonl, encoding: .utf8)
            // The .txt is renamed into place, the .jsonl is still staged, the old one in place.
            let oldJSONL = newJSONL.replacingOccurrences(of: "\"forgot\"", with: "\"forgot-old\"")
            #expect(oldJSONL != newJSONL)
            try writeText(oldJSONL, to: jsonl)
            try writeText(newJSONL, to: transcripts.appendingPathComponent(Self.temporary("forgot-pin.jsonl")))
            let journal = transcripts.appendingPathComponent(".forgot-pin.journey-journal")
            try writeText(Self.journal(renames: ["forgot-pin.txt", "forgot-pin.jsonl"]), to: journal)
            let leftBehind = Self.leftovers(in: transcripts)

            let test = try await runJourney(["test", "journeys/examples"], cwd: directory)
            expectNoCrash(test)
            #expect(test.status == Exit.failed, "\(test)")
            #expect(test.stdout.contains("FAIL examples.unlock › forgot-pin"), "\(test.stdout)")
            #expect(
                test.stdout.contains(Self.halfUpdatedMessage("journeys/examples/transcripts/forgot-pin")),
                "\(test.stdout)")
            let examples = files(under: journeys.appendingPathComponent("examples"), endingWith: ".scenario.yaml").count
            #expect(test.stdoutLines.last == "\(examples - 1) passed, 1 failed")
            #expect(Self.leftovers(in: transcripts) == leftBehind, "a plain test run changes nothing")
            #expect(try String(contentsOf: jsonl, encoding: .utf8) == oldJSONL)

            // An --update that records another scenario in the folder finishes the journal first.
            let update = try await runJourney(
                ["test", "journeys/examples", "--update", "--filter", "three-strikes"], cwd: directory)
            #expect(update.status == Exit.ok, "\(update)")
            #expect(try String(contentsOf: jsonl, encoding: .utf8) == newJSONL, "the rename was not finished")
            #expect(try Data(contentsOf: transcripts.appendingPathComponent("forgot-pin.txt")) == newText)
            #expect(Self.leftovers(in: transcripts).isEmpty, "left behind: \(Self.leftovers(in: transcripts))")
            let again = try await runJourney(["test", "journeys/examples"], cwd: directory)
            #expect(again.status == Exit.ok, "\(again)")
        }
    }

    /// An --update whose rename would fail (a folder where a golden goes; an immutable golden)
    /// is refused before anything is replaced: the old pair stays whole, nothing is left behind,
    /// and the next run is not told of an interruption that never was.
    @Test("an --update that cannot replace a golden changes nothing and leaves nothing")
    func updateRefusedBeforeAnyRename() async throws {
        try await withTemporaryDirectory { directory in
            let journeys = try copyShippedJourneys(into: directory)
            let transcripts = journeys.appendingPathComponent("examples/transcripts")
            let text = transcripts.appendingPathComponent("correct-pin.txt")
            let jsonl = transcripts.appendingPathComponent("correct-pin.jsonl")
            let oldText = try Data(contentsOf: text)
            try FileManager.default.removeItem(at: jsonl)
            try FileManager.default.createDirectory(at: jsonl, withIntermediateDirectories: false)

            let update = try await runJourney(
                ["test", "--update", "journeys/examples/scenarios/correct-pin.scenario.yaml"], cwd: directory)
            expectNoCrash(update)
            #expect(update.status == Exit.invalid, "\(update)")
            #expect(
                update.stdout.contains(
                    "cannot record the golden transcript: cannot write journeys/examples/transcripts/correct-pin.jsonl: a folder is there"
                ), "\(update)")
            #expect(try Data(contentsOf: text) == oldText, "the .txt was replaced without its .jsonl")
            #expect(Self.leftovers(in: transcripts).isEmpty, "left behind: \(Self.leftovers(in: transcripts))")

            // Where the file system can mark a file immutable, such a golden is refused alike.
            try FileManager.default.removeItem(at: jsonl)
            let chattr = URL(fileURLWithPath: "/usr/bin/chattr")
            guard FileManager.default.isExecutableFile(atPath: chattr.path),
                try await runProcess(chattr, ["+i", text.path]).status == 0
            else { return }
            defer { _ = try? Process.run(chattr, arguments: ["-i", text.path]).waitUntilExit() }
            let immutable = try await runJourney(
                ["test", "--update", "journeys/examples/scenarios/correct-pin.scenario.yaml"], cwd: directory)
            #expect(immutable.status == Exit.invalid, "\(immutable)")
            #expect(immutable.stdout.contains("correct-pin.txt: the file there is immutable"), "\(immutable)")
            #expect(!FileManager.default.fileExists(atPath: jsonl.path), "the .jsonl was written without its .txt")
            #expect(Self.leftovers(in: transcripts).isEmpty, "left behind: \(Self.leftovers(in: transcripts))")
            _ = try await runProcess(chattr, ["-i", text.path])
            let test = try await runJourney(
                ["test", "journeys/examples/scenarios/correct-pin.scenario.yaml"], cwd: directory)
            #expect(!test.stdout.contains("half-updated"), "\(test)")
        }
    }

    @Test("a journal whose renames were all made is not reported, and the next writer removes it")
    func finishedJournal() async throws {
        try await withTemporaryDirectory { directory in
            let journeys = try copyShippedJourneys(into: directory)
            let transcripts = journeys.appendingPathComponent("examples/transcripts")
            try writeText(
                Self.journal(renames: ["forgot-pin.txt", "forgot-pin.jsonl"]),
                to: transcripts.appendingPathComponent(".forgot-pin.journey-journal"))
            let test = try await runJourney(["test", "journeys/examples"], cwd: directory)
            #expect(test.status == Exit.ok, "\(test)")
            let update = try await runJourney(
                ["test", "journeys/examples", "--update", "--filter", "three-strikes"], cwd: directory)
            #expect(update.status == Exit.ok, "\(update)")
            #expect(Self.leftovers(in: transcripts).isEmpty)
        }
    }

    @Test("stale temporaries of dead processes are deleted by the next writer; live ones and other files stay")
    func staleTemporaries() async throws {
        try await withTemporaryDirectory { directory in
            let journeys = try copyShippedJourneys(into: directory)
            let transcripts = journeys.appendingPathComponent("examples/transcripts")
            let dead = Self.temporary("forgot-pin.txt")
            let live = Self.temporary("forgot-pin.jsonl", pid: Int(getpid()))
            for name in [dead, live, ".notes", ".forgot-pin.txt.1234.tmp"] {
                try writeText("partial\n", to: transcripts.appendingPathComponent(name))
            }
            let test = try await runJourney(["test", "journeys/examples"], cwd: directory)
            #expect(test.status == Exit.ok, "\(test)")
            #expect(Self.leftovers(in: transcripts).contains(dead), "a plain test run deletes nothing")

            let update = try await runJourney(
                ["test", "journeys/examples", "--update", "--filter", "three-strikes"], cwd: directory)
            #expect(update.status == Exit.ok, "\(update)")
            #expect(Self.leftovers(in: transcripts) == [".forgot-pin.txt.1234.tmp", live, ".notes"].sorted())
        }
    }

    @Test("a journal that cannot be read stops the writer in that folder with a message")
    func unreadableJournal() async throws {
        try await withTemporaryDirectory { directory in
            let journeys = try copyShippedJourneys(into: directory)
            let transcripts = journeys.appendingPathComponent("examples/transcripts")
            let journal = transcripts.appendingPathComponent(".forgot-pin.journey-journal")
            try writeText("not a journal\n", to: journal)
            let update = try await runJourney(
                ["test", "journeys/examples", "--update", "--filter", "three-strikes"], cwd: directory)
            expectNoCrash(update)
            // The golden could not be written: an output not written, exit 2.
            #expect(update.status == Exit.invalid, "\(update)")
            #expect(update.stdout.contains(".forgot-pin.journey-journal"), "\(update.stdout)")
            #expect(update.stdout.contains("cannot be read"), "\(update.stdout)")
            #expect(try String(contentsOf: journal, encoding: .utf8) == "not a journal\n")
        }
    }

    @Test("an interrupted journey docs: --check says the folder has an unfinished update, docs finishes it")
    func interruptedDocs() async throws {
        try await withTemporaryDirectory { directory in
            let out = directory.appendingPathComponent("docs")
            let first = try await runJourney(["docs", "journeys/examples", "--out", out.path], cwd: Paths.root)
            #expect(first.status == Exit.ok, "\(first)")
            let page = out.appendingPathComponent("examples.unlock.md")
            let current = try String(contentsOf: page, encoding: .utf8)
            // Killed after its journal: the index renamed, the page still staged, an obsolete
            // page not yet removed.
            let marker =
                "<!-- Generated by `journey docs` from the journey and its scenarios; edit those, not this page. -->"
            #expect(current.hasPrefix(marker))
            try writeText(current + "old\n", to: page)
            try writeText(current, to: out.appendingPathComponent(Self.temporary("examples.unlock.md")))
            try writeText(marker + "\ngone\n", to: out.appendingPathComponent("gone.md"))
            try writeText(
                Self.journal(renames: ["index.md", "examples.unlock.md"], deletions: ["gone.md"]),
                to: out.appendingPathComponent(".journey-docs.journey-journal"))

            let check = try await runJourney(
                ["docs", "journeys/examples", "--out", out.path, "--check"], cwd: Paths.root)
            expectNoCrash(check)
            #expect(check.status == Exit.failed, "\(check)")
            #expect(
                check.stderr.contains(
                    "\(out.path):1:1: error: the folder has an unfinished update from an interrupted `journey docs`"),
                "\(check.stderr)")
            #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("gone.md").path))

            let docs = try await runJourney(["docs", "journeys/examples", "--out", out.path], cwd: Paths.root)
            #expect(docs.status == Exit.ok, "\(docs)")
            #expect(try String(contentsOf: page, encoding: .utf8) == current)
            #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("gone.md").path))
            #expect(Self.leftovers(in: out).isEmpty, "left behind: \(Self.leftovers(in: out))")
            let clean = try await runJourney(
                ["docs", "journeys/examples", "--out", out.path, "--check"], cwd: Paths.root)
            #expect(clean.status == Exit.ok, "\(clean)")
        }
    }

    @Test(
        "a journal not written on this machine since it started (committed, copied) is never finished: the writer stops, nothing is touched",
        arguments: [nil, "00000000-0000-4000-8000-000000000000"] as [String?])
    func foreignJournal(boot: String?) async throws {
        try await withTemporaryDirectory { directory in
            let out = directory.appendingPathComponent("docs")
            let first = try await runJourney(["docs", "journeys/examples", "--out", out.path], cwd: Paths.root)
            #expect(first.status == Exit.ok, "\(first)")
            // The user's files, and what would replace one and delete another.
            let readme = out.appendingPathComponent("README.md")
            let notes = out.appendingPathComponent("notes.txt")
            try writeText("mine\n", to: readme)
            try writeText("user\n", to: notes)
            try writeText("attacker\n", to: out.appendingPathComponent(Self.temporary("notes.txt")))
            try writeText(
                Self.journal(renames: ["notes.txt"], deletions: ["README.md"], boot: boot),
                to: out.appendingPathComponent(".journey-docs.journey-journal"))
            let docs = try await runJourney(["docs", "journeys/examples", "--out", out.path], cwd: Paths.root)
            expectNoCrash(docs)
            #expect(docs.status == Exit.invalid, "\(docs)")
            #expect(docs.stderr.contains("not one made on this machine since it last started"), "\(docs)")
            #expect(try String(contentsOf: readme, encoding: .utf8) == "mine\n")
            #expect(try String(contentsOf: notes, encoding: .utf8) == "user\n")
        }
    }

    @Test("a single file (--transcript, --junit) cleans stale temporaries of its own naming in its folder")
    func singleFiles() async throws {
        try await withTemporaryDirectory { directory in
            let stale = [Self.temporary("out.txt"), Self.temporary("other.xml")]
            for name in stale { try writeText("partial\n", to: directory.appendingPathComponent(name)) }
            let scenario = Paths.root.appendingPathComponent(RunTests.happyPath).path
            let run = try await runJourney(["run", "--scenario", scenario, "--transcript", "out.txt"], cwd: directory)
            #expect(run.status == Exit.ok, "\(run)")
            #expect(entries(of: directory) == ["out.txt"])

            let reports = directory.appendingPathComponent("reports")
            for name in stale { try writeText("partial\n", to: reports.appendingPathComponent(name)) }
            let test = try await runJourney(
                ["test", "journeys/examples", "--junit", reports.appendingPathComponent("junit.xml").path],
                cwd: Paths.root)
            #expect(test.status == Exit.ok, "\(test)")
            #expect(entries(of: reports) == ["junit.xml"])
        }
    }

    /// A golden pair before and after `journey test --update`.
    struct Pair {
        var base: String
        var old: (text: Data, jsonl: Data)
        var new: (text: Data, jsonl: Data)
    }

    @Test(
        "kill -9 during journey test --update: every pair is wholly old, wholly new or reported; the next --update cleans up",
        arguments: [20, 60, 120, 180, 240])
    func killDuringUpdate(milliseconds: Int) async throws {
        let binary = try #require(Paths.journeyBinary)
        try await withProcessSlot {
            try await withTemporaryDirectory { directory in
                let journeys = try copyShippedJourneys(into: directory)
                // Make every golden differ from what --update records, so that old and new differ.
                var pairs: [Pair] = []
                for text in files(under: journeys, endingWith: ".txt") where text.path.contains("/transcripts/") {
                    let jsonl = text.deletingPathExtension().appendingPathExtension("jsonl")
                    let new = (try Data(contentsOf: text), try Data(contentsOf: jsonl))
                    let old = (new.0 + Data("# old\n".utf8), new.1 + Data("{\"old\":true}\n".utf8))
                    try old.0.write(to: text)
                    try old.1.write(to: jsonl)
                    let base = String(text.deletingPathExtension().path.dropFirst(directory.path.count + 1))
                    pairs.append(Pair(base: base, old: old, new: new))
                }
                #expect(pairs.count > 50)

                let process = Process()
                process.executableURL = binary
                process.arguments = ["test", "journeys", "--update"]
                process.currentDirectoryURL = directory
                process.standardInput = FileHandle.nullDevice
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                try process.run()
                try await Task.sleep(for: .milliseconds(milliseconds))
                kill(process.processIdentifier, SIGKILL)
                _ = await waitForExit(process, seconds: 60)

                let test = try await runJourney(["test", "journeys"], cwd: directory, timeout: 120)
                expectNoCrash(test)
                var counts = (old: 0, new: 0, reported: 0)
                for pair in pairs {
                    let text = try Data(contentsOf: directory.appendingPathComponent(pair.base + ".txt"))
                    let jsonl = try Data(contentsOf: directory.appendingPathComponent(pair.base + ".jsonl"))
                    if test.stdout.contains(Self.halfUpdatedMessage(pair.base)) {
                        counts.reported += 1
                    } else if text == pair.old.text && jsonl == pair.old.jsonl {
                        counts.old += 1
                    } else if text == pair.new.text && jsonl == pair.new.jsonl {
                        counts.new += 1
                    } else {
                        Issue.record("\(pair.base) is neither wholly old nor wholly new, and not reported")
                    }
                }
                #expect(counts.old + counts.new + counts.reported == pairs.count, "after \(milliseconds) ms: \(counts)")

                let update = try await runJourney(["test", "journeys", "--update"], cwd: directory, timeout: 120)
                #expect(update.status == Exit.ok, "\(update)")
                let hidden =
                    (files(under: journeys, endingWith: ".tmp") + files(under: journeys, endingWith: "-journal"))
                #expect(hidden.isEmpty, "left behind: \(hidden.map(\.lastPathComponent))")
                let after = try await runJourney(["test", "journeys"], cwd: directory, timeout: 120)
                #expect(after.stdoutLines.filter { $0.hasPrefix("FAIL ") }.isEmpty, "\(after.stdout)")
            }
        }
    }
}
