import Foundation
import JourneyCore
import Testing

@testable import JourneyHandlers

/// A scenario can span logins: after an end the app is launched again with the device's store
/// and clock kept, and each session has its own script and expectation. Expectations can say a
/// secret is set or empty without naming it.
@Suite("Scenarios over several sessions, and secrets in expectations")
struct SessionTests {
    /// "Not now" is allowed three times over separate logins; the count is kept on the device.
    static let enrol = """
        journey: t.enrol
        version: 1
        title: Two-step sign-in offer
        stored:
          skips: { type: int, default: 0 }
          recovery: { type: string, secret: true, default: "" }
          lastSeen: { type: int, default: 0 }
        start: offer
        steps:
          offer:
            handler: ui.screen
            screen:
              title: Set up two-step sign-in
              text: "Skipped ${stored.skips} of 3"
              actions:
                enrol: Set up
                skip: { label: Not now, enabled: "${stored.skips < 3}" }
            on:
              skip:
                set: { stored.skips: "${stored.skips + 1}", stored.lastSeen: "${device.now}" }
                to: skipped
              enrol:
                set: { stored.recovery: "7Q2W-9XKD" }
                to: enrolled
        ends:
          skipped: { kind: success }
          enrolled: { kind: success }
        """

    static func scenario(_ body: String) -> String {
        "scenario: s\njourney: t.enrol\n" + body
    }

    static let threeSkipsThenEnrol = scenario(
        """
        sessions:
          - script:
              - at: offer
                action: skip
            expect: { end: skipped, stored: { skips: 1, recovery: { is: empty } } }
          - after: 1d
            script:
              - at: offer
                action: skip
            expect: { end: skipped, stored: { skips: 2 } }
          - after: 2h30m
            script:
              - at: offer
                action: skip
            expect: { end: skipped, stored: { skips: 3, lastSeen: 1767321000 } }
          - script:
              - at: offer
                action: skip
                refused: disabled
              - at: offer
                action: enrol
            expect: { end: enrolled, stored: { skips: 3, recovery: { is: set } } }
        """)

    @Test("a skip allowed three times over separate logins is one scenario, each login with its own expectation")
    func skipsOverLogins() async throws {
        let (report, transcript) = try await run(journeys: [Self.enrol], scenario: Self.threeSkipsThenEnrol)
        #expect(report.passed, "\(report.problems)\n\(transcript.text)")
        #expect(report.result.end == "enrolled")
        // Each later session is announced, the gap is on the clock, and the store carried over.
        let sessions = transcript.jsonl.split(separator: "\n").filter { $0.contains(#""event":"session""#) }
        #expect(
            sessions == [
                #"{"t":0,"depth":0,"event":"session","session":2}"#,
                #"{"t":86400000,"depth":0,"event":"session","session":3}"#,
                #"{"t":95400000,"depth":0,"event":"session","session":4}"#,
            ], "\(transcript.jsonl)")
        #expect(transcript.text.contains("⏱ +1d (before session 2)"), "\(transcript.text)")
        #expect(transcript.text.contains("Skipped 2 of 3"), "the second login reads the first one's count")
        #expect(transcript.jsonl.components(separatedBy: #""event":"journey.start""#).count == 5)
        #expect(transcript.jsonl.components(separatedBy: #""event":"transcript""#).count == 2, "one header")
        #expect(!transcript.text.contains("7Q2W") && !transcript.jsonl.contains("7Q2W"))
        #expect(transcript.jsonl == transcript.jsonlFromEvents)
        // Read back, the transcript is the same events.
        let decoded = try transcript.jsonl.split(separator: "\n").map {
            try JSONLinesDecoder().decode(line: String($0) + "\n")
        }
        #expect(decoded.filter { if case .session = $0.event { true } else { false } }.count == 3)
    }

    @Test("a session's expectation that does not hold fails the scenario, naming the session")
    func perSessionExpectation() async throws {
        let wrong = Self.threeSkipsThenEnrol.replacingOccurrences(
            of: "expect: { end: skipped, stored: { skips: 2 } }", with: "expect: { end: skipped, stored: { skips: 5 } }"
        )
        let (report, _) = try await run(journeys: [Self.enrol], scenario: wrong)
        #expect(report.problems == ["session 2: expected stored.skips = 5, found 2"])
    }

    @Test("the store, not the journey's state, survives into the next session, and a failed session stops the rest")
    func failedSessionStops() async throws {
        let failing = Self.scenario(
            """
            device: { store: { skips: 3 } }
            sessions:
              - script:
                  - at: offer
                    action: skip
                expect: { end: skipped }
              - script:
                  - at: offer
                    action: skip
                expect: { end: skipped }
            """)
        let (report, transcript) = try await run(journeys: [Self.enrol], scenario: failing)
        #expect(report.problems.count == 1, "\(report.problems)")
        #expect(report.problems.first?.hasPrefix("session 1: ") == true, "\(report.problems)")
        #expect(!transcript.jsonl.contains(#""event":"session""#), "no later session after a failure")
    }

    @Test("{is: set} and {is: empty} judge a secret without showing it")
    func secretIsSetOrEmpty() async throws {
        let enrolOnce = Self.scenario(
            """
            script:
              - at: offer
                action: enrol
            expect: { end: enrolled, stored: { recovery: { is: empty } } }
            """)
        let (report, transcript) = try await run(journeys: [Self.enrol], scenario: enrolOnce)
        #expect(report.problems == ["expected stored.recovery to be empty, but it holds a value (secret, not shown)"])
        #expect(!report.problems.joined().contains("7Q2W"))
        #expect(!transcript.text.contains("7Q2W"))

        let skipOnce = Self.scenario(
            """
            script:
              - at: offer
                action: skip
            expect: { end: skipped, stored: { recovery: { is: set }, skips: { is: set }, lastSeen: { is: empty } } }
            """)
        let skipped = try await run(journeys: [Self.enrol], scenario: skipOnce)
        #expect(
            skipped.report.problems == [
                "expected stored.recovery to be set, but it is empty",
                "expected stored.lastSeen to be empty, but it holds 1767225600",
            ], "an int is never empty; a missing or blank value is")

        let equal = Self.scenario(
            """
            script:
              - at: offer
                action: enrol
            expect: { end: enrolled, stored: { recovery: "7Q2W-9XKD" } }
            """)
        #expect(try await run(journeys: [Self.enrol], scenario: equal).report.passed)
    }

