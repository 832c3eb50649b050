import Foundation
import Testing

@testable import JourneyCore

/// A journey that fails to load is reported at its own file, whoever calls it; its callers
/// and scenarios say where the errors are instead of "unknown journey"; everything else still
/// compiles and runs.
@Suite("Load errors are reported where they are")
struct LoadErrorTests {
    static let main = """
        journey: t.main
        version: 1
        title: Main
        start: a
        steps:
          a:
            call: t.sub
            on: { done: fin }
        ends:
          fin: { kind: success }
        """

    static let emptyStart = """
        journey: t.sub
        version: 1
        title: Sub
        start:
        steps:
          a:
            handler: t.step
            on: { next: done, back: done }
        ends:
          done: { kind: success }
        """

    static let other = """
        journey: t.other
        version: 1
        title: Other
        start: a
        steps:
          a:
            handler: t.step
            on: { next: done, back: done }
        ends:
          done: { kind: success }
        """

    static let scenario = """
        scenario: s
        journey: t.main
        script: []
        expect: { end: fin }
        """

    @Test("an empty start is an error at the sub-journey's file; the caller gets a note, not 'unknown journey'")
    func emptyStart() {
        for journeyOnly in [false, true] {
            let project = ProjectLoader(handlers: testHandlers).load([
                SourceFile(path: "main.yaml", data: Data(Self.main.utf8)),
                SourceFile(path: "sub.yaml", data: Data(Self.emptyStart.utf8), journeyOnly: journeyOnly),
            ])
            let errors = project.diagnostics.items.filter { $0.severity == .error }
            #expect(errors.map(\.location.file) == ["sub.yaml"], "\(errors)")
            #expect(errors.first?.message.contains("'start'") == true)
            #expect(errors.first?.location.line == 4)
            #expect(!project.diagnostics.items.contains { $0.message.contains("unknown journey") })
            #expect(project.library == nil)
        }
    }

    @Test("a sub-journey that does not parse is reported at its file, and its caller's note points there")
    func brokenCandidate() {
        let broken = "journey: t.sub\nversion: 1\ntitle: \"unclosed\nstart: a\n"
        let project = ProjectLoader(handlers: testHandlers).load([
            SourceFile(path: "main.yaml", data: Data(Self.main.utf8)),
            SourceFile(path: "sub.yaml", data: Data(broken.utf8), journeyOnly: true),
        ])
        let errors = project.diagnostics.items.filter { $0.severity == .error }
        #expect(errors.count == 1 && errors[0].location.file == "sub.yaml", "\(errors)")
        let notes = project.diagnostics.items.filter { $0.severity == .note }
        #expect(notes.contains { $0.location.file == "main.yaml" && $0.message.contains("sub.yaml") }, "\(notes)")
        // Printed in order, the error comes first and the note that points at it after, though
        // the caller's file sorts first.
        #expect(project.diagnostics.sorted.map(\.severity) == [.error, .note], "\(project.diagnostics.sorted)")
    }

    @Test("a scenario of a journey whose callee has errors cannot run, and says which file")
    func unrunnableScenario() {
        let project = ProjectLoader(handlers: testHandlers).load([
            SourceFile(path: "main.yaml", data: Data(Self.main.utf8)),
            SourceFile(path: "sub.yaml", data: Data(Self.emptyStart.utf8)),
            SourceFile(path: "other.yaml", data: Data(Self.other.utf8)),
            SourceFile(path: "s.yaml", data: Data(Self.scenario.utf8)),
        ])
        #expect(project.scenarios.isEmpty)
        #expect(project.unrunnable.count == 1)
        #expect(project.unrunnable.first?.scenario == "s")
        #expect(project.unrunnable.first?.reason == "its journey 't.main' calls 't.sub', which has errors (sub.yaml)")
        // The journey that has nothing to do with the broken one still compiles.
        #expect(project.compiled["t.other"] != nil)
        #expect(project.compiled["t.main"] == nil)
    }

