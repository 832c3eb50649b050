import Foundation
import JourneyCore
import JourneySuite
import Testing

@testable import JourneyHandlers

/// Screens live on while they show: when a scenario advances the clock, the step's screen is
/// rendered again, recorded when it changed, and input is checked against it.
@Suite("Screens that change as time passes")
struct TimedScreenTests {
    static let resend = """
        journey: t.resend
        version: 1
        title: Resend
        stored:
          sentAt: { type: int, default: 0 }
        start: code
        steps:
          code:
            handler: ui.screen
            screen:
              title: Check your phone
              text: "${since(stored.sentAt) >= 1m ? 'You can ask again' : 'Ask again in ' + str(seconds(1m - since(stored.sentAt))) + ' s'}"
              actions:
                resend: { label: Resend, enabled: "${since(stored.sentAt) >= 1m}" }
            on:
              resend: done
        ends:
          done: { kind: success }
        """

    static func scenario(_ script: String) -> String {
        """
        scenario: s
        journey: t.resend
        device: { clock: 2026-01-01T09:00:00Z, store: { sentAt: 1767258000 } }
        script:
        \(script)
        expect: { end: done }
        """
    }

    @Test(
        "time moved past the end of the device's clock (9999-12-31T23:59:59Z) fails the run, saying so, and never traps"
    )
    func clockEnds() async throws {
        func played(_ script: String) async throws -> (ScenarioRunner.Report, String) {
            let (report, transcript) = try await run(
                journeys: [Self.resend],
                scenario: """
                    scenario: s
                    journey: t.resend
                    device: { clock: 9999-12-30T00:00:00Z }
                    script:
                    \(script)
                    expect: { end: done }
                    """)
            return (report, transcript.text)
        }
        // Up to the last day, time passes as ever.
        let (inTime, _) = try await played("  - advance: 1d\n  - at: code\n    action: resend")
        #expect(inTime.passed, "\(inTime.problems)")
        // Two days more pass the end: the run fails at the step that waits, and no more is played.
        let (late, text) = try await played("  - advance: 2d\n  - at: code\n    action: resend")
        #expect(!late.passed)
        #expect(
            text.contains(
                "✗ failed at code: the virtual clock cannot move on 2d (scenario) from 9999-12-30T00:00:00Z: it ends at 9999-12-31T23:59:59Z"
            ), "\(text)")
        #expect(!text.contains("clock +2d"), "\(text)")
    }

    @Test("the only action, enabled after a minute, is refused at 59 s and taken at 60 s")
    func resendAfterAMinute() async throws {
        let (report, transcript) = try await run(
            journeys: [Self.resend],
            scenario: Self.scenario(
                """
                  - advance: 59s
                  - at: code
                    action: resend
                    refused: disabled
                  - advance: 1s
                  - at: code
                    action: resend
                """))
        #expect(report.passed, "\(report.problems)\n\(transcript.text)")
        let lines = transcript.text.split(separator: "\n").map { String($0.drop { $0 != " " }.dropFirst()) }
        #expect(
            lines.contains(
                #"  screen "Check your phone" · text "Ask again in 60 s" · actions resend "Resend" (disabled)"#))
        #expect(
            lines.contains(
                #"  screen updated "Check your phone" · text "Ask again in 1 s" · actions resend "Resend" (disabled)"#))
        #expect(
            lines.contains(#"  screen updated "Check your phone" · text "You can ask again" · actions resend "Resend""#)
        )
        #expect(
            transcript.jsonl.contains(
                #"{"t":60000,"depth":0,"event":"screen.updated","step":"code","title":"Check your phone","text":"You can ask again","actions":[{"id":"resend","label":"Resend"}]}"#
            ), "\(transcript.jsonl)")
        #expect(transcript.jsonl == transcript.jsonlFromEvents)
        // The transcript reads back as the events it was written from.
        let decoded = try JSONLinesDecoder().decode(transcript.jsonl)
        #expect(decoded.contains { $0.event.name == "screen.updated" })
    }

    @Test("pressing before the minute, unexpected, fails the scenario with the refusal")
    func tooEarly() async throws {
        let (report, _) = try await run(
            journeys: [Self.resend],
            scenario: Self.scenario("  - advance: 30s\n  - at: code\n    action: resend"))
        #expect(!report.passed)
        #expect(
            report.problems.contains { $0.contains("action 'resend' is disabled on step 'code'") }, "\(report.problems)"
        )
    }

    @Test("a screen whose only action is disabled by anything but the clock still cannot be left")
    func disabledForGood() async throws {
        let journey = Self.resend.replacingOccurrences(
            of: "enabled: \"${since(stored.sentAt) >= 1m}\"", with: "enabled: \"${stored.sentAt == 0}\"")
        let (report, transcript) = try await run(
            journeys: [journey], scenario: Self.scenario("  - at: code\n    action: resend"))
        #expect(!report.passed)
        #expect(transcript.text.contains("step 'code' shows no enabled action, so the user cannot leave it"))
    }

    @Test("an alert whose only action enables with time may show; one disabled for good may not")
    func alerts() async throws {
        let alert = Self.resend.replacingOccurrences(of: "handler: ui.screen", with: "handler: ui.alert")
        let (report, transcript) = try await run(
            journeys: [alert], scenario: Self.scenario("  - advance: 1m\n  - at: code\n    action: resend"))
        #expect(report.passed, "\(report.problems)\n\(transcript.text)")
        let never = alert.replacingOccurrences(
            of: "enabled: \"${since(stored.sentAt) >= 1m}\"", with: "enabled: \"${stored.sentAt == 0}\"")
        let (failed, text) = try await run(
            journeys: [never], scenario: Self.scenario("  - at: code\n    action: resend"))
        #expect(!failed.passed)
        #expect(text.text.contains("alert 'code' has no enabled action and no 'dismissAfter'"))
    }

    @Test("compound durations work wherever a duration is written: params, defaults, handler parameters, advance")
    func compoundDurations() async throws {
        let journey = """
            journey: t.waits
            version: 1
            title: Waits
            params:
              first: { type: duration, default: 1h30m }
              second: { type: duration, default: 1s }
            start: a
            steps:
              a:
                handler: ui.alert
                with: { dismissAfter: "${params.first}" }
                on: { dismissed: b }
              b:
                handler: ui.alert
                with: { dismissAfter: 1m30s }
                on: { dismissed: c }
              c:
                handler: ui.alert
                with: { dismissAfter: "${params.second + 1m1s}" }
                on: { dismissed: d }
              d:
                handler: ui.screen
                screen:
                  title: Done waiting
                  actions:
                    ok: { label: OK, enabled: "${params.second >= 2m30s}" }
                on: { ok: done }
            ends:
              done: { kind: success }
            """
        let scenario = """
            scenario: s
            journey: t.waits
            params: { first: 1h1m1s, second: 2m30s }
            script:
              - advance: 1d2h3m4s5ms
              - at: d
                action: ok
            expect: { end: done }
            """
        let (report, transcript) = try await run(journeys: [journey], scenario: scenario)
        #expect(report.passed, "\(report.problems)\n\(transcript.text)")
        let advances = transcript.jsonl.split(separator: "\n").filter { $0.contains(#""event":"clock.advance""#) }
            .map { line in line.split(separator: ",").first { $0.hasPrefix(#""by":"#) }.map(String.init) ?? "" }
        #expect(advances == [#""by":3661000"#, #""by":90000"#, #""by":211000"#, #""by":93784005"#], "\(advances)")
    }

    static let idle = """
        journey: t.idle
        version: 1
        title: Locks itself
        start: unlocked
        steps:
          unlocked:
            handler: ui.screen
            with: { timeout: 5m }
            screen: { title: Welcome, actions: { lock: Lock } }
            on: { lock: locked, timeout: timedOut }
        ends:
          locked: { kind: cancel }
          timedOut: { kind: cancel }
        """

    @Test(
        "a screen with a timeout leaves by itself once it has shown that long, and not before",
        arguments: [
            ("  - advance: 5m", "timedOut"), ("  - advance: 4m59s\n  - advance: 1s", "timedOut"),
            ("  - advance: 4m59s\n  - at: unlocked\n    action: lock", "locked"),
            ("  - advance: 1h", "timedOut"),
        ])
    func timeout(_ script: String, _ end: String) async throws {
        let scenario = """
            scenario: s
            journey: t.idle
            script:
            \(script)
            expect: { end: \(end) }
            """
        let (report, transcript) = try await run(journeys: [Self.idle], scenario: scenario)
        #expect(report.passed, "\(report.problems)\n\(transcript.text)")
        if end == "timedOut" { #expect(transcript.text.contains("outcome timeout"), "\(transcript.text)") }
    }

    @Test("a timeout is a duration of at least 1ms, and its outcome must be handled")
    func timeoutIsChecked() throws {
        for (change, id) in [
            ("with: { timeout: 5m }", "value.type"), ("on: { lock: locked, timeout: timedOut }", "outcome.unhandled"),
        ] {
            let journey = Self.idle.replacingOccurrences(
                of: change, with: id == "value.type" ? "with: { timeout: five minutes }" : "on: { lock: locked }")
            let project = ProjectLoader(handlers: BuiltinHandlers.registry).load([
                SourceFile(path: "j.yaml", data: Data(journey.utf8))
            ])
            #expect(
                project.diagnostics.items.contains { $0.id == id && $0.severity == .error }, "\(project.diagnostics)")
        }
    }
}
