import Foundation
import JourneyCore
import JourneyHandlers
import JourneySuite
import Testing

/// Every scenario shipped under journeys/ runs, reaches its expected end, and reproduces its
/// committed golden transcripts byte for byte.
@Suite("Shipped scenarios")
struct ShippedScenarioTests {
    static let project: Project = {
        let root = packageRoot.appendingPathComponent("journeys")
        let files = FileManager.default.enumerator(atPath: root.path)!.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".yaml") }.sorted()
        let sources = files.map {
            SourceFile(path: "journeys/" + $0, data: try! Data(contentsOf: root.appendingPathComponent($0)))
        }
        return ProjectLoader(handlers: BuiltinHandlers.registry).load(sources)
    }()

    /// Scenarios that run in this process. Those needing a live service (the OpenID provider)
    /// run through `journey test` in a subprocess instead (JourneyCLITests.LiveProviderTests):
    /// they take a lock on the service, and this process's cooperative threads can be busy
    /// with tests that wait on subprocesses, which could starve the lock's holder.
    static var names: [String] {
        project.scenarios.filter { $0.needs.isEmpty }.map { "\($0.journey.id)/\($0.id)" }
    }

    /// The secrets a scenario gives: preset PINs, secret params and secret inputs.
    static func secrets(of scenario: CompiledScenario) -> [String] {
        var values = Array(scenario.pins.values) + scenario.params.values.filter(\.isSecret)
        for entry in scenario.script {
            guard case .input(_, let inputs) = entry.kind else { continue }
            values += inputs.values.filter(\.isSecret)
        }
        return values.compactMap { if case .string(let s) = $0.revealed, !s.isEmpty { s } else { nil } }
    }

    /// In-process scenarios that give secrets to look for.
    static var namesWithSecrets: [String] {
        project.scenarios.filter { $0.needs.isEmpty && !secrets(of: $0).isEmpty }.map { "\($0.journey.id)/\($0.id)" }
    }

    @Test func shippedFilesCheckClean() {
        #expect(Self.project.diagnostics.items.isEmpty, "\(Self.project.diagnostics.sorted)")
        #expect(Self.project.scenarios.count >= 19)
    }

    @Test(arguments: names)
    func scenarioMatchesItsGolden(name: String) async throws {
        let scenario = try #require(Self.project.scenarios.first { "\($0.journey.id)/\($0.id)" == name })
        let library = try #require(Self.project.library)
        let first = Collector(), second = Collector()
        let report = await player().run(scenario, in: library, transcript: first)
        _ = await player().run(scenario, in: library, transcript: second)
        #expect(report.passed, "\(report.problems)")
        #expect(first.text == second.text && first.jsonl == second.jsonl, "two runs must give identical bytes")
        #expect(first.jsonl == first.jsonlFromEvents, "prepared events must encode exactly as their events do")

        var golden = URL(fileURLWithPath: scenario.file, relativeTo: packageRoot).deletingLastPathComponent()
        if golden.lastPathComponent == "scenarios" { golden.deleteLastPathComponent() }
        let base = golden.appendingPathComponent("transcripts").appendingPathComponent(
            URL(fileURLWithPath: scenario.file).lastPathComponent.replacingOccurrences(of: ".scenario.yaml", with: ""))
        let text = try String(contentsOf: base.appendingPathExtension("txt"), encoding: .utf8)
        let jsonl = try String(contentsOf: base.appendingPathExtension("jsonl"), encoding: .utf8)
        let decoder = JSONLinesDecoder()
        let diff = TranscriptDiff(expected: try decoder.decode(jsonl), actual: try decoder.decode(first.jsonl))
        let matches = diff.isEmpty, jsonlMatches = jsonl == first.jsonl, textMatches = text == first.text
        #expect(matches, "differs at step \(diff.firstDifferingStep ?? "?"):\n\(diff.unified())")
        #expect(jsonlMatches, "the JSON Lines golden differs; re-record with `journey test --update` if intended")
        #expect(textMatches, "\(TextDiff(expected: text, actual: first.text).unified())")
    }

    /// Every secret a scenario gives (PINs, codes, preset PINs) is absent from its transcripts,
    /// and so is every run of three or more of its digits.
    @Test(arguments: namesWithSecrets)
    func noSecretOrRunOfItsDigitsIsShown(name: String) async throws {
        let scenario = try #require(Self.project.scenarios.first { "\($0.journey.id)/\($0.id)" == name })
        let library = try #require(Self.project.library)
        let secrets = Self.secrets(of: scenario)
        try #require(!secrets.isEmpty)
        let transcript = Collector()
        let report = await player().run(scenario, in: library, transcript: transcript)
        #expect(report.passed, "\(report.problems)")
        let output = transcript.text + transcript.jsonl
        for secret in secrets {
            let digits = Array(secret.filter { $0.isASCII && $0.isNumber })
            var runs: Set<String> = []
            if digits.count >= 3 {
                for start in 0...(digits.count - 3) { runs.insert(String(digits[start..<(start + 3)])) }
            }
            #expect(!output.contains(secret), "a secret given by the scenario is in its transcript")
            for run in runs.sorted() {
                #expect(!output.contains(run), "digits '\(run)' of a secret appear in the transcript")
            }
        }
    }
}
