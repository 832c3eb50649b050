import Foundation
import JourneyCore
import JourneyHandlers
import JourneySuite
import Testing

/// The package root, found from this file's path.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// Collects a run's transcript in both renderings.
final class Collector: TranscriptSink {
    var text = ""
    var jsonl = ""
    /// The JSON Lines of the same events encoded from scratch, without the JSON the compiled
    /// journey prepared for them: must equal `jsonl`.
    var jsonlFromEvents = ""
    func record(_ record: TranscriptRecord) {
        text += TranscriptTextRenderer().render(record)
        jsonl += JSONLinesEncoder().encode(record)
        jsonlFromEvents += JSONLinesEncoder().encode(
            TranscriptRecord(time: record.time, depth: record.depth, event: record.event))
    }
}

/// Scenarios played as the CLI plays them; `transport`, when given, is the real network.
func player(transport: (@Sendable () -> any NetworkTransport)? = nil) -> ScenarioRunner {
    var services = BuiltinHandlers.services
    if let transport { services.transport = transport }
    return ScenarioRunner(services: services)
}

/// Loads journeys and scenarios from YAML texts and runs the named scenario.
func run(
    journeys: [String], scenario: String, handlers: HandlerRegistry = BuiltinHandlers.registry
) async throws -> (report: ScenarioRunner.Report, transcript: Collector) {
    var files = journeys.enumerated().map { SourceFile(path: "j\($0.offset).yaml", data: Data($0.element.utf8)) }
    files.append(SourceFile(path: "s.yaml", data: Data(scenario.utf8)))
    let project = ProjectLoader(handlers: handlers).load(files)
    let errors = project.diagnostics.items.filter { $0.severity == .error }
    try #require(errors.isEmpty, "\(errors)")
    let library = try #require(project.library)
    let compiled = try #require(project.scenarios.first)
    let collector = Collector()
    let report = await player().run(compiled, in: library, transcript: collector)
    return (report, collector)
}

/// A one-step journey around `step` (the step is named `s` and ends are `done`/`other`).
func oneStep(_ step: String, extra: String = "") -> String {
    """
    journey: t.one
    version: 1
    title: One step
    \(extra)
    start: s
    steps:
      s:
    \(step.split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }.joined(separator: "\n"))
    ends:
      done: { kind: success }
      other: { kind: failure }
    """
}

func scenario(_ script: String, expect: String = "done", device: String = "{}") -> String {
    """
    scenario: s
    journey: t.one
    device: \(device)
    script:
    \(script.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
    expect: { end: \(expect) }
    """
}

/// What the tests seal, enrol and make outside a run, drawing from the system's secure
/// generator; in a run, handlers draw from their context's source.
extension PinVault {
    static func seal(pin: String, rounds: Int) throws -> String {
        var random = RandomSource.system
        return try seal(pin: pin, rounds: rounds, using: &random)
    }
}

extension LockerVault {
    static func enrol(secret: String, rounds: Int, keeping: Keyring = Keyring()) throws -> Enrolment {
        var random = RandomSource.system
        return try enrol(secret: secret, rounds: rounds, keeping: keeping, using: &random)
    }

    static func encrypt(_ data: String, level: Level, name: String, keyring: Keyring) throws -> String {
        var random = RandomSource.system
        return try encrypt(data, level: level, name: name, keyring: keyring, using: &random)
    }
}

extension PKCE {
    init() {
        var random = RandomSource.system
        self.init(using: &random)
    }

    static func randomToken(bytes: Int = 16) -> String {
        var random = RandomSource.system
        return randomToken(bytes: bytes, using: &random)
    }
}
