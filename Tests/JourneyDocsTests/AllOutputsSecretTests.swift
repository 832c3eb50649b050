import Foundation
import JourneyCore
import JourneyHandlers
import JourneySuite
import JourneyTestSupport
import Testing

@testable import JourneyDocs

/// The promise, checked over everything JourneyKit writes: every shipped scenario is run, every
/// output kind is written (text and JSON Lines transcripts, JUnit and JSON reports with every
/// transcript in their diffs, Markdown, HTML and DOT docs, and the goldens and pages committed
/// in the repository), and no value a scenario declares or feeds as secret appears in any of
/// them — whole, or as a run of 4 or more of its characters that the files around the secret
/// (its scenario file, the journeys) do not explain. Secrets the run makes itself (sealed
/// records, keys, the provider's tokens) must not appear whole.
@Suite("No secret in any output of any shipped scenario", .timeLimit(.minutes(30)))
struct AllOutputsSecretTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Every `.yaml` under a folder, path → text.
    static func files(under folder: URL, ending: [String]) -> [(path: String, text: String)] {
        guard let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else {
            return []
        }
        var result: [(String, String)] = []
        for case let url as URL in enumerator where ending.contains(where: { url.lastPathComponent.hasSuffix($0) }) {
            if let text = try? String(contentsOf: url, encoding: .utf8) {
                result.append((String(url.path.dropFirst(root.path.count + 1)), text))
            }
        }
        return result.sorted { $0.0 < $1.0 }
    }

    /// A secret, and the text of the file that declares or feeds it (for runs it explains).
    struct Secret: Hashable {
        var value: String
        /// True for a value the scenario or journey wrote; false for one the run made itself.
        var fed: Bool
        var source: String
    }

    /// Collects the transcript in both renderings, and every secret value the events carry.
    final class SecretSink: TranscriptSink {
        var text = ""
        var jsonl = ""
        var records: [TranscriptRecord] = []
        var secrets: Set<String> = []

        func record(_ record: TranscriptRecord) {
            records.append(record)
            text += TranscriptTextRenderer().render(record)
            jsonl += JSONLinesEncoder().encode(record)
            for value in Self.values(of: record.event) { Self.collect(value, secret: false, into: &secrets) }
        }

        static func collect(_ value: Value, secret: Bool, into found: inout Set<String>) {
            switch value {
            case .secret(let inner): collect(inner, secret: true, into: &found)
            case .list(let items): for item in items { collect(item, secret: secret, into: &found) }
            case .string(let text) where secret: found.insert(text)
            case .int(let n) where secret: found.insert(String(n))
            default: break
            }
        }

        static func values(of event: TranscriptEvent) -> [Value] {
            switch event {
            case .header(let header): header.store.map(\.value) + header.settings.map(\.value)
            case .journeyStart(_, let fields), .subjourneyEnter(_, _, let fields), .input(_, let fields),
                .handlerCall(_, _, let fields), .outcome(_, _, let fields), .subjourneyExit(_, _, _, let fields):
                fields.map(\.value)
            case .stateSet(_, let value): [value]
            default: []
            }
        }
    }

    /// What a scenario feeds as secret: inputs its steps take as secret, PINs, params declared
    /// secret, and stored values (and expectations of them) under `secretKeys`. Read from the
    /// declarations, not from how the run typed the values, so a rule the run fails to apply
    /// still has its values looked for.
    static func fed(_ scenario: CompiledScenario, secretKeys: Set<String>) -> [String] {
        var found: Set<String> = []
        var values: [Value] = Array(scenario.pins.values)
        values += scenario.device.store.filter { secretKeys.contains($0.key) }.map { .secret($0.value.revealed) }
        for expectation in scenario.sessions.map(\.expectation) {
            values += expectation.stored.filter { secretKeys.contains($0.name) }.compactMap { $0.check.expected }
                .map { .secret($0.revealed) }
            values += expectation.state.compactMap(\.check.expected) + expectation.stored.compactMap(\.check.expected)
        }
        values += Array(scenario.params.values) + Array(scenario.device.store.values)
        for entry in scenario.script {
            if case .input(_, let inputs) = entry.kind { values += inputs.values }
        }
        for value in values { SecretSink.collect(value, secret: false, into: &found) }
        for pin in scenario.pins.values { if case .string(let digits) = pin.revealed { found.insert(digits) } }
        return found.sorted()
    }

    /// The stored keys any journey declares secret, and those the PIN handlers seal into.
    static func secretKeys(_ journeys: [Journey]) -> Set<String> {
        var keys: Set<String> = []
        for journey in journeys {
            keys.formUnion(journey.stored.filter(\.type.secret).map(\.name.value))
            for step in journey.steps {
                guard case .handler(let handler) = step.kind, handler.value.hasPrefix("pin.") else { continue }
                for (name, value) in step.with where name.value == "key" {
                    if case .scalar(let key, _, _) = value { keys.insert(key) }
                }
            }
        }
        return keys
    }

    /// The secret params' defaults of a journey, as written.
    static func secretDefaults(_ journey: Journey) -> [String] {
        (journey.params + journey.state + journey.stored).compactMap { declaration in
            guard declaration.type.secret, case .scalar(let text, _, _)? = declaration.defaultValue else { return nil }
            return text
        }
    }

    /// The 4-character runs of a text, by Unicode scalar.
    static func runs(_ text: String) -> Set<String> {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count >= 4 else { return [] }
        var result: Set<String> = []
        for start in 0...(scalars.count - 4) {
            var run = ""
            run.unicodeScalars.append(contentsOf: scalars[start..<start + 4])
            result.insert(run)
        }
        return result
    }

    static let executor = DedicatedThreadExecutor()

    @Test("every output of every shipped scenario, and every committed golden and page, is free of secrets")
    func noSecretAnywhere() async throws {
        try await withTaskExecutorPreference(Self.executor) { try await check() }
    }

    func check() async throws {
        let sources = Self.files(under: Self.root.appendingPathComponent("journeys"), ending: [".yaml", ".yml"])
        let project = ProjectLoader(handlers: BuiltinHandlers.registry).load(
            sources.map { SourceFile(path: $0.path, data: Data($0.text.utf8)) })
        let library = try #require(project.library, "\(project.diagnostics.sorted.prefix(5))")
        let sourceText = Dictionary(uniqueKeysWithValues: sources.map { ($0.path, $0.text) })
        let journeyText = sources.filter { $0.text.contains("\njourney:") || $0.text.hasPrefix("journey:") }
            .filter { !$0.text.contains("\nscenario:") && !$0.text.hasPrefix("scenario:") }.map(\.text)
            .joined(separator: "\n")
        #expect(project.scenarios.count >= 100)
        let secretKeys = Self.secretKeys(project.journeys)
        #expect(secretKeys.isSuperset(of: ["authorizationToken", "logoutToken", "authorizationPincode", "vault"]))

        var secrets: Set<Secret> = []
        var outputs: [(name: String, text: String)] = []
        var recordings: [ScenarioRecording] = []
        var skipped = 0
        let player = ScenarioRunner(services: BuiltinHandlers.services)
        for scenario in project.scenarios {
            let sink = SecretSink()
            let report = await player.run(scenario, in: library, transcript: sink)
            if report.skipped != nil {
                skipped += 1
                continue
            }
            let file = sourceText[scenario.file] ?? ""
            for value in Self.fed(scenario, secretKeys: secretKeys) {
                secrets.insert(Secret(value: value, fed: true, source: file))
            }
            for journey in ScenarioChecker.reachableJourneys(from: scenario.journey, in: library) {
                for value in Self.secretDefaults(journey.source) {
                    secrets.insert(Secret(value: value, fed: true, source: journeyText))
                }
            }
            // What the run made secret: fed by the scenario when its file holds it (a token a
            // stub answers with), made by the run otherwise.
            for value in sink.secrets {
                secrets.insert(Secret(value: value, fed: file.contains(value), source: file))
            }
            outputs.append(("\(scenario.file) (text)", sink.text))
            outputs.append(("\(scenario.file) (jsonl)", sink.jsonl))
            recordings.append(
                ScenarioRecording(
                    journey: scenario.journey.id, scenario: scenario.id, title: scenario.title, tags: scenario.tags,
                    file: scenario.file, records: sink.records, passed: report.passed))
        }
        // Reports where every scenario fails against an empty golden: each diff holds its whole
        // transcript, so the reports carry everything a failure could show.
        let runner = SuiteRunner(options: SuiteOptions(jobs: 2), player: player)
        var outcomes = await runner.run(project.scenarios, in: library, goldens: EmptyGoldens()) { _, _ in }
        for index in outcomes.indices { outcomes[index].milliseconds = 0 }
        outputs.append(("JUnit report", JUnitReport.render(SuiteReport(outcomes: outcomes))))
        outputs.append(("JSON report", JSONReport.render(SuiteReport(outcomes: outcomes))))
        let docs = DocsBuilder.build(
            journeys: project.journeys, recordings: recordings, locale: nil,
            secretStoredKeys: library.secretStoredKeys)
        for format in DocsFormat.allCases {
            // The HTML pages embed the SVG Graphviz draws from the DOT source; the source is
            // what could carry a value.
            for (name, page) in DocsSite.files(docs, format: format, svg: { $0 }) {
                outputs.append(("docs \(name)", page))
            }
        }
        for committed in Self.files(under: Self.root.appendingPathComponent("journeys"), ending: [".txt", ".jsonl"])
            + Self.files(under: Self.root.appendingPathComponent("docs/journeys"), ending: [".md", ".html", ".dot"])
        {
            outputs.append((committed.path, committed.text))
        }
        #expect(outputs.count > 300)

        // Every 4-character run of every output, with the first output that has it.
        var firstOutput: [String: String] = [:]
        for output in outputs {
            for run in Self.runs(output.text) where firstOutput[run] == nil { firstOutput[run] = output.name }
        }
        // What outputs may hold for reasons of their own: every shipped file with the secrets
        // written in it blanked out (ids, titles, values that are not secret), and what each
        // output kind writes whatever the journey (HTML's style sheet, JUnit's markup).
        let values = secrets.filter(\.fed).map(\.value).sorted { $0.count > $1.count }
        var corpus = sources.map { Self.blanking(values, in: $0.text) }
        corpus += try Self.vocabulary()
        let publicRuns = corpus.reduce(into: Set<String>()) { $0.formUnion(Self.runs($1)) }
        let publicText = corpus.joined(separator: "\n")
        var leaks: [String] = []
        var checked = 0
        for secret in secrets where secret.value.unicodeScalars.count >= 4 && !secret.value.contains(Value.redacted) {
            checked += 1
            let runs = Self.runs(secret.value)
            // Whole: a secret all of whose runs appear somewhere is looked for as a whole.
            if runs.allSatisfy({ firstOutput[$0] != nil }), !Self.contains(publicText, secret.value),
                let output = outputs.first(where: { Self.contains($0.text, secret.value) })
            {
                leaks.append("'\(secret.value)' appears whole in \(output.name)")
                continue
            }
            // A run of a secret a person wrote. (A long random one matches 4 characters by
            // chance, and digits of a PIN turn up inside any longer number: those are looked for
            // whole only.)
            guard secret.fed, secret.value.count <= 40, !secret.value.allSatisfy(\.isNumber) else { continue }
            for run in runs.sorted() {
                guard let output = firstOutput[run], !publicRuns.contains(run) else { continue }
                leaks.append("'\(run)' of the secret '\(secret.value)' appears in \(output)")
            }
        }
        #expect(checked >= 50, "the shipped scenarios feed secrets to look for")
        #expect(leaks.isEmpty, "\(leaks.count) leaks:\n\(leaks.prefix(40).joined(separator: "\n"))")
        if skipped > 0 {
            // Without the OpenID provider, the live scenarios' secrets were not exercised.
            print("note: \(skipped) scenarios were skipped (their provider is not running)")
        }
    }

    /// `text` with each of `values` blanked where it is a whole YAML scalar (`key: value`,
    /// `"value"`, a list item), not where it is part of a longer word such as an id.
    static func blanking(_ values: [String], in text: String) -> String {
        var result = text
        for value in values where result.contains(value) {
            let escaped = NSRegularExpression.escapedPattern(for: value)
            let pattern = #"(?<=[:\[{,\-]\s?["']?|["'])"# + escaped + #"(?=["']|\s*[,}\]#\n]|\s*$)"#
            guard let regex = try? NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines]) else {
                continue
            }
            result = regex.stringByReplacingMatches(
                in: result, range: NSRange(result.startIndex..., in: result), withTemplate: "\u{0}")
        }
        return result
    }

    /// Whether `text` holds `value`; a number only as a whole number, not inside a longer one
    /// (a PIN `2580` is not in a clock `1767258000000`).
    static func contains(_ text: String, _ value: String) -> Bool {
        guard value.allSatisfy(\.isNumber) else { return text.contains(value) }
        var rest = text[...]
        while let range = rest.range(of: value) {
            let before = range.lowerBound > text.startIndex ? text[text.index(before: range.lowerBound)] : " "
            let after = range.upperBound < text.endIndex ? text[range.upperBound] : " "
            if !before.isNumber && !after.isNumber { return true }
            rest = text[range.upperBound...]
        }
        return false
    }

    /// What each output kind writes for any journey: the outputs of a tiny one without secrets.
    static func vocabulary() throws -> [String] {
        let journey = """
            journey: v.v
            version: 1
            title: V
            start: a
            steps:
              a:
                handler: ui.screen
                screen: { title: T, actions: { go: Go } }
                on: { go: done }
            ends:
              done: { kind: success }
            """
        let project = ProjectLoader(handlers: BuiltinHandlers.registry).load([
            SourceFile(path: "v/v.yaml", data: Data(journey.utf8))
        ])
        let docs = DocsBuilder.build(journeys: project.journeys, recordings: [], locale: nil)
        var texts: [String] = []
        for format in DocsFormat.allCases {
            texts += DocsSite.files(docs, format: format, svg: { $0 }).values.sorted()
        }
        let outcome = ScenarioOutcome(
            journey: "v.v", scenario: "s", file: "f", tags: [], status: .failed, milliseconds: 0, steps: 0,
            problems: [.init(kind: .transcript, message: "m", diff: "d")])
        texts.append(JUnitReport.render(SuiteReport(outcomes: [outcome])))
        texts.append(JSONReport.render(SuiteReport(outcomes: [outcome])))
        return texts
    }

    /// Every golden is empty: every scenario fails with its whole transcript in the diff.
    struct EmptyGoldens: GoldenStore {
        func goldens(for scenario: CompiledScenario) -> (text: String?, jsonl: String?) { ("", "") }
        func record(_ text: String, _ jsonl: String, for scenario: CompiledScenario) throws {}
        func name(for scenario: CompiledScenario) -> String { scenario.id }
    }
}
