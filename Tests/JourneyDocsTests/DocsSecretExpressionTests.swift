import Foundation
import JourneyCore
import JourneyHandlers
import Testing

@testable import JourneyDocs

/// What a journey writes next to a secret (a list set into it, text compared with it) is as
/// secret as the secret: the docs show •••, as `journey check` does.
@Suite("Docs never show what a secret is compared with or set to")
struct DocsSecretExpressionTests {
    static let journey = """
        journey: t.secrets
        version: 1
        title: Secrets compared
        state:
          pin: { type: string, secret: true, default: "" }
          codes: { type: list, secret: true }
          name: { type: string, default: "" }
          seen: { type: list }
        invariants:
          pin-not-master:
            summary: The master PIN never opens
            never: "state.pin == '4242'"
          bob-offline:
            never: "state.name == 'Bob' && !device.online"
        start: a
        steps:
          a:
            handler: ui.screen
            screen:
              title: Start
              actions:
                go: { label: Go, enabled: "${state.pin != '7777'}" }
                named: { label: Named, enabled: "${state.name != 'Ann'}" }
            on:
              go:
                - if: state.pin == '1357'
                  set: { state.codes: ['2468', '1111'], state.seen: ['9753'] }
                  to: done
                - if: state.name == 'Bob'
                  to: done
                - else: pad
              named: done
          pad:
            handler: pin.entry
            with: { warnWeak: true }
            on:
              entered:
                - if: outcome.pin == '4826'
                  set: { state.pin: "${outcome.pin + '0864'}", state.name: "${str(outcome.pin == '5791')}" }
                  to: done
                - else: done
              weak: pad
        ends:
          done: { kind: success }
        """

    static func docs(withLibrary: Bool = true) throws -> [JourneyDoc] {
        let project = ProjectLoader(handlers: BuiltinHandlers.registry).load([
            SourceFile(path: "journeys/test/t.yaml", data: Data(Self.journey.utf8))
        ])
        let library = try #require(project.library, "\(project.diagnostics.sorted)")
        return DocsBuilder.build(
            journeys: project.journeys, recordings: [], locale: nil, library: withLibrary ? library : nil)
    }

    static let secrets = ["2468", "1111", "1357", "7777", "4242", "4826", "0864", "5791"]

    @Test(
        "a list set into a secret, and every literal of an expression that reads a secret, are •••, in every format"
    )
    func secretsComparedOrSetAreNotShown() throws {
        for withLibrary in [true, false] {
            let docs = try Self.docs(withLibrary: withLibrary)
            for format in DocsFormat.allCases {
                for (name, page) in DocsSite.files(docs, format: format, svg: { $0 }) {
                    for secret in Self.secrets {
                        #expect(!page.contains(secret), "\(format) \(name) shows \(secret):\n\(page)")
                    }
                }
            }
        }
        let doc = try #require(try Self.docs().first)
        let sets = doc.edges.flatMap(\.sets)
        #expect(sets.contains("state.codes = •••"), "\(sets)")
        #expect(sets.contains("state.pin = ${outcome.pin + '•••'}"), "\(sets)")
        #expect(sets.contains("state.name = ${str(outcome.pin == '•••')}"), "\(sets)")
        // What reads no secret is shown as written.
        #expect(sets.contains("state.seen = [9753]"), "\(sets)")
        let conditions = doc.edges.compactMap(\.condition)
        #expect(conditions.contains("state.pin == '•••'"), "\(conditions)")
        #expect(conditions.contains("outcome.pin == '•••'"), "\(conditions)")
        #expect(conditions.contains("state.name == 'Bob'"), "\(conditions)")
        let actions = doc.steps.first?.actions.map(\.enabled)
        #expect(actions == ["when ${state.pin != '•••'}", "when ${state.name != 'Ann'}"])
        #expect(
            doc.invariants.map(\.rule) == ["never: state.pin == '•••'", "never: state.name == 'Bob' && !device.online"])
        // An empty text tells only whether the secret is there: it is kept.
        #expect(
            Expression.maskingLiterals("state.pin != '' && state.pin != '12'", keepingEmpty: true)
                == "state.pin != '' && state.pin != '•••'")
        let mermaid = MermaidRenderer.render(doc) { $0 }
        #expect(mermaid.contains("go · if state.pin is '•••'"), "\(mermaid)")
    }
}
