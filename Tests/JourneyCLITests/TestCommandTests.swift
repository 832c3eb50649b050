import Foundation
import Testing

@Suite("journey test", .timeLimit(.minutes(30)))
struct TestCommandTests {
    static var scenarioCount: Int { files(under: Paths.journeys, endingWith: ".scenario.yaml").count }

    /// The first line of `golden` containing `text`, and the step it belongs to (the id in
    /// the nearest `→ STEP [handler]` line above it).
    static func locate(_ text: String, in golden: String) -> (index: Int, step: String)? {
        let lines = RunResult.lines(golden)
        guard let index = lines.firstIndex(where: { $0.contains(text) }) else { return nil }
        for line in lines[..<index].reversed() {
            if let match = line.firstMatch(of: #/ → ([A-Za-z][A-Za-z0-9_-]*) \[/#) { return (index, String(match.1)) }
        }
        return nil
    }

    @Test("every shipped scenario passes; the last line counts them")
    func allPass() async throws {
        try await withTemporaryDirectory { directory in
            let journeys = try copyShippedJourneys(into: directory)
            let count = Self.scenarioCount
            #expect(count >= 10)
            let result = try await runJourney(["test", journeys.path], cwd: directory)
            expectNoCrash(result)
            #expect(result.status == Exit.ok, "\(result)")
            #expect(result.stdoutLines.last == "\(count) passed, 0 failed", "\(result.stdout)")
            #expect(result.stdoutLines.filter { $0.hasPrefix("PASS ") }.count == count)
            #expect(!result.stdout.contains("FAIL"))
            // Only --update writes goldens: the folder is byte-identical afterwards.
            for golden in files(under: journeys, endingWith: ".txt") + files(under: journeys, endingWith: ".jsonl") {
                let original = Paths.journeys.appendingPathComponent(
                    String(golden.path.dropFirst(journeys.path.count + 1)))
                #expect(
                    (try? Data(contentsOf: golden)) == (try? Data(contentsOf: original)), "\(golden.lastPathComponent)")
            }
        }
    }

    @Test("a changed golden fails with the step, a unified diff, and the count; --update restores it")
    func changedGoldenThenUpdate() async throws {
        try await withTemporaryDirectory { directory in
            let journeys = try copyShippedJourneys(into: directory)
            let count = Self.scenarioCount
            let golden = journeys.appendingPathComponent("eduid/transcripts/happy-path.jsonl")
            let textGolden = journeys.appendingPathComponent("eduid/transcripts/happy-path.txt")
            let original = try Data(contentsOf: golden), originalText = try Data(contentsOf: textGolden)
            let text = String(decoding: originalText, as: UTF8.self)
            let (index, step) = try #require(Self.locate("input action=\"create\"", in: text))
            let originalLine = RunResult.lines(text)[index]
            let changedLine = originalLine.replacingOccurrences(
                of: "action=\"create\"", with: "action=\"created-by-test\"")
            // The JSON Lines golden is the transcript; its first `create` input changes.
            var jsonl = String(decoding: original, as: UTF8.self)
            let value = try #require(jsonl.range(of: #""values":{"action":"create"}"#))
            jsonl.replaceSubrange(value, with: #""values":{"action":"created-by-test"}"#)
            try writeText(jsonl, to: golden)

            let result = try await runJourney(["test", journeys.path], cwd: directory)
            expectNoCrash(result)
            #expect(result.status == Exit.failed, "\(result)")
            #expect(result.stdout.contains("FAIL eduid.onboarding › happy-path"), "\(result.stdout)")
            #expect(result.stdout.contains("transcript differs from the golden at step '\(step)'"), "\(result.stdout)")
            let body = result.stdoutLines.map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(body.contains("-" + changedLine), "no `-` line for the golden's text:\n\(result.stdout)")
            #expect(body.contains("+" + originalLine), "no `+` line for this run's text:\n\(result.stdout)")
            #expect(body.contains { $0.hasPrefix("@@ ") })
            #expect(result.stdoutLines.last == "\(count - 1) passed, 1 failed", "\(result.stdout)")
            // A failing test does not touch the golden.
            #expect((try? String(contentsOf: golden, encoding: .utf8)) == jsonl)

            // Another scenario's goldens, which the update must leave as they are (same file).
            let other = journeys.appendingPathComponent("eduid/transcripts/pin-mismatch.jsonl")
            let otherBefore = try Self.identity(of: other)

            let update = try await runJourney(["test", "--update"], cwd: directory)
            expectNoCrash(update)
            #expect(update.status == Exit.ok, "\(update)")
            #expect(
                update.stdoutLines.suffix(2) == [
                    "1 golden pair recorded, \(count - 1) unchanged", "\(count) passed, 0 failed",
                ],
                "\(update.stdout)")
            // Only the changed scenario is recorded; every other one says its goldens stand.
            let passes = update.stdoutLines.filter { $0.hasPrefix("PASS ") }
            #expect(passes.count == count, "\(update.stdout)")
            let recorded = passes.filter { $0.hasSuffix(" (recorded)") }
            #expect(
                recorded.map { $0.split(separator: " ")[1...3].joined(separator: " ") } == [
                    "eduid.onboarding › happy-path"
                ])
            #expect(passes.filter { $0.hasSuffix(" (unchanged)") }.count == count - 1, "\(update.stdout)")
            #expect(try Self.identity(of: other) == otherBefore, "an unchanged golden was written again")
            #expect((try? Data(contentsOf: golden)) == original, "--update did not restore the golden byte for byte")
            #expect((try? Data(contentsOf: textGolden)) == originalText)
            #expect(
                RunTests.strayTemporaries(in: golden.deletingLastPathComponent()).isEmpty,
                "left behind: \(entries(of: golden.deletingLastPathComponent()))")

