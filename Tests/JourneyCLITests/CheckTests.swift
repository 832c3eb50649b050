import Foundation
import Testing

/// Journeys and scenarios written at test time; each test gets its own `journeys` folder
/// so that files of one test never take part in another's check.
enum TestJourneys {
    /// Problems the compiler finds (the journey loads, but does not compile). Lines matter:
    /// the test asserts each diagnostic's line.
    static let compileProblems = """
        journey: demo.multi
        version: 1
        title: Many problems
        state:
          count: { type: int, default: 0 }
        start: first
        steps:
          first:
            handler: ui.nope
            screen:
              title: First
              actions:
                next: Next
            on:
              next: second
          second:
            handler: ui.screen
            screen:
              title: Second
              actions:
                next: Next
                back: Back
            on:
              next: nowhere
              back: first
              sideways: first
          third:
            handler: ui.screen
            screen:
              title: Third
              actions:
                a: A
                b: B
            on:
              a: done
          fourth:
            handler: ui.screen
            screen:
              title: Fourth
              actions:
                go: Go
            on:
              go:
                - if: state.missing > 1
                  to: done
                - if: state.count + 'x'
                  to: done
                - else: done
        ends:
          done: { kind: success, title: Done }

        """

    /// (id, line) of every error in `compileProblems`.
    static let compileExpectations: [(id: String, line: Int)] = [
        ("handler.unknown", 9),  // handler: ui.nope
        ("step.unknown", 24),  // next: nowhere
        ("outcome.undeclared", 26),  // sideways: first
        ("outcome.unhandled", 27),  // third does not handle 'b'
        ("expr.undefined", 44),  // state.missing
        ("expr.type", 46),  // state.count + 'x'
    ]

    /// The same problems plus two the loader finds: a guarded list without `else`, and an
    /// unknown key in a step.
    static var allProblems: String {
        compileProblems
            .replacingOccurrences(of: "          to: done\n        - else: done\n", with: "          to: done\n")
            .replacingOccurrences(
                of: "ends:\n",
                with: """
                      fifth:
                        handlr: ui.screen
                        screen:
                          title: Fifth
                          actions:
                            next: Next
                        on:
                          next: done
                    ends:

                    """)
    }

    static func screenStep(_ id: String, actions: [String: String]) -> String {
        let on = actions.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
        let labels = actions.keys.sorted().map { "\($0): \($0.capitalized)" }.joined(separator: ", ")
        return """
              \(id):
                handler: ui.screen
                screen: { title: \(id.capitalized), actions: { \(labels) } }
                on: { \(on) }

            """
    }
}

@Suite("journey check", .timeLimit(.minutes(30)))
struct CheckTests {
    @Test("a file named twice, in a folder and by itself, however spelt, is read once")
    func fileNamedTwice() async throws {
        let folder = "journeys/examples"
        let file = "journeys/examples/unlock.journey.yaml"
        let root = Paths.root.path
        for arguments in [[folder, file], [folder, "./\(file)"], [folder, "\(root)/\(file)"], [file, file]] {
            let result = try await runJourney(["check", "--strict"] + arguments)
            #expect(result.status == Exit.ok, "\(arguments): \(result)")
            #expect(!result.stderr.contains("id.duplicate"), "\(arguments): \(result)")
        }
    }