    @Test("a scenario file that does not parse is listed as unrunnable under the name it declares")
    func brokenScenarioFile() {
        let project = ProjectLoader(handlers: testHandlers).load([
            SourceFile(path: "other.yaml", data: Data(Self.other.utf8)),
            SourceFile(path: "s.scenario.yaml", data: Data("scenario: late\njourney: t.other\nscript: [\n".utf8)),
        ])
        #expect(project.unrunnable.map(\.scenario) == ["late"])
        #expect(project.unrunnable.first?.journey == "t.other")
        #expect(project.unrunnable.first?.reason == "s.scenario.yaml has errors")
    }

    @Test(
        "a file named as a scenario that says nothing of what it is still counts as a scenario that cannot run",
        arguments: [
            ("broken.scenario.yaml", "a: b: c\n"), ("app/scenarios/typo.yaml", "scenaro: x\njourney: t.other\n"),
            ("app/scenarios/list.yml", "- a\n- b\n"),
        ])
    func scenarioByItsName(path: String, text: String) {
        let project = ProjectLoader(handlers: testHandlers).load([
            SourceFile(path: "other.yaml", data: Data(Self.other.utf8)),
            SourceFile(path: path, data: Data(text.utf8)),
        ])
        #expect(project.unrunnable.map(\.file) == [path])
        #expect(project.unrunnable.first?.reason == "\(path) has errors")
        #expect(project.diagnostics.hasErrors)
        // A file named otherwise stays a file with errors, no scenario.
        let other = ProjectLoader(handlers: testHandlers).load([
            SourceFile(path: "other.yaml", data: Data(Self.other.utf8)),
            SourceFile(path: "notes.yaml", data: Data(text.utf8)),
        ])
        #expect(other.unrunnable.isEmpty && other.diagnostics.hasErrors)
    }

    @Test(
        "a limit, state or stored value declared with an error is reported once, at its declaration, not at each use",
        arguments: [
            ("    max: 3\n", "    max: -1\n", "value.range"),
            ("  tries: { type: int, default: 0 }\n", "  tries: { type: integer, default: 0 }\n", "value.type"),
            ("  draft: { type: string, secret: true }\n", "  draft: { type: strng, secret: true }\n", "value.type"),
            ("    counter: stored.tries\n", "    counter: tries\n", "value.type"),
        ])
    func declarationErrorsDoNotCascade(original: String, broken: String, id: String) throws {
        let journey = """
            journey: t.cascade
            version: 1
            title: Cascade
            state:
              draft: { type: string, secret: true }
            stored:
              tries: { type: int, default: 0 }
            limits:
              entry:
                max: 3
                counter: stored.tries
                exceeded: out
            start: pin
            steps:
              pin:
                handler: t.secret
                screen:
                  title: "Tries left: ${limits.entry.remaining}"
                attempts: { limit: entry, counts: [done] }
                on:
                  done:
                    - if: stored.tries < 2 && state.draft == ''
                      set: { state.draft: "${outcome.pin}", stored.tries: "${stored.tries + 1}" }
                      to: pin
                    - else: done
            ends:
              done: { kind: success }
              out: { kind: failure }

            """
        let clean = ProjectLoader(handlers: testHandlers).load([
            SourceFile(path: "j.yaml", data: Data(journey.utf8))
        ])
        #expect(clean.diagnostics.items.filter { $0.severity == .error }.isEmpty, "\(clean.diagnostics.sorted)")
        #expect(journey.components(separatedBy: original).count == 2)
        let project = ProjectLoader(handlers: testHandlers).load([
            SourceFile(path: "j.yaml", data: Data(journey.replacingOccurrences(of: original, with: broken).utf8))
        ])
        let errors = project.diagnostics.items.filter { $0.severity == .error }
        #expect(errors.map(\.id) == [id], "\(project.diagnostics.sorted)")
    }