    @Test("stubs a scenario gives are one server for all its sessions: `times` counts across them")
    func networkIsSharedAcrossSessions() async throws {
        let fetch = """
            journey: t.fetch
            version: 1
            title: Fetch
            start: get
            steps:
              get:
                handler: http.request
                with: { url: "https://api.example.org/v1/flag" }
                on: { ok: done, failed: offline, offline: offline }
            ends:
              done: { kind: success }
              offline: { kind: failure }
            """
        let scenario = """
            scenario: s
            journey: t.fetch
            network:
              - request: GET https://api.example.org/v1/flag
                response: { status: 200, json: {} }
                times: 1
            sessions:
              - expect: { end: done }
              - expect: { end: done }
            """
        let (report, _) = try await run(journeys: [fetch], scenario: scenario)
        #expect(report.problems.count == 1 && report.problems[0].hasPrefix("session 2: "), "\(report.problems)")
    }

    @Test("misuse of sessions and of is: is reported where it is written")
    func misuse() throws {
        let cases: [(String, [String])] = [
            (
                "script: []\nexpect: { end: skipped }\nsessions:\n  - expect: { end: skipped }\n",
                ["3:1 key.unknown", "4:1 key.unknown"]
            ),
            ("sessions: []\n", ["3:11 value.type"]),
            ("title: x\n", ["1:1 key.missing", "1:1 key.missing"]),
            ("sessions:\n  - after: 1h\n    expect: { end: skipped }\n", ["4:12 key.unknown"]),
            (
                "sessions:\n  - expect: { end: skipped }\n  - after: soon\n    expect: { end: skipped }\n",
                ["5:12 value.type"]
            ),
            ("sessions:\n  - script: []\n", ["4:5 key.missing"]),
            ("script: []\nexpect: { end: skipped, stored: { skips: { is: present } } }\n", ["4:42 value.type"]),
            ("script: []\nexpect: { end: skipped, stored: { skips: { equals: 3 } } }\n", ["4:42 value.type"]),
            ("sessions:\n  - expect: { end: nowhere }\n", ["4:20 scenario.expect"]),
        ]
        for (body, expected) in cases {
            let project = ProjectLoader(handlers: BuiltinHandlers.registry).load([
                SourceFile(path: "j.yaml", data: Data(Self.enrol.utf8)),
                SourceFile(path: "s.yaml", data: Data(Self.scenario(body).utf8)),
            ])
            let found = project.diagnostics.items.filter { $0.location.file == "s.yaml" }
            #expect(
                found.map { "\($0.location.line):\($0.location.column) \($0.id)" } == expected,
                "\(body)\n\(project.diagnostics.sorted)")
        }
    }
}
