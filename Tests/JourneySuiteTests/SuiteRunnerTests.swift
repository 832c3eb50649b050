import Foundation
import JourneyCore
import JourneyHandlers
import JourneyTestSupport
import Synchronization
import Testing

@testable import JourneySuite

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Scenarios played as the CLI plays them, with the built-in handlers' services.
let player = ScenarioRunner(services: BuiltinHandlers.services)

/// Goldens in memory.
final class MemoryGoldens: GoldenStore, @unchecked Sendable {
    private let lock = NSLock()
    private var store: [String: (String, String)] = [:]

    func goldens(for scenario: CompiledScenario) -> (text: String?, jsonl: String?) {
        lock.withLock { (store[scenario.id]?.0, store[scenario.id]?.1) }
    }

    func record(_ text: String, _ jsonl: String, for scenario: CompiledScenario) throws {
        lock.withLock { store[scenario.id] = (text, jsonl) }
    }

    func name(for scenario: CompiledScenario) -> String { "memory/\(scenario.id)" }

    /// Edits the text golden, as a hand edit would.
    func edit(_ id: String, _ change: (String) -> String) {
        lock.withLock { if let (text, jsonl) = store[id] { store[id] = (change(text), jsonl) } }
    }

    /// Edits the JSON Lines golden, leaving its text as it was.
    func editJSONL(_ id: String, _ change: (String) -> String) {
        lock.withLock { if let (text, jsonl) = store[id] { store[id] = (text, change(jsonl)) } }
    }
}

/// Goldens in memory whose pairs can be marked as left half-updated by an interrupted
/// `journey test --update`, as a file store finds them after a crash.
final class HalfUpdatedGoldens: GoldenStore, @unchecked Sendable {
    let base = MemoryGoldens()
    private let lock = NSLock()
    private var halfUpdated: Set<String> = []

    func goldens(for scenario: CompiledScenario) -> (text: String?, jsonl: String?) { base.goldens(for: scenario) }

    func record(_ text: String, _ jsonl: String, for scenario: CompiledScenario) throws {
        try base.record(text, jsonl, for: scenario)
        lock.withLock { _ = halfUpdated.remove(scenario.id) }
    }

    func name(for scenario: CompiledScenario) -> String { base.name(for: scenario) }

    func isHalfUpdated(for scenario: CompiledScenario) -> Bool { lock.withLock { halfUpdated.contains(scenario.id) } }

    func markHalfUpdated(_ id: String) { lock.withLock { _ = halfUpdated.insert(id) } }
}

/// A handler whose outcome changes every time it runs: a stand-in for a non-deterministic
/// handler, to prove `--repeat` notices.
final class FlakyHandler: StepHandler {
    let counter = Mutex(0)
    let contract = HandlerContract(
        id: "t.flaky", summary: "alternates",
        outcomes: [OutcomeSpec(name: "a", summary: ""), OutcomeSpec(name: "b", summary: "")])

    nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        HandlerResult(
            counter.withLock {
                $0 += 1; return $0
            } % 2 == 0 ? "a" : "b")
    }
}

@Suite("Suite runner and reports")
struct SuiteRunnerTests {
    static let journey = """
        journey: t.suite
        version: 1
        title: Suite
        start: s
        steps:
          s:
            handler: ui.screen
            screen: { actions: { go: Go, stop: Stop } }
            on: { go: t, stop: stopped }
          t:
            handler: ui.screen
            screen: { actions: { go: Go } }
            on: { go: done }
        ends:
          done: { kind: success }
          stopped: { kind: cancel }
        """

    static func scenario(_ id: String, tags: [String], end: String = "done") -> String {
        let script = end == "done" ? "- at: s\n    action: go\n  - at: t\n    action: go" : "- at: s\n    action: stop"
        return
            "scenario: \(id)\njourney: t.suite\ntags: [\(tags.joined(separator: ", "))]\nscript:\n  \(script)\nexpect: { end: \(end) }\n"
    }

    static func project(handlers: HandlerRegistry = BuiltinHandlers.registry, extra: [String] = []) -> Project {
        var files = [SourceFile(path: "j.yaml", data: Data(journey.utf8))]
        for index in 0..<7 {
            files.append(
                SourceFile(
                    path: "s\(index).yaml",
                    data: Data(
                        scenario(
                            "case-\(index)", tags: index % 2 == 0 ? ["even"] : ["odd"],
                            end: index == 3 ? "stopped" : "done"
                        ).utf8)))
        }
        for (index, text) in extra.enumerated() {
            files.append(SourceFile(path: "x\(index).yaml", data: Data(text.utf8)))
        }
        return ProjectLoader(handlers: handlers).load(files)
    }