    /// A journey `t.count` that keeps a stored int `tries`, loaded with `scenario` (s.yaml).
    static func loadCount(_ scenario: String) -> Project {
        let journey = """
            journey: t.count
            version: 1
            title: Count
            stored:
              tries: { type: int, default: 0 }
            start: a
            steps:
              a:
                handler: t.step
                on: { next: done, back: done }
            ends:
              done: { kind: success }
            """
        return ProjectLoader(handlers: testHandlers).load([
            SourceFile(path: "j.yaml", data: Data(journey.utf8)), SourceFile(path: "s.yaml", data: Data(scenario.utf8)),
        ])
    }

    /// A scenario's problems are all said: one the loader finds (a device setting out of range)
    /// does not hide those its check against the journey finds (a wrong expectation, an
    /// unknown step); such a scenario never runs.
    @Test func aScenarioSaysAllItsProblems() throws {
        let scenario = """
            scenario: s
            journey: t.count
            device: { kdfRounds: 99999999999999999999, clock: yesterday }
            script:
              - { at: nowhere, action: next }
            expect: { at: a, stored: { tries: 1.5 } }
            """
        let project = Self.loadCount(scenario)
        let errors = project.diagnostics.items.filter { $0.severity == .error }
        let lines = errors.map { "\($0.location.line):\($0.location.column) \($0.id)" }
        #expect(lines.contains { $0.hasPrefix("3:22 ") }, "kdfRounds: \(lines)")
        #expect(lines.contains { $0.hasPrefix("3:51 ") }, "clock: \(lines)")
        #expect(lines.contains { $0.hasPrefix("5:11 ") }, "the unknown step: \(lines)")
        #expect(lines.contains { $0.hasPrefix("6:35 ") }, "the expectation: \(lines)")
        #expect(project.scenarios.isEmpty)
        #expect(project.unrunnable.map(\.reason) == ["s.yaml has errors"])
    }

    /// A scenario's empty title would show as nothing in the docs: a warning at the title, and
    /// the scenario still runs. A title with words, or none, draws none.
    @Test(arguments: [("\"\"", true), ("\"  \"", true), ("Count once", false), (nil, false)])
    func emptyScenarioTitle(title: String?, warned: Bool) {
        let line = title.map { "title: \($0)\n" } ?? ""
        let project = Self.loadCount("scenario: s\njourney: t.count\n\(line)script: []\nexpect: { at: a }\n")
        let found = project.diagnostics.items.filter { $0.id == "text.empty" }
        #expect(found.map(\.severity) == (warned ? [.warning] : []), "\(project.diagnostics.sorted)")
        #expect(found.allSatisfy { $0.location.line == 3 && $0.location.column == 8 }, "\(found)")
        #expect(!project.diagnostics.hasErrors)
        #expect(project.scenarios.count == 1)
    }

    /// A PIN the scenario seals is digits, as a PIN pad types them; the refusal never shows it.
    @Test(arguments: ["abcd", "12 34", "[1234]", "\"\"", "１２３４"])
    func aPINIsDigits(written: String) {
        let scenario =
            "scenario: s\njourney: t.count\ndevice:\n  pins: { pin: \(written) }\nscript: []\nexpect: { at: a }\n"
        let project = Self.loadCount(scenario)
        let errors = project.diagnostics.items.filter { $0.severity == .error }
        #expect(errors.map(\.id) == ["value.type"], "\(written): \(project.diagnostics.sorted)")
        #expect(errors.first?.location.line == 4, "\(written): \(errors)")
        let shown = written.trimmingCharacters(in: CharacterSet(charactersIn: "[]\""))
        #expect(shown.isEmpty || !(errors.first?.message.contains(shown) ?? true), "\(errors)")
        #expect(project.scenarios.isEmpty)
    }

