import Foundation
import JourneyCore
import JourneyHandlers
import Testing

@testable import JourneySuite

/// Network stubs that look at the request: a password check is a stub that answers 200 to
/// the right password and 401 to any other, and a request no stub answers names the closest
/// stub and what differed, never the values.
@Suite("Network stubs that match the request")
struct StubMatchTests {
    static let journey = """
        journey: t.login
        version: 1
        title: Login
        params:
          password: { type: string, secret: true, default: "" }
          client: { type: string, default: app }
        start: login
        steps:
          login:
            handler: http.request
            with:
              method: POST
              url: "https://id.example.org/login?client_id=${params.client}&v=2"
              headers: ["Content-Type: application/json", "X-Trace: 7"]
              body: "${'{\\"user\\":{\\"name\\":\\"ada\\",\\"tags\\":[1,2]},\\"password\\":\\"' + params.password + '\\",\\"remember\\":true}'}"
            on: { ok: done, failed: refused, offline: refused }
        ends:
          done: { kind: success }
          refused: { kind: failure }
        """

    /// Plays the login with `password` against `network` (YAML list items, indented by two).
    static func play(
        password: String, client: String = "app", network: String
    ) async throws -> (
        report: ScenarioRunner.Report, transcript: String
    ) {
        let scenario = """
            scenario: s
            journey: t.login
            params: { password: "\(password)", client: \(client) }
            network:
            \(network)
            script: []
            expect: { end: done }
            """
        let (compiled, library) = try compiled(journey: journey, scenario: scenario)
        let sink = TranscriptBuffer()
        let report = await ScenarioRunner(services: BuiltinHandlers.services).run(
            compiled, in: library, transcript: sink)
        return (report, sink.records.map { TranscriptTextRenderer().render($0) }.joined())
    }

    static let passwordCheck = """
          - request: POST https://id.example.org/login
            match:
              query: { client_id: app }
              headers: { content-type: application/json }
              jsonIncludes: { password: right-horse, user: { name: ada } }
            response: { status: 200, json: { token: t } }
          - request: POST https://id.example.org/login?*
            response: { status: 401 }
        """

    @Test("a password check: the right password gets 200, any other 401, in whatever order they come")
    func passwordCheck() async throws {
        let right = try await Self.play(password: "right-horse", network: Self.passwordCheck)
        #expect(right.report.passed, "\(right.report.problems)\n\(right.transcript)")
        #expect(right.transcript.contains("http POST https://id.example.org/login?client_id=•••&v=••• → 200"))
        let wrong = try await Self.play(password: "wrong-horse", network: Self.passwordCheck)
        #expect(wrong.report.result.end == "refused")
        #expect(wrong.transcript.contains("→ 401"), "\(wrong.transcript)")
    }

    @Test(
        "each criterion: exact JSON, a subset, form fields, text, query and header values, with * for any value",
        arguments: [
            (#"json: { user: { name: ada, tags: [1, 2.0] }, password: p, remember: true }"#, true),
            (#"json: { user: { name: ada, tags: [1, 2] }, password: p }"#, false),
            (#"jsonIncludes: { user: { tags: [1, 2] } }"#, true),
            (#"jsonIncludes: { user: { tags: [1] } }"#, false),
            (#"jsonIncludes: { remember: "true" }"#, false),
            (#"jsonIncludes: { remember: true }"#, true),
            (#"form: { password: p }"#, false),
            (#"body: "nope""#, false),
            (#"query: { client_id: "*", v: "2" }"#, true),
            (#"query: { v: "3" }"#, false),
            (#"headers: { X-TRACE: "7" }"#, true),
            (#"headers: { Authorization: "*" }"#, false),
        ])
    func criteria(match: String, answers: Bool) async throws {
        let network = """
              - request: POST https://id.example.org/login
                match: { \(match) }
                response: { status: 200 }
            """
        let result = try await Self.play(password: "p", network: network)
        #expect(result.report.passed == answers, "\(match): \(result.report.problems)")
    }

    @Test("a request no stub answers names the closest stub and what differed, never a value")
    func closestStubNamed() async throws {
        let network = """
              - request: GET https://id.example.org/login
                response: { status: 200 }
              - request: POST https://id.example.org/login
                match: { jsonIncludes: { password: right-horse } }
                response: { status: 200 }
            """
        let result = try await Self.play(password: "wrong-horse", network: network)
        let failure = try #require(result.report.result.failure, "\(result.transcript)")
        #expect(
            failure.hasSuffix(
                "no stub of the scenario's network answers POST https://id.example.org/login?client_id=•••&v=•••: the closest, at s.yaml:7:5, wants its JSON member 'password'"
            ), "\(failure)")
        for secret in ["wrong-horse", "right-horse"] {
            #expect(!failure.contains(secret) && !result.transcript.contains(secret))
        }

        let usedUp = """
              - request: POST https://id.example.org/login?*
                times: 1
                response: { status: 200 }
            """
        let once = try await Self.play(password: "p", network: usedUp)
        #expect(once.report.passed)
        let missing = """
              - request: POST https://id.example.org/login
                match: { query: { client_id: web } }
                response: { status: 200 }
            """
        let other = try await Self.play(password: "p", network: missing)
        #expect(
            other.report.result.failure?.hasSuffix("wants another value of the query parameter 'client_id'") == true,
            "\(other.report.result.failure ?? "")")
    }

    @Test("journey check reports a match's misuse where it is written")
    func misuse() throws {
        let scenario = """
            scenario: s
            journey: t.login
            network:
              - request: POST https://id.example.org/login
                match: { json: { a: 1 }, form: { b: c }, cookies: { d: e } }
                response: { status: 200 }
              - request: POST https://id.example.org/login
                match: { jsonIncludes: [1], headers: { X: [a] } }
                response: { status: 200 }
            script: []
            expect: { end: done }
            """
        let project = ProjectLoader(handlers: BuiltinHandlers.registry).load([
            SourceFile(path: "j.yaml", data: Data(Self.journey.utf8)),
            SourceFile(path: "s.yaml", data: Data(scenario.utf8)),
        ])
        let found = project.diagnostics.items.map { "\($0.location.line):\($0.location.column) \($0.id)" }.sorted()
        #expect(
            found == ["5:30 value.type", "5:46 key.unknown", "8:28 value.type", "8:47 value.type"],
            "\(project.diagnostics.sorted)")
    }
}