    func names(_ outcomes: [ScenarioOutcome]) -> [String] { outcomes.map(\.scenario) }

    @Test func selectionFiltersByNameAndTagAndShardsPartition() throws {
        let scenarios = Self.project().scenarios
        #expect(scenarios.count == 7)
        #expect(SuiteRunner(options: .init(filter: "case-3"), player: player).select(scenarios).map(\.id) == ["case-3"])
        #expect(
            SuiteRunner(options: .init(tags: ["odd"]), player: player).select(scenarios).map(\.id) == [
                "case-1", "case-3", "case-5",
            ])
        var seen: [String] = []
        for index in 1...3 {
            let shard = SuiteRunner(options: .init(shard: (index, 3)), player: player).select(scenarios).map(\.id)
            #expect(shard.count >= 2 && shard.count <= 3)
            seen += shard
        }
        #expect(seen.sorted() == scenarios.map(\.id).sorted(), "three shards run every scenario exactly once")
    }

    @Test func updateRecordsThenRunsPassAndParallelismChangesNothing() async throws {
        let project = Self.project()
        let library = try #require(project.library)
        let goldens = MemoryGoldens()
        let recorded = await SuiteRunner(options: .init(update: true), player: player).run(
            project.scenarios, in: library, goldens: goldens
        ) { _, _ in }
        #expect(recorded.allSatisfy { $0.status == .recorded })
        #expect(SuiteSummary(recorded).updateLine == "\(recorded.count) golden pairs recorded")
        var order: [Int] = []
        let serial = await SuiteRunner(options: .init(jobs: 1), player: player).run(
            project.scenarios, in: library, goldens: goldens
        ) {
            index, _ in
            order.append(index)
        }
        let parallel = await SuiteRunner(options: .init(jobs: 4), player: player).run(
            project.scenarios, in: library, goldens: goldens
        ) { _, _ in }
        #expect(order == Array(0..<7), "results arrive in order")
        #expect(serial.allSatisfy { $0.status == .passed })
        #expect(names(serial) == names(parallel))
        let strip = { (report: String) in
            report.replacingOccurrences(of: #"time="[0-9.]+""#, with: "", options: .regularExpression)
        }
        #expect(strip(JUnitReport.render(serial)) == strip(JUnitReport.render(parallel)))
    }

    @Test func aChangedGoldenNamesTheStepAndAMissingOneSaysHowToRecord() async throws {
        let project = Self.project()
        let library = try #require(project.library)
        let goldens = MemoryGoldens()
        _ = await SuiteRunner(options: .init(update: true), player: player).run(
            project.scenarios, in: library, goldens: goldens
        ) {
            _, _ in
        }
        goldens.editJSONL("case-0") {
            $0.replacingOccurrences(
                of: #""from":"t","outcome":"go","branch":"always","to":"done""#,
                with: #""from":"t","outcome":"go","branch":"always","to":"elsewhere""#)
        }
        let outcomes = await SuiteRunner(options: .init(), player: player).run(
            project.scenarios, in: library, goldens: goldens
        ) {
            _, _ in
        }
        let failed = try #require(outcomes.first { $0.scenario == "case-0" })
        #expect(failed.status == .failed)
        #expect(failed.problems.map(\.kind) == [.transcript])
        #expect(
            failed.problems.first?.message
                == "transcript differs from the golden at step 't' (memory/case-0.jsonl line 14)")
        #expect(failed.problems.first?.diff?.contains("\n-00:00.000   t --go--> elsewhere\n") == true)
        #expect(failed.problems.first?.diff?.contains("\n+00:00.000   t --go--> done\n") == true)
        #expect(SuiteSummary(outcomes).line == "6 passed, 1 failed")

        let missing = await SuiteRunner(options: .init(), player: player).run(
            project.scenarios, in: library, goldens: MemoryGoldens()
        ) { _, _ in }
        #expect(missing.allSatisfy { $0.problems.first?.message.contains("run `journey test --update`") == true })
    }

    /// Goldens recorded from a run of every scenario, with `change` made to them, and the
    /// outcome of `case-0` compared with them.
    func outcomeOfCase0(after change: (MemoryGoldens) -> Void) async throws -> ScenarioOutcome {
        let project = Self.project()
        let library = try #require(project.library)
        let goldens = MemoryGoldens()
        _ = await SuiteRunner(options: .init(update: true), player: player).run(
            project.scenarios, in: library, goldens: goldens
        ) { _, _ in }
        change(goldens)
        let outcomes = await SuiteRunner(options: .init(), player: player).run(
            project.scenarios, in: library, goldens: goldens
        ) { _, _ in }
        #expect(outcomes.filter { $0.scenario != "case-0" }.allSatisfy { $0.status == .passed })
        return try #require(outcomes.first { $0.scenario == "case-0" })
    }

    @Test func aChangeOnlyTheJSONLinesShowIsShownAsJSONLinesNamingTheStep() async throws {
        // The text rendering never shows which step a screen belongs to.
        let failed = try await outcomeOfCase0 { goldens in
            goldens.editJSONL("case-0") {
                $0.replacingOccurrences(of: #""event":"screen","step":"t""#, with: #""event":"screen","step":"u""#)
            }
        }
        #expect(failed.status == .failed)
        #expect(failed.problems.map(\.kind) == [.transcript])
        #expect(failed.problems.first?.message.hasPrefix("transcript differs from the golden at step 't' (") == true)
        let diff = try #require(failed.problems.first?.diff)
        #expect(diff.contains("\n-{\"t\":0,\"depth\":0,\"event\":\"screen\",\"step\":\"u\","), "\(diff)")
        #expect(diff.contains("\n+{\"t\":0,\"depth\":0,\"event\":\"screen\",\"step\":\"t\","), "\(diff)")
        #expect(diff.contains("\n 00:00.000 → t [ui.screen]\n"), "the text around it: \(diff)")
    }

    @Test func aTextGoldenEditedByHandFailsNamingItsFirstDifferingLine() async throws {
        let failed = try await outcomeOfCase0 { goldens in
            goldens.edit("case-0") { $0.replacingOccurrences(of: "t --go--> done", with: "t --go--> elsewhere") }
        }
        #expect(failed.status == .failed)
        #expect(failed.problems.map(\.kind) == [.golden])
        let message = try #require(failed.problems.first?.message)
        #expect(
            message.hasPrefix(
                "memory/case-0.txt is not the text rendering of memory/case-0.jsonl: it differs at line 14 (step 't'); "
            ),
            "\(message)")
        #expect(message.hasSuffix("re-record both with `journey test --update`"))
        #expect(failed.problems.first?.diff?.contains("\n-00:00.000   t --go--> elsewhere\n") == true)
    }

    @Test func aJSONLinesGoldenThatDoesNotReadIsLocated() async throws {
        let failed = try await outcomeOfCase0 { goldens in
            goldens.editJSONL("case-0") { String($0.prefix(upTo: $0.range(of: #""event":"transition""#)!.lowerBound)) }
        }
        #expect(failed.problems.map(\.kind) == [.golden])
        let message = try #require(failed.problems.first?.message)
        #expect(
            message.hasPrefix(
                "memory/case-0.jsonl:8:18: the golden does not read as a transcript: the line ends in the middle of the event"
            ), "\(message)")
    }

    @Test func aJSONLinesGoldenWithTheRunsEventsWrittenOtherwiseFails() async throws {
        let failed = try await outcomeOfCase0 { goldens in
            goldens.editJSONL("case-0") {
                $0.replacingOccurrences(
                    of: #"{"t":0,"depth":0,"event":"step.enter""#, with: #"{"depth":0,"t":0,"event":"step.enter""#)
            }
        }
        #expect(failed.problems.map(\.kind) == [.golden])
        #expect(
            failed.problems.first?.message
                == "memory/case-0.jsonl holds this run's events but is not written as `journey` writes them (line 3); re-record it with `journey test --update`"
        )
    }

    @Test("goldens checked out with CRLF line endings fail saying so, for either file", arguments: [true, false])
    func goldensWithCRLFLineEndings(jsonl: Bool) async throws {
        let failed = try await outcomeOfCase0 { goldens in
            if jsonl {
                goldens.editJSONL("case-0") { $0.replacingOccurrences(of: "\n", with: "\r\n") }
            } else {
                goldens.edit("case-0") { $0.replacingOccurrences(of: "\n", with: "\r\n") }
            }
        }
        #expect(failed.problems.map(\.kind) == [.golden])
        let message = try #require(failed.problems.first?.message)
        #expect(
            message.hasPrefix(
                "memory/case-0.\(jsonl ? "jsonl" : "txt") is this run's transcript with CRLF line endings, where `journey` writes LF: a checkout converted them (git's core.autocrlf); "
            ), "\(message)")
    }

    @Test func aHalfUpdatedGoldenPairFailsSayingSoAndUpdateRecordsIt() async throws {
        let project = Self.project()
        let library = try #require(project.library)
        let goldens = HalfUpdatedGoldens()
        _ = await SuiteRunner(options: .init(update: true), player: player).run(
            project.scenarios, in: library, goldens: goldens
        ) {
            _, _ in
        }
        goldens.markHalfUpdated("case-2")
        let outcomes = await SuiteRunner(options: .init(), player: player).run(
            project.scenarios, in: library, goldens: goldens
        ) {
            _, _ in
        }
        let failed = try #require(outcomes.first { $0.scenario == "case-2" })
        #expect(failed.status == .failed)
        #expect(failed.problems.map(\.kind) == [.golden])
        #expect(
            failed.problems.first?.message
                == "its golden pair memory/case-2 (.txt and .jsonl) was left half-updated by an interrupted `journey test --update`; run `journey test --update` to finish it"
        )
        #expect(SuiteSummary(outcomes).line == "6 passed, 1 failed")

        let updated = await SuiteRunner(options: .init(update: true), player: player).run(
            project.scenarios, in: library, goldens: goldens
        ) { _, _ in }
        // Only the half-updated pair is written again; the others are what their runs play.
        #expect(updated.filter { $0.status == .recorded }.map(\.scenario) == ["case-2"], "\(updated)")
        #expect(updated.filter { $0.scenario != "case-2" }.allSatisfy { $0.status == .passed })
        #expect(SuiteSummary(updated).line == "7 passed, 0 failed")
        #expect(SuiteSummary(updated).updateLine == "1 golden pair recorded, 6 unchanged")
        #expect(!goldens.isHalfUpdated(for: try #require(project.scenarios.first { $0.id == "case-2" })))
        // A store that cannot be half-updated (in memory) never says so.
        #expect(!MemoryGoldens().isHalfUpdated(for: try #require(project.scenarios.first)))
    }

    /// A run that shows in clear a secret the scenario gives is neither compared with its
    /// golden (a diff would print the secret) nor recorded by --update (the golden would keep
    /// it); the problem says where and whose secret, never the secret.
    @Test func aRunThatShowsASecretIsNeitherComparedNorRecorded() async throws {
        var handlers = BuiltinHandlers.registry
        try handlers.register(EchoingHandler())
        let echo = EchoingHandler.journey
        let scenario =
            "scenario: once\njourney: t.echo\nscript:\n  - { at: s, code: \"739164\" }\nexpect: { end: done }\n"
        let project = ProjectLoader(handlers: handlers).load([
            SourceFile(path: "e.yaml", data: Data(echo.utf8)), SourceFile(path: "s.yaml", data: Data(scenario.utf8)),
        ])
        let library = try #require(project.library, "\(project.diagnostics.sorted)")
        for update in [true, false] {
            let goldens = MemoryGoldens()
            let outcomes = await SuiteRunner(options: .init(update: update), player: player).run(
                project.scenarios, in: library, goldens: goldens
            ) { _, _ in }
            let outcome = try #require(outcomes.first)
            #expect(outcome.status == .failed, "\(outcome)")
            let problem = try #require(outcome.problems.first)
            #expect(
                problem.message.hasPrefix(
                    "the run shows what the scenario types into 'code' at step 's', a secret, in clear (where its golden would: memory/once.jsonl:"
                ), "\(problem.message)")
            #expect(problem.diff == nil && !problem.message.contains("739164"), "\(problem)")
            #expect(goldens.goldens(for: try #require(project.scenarios.first)).jsonl == nil, "recorded: \(update)")
        }
    }

    /// A locale the journey has no texts in (the scenario's, or the project's default) renders
    /// the journey's default, and the transcript's header names the locale its texts are in.
    @Test func aLocaleTheJourneyLacksIsItsDefaultsInTheTranscript() async throws {
        let localized = """
            journey: t.hello
            version: 1
            title: Hello
            locales: [en, nl]
            start: s
            steps:
              s:
                handler: ui.screen
                screen: { title: { en: Hello, nl: Hallo }, actions: { go: Go } }
                on: { go: done }
            ends:
              done: { kind: success }
            """
        func header(scenarioLocale: String?, projectLocale: String?) async throws -> String {
            let scenario =
                "scenario: s\njourney: t.hello\n\(scenarioLocale.map { "locale: \($0)\n" } ?? "")script:\n  - { at: s, action: go }\nexpect: { end: done }\n"
            let project = ProjectLoader(handlers: BuiltinHandlers.registry).load([
                SourceFile(path: "h.yaml", data: Data(localized.utf8)),
                SourceFile(path: "s.yaml", data: Data(scenario.utf8)),
            ])
            let library = try #require(project.library, "\(project.diagnostics.sorted)")
            let runner = ScenarioRunner(services: BuiltinHandlers.services, defaults: .init(locale: projectLocale))
            let transcript = TranscriptStrings()
            let report = await runner.run(try #require(project.scenarios.first), in: library, transcript: transcript)
            #expect(report.passed, "\(report.problems)")
            return String(transcript.text.prefix { $0 != "\n" })
        }
        #expect(try await header(scenarioLocale: "nl", projectLocale: nil).hasSuffix("· locale nl"))
        #expect(try await header(scenarioLocale: "zz", projectLocale: nil).hasSuffix("· locale en"))
        #expect(try await header(scenarioLocale: nil, projectLocale: "zz").hasSuffix("· locale en"))
        #expect(try await header(scenarioLocale: nil, projectLocale: "nl").hasSuffix("· locale nl"))
    }

    @Test func repeatCatchesNonDeterminism() async throws {
        var handlers = BuiltinHandlers.registry
        try handlers.register(FlakyHandler())
        let flaky = """
            journey: t.flaky
            version: 1
            title: Flaky
            start: s
            steps:
              s:
                handler: t.flaky
                on: { a: done, b: done }
            ends:
              done: { kind: success }
            """
        let project = ProjectLoader(handlers: handlers).load([
            SourceFile(path: "f.yaml", data: Data(flaky.utf8)),
            SourceFile(
                path: "s.yaml", data: Data("scenario: once\njourney: t.flaky\nscript: []\nexpect: { end: done }".utf8)),
        ])
        let library = try #require(project.library)
        let outcomes = await SuiteRunner(options: .init(repeats: 3, update: true), player: player).run(
            project.scenarios, in: library, goldens: MemoryGoldens()
        ) { _, _ in }
        let problem = try #require(outcomes.first?.problems.first)
        #expect(problem.kind == .determinism)
        #expect(problem.message == "run 2 gave a different transcript from run 1 at step 's'")
    }

    @Test func junitParsesAndItsCountsMatchTheSummary() async throws {
        let project = Self.project()
        let library = try #require(project.library)
        let goldens = MemoryGoldens()
        _ = await SuiteRunner(options: .init(update: true), player: player).run(
            project.scenarios, in: library, goldens: goldens
        ) {
            _, _ in
        }
        goldens.edit("case-5") { $0 + "00:00.000 <extra & \"quoted\" \u{1} line>\n" }
        let outcomes = await SuiteRunner(options: .init(), player: player).run(
            project.scenarios, in: library, goldens: goldens
        ) {
            _, _ in
        }
        let xml = JUnitReport.render(outcomes)
        #if canImport(FoundationXML) || canImport(Darwin)
        let document = try XMLDocument(xmlString: xml)
        let root = try #require(document.rootElement())
        #expect(root.attribute(forName: "tests")?.stringValue == "7")
        #expect(root.attribute(forName: "failures")?.stringValue == "1")
        let cases = try document.nodes(forXPath: "//testcase")
        #expect(cases.count == 7)
        let failures = try document.nodes(forXPath: "//testcase[@name='case-5']/failure")
        #expect(failures.count == 1)
        #expect(
            (failures.first as? XMLElement)?.attribute(forName: "message")?.stringValue?.contains(
                "is not the text rendering") == true)
        #endif
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(JSONReport.render(outcomes).utf8)) as? [String: Any])
        let summary = try #require(json["summary"] as? [String: Int])
        #expect(summary == ["passed": 6, "failed": 1, "skipped": 0, "errors": 0, "selected": 7])
        #expect(json["state"] as? String == "finished")
        #expect((json["scenarios"] as? [[String: Any]])?.count == 7)
    }
}
