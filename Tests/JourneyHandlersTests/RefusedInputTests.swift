import Foundation
import JourneyCore
import Testing

@testable import JourneyHandlers

/// A scenario can say that input must be refused (a 4th resend, a disabled button): the
/// scenario passes only if the step refuses it, the refusal is in the transcript, and the step
/// asks again.
@Suite("Input the app must refuse")
struct RefusedInputTests {
    static let resend = """
        journey: t.resend
        version: 1
        title: Resend
        state:
          resends: { type: int, default: 0 }
        start: code
        steps:
          code:
            handler: ui.screen
            screen:
              title: Enter the code
              actions:
                resend: { label: Resend, enabled: "${state.resends < 3}" }
                verify: Verify
            on:
              resend:
                set: { state.resends: "${state.resends + 1}" }
                to: code
              verify: done
        ends:
          done: { kind: success }
        """

    static func scenario(_ script: String) -> String {
        "scenario: s\njourney: t.resend\nscript:\n\(script)\nexpect: { end: done, state: { resends: 3 } }\n"
    }

    static let threeResends = """
          - at: code
            action: resend
          - at: code
            action: resend
          - at: code
            action: resend
        """

    @Test("a fourth resend is refused as the scenario says, recorded, and the step asks again")
    func refusedAsExpected() async throws {
        for refused in ["true", "disabled", "\"cannot be pressed\""] {
            let (report, transcript) = try await run(
                journeys: [Self.resend],
                scenario: Self.scenario(
                    Self.threeResends
                        + "\n  - at: code\n    action: resend\n    refused: \(refused)\n  - at: code\n    action: verify"
                ))
            #expect(report.passed, "\(refused): \(report.problems)\n\(transcript.text)")
            #expect(
                transcript.text.contains(
                    "input refused action=\"resend\": action 'resend' is disabled on step 'code'; it cannot be pressed"),
                "\(transcript.text)")
            #expect(
                transcript.jsonl.contains(
                    #""event":"input.refused","step":"code","values":{"action":"resend"},"reason":"action 'resend' is disabled"#
                ), "\(transcript.jsonl)")
            #expect(transcript.jsonl == transcript.jsonlFromEvents)
        }
    }

    @Test("input the scenario says must be refused, but is taken, fails the scenario naming the line")
    func takenWhenItShouldNotBe() async throws {
        let (report, _) = try await run(
            journeys: [Self.resend],
            scenario: Self.scenario(
                "  - at: code\n    action: resend\n    refused: true\n  - at: code\n    action: verify"))
        #expect(!report.passed)
        #expect(
            report.problems.contains {
                $0.contains(
                    "the script says input for step 'code' (line 4) must be refused, but its screen does not refuse it")
            }, "\(report.problems)")
    }

    @Test("a refusal for another reason than the one named fails, and one nobody expected still does")
    func otherReasonsFail() async throws {
        let other = try await run(
            journeys: [Self.resend],
            scenario: Self.scenario(Self.threeResends + "\n  - at: code\n    action: resend\n    refused: offline"))
        #expect(
            other.report.problems.contains {
                $0.contains("because action 'resend' is disabled") && $0.contains("not 'offline'")
            }, "\(other.report.problems)")
        let unexpected = try await run(
            journeys: [Self.resend],
            scenario: Self.scenario(Self.threeResends + "\n  - at: code\n    action: resend"))
        #expect(
            unexpected.report.problems.contains { $0.contains("action 'resend' is disabled on step 'code'") },
            "\(unexpected.report.problems)")
    }

    @Test("refused: false is an error where it is written")
    func refusedFalse() throws {
        let project = ProjectLoader(handlers: BuiltinHandlers.registry).load([
            SourceFile(path: "j.yaml", data: Data(Self.resend.utf8)),
            SourceFile(
                path: "s.yaml",
                data: Data(Self.scenario("  - at: code\n    action: verify\n    refused: false").utf8)),
        ])
        #expect(
            project.diagnostics.items.map { "\($0.location.line):\($0.location.column) \($0.id)" } == [
                "6:14 value.type"
            ],
            "\(project.diagnostics.sorted)")
    }
}