    @Test(
        "a whole number written as text says how to write it: without quotes, without leading zeros, or in range",
        arguments: [
            ("\"0\"", "write the number without quotes"), ("007", "numbers are written without leading zeros"),
            ("99999999999999999999", "a whole number is from -9223372036854775808 to 9223372036854775807"),
            ("\"-99999999999999999999\"", "a whole number is from -9223372036854775808 to 9223372036854775807"),
        ])
    func numberWrittenAsText(written: String, hint: String) {
        let scenario = "scenario: s\njourney: t.count\nscript: []\nexpect:\n  at: a\n  stored: { tries: \(written) }\n"
        let project = Self.loadCount(scenario)
        let messages = project.diagnostics.items.filter { $0.severity == .error }.map(\.message)
        #expect(messages.count == 1 && messages.first?.hasSuffix("; \(hint)") == true, "\(messages)")
    }

    /// The messages of the errors a journey file of `journey` has.
    static func errors(of journey: String) -> [String] {
        ProjectLoader(handlers: testHandlers).load([SourceFile(path: "j.yaml", data: Data(journey.utf8))])
            .diagnostics.items.filter { $0.severity == .error }.map(\.message)
    }

    @Test(
        "a bool written as text says how to write it: without quotes, in lower case, as true or false",
        arguments: [
            ("\"true\"", "write true without quotes"), ("yes please", "write true or false"),
            ("yes", "'yes' is text in YAML 1.2, which JourneyKit reads (YAML 1.1 read it as true): write true"),
            ("Off", "'Off' is text in YAML 1.2, which JourneyKit reads (YAML 1.1 read it as false): write false"),
            ("TRUE", "write true, in lower case"),
        ])
    func boolWrittenAsText(written: String, hint: String) {
        let journey = """
            journey: t.flag
            version: 1
            title: Flag
            state:
              shown: { type: bool, default: \(written) }
            start: a
            steps:
              a:
                handler: t.step
                on: { next: done, back: done }
            ends:
              done: { kind: success }
            """
        let messages = Self.errors(of: journey)
        #expect(messages.count == 1 && messages.first?.hasSuffix("; \(hint)") == true, "\(messages)")
    }

