import Foundation
import JourneyCore
import JourneySuite
import Testing

@testable import JourneyHandlers

@Suite("Typed captures: declared in the journey, checked by journey check and by the run")
struct CaptureTypeTests {
    /// A journey that reads `captures` from one response, sets `set` on `ok`, and shows a
    /// screen whose title adds text to `state.label`.
    static func journey(captures: String, set: String, state: String = "label: { type: string }") -> String {
        """
        journey: t.one
        version: 1
        title: Typed captures
        state:
          \(state)
        start: s
        steps:
          s:
            handler: http.request
            with:
              url: "https://api.example.org/v1/profile"
              captures: \(captures)
            on:
              ok:
                set: \(set)
                to: shown
              failed: other
              offline: other
          shown:
            handler: ui.screen
            screen: { title: "${'Hello ' + state.label}", actions: { ok: OK } }
            on: { ok: done }
        ends:
          done: { kind: success }
          other: { kind: failure }
        """
    }

    static func scenario(json: String, expect: String = "done") -> String {
        """
        scenario: s
        journey: t.one
        network:
          - request: GET https://api.example.org/v1/profile
            response: { status: 200, json: \(json) }
        script:
          - at: shown
            action: ok
        expect: { end: \(expect) }
        """
    }

    static func diagnostics(_ journey: String) -> [Diagnostic] {
        ProjectLoader(handlers: BuiltinHandlers.registry)
            .load([SourceFile(path: "j.yaml", data: Data(journey.utf8))])
            .diagnostics.items.filter { $0.severity == .error }
    }

    /// The 1-based line and column where `needle` starts in `text`.
    static func position(of needle: String, in text: String) -> (line: Int, column: Int) {
        let lines = text.components(separatedBy: "\n")
        let line = lines.firstIndex { $0.contains(needle) }!
        let column = lines[line].distance(from: lines[line].startIndex, to: lines[line].range(of: needle)!.lowerBound)
        return (line + 1, column + 1)
    }

    @Test("a JSON number captured without a type into a string state passes check and fails only when run")
    func untypedCaptureFailsOnlyAtRunTime() async throws {
        let journey = Self.journey(captures: "{ label: count }", set: #"{ state.label: "${outcome.label}" }"#)
        #expect(Self.diagnostics(journey).isEmpty, "a capture of the short form is of type any")
        let (report, transcript) = try await run(journeys: [journey], scenario: Self.scenario(json: "{ count: 7 }"))
        #expect(!report.passed)
        #expect(
            transcript.text.contains("'+' needs two ints, two durations or two strings, found string and int"),
            "\(transcript.text)")
    }

