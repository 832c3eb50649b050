import Foundation
import JourneyCore
import JourneyHandlers
import Synchronization
import Testing

@testable import JourneySuite

/// One set-up for every way of playing a scenario: what the handlers provide arrives through
/// ``RunServices``, and ``ScenarioRunner/prepare(_:)`` decides the device, header and locale.
@Suite("Scenario set-up")
struct RunSetupTests {
    static let journey = """
        journey: t.pin
        version: 1
        title: { uk: Код, en: Code }
        locales: [uk, en]
        stored:
          counter: { type: int, default: 7 }
        start: enter
        steps:
          enter:
            handler: pin.verify
            with: { key: code, length: 4 }
            screen: { title: { uk: Код, en: Code } }
            on: { correct: done, wrong: enter, missing: enter }
        ends:
          done: { kind: success }
        """

    static func scenario(locale: String? = nil) -> String {
        """
        scenario: s
        journey: t.pin
        \(locale.map { "locale: \($0)" } ?? "")
        device:
          kdfRounds: 1000
          pins: { code: "4826" }
        script:
          - at: enter
            pin: "4826"
        expect: { end: done, stored: { counter: 7 } }
        """
    }

    static func compile(_ scenario: String) throws -> (CompiledScenario, CompiledLibrary) {
        try compiled(journey: journey, scenario: scenario)
    }

    @Test("preset PINs are sealed by the services, with the device's rounds, and the header says so")
    func sealsThroughServices() async throws {
        let (scenario, library) = try Self.compile(Self.scenario())
        let calls = Mutex<[String]>([])
        var services = BuiltinHandlers.services
        let real = services.sealPIN
        services.sealPIN = { pin, rounds, random in
            calls.withLock { $0.append("\(pin.count) digits, \(rounds.map(String.init) ?? "default") rounds") }
            return try real(pin, rounds, &random)
        }
        let runner = ScenarioRunner(services: services)
        let prepared = try runner.prepare(scenario)
        #expect(calls.withLock { $0 } == ["4 digits, 1000 rounds"])
        #expect(prepared.device.store["code"]?.isSecret == true)
        #expect(prepared.header.locale == "uk")
        #expect(prepared.header.settings.map(\.name) == ["kdfRounds"])
        // The sealed PIN opens with the scenario's digits: the run reaches its end.
        let report = await runner.run(scenario, in: library, transcript: TranscriptBuffer())
        #expect(report.passed, "\(report.problems)")
        // A stored key the run never wrote reads as its declared default.
        #expect(scenario.storedDefaults["counter"] == .int(7))
    }

    @Test("a PIN the services cannot seal stops the scenario before it runs, naming the key")
    func sealFailure() async throws {
        let (scenario, library) = try Self.compile(Self.scenario())
        struct Refused: Error {}
        var services = BuiltinHandlers.services
        services.sealPIN = { _, _, _ in throw Refused() }
        let runner = ScenarioRunner(services: services)
        #expect(throws: ScenarioRunner.SetupError(message: "cannot seal the scenario's PIN 'code'")) {
            try runner.prepare(scenario)
        }
        let sink = TranscriptBuffer()
        let report = await runner.run(scenario, in: library, transcript: sink)
        #expect(!report.passed)
        #expect(report.problems == ["cannot seal the scenario's PIN 'code'"])
        #expect(sink.records.isEmpty)
    }

    @Test("the locale: the runner's override, else the scenario's, else the journey's first")
    func locale() throws {
        for (scenarioLocale, override, expected) in [
            (nil, nil, "uk"), ("en", nil, "en"), ("en", "uk", "uk"), (nil, "en", "en"),
        ] as [(String?, String?, String)] {
            let (scenario, _) = try Self.compile(Self.scenario(locale: scenarioLocale))
            let runner = ScenarioRunner(
                services: BuiltinHandlers.services, configuration: .init(locale: override))
            #expect(runner.locale(for: scenario) == expected)
            let prepared = try runner.prepare(scenario)
            #expect(prepared.configuration.locale == expected)
            #expect(prepared.header.locale == expected)
        }
    }

    @Test("a needed service that does not answer skips the scenario, asked through the services' probe")
    func probe() async throws {
        let text = Self.scenario().replacingOccurrences(
            of: "script:", with: "needs: [\"http://127.0.0.1:9/api\"]\nscript:")
        let (scenario, library) = try Self.compile(text)
        let asked = Mutex<[String]>([])
        var services = BuiltinHandlers.services
        services.probe = { url, _ in
            asked.withLock { $0.append(url) }
            return false
        }
        let report = await ScenarioRunner(services: services).run(
            scenario, in: library, transcript: TranscriptBuffer())
        #expect(report.skipped == "needs http://127.0.0.1:9/api, which does not answer")
        #expect(asked.withLock { $0 } == ["http://127.0.0.1:9/api"])
    }
}
