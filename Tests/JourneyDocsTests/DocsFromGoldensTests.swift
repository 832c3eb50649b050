import Foundation
import JourneyCore
import JourneyHandlers
import JourneySuite
import Testing

@testable import JourneyDocs

/// `journey docs` shows each scenario from its golden transcript instead of playing it: the
/// pages must be the ones its runs would give.
@Suite("Docs from goldens")
struct DocsFromGoldensTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The shipped goldens, read from their files as `journey docs` reads them.
    struct ShippedGoldens: GoldenStore {
        func goldens(for scenario: CompiledScenario) -> (text: String?, jsonl: String?) {
            let file = URL(fileURLWithPath: scenario.file, relativeTo: root)
            var folder = file.deletingLastPathComponent()
            if folder.lastPathComponent == "scenarios" { folder.deleteLastPathComponent() }
            let base = folder.appendingPathComponent("transcripts").appendingPathComponent(
                file.lastPathComponent.replacingOccurrences(of: ".scenario.yaml", with: ""))
            return (
                try? String(contentsOf: base.appendingPathExtension("txt"), encoding: .utf8),
                try? String(contentsOf: base.appendingPathExtension("jsonl"), encoding: .utf8)
            )
        }
        func record(_ text: String, _ jsonl: String, for scenario: CompiledScenario) throws {}
        func name(for scenario: CompiledScenario) -> String { scenario.file }
    }

    @Test("docs built from the shipped goldens equal docs built from runs", .timeLimit(.minutes(10)))
    func goldensGiveTheDocsRunsGive() async throws {
        let paths = FileManager.default.enumerator(atPath: Self.root.appendingPathComponent("journeys").path)!
            .compactMap { $0 as? String }.filter { $0.hasSuffix(".yaml") }.sorted()
        let project = ProjectLoader(handlers: BuiltinHandlers.registry).load(
            try paths.map {
                SourceFile(
                    path: "journeys/" + $0,
                    data: try Data(contentsOf: Self.root.appendingPathComponent("journeys").appendingPathComponent($0)))
            })
        let library = try #require(project.library)
        // Scenarios that need a live service play through `journey test` in its own process
        // (see ShippedScenarioTests); the rest play here.
        let scenarios = project.scenarios.filter { $0.needs.isEmpty }
        #expect(scenarios.count >= 100)
        var fromRuns: [ScenarioRecording] = []
        var fromGoldens: [ScenarioRecording] = []
        let player = ScenarioRunner(services: BuiltinHandlers.services)
        for scenario in scenarios {
            let sink = TranscriptBuffer()
            let report = await player.run(scenario, in: library, transcript: sink)
            #expect(report.passed, "\(scenario.id): \(report.problems)")
            fromRuns.append(Self.recording(scenario, sink.records, passed: report.passed))
            // A golden is only ever recorded from a run that met its expectation.
            fromGoldens.append(Self.recording(scenario, try ShippedGoldens().events(for: scenario).get(), passed: true))
        }
        func pages(_ recordings: [ScenarioRecording]) -> [String: String] {
            let docs = DocsBuilder.build(
                journeys: project.journeys, recordings: recordings, locale: nil,
                secretStoredKeys: library.secretStoredKeys)
            return DocsSite.files(docs, format: .md) { _ in "" }
        }
        let byRuns = pages(fromRuns), byGoldens = pages(fromGoldens)
        #expect(byRuns.keys.sorted() == byGoldens.keys.sorted())
        for name in byRuns.keys.sorted() {
            let diff = TextDiff(expected: byRuns[name] ?? "", actual: byGoldens[name] ?? "")
            #expect(diff.isEmpty, "\(name):\n\(diff.unified(expectedName: "from runs", actualName: "from goldens"))")
        }
        #expect(byRuns.values.contains { $0.contains("limit `enterPin` reached") }, "walkthroughs show limits")
    }

    static func recording(
        _ scenario: CompiledScenario, _ records: [TranscriptRecord], passed: Bool
    ) -> ScenarioRecording {
        ScenarioRecording(
            journey: scenario.journey.id, scenario: scenario.id, title: scenario.title, tags: scenario.tags,
            file: scenario.file, records: records, passed: passed)
    }
}