    @Test("the same capture declared int is a located error where the journey writes it into the string")
    func declaredTypeReachesTheExpressionsThatReadIt() throws {
        let set = #"{ state.label: "${outcome.label}" }"#
        let journey = Self.journey(captures: "{ label: { path: count, type: int } }", set: set)
        let errors = Self.diagnostics(journey)
        #expect(errors.count == 1, "\(errors)")
        let error = try #require(errors.first)
        #expect(error.id == "value.type")
        #expect(error.message == "'state.label' is string, but '${outcome.label}' is int", "\(error.message)")
        let at = Self.position(of: #""${outcome.label}""#, in: journey)
        #expect((error.location.line, error.location.column) == at)
        // Declared string, it fits; so does an int written where an int is expected.
        #expect(Self.diagnostics(Self.journey(captures: "{ label: { path: name, type: string } }", set: set)).isEmpty)
        #expect(
            Self.diagnostics(
                Self.journey(
                    captures: "{ label: { path: count, type: int } }",
                    set: #"{ state.label: "${str(outcome.label + 1)}" }"#)
            ).isEmpty)
    }

    @Test("declared types are read from the response: string, int, bool, list, and a [*] list")
    func declaredTypesReadTheirJSON() async throws {
        let captures = """
            { name: { path: user.name, type: string }, age: { path: user.age, type: int },
                    on: { path: user.enrolled, type: bool }, tags: { path: user.tags, type: list },
                    ids: { path: "banks[*].id", type: list }, first: { path: "banks[0].id", type: string } }
            """
        let set = """
            { state.label: "${outcome.name + ' ' + str(outcome.age + 1) + ' ' + (outcome.on ? 'on' : 'off') + ' ' + str(len(outcome.tags)) + ' ' + str(len(outcome.ids)) + ' ' + outcome.first}" }
            """
        let journey = Self.journey(captures: captures, set: set)
        #expect(Self.diagnostics(journey).isEmpty, "\(Self.diagnostics(journey))")
        let json = """
            { user: { name: Ada, age: 36, enrolled: true, tags: [a, b, c] }, banks: [{ id: x1 }, { id: x2 }] }
            """
        let (report, transcript) = try await run(journeys: [journey], scenario: Self.scenario(json: json))
        #expect(report.passed, "\(report.problems)\n\(transcript.text)")
        #expect(transcript.text.contains("Hello Ada 37 on 3 2 x1"), "\(transcript.text)")
    }

    @Test(
        "a response with another JSON type fails the step, naming the capture, the path and both types",
        arguments: [
            (
                "bool", "{ user: { enrolled: 1 } }",
                "has a JSON number at 'user.enrolled' for capture 'enrolled', which is declared bool (JSON true or false)"
            ),
            (
                "int", "{ user: { enrolled: \"12\" } }",
                "has a JSON string at 'user.enrolled' for capture 'enrolled', which is declared int (a JSON number without a fraction)"
            ),
            (
                "int", "{ user: { enrolled: 1.5 } }",
                "has a JSON number with a fraction or too large for an int at 'user.enrolled' for capture 'enrolled', which is declared int (a JSON number without a fraction)"
            ),
            (
                "string", "{ user: { enrolled: true } }",
                "has JSON true or false at 'user.enrolled' for capture 'enrolled', which is declared string (a JSON string)"
            ),
            (
                "string", "{ user: { enrolled: { a: 1 } } }",
                "has a JSON object at 'user.enrolled' for capture 'enrolled', which is declared string (a JSON string)"
            ),
            ("string", "{ user: { enrolled: null } }", "has null at 'user.enrolled' for capture 'enrolled'"),
            ("string", "{ user: {} }", "has nothing at 'user.enrolled' for capture 'enrolled'"),
        ])
    func aMismatchFailsTheStep(type: String, json: String, reason: String) async throws {
        let journey = Self.journey(
            captures: "{ enrolled: { path: user.enrolled, type: \(type) } }",
            set: #"{ state.label: "${str(outcome.enrolled)}" }"#)
        #expect(Self.diagnostics(journey).isEmpty, "\(Self.diagnostics(journey))")
        let (report, transcript) = try await run(journeys: [journey], scenario: Self.scenario(json: json))
        #expect(!report.passed)
        let message = "the response to step 's' \(reason)"
        #expect(transcript.text.contains(message), "\(transcript.text)")
        #expect(transcript.jsonl.contains(message))
    }

    @Test("a list capture that does not fit fails the step too")
    func aListMismatchFailsTheStep() async throws {
        let journey = Self.journey(
            captures: "{ tags: { path: user.tags, type: list } }",
            set: #"{ state.label: "${str(len(outcome.tags))}" }"#)
        #expect(Self.diagnostics(journey).isEmpty, "\(Self.diagnostics(journey))")
        let (report, transcript) = try await run(
            journeys: [journey], scenario: Self.scenario(json: "{ user: { tags: { a: 1 } } }"))
        #expect(!report.passed)
        #expect(
            transcript.text.contains(
                "the response to step 's' has a JSON object at 'user.tags' for capture 'tags', which is declared list (a JSON array)"
            ), "\(transcript.text)")
    }

    @Test("a capture declared secret is recorded as •••, must go to a secret, and its value is never in a message")
    func aSecretCaptureIsRecordedAsSecret() async throws {
        let captures = "{ token: { path: session.token, type: string, secret: true } }"
        let leak = Self.journey(captures: captures, set: #"{ state.label: "${outcome.token}" }"#)
        let errors = Self.diagnostics(leak)
        #expect(errors.map(\.id) == ["secret.leak"], "\(errors)")

        let journey = Self.journey(
            captures: captures, set: #"{ state.token: "${outcome.token}", state.label: "${str(len(outcome.token))}" }"#,
            state: "label: { type: string }\n  token: { type: string, secret: true }")
        #expect(Self.diagnostics(journey).isEmpty, "\(Self.diagnostics(journey))")
        let (report, transcript) = try await run(
            journeys: [journey], scenario: Self.scenario(json: "{ session: { token: tok-5e3c7a } }"))
        #expect(report.passed, "\(report.problems)")
        #expect(transcript.text.contains("token: •••"), "\(transcript.text)")
        #expect(!transcript.text.contains("tok-5e3c7a") && !transcript.jsonl.contains("tok-5e3c7a"))

        // A secret of another JSON type fails the step without ever naming its value.
        let typed = Self.journey(
            captures: "{ token: { path: session.token, type: int, secret: true } }",
            set: #"{ state.label: "${str(outcome.token == 0)}" }"#)
        let (failed, failure) = try await run(
            journeys: [typed], scenario: Self.scenario(json: "{ session: { token: tok-5e3c7a } }"))
        #expect(!failed.passed)
        #expect(failure.text.contains("has a JSON string at 'session.token' for capture 'token'"), "\(failure.text)")
        #expect(!failure.text.contains("tok-5e3c7a") && !failure.jsonl.contains("tok-5e3c7a"))
        #expect(!"\(failed.problems)".contains("tok-5e3c7a"))
    }

    @Test("a capture's secret written as YAML 1.1 wrote a bool says what to write")
    func secretWrittenAsYes() {
        let journey = Self.journey(
            captures: "{ token: { path: session.token, secret: yes } }", set: #"{ state.label: "x" }"#)
        #expect(
            Self.diagnostics(journey).map(\.message)
                == [
                    "parameter 'captures' of http.request: capture 'token': 'secret' must be true or false; 'yes' is text in YAML 1.2, which JourneyKit reads (YAML 1.1 read it as true): write true"
                ], "\(Self.diagnostics(journey))")
    }

    @Test("an optional capture of a declared type gives its empty value when absent")
    func optionalCapturesGiveTheirEmptyValue() async throws {
        let journey = Self.journey(
            captures: #"{ name: { path: "user.name?", type: string }, tags: { path: "user.tags?", type: list } }"#,
            set: #"{ state.label: "${'[' + outcome.name + '] ' + str(len(outcome.tags))}" }"#)
        #expect(Self.diagnostics(journey).isEmpty, "\(Self.diagnostics(journey))")
        let (report, transcript) = try await run(journeys: [journey], scenario: Self.scenario(json: "{ user: {} }"))
        #expect(report.passed, "\(report.problems)")
        #expect(transcript.text.contains("Hello [] 0"), "\(transcript.text)")
    }
}
