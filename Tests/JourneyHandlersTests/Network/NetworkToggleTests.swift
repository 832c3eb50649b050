import Foundation
import JourneyCore
import JourneyHandlers
import Testing

/// A scenario can take the device's network away and bring it back while the journey waits:
/// `device.online` reads it, requests in between fail as offline, and the transcript says when.
@Suite("Scenarios toggle the network")
struct NetworkToggleTests {
    static let journey = """
        journey: t.one
        version: 1
        title: Calls while the network comes and goes
        state:
          results: { type: string, default: "" }
        start: s
        steps:
          s:
            handler: ui.screen
            screen: { actions: { call: Call, done: Done } }
            on:
              call: request
              done: done
          request:
            handler: http.request
            with: { url: "https://api.example.org/ping" }
            on:
              ok:
                set: { state.results: "${state.results + (device.online ? 'ok ' : '? ')}" }
                to: s
              failed: s
              offline:
                set: { state.results: "${state.results + 'offline '}" }
                to: s
        ends:
          done: { kind: success }
          other: { kind: failure }
        """

    @Test("online: false makes requests offline until online: true; both are recorded")
    func toggles() async throws {
        let scenario = """
            scenario: s
            journey: t.one
            network:
              - request: GET https://api.example.org/ping
                response: { status: 200 }
            script:
              - at: s
                action: call
              - online: false
              - at: s
                action: call
              - online: true
              - at: s
                action: call
              - at: s
                action: done
            expect: { end: done, state: { results: "ok offline ok " } }
            """
        let (report, transcript) = try await run(journeys: [Self.journey], scenario: scenario)
        #expect(report.passed, "\(report.problems)")
        #expect(transcript.text.contains("⇄ network gone"))
        #expect(transcript.text.contains("⇄ network back"))
        #expect(transcript.jsonl.contains(#""event":"network","online":false"#), "\(transcript.jsonl)")
        #expect(transcript.jsonl == transcript.jsonlFromEvents)
    }

    @Test("online takes true or false, and stands alone in its entry")
    func checked() throws {
        for (entry, message) in [
            ("- online: maybe", "'online' must be true or false"), ("- { online: false, at: s }", "stands alone"),
        ] {
            let files = [
                SourceFile(path: "j.yaml", data: Data(Self.journey.utf8)),
                SourceFile(
                    path: "s.yaml",
                    data: Data("scenario: s\njourney: t.one\nscript:\n  \(entry)\nexpect: { end: done }\n".utf8)),
            ]
            let project = ProjectLoader(handlers: BuiltinHandlers.registry).load(files)
            let errors = project.diagnostics.items.filter { $0.severity == .error }
            #expect(errors.count == 1 && errors[0].message.contains(message), "\(errors)")
            #expect(errors.first?.location.file == "s.yaml")
        }
    }
}