            let again = try await runJourney(["test", journeys.path], cwd: directory)
            #expect(again.status == Exit.ok)
        }
    }

    /// A file's inode and modification time: what a rewrite (a rename into place) changes.
    static func identity(of file: URL) throws -> [String] {
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        return [
            "\(attributes[.systemFileNumber] ?? "?")",
            "\((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)",
        ]
    }

    @Test("a missing golden fails and says how to record it")
    func missingGolden() async throws {
        try await withTemporaryDirectory { directory in
            let journeys = try copyShippedJourneys(into: directory)
            try FileManager.default.removeItem(
                at: journeys.appendingPathComponent("examples/transcripts/forgot-pin.txt"))
            let result = try await runJourney(["test", "journeys"], cwd: directory)
            expectNoCrash(result)
            #expect(result.status == Exit.failed, "\(result)")
            #expect(result.stdout.contains("FAIL examples.unlock › forgot-pin"))
            #expect(result.stdout.contains("run `journey test --update`"), "\(result.stdout)")
            #expect(result.stdout.contains("forgot-pin.txt"))
            #expect(result.stdoutLines.last == "\(Self.scenarioCount - 1) passed, 1 failed")
            // And it is not recorded behind the user's back.
            #expect(
                !FileManager.default.fileExists(
                    atPath: journeys.appendingPathComponent("examples/transcripts/forgot-pin.txt").path))
        }
    }

    @Test("a missing .jsonl golden fails too")
    func missingJSONLGolden() async throws {
        try await withTemporaryDirectory { directory in
            let journeys = try copyShippedJourneys(into: directory)
            try FileManager.default.removeItem(
                at: journeys.appendingPathComponent("examples/transcripts/forgot-pin.jsonl"))
            let result = try await runJourney(["test", "journeys", "--filter", "forgot-pin"], cwd: directory)
            expectNoCrash(result)
            #expect(result.status == Exit.failed, "\(result)")
            #expect(result.stdout.contains("forgot-pin.jsonl"))
        }
    }

    /// Runs `journey test` on the forgot-pin scenario after `change` to a copy of the shipped
    /// journeys; it must fail.
    func failingForgotPin(_ change: (URL) throws -> Void) async throws -> RunResult {
        try await withTemporaryDirectory { directory in
            let journeys = try copyShippedJourneys(into: directory)
            try change(journeys.appendingPathComponent("examples/transcripts"))
            let result = try await runJourney(["test", "journeys", "--filter", "forgot-pin"], cwd: directory)
            expectNoCrash(result)
            #expect(result.status == Exit.failed, "\(result)")
            #expect(result.stdout.contains("FAIL examples.unlock › forgot-pin"), "\(result.stdout)")
            #expect(result.stdoutLines.last == "0 passed, 1 failed")
            return result
        }
    }

    static func replace(_ text: String, with replacement: String, in file: URL) throws {
        let content = try String(contentsOf: file, encoding: .utf8)
        #expect(content.contains(text), "\(file.lastPathComponent) has no \(text)")
        try writeText(content.replacingOccurrences(of: text, with: replacement), to: file)
    }

    @Test("a .jsonl golden changed where the text shows it fails with the text diff and the step")
    func changedJSONLGolden() async throws {
        let result = try await failingForgotPin { transcripts in
            try Self.replace(
                "\"forgot\"", with: "\"forgotten\"", in: transcripts.appendingPathComponent("forgot-pin.jsonl"))
        }
        #expect(
            result.stdout.contains(
                "transcript differs from the golden at step 'enterPin' (journeys/examples/transcripts/forgot-pin.jsonl line 4)"
            ), "\(result.stdout)")
        let body = result.stdoutLines.map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(body.contains("-00:00.000   input action=\"forgotten\""), "\(result.stdout)")
        #expect(body.contains("+00:00.000   input action=\"forgot\""), "\(result.stdout)")
    }

    @Test("a .jsonl golden changed where the text does not show it fails with its JSON lines and the step")
    func changedJSONLGoldenOutOfTheTextsSight() async throws {
        // The text rendering never shows which step a screen belongs to.
        let result = try await failingForgotPin { transcripts in
            try Self.replace(
                #""event":"screen","step":"enterPin""#, with: #""event":"screen","step":"elsewhere""#,
                in: transcripts.appendingPathComponent("forgot-pin.jsonl"))
        }
        #expect(
            result.stdout.contains(
                "transcript differs from the golden at step 'enterPin' (journeys/examples/transcripts/forgot-pin.jsonl line 4)"
            ), "\(result.stdout)")
        let body = result.stdoutLines.map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(
            body.contains { $0.hasPrefix(#"-{"t":0,"depth":0,"event":"screen","step":"elsewhere","#) },
            "\(result.stdout)")
        #expect(
            body.contains { $0.hasPrefix(#"+{"t":0,"depth":0,"event":"screen","step":"enterPin","#) },
            "\(result.stdout)")
    }

    @Test("a .txt golden edited by hand fails, naming its first differing line")
    func textGoldenEditedByHand() async throws {
        let golden = try String(
            contentsOf: Paths.journeys.appendingPathComponent("examples/transcripts/forgot-pin.txt"), encoding: .utf8)
        let (index, step) = try #require(Self.locate("input action=\"forgot\"", in: golden))
        let result = try await failingForgotPin { transcripts in
            try Self.replace(
                "input action=\"forgot\"", with: "input action=\"forgotten\"",
                in: transcripts.appendingPathComponent("forgot-pin.txt"))
        }
        #expect(
            result.stdout.contains(
                "journeys/examples/transcripts/forgot-pin.txt is not the text rendering of journeys/examples/transcripts/forgot-pin.jsonl: it differs at line \(index + 1) (step '\(step)')"
            ), "\(result.stdout)")
        #expect(result.stdout.contains("re-record both with `journey test --update`"))
        let body = result.stdoutLines.map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(body.contains("-00:00.000   input action=\"forgotten\""), "\(result.stdout)")
    }

    @Test("a truncated .jsonl golden fails with its path, line and column")
    func truncatedJSONLGolden() async throws {
        let golden = try String(
            contentsOf: Paths.journeys.appendingPathComponent("examples/transcripts/forgot-pin.jsonl"), encoding: .utf8)
        let cut = golden.index(try #require(golden.range(of: #""event":"input""#)).lowerBound, offsetBy: 12)
        let kept = golden[..<cut]
        let line = kept.filter { $0 == "\n" }.count + 1
        let column =
            kept.count - (kept.lastIndex(of: "\n").map { kept.distance(from: kept.startIndex, to: $0) + 1 } ?? 0) + 1
        let result = try await failingForgotPin { transcripts in
            try writeText(String(kept), to: transcripts.appendingPathComponent("forgot-pin.jsonl"))
        }
        #expect(
            result.stdout.contains(
                "journeys/examples/transcripts/forgot-pin.jsonl:\(line):\(column): the golden does not read as a transcript: the line ends in the middle of the event"
            ), "\(result.stdout)")
    }

    @Test("--filter runs only the scenarios whose name matches")
    func filter() async throws {
        try await withTemporaryDirectory { directory in
            try copyShippedJourneys(into: directory)
            let matching = files(under: Paths.journeys, endingWith: ".scenario.yaml")
                .map { $0.lastPathComponent.replacingOccurrences(of: ".scenario.yaml", with: "") }
                .filter { $0.contains("happy") }
            #expect(!matching.isEmpty)
            let result = try await runJourney(["test", "--filter", "happy"], cwd: directory)
            expectNoCrash(result)
            #expect(result.status == Exit.ok, "\(result)")
            let ran = result.stdoutLines.filter { $0.hasPrefix("PASS ") || $0.hasPrefix("FAIL ") }
            #expect(ran.count == matching.count, "\(ran)")
            #expect(ran.allSatisfy { $0.contains("happy") })
            #expect(result.stdoutLines.last == "\(matching.count) passed, 0 failed")

            // A filter that chooses nothing is a misspelt name, not a suite that passed.
            let none = try await runJourney(["test", "--filter", "no-such-scenario-name"], cwd: directory)
            #expect(none.status == Exit.invalid, "\(none)")
            #expect(none.stderr.contains("error: --filter 'no-such-scenario-name' chooses none of the"), "\(none)")
        }
    }

    @Test("--update writes goldens only inside the project: a transcripts link out of it fails, writing nothing")
    func goldensStayInsideTheProject() async throws {
        try await withTemporaryDirectory { directory in
            let project = directory.appendingPathComponent("project")
            try FileManager.default.createDirectory(at: project, withIntermediateDirectories: true)
            let journeys = try copyShippedJourneys(into: project)
            let transcripts = journeys.appendingPathComponent("examples/transcripts")
            let elsewhere = directory.appendingPathComponent("elsewhere")
            try FileManager.default.moveItem(at: transcripts, to: elsewhere)
            try FileManager.default.createSymbolicLink(
                atPath: transcripts.path, withDestinationPath: "../../../elsewhere")
            let golden = elsewhere.appendingPathComponent("forgot-pin.txt")
            try writeText(try String(contentsOf: golden, encoding: .utf8) + "changed\n", to: golden)
            let before = DocsTests.snapshot(elsewhere)

            // Reading through the link is fine.
            let test = try await runJourney(["test", "journeys/examples"], cwd: project)
            #expect(test.status == Exit.failed, "\(test)")
            #expect(test.stdout.contains("FAIL examples.unlock › forgot-pin"))

            let update = try await runJourney(["test", "journeys/examples", "--update"], cwd: project)
            expectNoCrash(update)
            // A golden not written is an output not written: exit 2, as for a report.
            #expect(update.status == Exit.invalid, "\(update)")
            let count = files(under: journeys.appendingPathComponent("examples"), endingWith: ".scenario.yaml").count
            // Only the golden that changed is written, and that is what fails: the others are
            // already what their scenarios play, read through the link as a plain run reads them.
            #expect(update.stdoutLines.last == "\(count - 1) passed, 1 failed", "\(update.stdout)")
            #expect(update.stdout.contains("FAIL examples.unlock › forgot-pin"), "\(update.stdout)")
            #expect(
                update.stdout.contains(
                    "cannot record the golden transcript: journeys/examples/transcripts is a symbolic link to ../../../elsewhere (\(elsewhere.path)), outside journeys/examples; goldens are written only inside the project's folders"
                ), "\(update.stdout)")
            #expect(DocsTests.snapshot(elsewhere) == before, "written: \(entries(of: elsewhere))")

            // A link that stays inside the project is followed.
            try FileManager.default.removeItem(at: transcripts)
            try FileManager.default.moveItem(at: elsewhere, to: journeys.appendingPathComponent("examples/goldens"))
            try FileManager.default.createSymbolicLink(atPath: transcripts.path, withDestinationPath: "goldens")
            let inside = try await runJourney(["test", "journeys/examples", "--update"], cwd: project)
            #expect(inside.status == Exit.ok, "\(inside)")
            #expect(
                (try? Data(contentsOf: journeys.appendingPathComponent("examples/goldens/forgot-pin.txt")))
                    == (try? Data(
                        contentsOf: Paths.journeys.appendingPathComponent("examples/transcripts/forgot-pin.txt"))))

            // A link to nowhere is refused too, and nothing is made at its end.
            try FileManager.default.removeItem(at: transcripts)
            let nowhere = directory.appendingPathComponent("nowhere")
            try FileManager.default.createSymbolicLink(atPath: transcripts.path, withDestinationPath: nowhere.path)
            let dangling = try await runJourney(["test", "journeys/examples", "--update"], cwd: project)
            #expect(dangling.status == Exit.invalid, "\(dangling)")
            #expect(
                dangling.stdout.contains(
                    "journeys/examples/transcripts is a symbolic link to \(nowhere.path), which does not exist; goldens are written only inside the project's folders"
                ), "\(dangling.stdout)")
            #expect(!FileManager.default.fileExists(atPath: nowhere.path))
        }
    }

    @Test("two scenario files that would share their goldens are an error at the second, before anything is recorded")
    func sharedGoldens() async throws {
        try await withTemporaryDirectory { directory in
            let journeys = try copyShippedJourneys(into: directory)
            let scenarios = journeys.appendingPathComponent("examples/scenarios")
            // Another scenario, whose golden would differ, under the name of one that has goldens.
            try FileManager.default.copyItem(
                at: scenarios.appendingPathComponent("correct-pin.scenario.yaml"),
                to: scenarios.appendingPathComponent("forgot-pin.yaml"))
            let copy = scenarios.appendingPathComponent("forgot-pin.yaml")
            try writeText(
                try String(contentsOf: copy, encoding: .utf8).replacingOccurrences(
                    of: "scenario: correct-pin", with: "scenario: correct-pin-again"), to: copy)
            let message =
                "journeys/examples/scenarios/forgot-pin.yaml:1:1: error: its golden transcripts, journeys/examples/transcripts/forgot-pin.txt and .jsonl, are those of journeys/examples/scenarios/forgot-pin.scenario.yaml too; rename one of the two files [scenario.golden]"
            let check = try await runJourney(["check", "journeys/examples"], cwd: directory)
            #expect(check.status == Exit.invalid, "\(check)")
            #expect(check.stderrLines.contains(message), "\(check)")
            let golden = journeys.appendingPathComponent("examples/transcripts/forgot-pin.jsonl")
            let before = try Data(contentsOf: golden)
            let update = try await runJourney(["test", "journeys/examples", "--update"], cwd: directory)
            #expect(update.status == Exit.invalid, "\(update)")
            #expect(update.stderrLines.contains(message), "\(update)")
            #expect(!update.stdout.contains("PASS examples.unlock › forgot-pin"), "neither runs: \(update)")
            #expect(update.stdout.contains("ERROR examples.unlock › correct-pin-again"), "\(update)")
            #expect(try Data(contentsOf: golden) == before)
        }
    }

    @Test("a journey with errors: its scenarios are errors, every other scenario still runs, exit 2")
    func invalidInput() async throws {
        try await withTemporaryDirectory { directory in
            let journeys = try copyShippedJourneys(into: directory)
            let journey = journeys.appendingPathComponent("examples/unlock.journey.yaml")
            let text = try String(contentsOf: journey, encoding: .utf8)
            #expect(text.contains("handler: pin.verify"))
            try writeText(text.replacingOccurrences(of: "handler: pin.verify", with: "handler: pin.verfy"), to: journey)
            let examples = scenarioFiles(under: journeys.appendingPathComponent("examples"), of: "examples.unlock")
                .count
            let result = try await runJourney(["test", "journeys"], cwd: directory)
            expectNoCrash(result)
            #expect(result.status == Exit.invalid, "\(result)")
            #expect(result.errors("handler.unknown").contains { $0.path == "journeys/examples/unlock.journey.yaml" })
            let errors = result.stdoutLines.filter { $0.hasPrefix("ERROR examples.unlock › ") }
            #expect(errors.count == examples, "\(result.stdout)")
            #expect(errors.allSatisfy { $0.contains("its journey 'examples.unlock' has errors") })
            // Every other scenario ran: passed, or skipped when the provider is not running.
            let ran = result.stdoutLines.filter { $0.hasPrefix("PASS ") || $0.hasPrefix("SKIP ") }.count
            #expect(ran == Self.scenarioCount - examples, "\(result.stdout)")
            #expect(!result.stdout.contains("FAIL "))
            #expect(
                result.stdoutLines.last?.hasSuffix(" failed, \(examples) errors") == true
                    || result.stdoutLines.last?.contains(", \(examples) errors") == true,
                "\(result.stdoutLines.last ?? "")")
        }
    }
}