    @Test(
        "a flag of the file's own keys written as YAML 1.1 wrote it says what to write",
        arguments: [("no", "false"), ("on", "true")])
    func flagWrittenAsYAML11(written: String, meant: String) {
        let journey = """
            journey: t.flag
            version: 1
            title: Flag
            stored:
              tries: { type: int, default: 0 }
            limits:
              entry: { max: 3, counter: stored.tries, exceeded: done, keep: \(written) }
            start: a
            steps:
              a:
                handler: t.step
                attempts: { limit: entry, counts: [next] }
                on: { next: a, back: done }
            ends:
              done: { kind: success }
            """
        let messages = Self.errors(of: journey)
        #expect(
            messages
                == [
                    "'keep' must be true or false; '\(written)' is text in YAML 1.2, which JourneyKit reads (YAML 1.1 read it as \(meant)): write \(meant)"
                ], "\(messages)")
    }

    @Test("a journey id is refused for what is wrong with it: its words, or its length")
    func journeyIdProblems() {
        func message(_ id: String) -> [String] {
            let journey =
                "journey: \(id)\nversion: 1\ntitle: T\nstart: a\nsteps:\n  a:\n    handler: t.step\n    on: { next: done, back: done }\nends:\n  done: { kind: success }\n"
            return ProjectLoader(handlers: testHandlers).load([SourceFile(path: "j.yaml", data: Data(journey.utf8))])
                .diagnostics.items.filter { $0.id == "id.invalid" }.map(\.message)
        }
        #expect(
            message("Acme.Login") == [
                "journey id 'Acme.Login' is not valid; use lowercase words joined by '.' or '-', like 'eduid.onboarding'"
            ])
        let long = String(repeating: "a", count: 129)
        #expect(message(long) == ["journey id '\(long)' is 129 characters long; a journey id is at most 128"])
        #expect(message(String(repeating: "a", count: 128)).isEmpty)
    }

    @Test("CRLF files load like LF files, searched sub-journeys included")
    func crlf() {
        func crlf(_ text: String) -> Data {
            Data(("# a comment first\n" + text).replacingOccurrences(of: "\n", with: "\r\n").utf8)
        }
        let sub = Self.emptyStart.replacingOccurrences(of: "start:\n", with: "start: a\n")
        let project = ProjectLoader(handlers: testHandlers).load([
            SourceFile(path: "main.yaml", data: crlf(Self.main)),
            SourceFile(path: "sub.yaml", data: crlf(sub), journeyOnly: true),
            SourceFile(path: "s.yaml", data: crlf(Self.scenario)),
        ])
        #expect(project.diagnostics.items.isEmpty, "\(project.diagnostics.sorted)")
        #expect(project.scenarios.count == 1)
        #expect(ProjectLoader.declaredKey("journey", in: crlf(Self.main)) == "t.main")
    }

    @Test("limits.NAME.count reads the stored counter's declared default until it is written")
    func limitCountDefault() throws {
        let text = """
            journey: t.j
            version: 1
            title: T
            stored:
              failures: { type: int, default: 2 }
            limits:
              pin: { max: 3, counter: stored.failures, exceeded: failed }
            start: a
            steps:
              a:
                handler: t.check
                attempts: { limit: pin, counts: [wrong] }
                screen:
                  title: "${limits.pin.count} of ${limits.pin.max}, ${limits.pin.remaining} left"
                on: { correct: done, wrong: a, cancel: failed }
            ends:
              done: { kind: success }
              failed: { kind: failure }
            """
        let (library, found) = compile([text])
        let lib = try #require(library, "\(found)")
        var machine = JourneyMachine(library: lib, journey: try #require(lib["t.j"]), device: DeviceState())
        guard case .runStep(let invocation) = machine.handle(.start) else {
            Issue.record("the step did not run")
            return
        }
        #expect(invocation.screen?.title == "2 of 3, 1 left")
    }

    /// A misspelt key is one error: what it was meant as is read from it, so the outcomes under
    /// `onn:` are handled and `on` is not also missing; two misspellings of one key are not
    /// guessed at.
    @Test(arguments: [
        (
            "    handler: t.step\n    onn: { next: done, back: done }\n",
            ["10:5 key.unknown unknown key 'onn' in step 'a'; did you mean 'on'?"]
        ),
        (
            "    handlr: t.step\n    on: { next: done, back: done }\n",
            ["9:5 key.unknown unknown key 'handlr' in step 'a'; did you mean 'handler'?"]
        ),
    ])
    func aMisspeltKeyIsOneError(step: String, expected: [String]) {
        let project = ProjectLoader(handlers: testHandlers).load([
            SourceFile(path: "t.journey.yaml", data: Data((Self.typoHead + step).utf8))
        ])
        #expect(
            project.diagnostics.sorted.map { "\($0.location.line):\($0.location.column) \($0.id) \($0.message)" }
                == expected, "\(project.diagnostics.sorted)")
    }

    @Test func twoMisspellingsOfOneKeyAreNotGuessedAt() {
        let step = "    handler: t.step\n    onn: { next: done, back: done }\n    onm: { next: done, back: done }\n"
        let project = ProjectLoader(handlers: testHandlers).load([
            SourceFile(path: "t.journey.yaml", data: Data((Self.typoHead + step).utf8))
        ])
        let ids = project.diagnostics.sorted.map(\.id)
        #expect(ids.filter { $0 == "key.unknown" }.count == 2 && ids.contains("key.missing"), "\(ids)")
    }

    static let typoHead =
        "journey: t.typo\nversion: 1\ntitle: T\nstart: a\nends:\n  done: { kind: success }\nsteps:\n  a:\n"
}
