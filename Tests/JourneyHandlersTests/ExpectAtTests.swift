import Foundation
import JourneyCore
import Testing

@testable import JourneyHandlers

/// `expect: {at: STEP}`: a scenario whose script stops mid-way, the journey waiting at a step,
/// with its state and store checked there. What `journey explore` writes for a counterexample.
@Suite("Scenarios that stop at a step")
struct ExpectAtTests {
    static let journey = """
        journey: t.one
        version: 1
        title: Two screens
        stored:
          seen: { type: int, default: 0 }
        start: first
        steps:
          first:
            handler: ui.screen
            screen: { title: First, actions: { next: Next } }
            on:
              next:
                set: { stored.seen: 1 }
                to: second
          second:
            handler: ui.screen
            screen: { title: Second, actions: { done: Done } }
            on: { done: done }
        ends:
          done: { kind: success }
        """

    static func scenario(_ script: String, _ expect: String) -> String {
        "scenario: s\njourney: t.one\nscript:\n\(script)\nexpect: \(expect)\n"
    }

    @Test(
        "the run stops where the script runs out, and passes only there with the values expected",
        arguments: [
            ("  - at: first\n    action: next", "{ at: second, stored: { seen: 1 } }", true, nil),
            (
                "  - at: first\n    action: next", "{ at: second, stored: { seen: 0 } }", false,
                "expected stored.seen = 0, found 1"
            ),
            (
                "  - at: first\n    action: next", "{ at: first }", false,
                "expected the journey to wait at step 'first' when the script ran out; it waits at step 'second'"
            ),
            (
                "  - at: first\n    action: next\n  - at: second\n    action: done", "{ at: second }", false,
                "expected the journey to wait at step 'second' when the script ran out; it reached end 'done'"
            ),
            ("  - at: first\n    action: next\n  - restart", "{ at: first, stored: { seen: 1 } }", true, nil),
        ] as [(String, String, Bool, String?)])
    func stops(_ script: String, _ expect: String, _ passes: Bool, _ problem: String?) async throws {
        let (report, _) = try await run(journeys: [Self.journey], scenario: Self.scenario(script, expect))
        #expect(report.passed == passes, "\(report.problems)")
        if let problem { #expect(report.problems.contains(problem), "\(report.problems)") }
    }

    @Test("'at' names a step of the journey, stands alone, and only the last session may stop at one")
    func checked() throws {
        let cases: [(String, String)] = [
            (Self.scenario("  - at: first\n    action: next", "{ at: secnd }"), "did you mean 'second'"),
            (
                Self.scenario("  - at: first\n    action: next", "{ at: second, end: done }"),
                "'expect' has 'end' and 'at'"
            ),
            (
                Self.scenario("  - at: first\n    action: next", "{ at: second, kind: success }"),
                "'kind' is the kind of an end"
            ),
            (Self.scenario("  - at: first\n    action: next", "{ stored: { seen: 1 } }"), "'expect' needs 'end'"),
            (
                "scenario: s\njourney: t.one\nsessions:\n  - script: []\n    expect: { at: first }\n  - script: []\n    expect: { at: first }\n",
                "only the last session may stop without an end"
            ),
        ]
        for (scenario, message) in cases {
            let project = ProjectLoader(handlers: BuiltinHandlers.registry).load([
                SourceFile(path: "j.yaml", data: Data(Self.journey.utf8)),
                SourceFile(path: "s.yaml", data: Data(scenario.utf8)),
            ])
            let errors = project.diagnostics.items.filter { $0.severity == .error }
            #expect(errors.contains { $0.message.contains(message) && $0.location.file == "s.yaml" }, "\(errors)")
        }
    }
}