    @Test("a journey's or a scenario's id given where a path goes names its file, and what the command takes instead")
    func journeyIDForAPath() async throws {
        let file = "journeys/examples/unlock.journey.yaml"
        let cases: [([String], String)] = [
            (["check", "examples.unlock"], "name that file instead"),
            (["docs", "examples.unlock", "--out", "unwritten"], "name that file instead"),
            (["test", "examples.unlock"], "journey test --filter examples.unlock runs the scenarios that play it"),
            (["explore", "examples.unlock"], "name that file, or journey explore --journey examples.unlock"),
        ]
        for (arguments, advice) in cases {
            let result = try await runJourney(arguments)
            expectNoCrash(result)
            #expect(result.status == Exit.invalid, "\(arguments): \(result)")
            // The journey's file, not one of the scenarios that name the journey the same way.
            #expect(
                result.stderrLines.first
                    == "examples.unlock:1:1: error: no such file or directory; 'examples.unlock' is the id of the journey in \(file): \(advice) [file.missing]",
                "\(arguments): \(result)")
        }
        #expect(!FileManager.default.fileExists(atPath: Paths.root.appendingPathComponent("unwritten").path))
        // A scenario's id likewise, with what the option given takes.
        let scenario = "journeys/examples/scenarios/correct-pin.scenario.yaml"
        let scenarioCases: [([String], String)] = [
            (
                ["test", "correct-pin"],
                "correct-pin:1:1: error: no such file or directory; 'correct-pin' is the id of the scenario in \(scenario): name that file instead [file.missing]"
            ),
            (
                ["run", "--scenario", "correct-pin"],
                "correct-pin:1:1: error: no such file or directory; 'correct-pin' is the id of the scenario in \(scenario): --scenario takes its file [file.missing]"
            ),
            (
                ["explore", "correct-pin"],
                "correct-pin:1:1: error: no such file or directory; 'correct-pin' is the id of the scenario in \(scenario): give that file with --from to explore from where it starts [file.missing]"
            ),
            (
                ["explore", "--from", "correct-pin"],
                "correct-pin:1:1: error: no such file or directory; 'correct-pin' is the id of the scenario in \(scenario): --from takes its file [file.missing]"
            ),
            (
                ["play", "--from", "correct-pin"],
                "error: no scenario file correct-pin; 'correct-pin' is the id of the scenario in \(scenario): --from takes its file"
            ),
        ]
        for (arguments, said) in scenarioCases {
            let result = try await runJourney(arguments, input: "")
            expectNoCrash(result)
            #expect(result.status == Exit.invalid, "\(arguments): \(result)")
            #expect(result.stderrLines.first == said, "\(arguments): \(result)")
        }
        // A path like an id that no journey has is only missing.
        let typo = try await runJourney(["check", "examples.unlok"])
        #expect(
            typo.stderrLines.first == "examples.unlok:1:1: error: no such file or directory [file.missing]", "\(typo)")

        // A journey's file given to journey test runs nothing by itself: not a pass, and the
        // error says what runs its scenarios.
        let journeyFile = try await runJourney(["test", file])
        #expect(journeyFile.status == Exit.invalid, "\(journeyFile)")
        #expect(
            journeyFile.stderr
                == "error: \(file) is journey examples.unlock, and journey test runs scenarios: journey test --filter examples.unlock runs those that play it (or name their files or folder)\n",
            "\(journeyFile)")
        #expect(journeyFile.stdout.isEmpty, "\(journeyFile)")
    }

    @Test("the shipped journeys check clean, with and without --strict")
    func shippedJourneysAreClean() async throws {
        for arguments in [["check", "journeys"], ["check", "--strict", "journeys"]] {
            let result = try await runJourney(arguments)
            expectNoCrash(result)
            #expect(result.status == Exit.ok, "\(arguments): \(result)")
            #expect(!result.output.contains("error:"), "\(result)")
            #expect(result.stderr.contains(" 0 errors"), "\(result)")
        }
    }

    @Test("a journey with many compile problems reports all of them in one run, by line")
    func reportsAllCompileProblems() async throws {
        try await withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("journeys/multi.journey.yaml")
            try writeText(TestJourneys.compileProblems, to: file)
            let result = try await runJourney(["check", "journeys"], cwd: directory)
            expectNoCrash(result)
            #expect(result.status == Exit.invalid)
            let mine = result.diagnostics.filter { $0.path == "journeys/multi.journey.yaml" }
            for (id, line) in TestJourneys.compileExpectations {
                #expect(
                    mine.contains { $0.id == id && $0.severity == "error" && $0.line == line },
                    "missing [\(id)] at line \(line) in:\n\(result.stderr)")
            }
            // Sorted by position.
            let positions = result.diagnostics.map { [$0.line, $0.column] }
            #expect(positions == positions.sorted { $0.lexicographicallyPrecedes($1) }, "\(result.stderr)")
            // The messages say what is wrong.
            #expect(mine.contains { $0.id == "handler.unknown" && $0.message.contains("ui.nope") })
            #expect(mine.contains { $0.id == "step.unknown" && $0.message.contains("'nowhere'") })
            #expect(mine.contains { $0.id == "outcome.undeclared" && $0.message.contains("'sideways'") })
            #expect(mine.contains { $0.id == "outcome.unhandled" && $0.message.contains("'b'") })
            #expect(mine.contains { $0.id == "expr.undefined" && $0.message.contains("state.missing") })
            // Unreachable steps in a broken journey are still only warnings.
            #expect(mine.filter { $0.id == "step.unreachable" }.allSatisfy { $0.severity == "warning" })
        }
    }

    @Test("a wait's routes, match and unmatched are checked where each problem is written")
    func linkRoutesAreCheckedWhereWritten() async throws {
        let text = """
            journey: demo.links
            version: 1
            title: Links
            start: wait
            steps:
              wait:
                handler: link.wait
                with:
                  routes:
                    eduid: { linked: account-linked }
                    "eduid:": { created: created }
                    https: created
                  match: { eduid: pth, https: url }
                  unmatched: { https: "not a name" }
                on: { linked: done, created: done, other: done }
            ends:
              done: { kind: success }
            """
        /// The 1-based line and column where `needle` starts in the text.
        func position(of needle: String) -> [Int] {
            let lines = text.components(separatedBy: "\n")
            let line = lines.firstIndex { $0.contains(needle) }!
            let column = lines[line].distance(
                from: lines[line].startIndex, to: lines[line].range(of: needle)!.lowerBound)
            return [line + 1, column + 1]
        }
        try await withTemporaryDirectory { directory in
            try writeText(text, to: directory.appendingPathComponent("journeys/links.journey.yaml"))
            let result = try await runJourney(["check", "journeys"], cwd: directory)
            expectNoCrash(result)
            #expect(result.status == Exit.invalid)
            let found = result.diagnostics.filter { $0.severity == "error" }.map { ($0.id, [$0.line, $0.column]) }
            let https = position(of: "https: created")
            let expected: [(String, [Int])] = [
                ("param.text", position(of: "\"eduid:\"")),  // a table name that is not a scheme
                ("value.type", [https[0], https[1] + "https: ".count]),  // a text where a table belongs
                ("param.text", position(of: "pth")),  // not one of path, host, url, address
                ("param.text", position(of: "\"not a name\"")),  // an outcome journeys cannot write
            ]
            for (id, at) in expected {
                #expect(found.contains { $0.0 == id && $0.1 == at }, "missing [\(id)] at \(at) in:\n\(result.stderr)")
            }
            #expect(found.count == expected.count, "\(result.stderr)")
            #expect(result.stderr.contains("did you mean 'path'?"), "\(result.stderr)")
            #expect(result.stderr.contains("is not a URL scheme"), "\(result.stderr)")
        }
    }

    @Test("a form's submit that names no action of its screen is reported where it is written, or at the step")
    func formSubmitNamesAnAction() async throws {
        let text = """
            journey: demo.forms
            version: 1
            title: Forms
            start: named
            steps:
              named:
                handler: ui.form
                with: { submit: sned }
                screen:
                  title: Your details
                  fields: { name: { kind: text } }
                  actions: { send: Send, back: Back }
                on: { send: unnamed, back: unnamed, invalid: named }
              unnamed:
                handler: ui.form
                screen:
                  title: Your code
                  fields: { code: { kind: digits } }
                  actions: { next: Continue }
                on: { next: computed, invalid: unnamed }
              computed:
                handler: ui.form
                with: { submit: "${params.button}" }
                screen:
                  title: Your email
                  fields: { email: { kind: email } }
                  actions: { send: Send }
                on: { send: done, invalid: computed }
            params:
              button: { type: string, default: send }
            ends:
              done: { kind: success }
            """
        try await withTemporaryDirectory { directory in
            try writeText(text, to: directory.appendingPathComponent("journeys/forms.journey.yaml"))
            let result = try await runJourney(["check", "journeys"], cwd: directory)
            expectNoCrash(result)
            #expect(result.status == Exit.invalid)
            let found = result.diagnostics.filter { $0.severity == "error" }.map { ($0.id, [$0.line, $0.column]) }
            // The written one at its value; the default one at the step; a template's value is
            // the run's to check.
            #expect(found.count == 2, "\(result.stderr)")
            #expect(found.contains { $0.0 == "param.action" && $0.1 == [8, 21] }, "\(result.stderr)")
            #expect(found.contains { $0.0 == "param.action" && $0.1 == [14, 3] }, "\(result.stderr)")
            #expect(
                result.stderr.contains(
                    "parameter 'submit' of ui.form names action 'sned', which the screen of step 'named' does not show (it has 'send', 'back'); did you mean 'send'?"
                ), "\(result.stderr)")
            #expect(
                result.stderr.contains(
                    "step 'unnamed': ui.form's 'submit' is 'submit' unless the step says otherwise, and its screen has 'next'"
                ), "\(result.stderr)")
        }
    }

    @Test("a capture's misuse is reported where it is written: its type, path, keys, and what it is written into")
    func capturesAreCheckedWhereWritten() async throws {
        let text = """
            journey: demo.captures
            version: 1
            title: Captures
            state:
              enrolled: { type: string }
            start: call
            steps:
              call:
                handler: http.request
                with:
                  url: "https://api.example.org/v1/me"
                  captures:
                    on: { path: user.enrolled, type: bool }
                    ratio: { path: user.ratio, type: float }
                    nopath: { type: string }
                    dots: "user..name"
                    index: { path: "items[x].id", type: string }
                    open: "items[0"
                    after: "items[0]id"
                    middle: "a?.b"
                    many: { path: "banks[*].id", type: string }
                    maybe: { path: "user.age?", type: int }
                    typo: { path: user.id, typ: string }
                    shh: { path: token, secret: maybe }
                    "not a name": user.id
                    templated: "${state.enrolled}"
                on:
                  ok:
                    set: { state.enrolled: "${outcome.on}" }
                    to: done
                  failed: done
                  offline: done
            ends:
              done: { kind: success }
            """
        /// The 1-based line and column where `needle` starts in the text, moved `offset` right.
        func position(of needle: String, in line: String? = nil, offset: Int = 0) -> [Int] {
            let lines = text.components(separatedBy: "\n")
            let index = lines.firstIndex { $0.contains(line ?? needle) && $0.contains(needle) }!
            let column = lines[index].distance(
                from: lines[index].startIndex, to: lines[index].range(of: needle)!.lowerBound)
            return [index + 1, column + 1 + offset]
        }
        try await withTemporaryDirectory { directory in
            try writeText(text, to: directory.appendingPathComponent("journeys/captures.journey.yaml"))
            let result = try await runJourney(["check", "journeys"], cwd: directory)
            expectNoCrash(result)
            #expect(result.status == Exit.invalid)
            let found = result.diagnostics.filter { $0.severity == "error" }.map { ($0.id, [$0.line, $0.column]) }
            let expected: [(String, [Int])] = [
                ("value.type", position(of: "float")),  // not a type a capture can declare
                ("key.missing", position(of: "{ type: string }", in: "nopath")),  // no path
                ("capture.path", position(of: "..", offset: 1)),  // the second '.', inside the quotes
                ("capture.path", position(of: "[x]")),  // not an index
                ("capture.path", position(of: "[0\"")),  // '[' never closed
                ("capture.path", position(of: "]id", offset: 1)),  // a key right after ']'
                ("capture.path", position(of: "?.b")),  // '?' only at the end
                ("capture.type", position(of: "string", in: "banks")),  // [*] gives a list
                ("capture.type", position(of: "int", in: "user.age?")),  // no empty int
                ("key.unknown", position(of: "typ:")),
                ("value.type", position(of: "maybe }")),  // secret: true or false
                ("param.text", position(of: "\"not a name\"")),  // outcome.NAME must be a name
                ("capture.path", position(of: "${", in: "templated")),  // read when checked
                ("value.type", position(of: "\"${outcome.on}\"")),  // a bool into a string
            ]
            for (id, at) in expected {
                #expect(found.contains { $0.0 == id && $0.1 == at }, "missing [\(id)] at \(at) in:\n\(result.stderr)")
            }
            #expect(found.count == expected.count, "\(result.stderr)")
            #expect(
                result.stderr.contains(
                    "'type' must be one of string, int, bool, list, found 'float'"), "\(result.stderr)")
            #expect(result.stderr.contains("did you mean 'type'?"), "\(result.stderr)")
            #expect(
                result.stderr.contains("'state.enrolled' is string, but '${outcome.on}' is bool"), "\(result.stderr)")
            #expect(
                result.stderr.contains("capture 'many' reads 'banks[*].id', which gives a list"), "\(result.stderr)")
        }
    }

    @Test("loader and compiler problems in one journey are all reported in one run")
    func reportsLoaderAndCompilerProblemsTogether() async throws {
        try await withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("journeys/multi.journey.yaml")
            let text = TestJourneys.allProblems
            #expect(!text.contains("- else:") && text.contains("handlr:"))
            try writeText(text, to: file)
            let result = try await runJourney(["check", "journeys"], cwd: directory)
            expectNoCrash(result)
            #expect(result.status == Exit.invalid)
            let mine = result.diagnostics.filter { $0.path == "journeys/multi.journey.yaml" && $0.severity == "error" }
            #expect(mine.contains { $0.id == "transition.missing-else" && $0.line == 44 }, "\(result.stderr)")
            #expect(
                mine.contains {
                    $0.id == "key.unknown" && $0.line == 49 && $0.message.contains("did you mean 'handler'")
                },
                "\(result.stderr)")
            let positions = result.diagnostics.map { [$0.line, $0.column] }
            #expect(positions == positions.sorted { $0.lexicographicallyPrecedes($1) }, "\(result.stderr)")
            for (id, line) in TestJourneys.compileExpectations {
                #expect(mine.contains { $0.id == id && $0.line == line }, "missing [\(id)] at line \(line)")
            }
        }
    }

    @Test("an unreachable step is a warning (exit 0), an error with --strict (exit 2)")
    func unreachableStep() async throws {
        try await withTemporaryDirectory { directory in
            let journey = """
                journey: demo.unreachable
                version: 1
                title: Unreachable
                start: first
                steps:
                \(TestJourneys.screenStep("first", actions: ["next": "done"]))\(TestJourneys.screenStep("orphan", actions: ["next": "done"]))ends:
                  done: { kind: success, title: Done }

                """
            try writeText(journey, to: directory.appendingPathComponent("journeys/unreachable.journey.yaml"))
            let relaxed = try await runJourney(["check", "journeys"], cwd: directory)
            expectNoCrash(relaxed)
            #expect(relaxed.status == Exit.ok, "\(relaxed)")
            let warnings = relaxed.diagnostics.filter { $0.id == "step.unreachable" }
            #expect(warnings.count == 1, "\(relaxed.stderr)")
            #expect(warnings.first?.severity == "warning")
            #expect(warnings.first?.message.contains("'orphan'") == true)
            #expect(warnings.first?.line == 10, "\(relaxed.stderr)")
            #expect(!relaxed.stderr.contains("error:"))

            let strict = try await runJourney(["check", "--strict", "journeys"], cwd: directory)
            #expect(strict.status == Exit.invalid, "\(strict)")
            // The warning is an error, said as one; the summary says which errors were warnings.
            #expect(
                strict.diagnostics.map(\.severity) == ["error"] && strict.diagnostics.first?.id == "step.unreachable")
            #expect(
                strict.stderr.contains("1 error, 0 warnings (--strict: 1 warning counted as an error)"), "\(strict)")
            #expect(!relaxed.stderr.contains("--strict"), "\(relaxed)")
        }
    }

    @Test("a step from which no end can be reached is an error")
    func noEnd() async throws {
        try await withTemporaryDirectory { directory in
            let journey = """
                journey: demo.no-end
                version: 1
                title: No end
                start: first
                steps:
                \(TestJourneys.screenStep("first", actions: ["next": "done", "loop": "spin"]))\(TestJourneys.screenStep("spin", actions: ["again": "spin"]))ends:
                  done: { kind: success, title: Done }

                """
            try writeText(journey, to: directory.appendingPathComponent("journeys/no-end.journey.yaml"))
            let result = try await runJourney(["check", "journeys"], cwd: directory)
            expectNoCrash(result)
            #expect(result.status == Exit.invalid, "\(result)")
            let errors = result.errors("step.no-end")
            #expect(errors.count == 1, "\(result.stderr)")
            #expect(errors.first?.message.contains("'spin'") == true)
            #expect(errors.first?.line == 10)
        }
    }

    @Test("two journeys calling each other are a call cycle")
    func callCycle() async throws {
        try await withTemporaryDirectory { directory in
            try writeText(
                """
                journey: demo.a
                version: 1
                title: A
                start: callB
                steps:
                  callB:
                    call: demo.b
                    on:
                      finished: done
                ends:
                  done: { kind: success, title: Done }

                """, to: directory.appendingPathComponent("journeys/a.journey.yaml"))
            try writeText(
                """
                journey: demo.b
                version: 1
                title: B
                start: callA
                steps:
                  callA:
                    call: demo.a
                    on:
                      done: finished
                ends:
                  finished: { kind: success, title: Finished }

                """, to: directory.appendingPathComponent("journeys/b.journey.yaml"))
            let result = try await runJourney(["check", "journeys"], cwd: directory)
            expectNoCrash(result)
            #expect(result.status == Exit.invalid, "\(result)")
            let cycles = result.errors("call.cycle")
            #expect(!cycles.isEmpty, "\(result.stderr)")
            #expect(cycles.allSatisfy { $0.message.contains("demo.a") && $0.message.contains("demo.b") })
            #expect(cycles.allSatisfy { $0.path.hasSuffix(".journey.yaml") && $0.line == 7 })
        }
    }

    static let zeroJourney = """
        journey: demo.zero
        version: 1
        title: Leading zeros
        params:
          code: { type: string, default: 0012 }
        state:
          copy: { type: string, default: "" }
        start: show
        steps:
          show:
            handler: ui.screen
            screen:
              title: Show
              actions:
                next: Next
            on:
              next:
                set: { state.copy: "${params.code}" }
                to: done
        ends:
          done: { kind: success, title: Done }

        """

    static func zeroScenario(_ id: String, expecting value: String) -> String {
        """
        scenario: \(id)
        journey: demo.zero
        title: The plain 0012 default stays a string
        script:
          - at: show
            action: next
        expect:
          end: done
          state: { copy: \(value) }

        """
    }

    @Test("a plain 0012 default of a string param stays the string \"0012\"")
    func leadingZeroStringParam() async throws {
        try await withTemporaryDirectory { directory in
            let journeys = directory.appendingPathComponent("journeys")
            try writeText(Self.zeroJourney, to: journeys.appendingPathComponent("zero.journey.yaml"))
            try writeText(
                Self.zeroScenario("keeps-zeros", expecting: "\"0012\""),
                to: journeys.appendingPathComponent("scenarios/keeps-zeros.scenario.yaml"))
            // Controls: if the assertion could not tell these apart, the test would prove nothing.
            try writeText(
                Self.zeroScenario("as-number", expecting: "\"12\""),
                to: journeys.appendingPathComponent("scenarios/as-number.scenario.yaml"))
            try writeText(
                Self.zeroScenario("as-octal", expecting: "\"10\""),
                to: journeys.appendingPathComponent("scenarios/as-octal.scenario.yaml"))

            let check = try await runJourney(["check", "journeys"], cwd: directory)
            #expect(check.status == Exit.ok, "\(check)")

            let kept = try await runJourney(
                ["run", "--scenario", "journeys/scenarios/keeps-zeros.scenario.yaml"], cwd: directory)
            expectNoCrash(kept)
            #expect(kept.status == Exit.ok, "\(kept)")
            #expect(kept.stdout.contains("set state.copy = \"0012\""), "\(kept.stdout)")

            for control in ["as-number", "as-octal"] {
                let other = try await runJourney(
                    ["run", "--scenario", "journeys/scenarios/\(control).scenario.yaml"], cwd: directory)
                #expect(other.status == Exit.failed, "\(control): \(other)")
                #expect(other.stderr.contains("0012"), "\(other.stderr)")
            }
        }
    }

    @Test("a scenario giving input for the wrong step fails the run with both step names")
    func inputForWrongStep() async throws {
        try await withTemporaryDirectory { directory in
            let journeys = directory.appendingPathComponent("journeys")
            try writeText(
                """
                journey: demo.two
                version: 1
                title: Two steps
                start: first
                steps:
                \(TestJourneys.screenStep("first", actions: ["next": "second"]))\(TestJourneys.screenStep("second", actions: ["next": "done"]))ends:
                  done: { kind: success, title: Done }

                """, to: journeys.appendingPathComponent("two.journey.yaml"))
            try writeText(
                """
                scenario: wrong-step
                journey: demo.two
                title: Gives input for the second step first
                script:
                  - at: second
                    action: next
                expect:
                  end: done

                """, to: journeys.appendingPathComponent("scenarios/wrong-step.scenario.yaml"))
            let check = try await runJourney(["check", "journeys"], cwd: directory)
            #expect(check.status == Exit.ok, "the scenario is valid; only running it fails: \(check)")

            let result = try await runJourney(
                ["run", "--scenario", "journeys/scenarios/wrong-step.scenario.yaml"], cwd: directory)
            expectNoCrash(result)
            #expect(result.status == Exit.failed, "\(result)")
            let message = try #require(
                result.output.split(separator: "\n").first { $0.contains("scenario gives input for step") })
            #expect(message.contains("'second'") && message.contains("'first'"), "\(message)")
            #expect(result.stderr.contains("FAIL"))
        }
    }
}
