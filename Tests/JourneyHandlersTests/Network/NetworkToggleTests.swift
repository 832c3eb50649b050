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

    static let waiting = """
        journey: t.wait
        version: 1
        title: A screen that reacts to the network coming back
        state:
          seen: { type: string, default: "" }
        start: plain
        steps:
          plain:
            handler: ui.screen
            screen: { actions: { next: Next } }
            on:
              next: waiting
          waiting:
            handler: ui.screen
            with: { networkBack: true }
            screen: { actions: { done: Done } }
            on:
              done: done
              networkBack:
                set: { state.seen: "${state.seen + (device.online ? 'back ' : '? ')}" }
                to: waiting
        ends:
          done: { kind: success }
        """

    @Test(
        "a screen with networkBack leaves by it when the network comes back; a plain screen, or a network already there, does not"
    )
    func networkBack() async throws {
        let scenario = """
            scenario: s
            journey: t.wait
            device: { online: false }
            script:
              - online: true
              - at: plain
                action: next
              - online: false
              - online: true
              - online: true
              - online: false
              - online: true
              - at: waiting
                action: done
            expect: { end: done, state: { seen: "back back " } }
            """
        let (report, transcript) = try await run(journeys: [Self.waiting], scenario: scenario)
        #expect(report.passed, "\(report.problems)")
        #expect(transcript.text.contains("outcome networkBack"), "\(transcript.text)")
        #expect(transcript.text.components(separatedBy: "input network=true").count == 3, "\(transcript.text)")
        #expect(!transcript.text.contains("plain --networkBack"))
    }

    @Test("networkBack adds an outcome journeys must handle, and takes a boolean")
    func networkBackChecked() throws {
        let route = """
                  networkBack:
                    set: { state.seen: "${state.seen + (device.online ? 'back ' : '? ')}" }
                    to: waiting

            """
        let unhandled = Self.waiting.replacingOccurrences(of: route, with: "")
        let notBool = Self.waiting.replacingOccurrences(of: "networkBack: true", with: "networkBack: often")
        for (text, message) in [
            (unhandled, "step 'waiting' does not handle outcome 'networkBack' of ui.screen"),
            (notBool, "parameter 'networkBack' is bool, found 'often'"),
        ] {
            #expect(text != Self.waiting)
            let project = ProjectLoader(handlers: BuiltinHandlers.registry).load([
                SourceFile(path: "j.yaml", data: Data(text.utf8))
            ])
            let errors = project.diagnostics.items.filter { $0.severity == .error }
            #expect(errors.first?.message.contains(message) == true, "\(errors)")
        }
    }
}
