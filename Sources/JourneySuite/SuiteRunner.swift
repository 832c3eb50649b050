import JourneyCore

/// Where golden transcripts come from and go to. The CLI keeps them in files beside the
/// scenarios; tests can keep them in memory.
public protocol GoldenStore: Sendable {
    /// The recorded text and JSON Lines transcripts, when there are any.
    func goldens(for scenario: CompiledScenario) -> (text: String?, jsonl: String?)
    /// Records both transcripts (only `journey test --update` does this).
    func record(_ text: String, _ jsonl: String, for scenario: CompiledScenario) throws
    /// What `--update` does where a scenario's goldens are already what it plays and are not
    /// written: the store's own upkeep of where they are kept (a file store finishes a change an
    /// interrupted update left there), as recording would do it first.
    func keep(for scenario: CompiledScenario) throws
    /// How messages name the golden, e.g. its path.
    func name(for scenario: CompiledScenario) -> String
    /// Whether an interrupted update left the two goldens from different runs (a file store
    /// killed between its two renames): such goldens are not compared, the scenario fails
    /// saying so, and the next update finishes them.
    func isHalfUpdated(for scenario: CompiledScenario) -> Bool
    /// Why the golden named `name` (as ``name(for:)`` names a pair, with its extension) reads
    /// as absent when something is in its place (a folder), said to the user; nil when
    /// nothing is.
    func inPlace(of name: String) -> String?
}

extension GoldenStore {
    /// A store whose two goldens change together (in memory) is never half-updated.
    public func isHalfUpdated(for scenario: CompiledScenario) -> Bool { false }
    /// A store with nothing to keep up (in memory) does nothing.
    public func keep(for scenario: CompiledScenario) throws {}
    /// In memory, a golden is there or not.
    public func inPlace(of name: String) -> String? { nil }
}

/// What to run, and how.
public struct SuiteOptions: Sendable {
    /// Run only scenarios whose `journey › scenario` name contains this text.
    public var filter: String?
    /// Run only scenarios carrying at least one of these tags (all when empty).
    public var tags: [String]
    /// Run only shard `index` (1-based) of `count`.
    public var shard: (index: Int, count: Int)?
    /// Scenarios run at the same time.
    public var jobs: Int
    /// Runs of each scenario; any two differing transcripts fail it.
    public var repeats: Int
    /// Record goldens instead of comparing with them.
    public var update: Bool

    public init(
        filter: String? = nil, tags: [String] = [], shard: (index: Int, count: Int)? = nil, jobs: Int = 1,
        repeats: Int = 1, update: Bool = false
    ) {
        self.filter = filter
        self.tags = tags
        self.shard = shard
        self.jobs = jobs
        self.repeats = repeats
        self.update = update
    }
}

/// The result of one scenario in a suite run.
public struct ScenarioOutcome: Sendable, Codable, Equatable {
    /// `error`: the scenario could not run, because its file or its journey has errors.
    public enum Status: String, Sendable, Codable { case passed, failed, recorded, skipped, error }

    /// Why a scenario failed.
    public struct Problem: Sendable, Equatable, Codable {
        /// `crash` and `timeout`: the scenario's run took its process down or did not finish in
        /// time; `invalid`: it could not run (see ``Status/error``).
        public enum Kind: String, Sendable, Codable {
            case expectation, transcript, determinism, golden, crash, timeout, invalid
            /// `journey test --explore`: a path breaks one of the journey's invariants.
            case invariant
            /// `journey test --explore`: a journey not explored (it has no start to explore from),
            /// or, with `--strict`, explored only as far as its bounds.
            case unexplored
            /// `journey test --explore`: a signal stopped the exploration before it finished.
            case interrupted
        }
        public var kind: Kind
        public var message: String
        /// A unified diff, for transcript and determinism problems.
        public var diff: String?

        public init(kind: Kind, message: String, diff: String? = nil) {
            self.kind = kind
            self.message = message
            self.diff = diff
        }
    }

    public var journey: String
    public var scenario: String
    public var file: String
    public var tags: [String]
    public var status: Status
    public var milliseconds: Double
    public var steps: Int
    public var problems: [Problem]
    /// The end the run reached, when it reached one.
    public var end: String?
    /// The step the run waits at, when its script ran out there (a scenario that expects `at:`).
    public var waiting: String?
    /// Said under the result whatever it is: for an exploration, a start that explored so many
    /// states that its author should know; for a counterexample that passes, where the journey
    /// left its path.
    public var note: String?

    /// `journey › scenario`; a scenario file too broken to say its journey is named by itself.
    public var name: String { journey.isEmpty ? scenario : "\(journey) › \(scenario)" }

    /// The name, and the one tag, of a journey's exploration in `journey test --explore`
    /// (`JOURNEY › explore`).
    public static let exploration = "explore"

    /// Whether this is a journey's exploration (``exploration``), not a scenario's run.
    public var isExploration: Bool { scenario == Self.exploration && tags == [Self.exploration] }

    public init(
        journey: String, scenario: String, file: String, tags: [String], status: Status, milliseconds: Double,
        steps: Int, problems: [Problem], end: String? = nil, waiting: String? = nil, note: String? = nil
    ) {
        self.journey = journey
        self.scenario = scenario
        self.file = file
        self.tags = tags
        self.status = status
        self.milliseconds = milliseconds
        self.steps = steps
        self.problems = problems
        self.end = end
        self.waiting = waiting
        self.note = note
    }

    /// The outcome of a scenario that could not run.
    public init(unrunnable scenario: UnrunnableScenario) {
        self.init(
            journey: scenario.journey, scenario: scenario.scenario, file: scenario.file, tags: scenario.tags,
            status: .error, milliseconds: 0, steps: 0,
            problems: [Problem(kind: .invalid, message: "cannot run: \(scenario.reason)")])
    }
}

/// Runs scenarios as a regression suite: each run's transcript is compared with its golden.
public struct SuiteRunner: Sendable {
    /// How the problem of a golden `--update` could not write begins: the suite's output, not
    /// the scenario, failed (`journey test` exits 2 for it, as for any output not written).
    public static let cannotRecord = "cannot record the golden transcript"

    public var options: SuiteOptions
    /// How each scenario is played: set up once for the whole suite.
    public var player: ScenarioRunner

    public init(options: SuiteOptions, player: ScenarioRunner) {
        self.options = options
        self.player = player
    }

    /// The scenarios the options select, in a stable order: by journey, then scenario.
    /// Shards deal that order out round-robin, so every shard of N gets every N-th scenario
    /// and the N shards together run each scenario exactly once.
    public func select(_ scenarios: [CompiledScenario]) -> [CompiledScenario] {
        select(scenarios) { ($0.journey.id, $0.id, $0.file, $0.tags) }
    }

    /// The scenarios that cannot run that the options select, by the same rules, dealt into
    /// shards in their own order: so each shard reports its share of them.
    public func select(_ scenarios: [UnrunnableScenario]) -> [UnrunnableScenario] {
        select(scenarios) { ($0.journey, $0.scenario, $0.file, $0.tags) }
    }

    private func select<Item>(
        _ items: [Item], _ describe: (Item) -> (journey: String, scenario: String, file: String, tags: [String])
    ) -> [Item] {
        let ordered = items.map { (item: $0, about: describe($0)) }.sorted {
            ($0.about.journey, $0.about.scenario, $0.about.file) < ($1.about.journey, $1.about.scenario, $1.about.file)
        }
        var selected = ordered.filter { entry in
            let nameMatches =
                options.filter.map { "\(entry.about.journey) › \(entry.about.scenario)".contains($0) } ?? true
            let tagMatches = options.tags.isEmpty || !Set(options.tags).isDisjoint(with: entry.about.tags)
            return nameMatches && tagMatches
        }
        if let shard = options.shard {
            selected = selected.enumerated().filter { $0.offset % shard.count == shard.index - 1 }.map(\.element)
        }
        return selected.map(\.item)
    }

    /// Runs the scenarios, `options.jobs` at a time, and hands each outcome to `report` in the
    /// scenarios' order (so output is the same whatever the parallelism).
    ///
    /// - Parameter started: called with a scenario's index when it starts to play (after any
    ///   wait for the services it needs), on whatever thread runs it.
    ///   - ordered: false hands outcomes to `report` as they come, not in order.
    public func run(
        _ scenarios: [CompiledScenario], in library: CompiledLibrary, goldens: some GoldenStore,
        ordered: Bool = true, started: @escaping @Sendable (Int) -> Void = { _ in },
        report: (Int, ScenarioOutcome) -> Void
    ) async -> [ScenarioOutcome] {
        var outcomes = [ScenarioOutcome?](repeating: nil, count: scenarios.count)
        var delivered = 0
        let jobs = max(1, options.jobs)
        let options = self.options
        let player = self.player
        await withTaskGroup(of: (Int, ScenarioOutcome).self) { group in
            var next = 0
            func start() {
                guard next < scenarios.count else { return }
                let index = next
                let scenario = scenarios[index]
                next += 1
                group.addTask {
                    (
                        index,
                        await Self.run(
                            scenario, in: library, player: player, goldens: goldens, options: options,
                            started: { started(index) })
                    )
                }
            }
            for _ in 0..<min(jobs, scenarios.count) { start() }
            for await (index, outcome) in group {
                outcomes[index] = outcome
                if !ordered { report(index, outcome) }
                while delivered < outcomes.count, let ready = outcomes[delivered] {
                    if ordered { report(delivered, ready) }
                    delivered += 1
                }
                start()
            }
        }
        return outcomes.compactMap { $0 }
    }

    static func run(
        _ scenario: CompiledScenario, in library: CompiledLibrary, player: ScenarioRunner, goldens: some GoldenStore,
        options: SuiteOptions, started onStart: @escaping @Sendable () -> Void = {}
    ) async -> ScenarioOutcome {
        let clock = ContinuousClock()
        let started = clock.now
        var problems: [ScenarioOutcome.Problem] = []
        var first: (text: String, jsonl: String)?
        var steps = 0
        var reached: (end: String?, waiting: String?) = (nil, nil)
        var note: String?
        for round in 1...max(1, options.repeats) {
            let transcript = TranscriptStrings()
            let report = await player.run(
                scenario, in: library, transcript: transcript, onStart: round == 1 ? onStart : {})
            if let reason = report.skipped {
                return ScenarioOutcome(
                    journey: scenario.journey.id, scenario: scenario.id, file: scenario.file, tags: scenario.tags,
                    status: .skipped, milliseconds: 0, steps: 0,
                    problems: [.init(kind: .expectation, message: reason, diff: nil)])
            }
            steps = report.result.steps
            reached = (report.result.end, report.result.waiting)
            if round == 1 {
                first = (transcript.text, transcript.jsonl)
                problems += report.problems.map { .init(kind: .expectation, message: $0, diff: nil) }
                note = report.note
            } else if let first, first.text != transcript.text || first.jsonl != transcript.jsonl {
                let (step, diff) = difference(
                    first, (transcript.text, transcript.jsonl), names: ("run 1", "run \(round)"))
                problems.append(
                    .init(
                        kind: .determinism,
                        message:
                            "run \(round) gave a different transcript from run 1\(step.map { " at step '\($0)'" } ?? "")",
                        diff: diff))
                break
            }
        }
        var status: ScenarioOutcome.Status = problems.isEmpty ? .passed : .failed
        if let first, problems.isEmpty {
            if let place = scenario.secretPlace(in: first, name: goldens.name(for: scenario)) {
                // A run that shows a secret in clear is neither compared (the diff would print
                // it) nor recorded (the golden would keep it).
                problems.append(
                    .init(
                        kind: .expectation,
                        message:
                            "the run shows \(place.secret.source), a secret, in clear (where its golden would: \(place.location)), so it is neither compared nor recorded: \(ClearSecrets.cause)",
                        diff: nil))
                status = .failed
            } else if options.update {
                // A golden pair the run would write as it is stays untouched: an update
                // rewrites, and says it recorded, only the goldens whose runs changed.
                let golden = goldens.goldens(for: scenario)
                let unchanged =
                    golden.jsonl == first.jsonl && golden.text == first.text && !goldens.isHalfUpdated(for: scenario)
                do {
                    if unchanged {
                        try goldens.keep(for: scenario)
                    } else {
                        try goldens.record(first.text, first.jsonl, for: scenario)
                    }
                    status = unchanged ? .passed : .recorded
                } catch {
                    problems.append(.init(kind: .golden, message: "\(Self.cannotRecord): \(error)", diff: nil))
                    status = .failed
                }
            } else if goldens.isHalfUpdated(for: scenario) {
                problems.append(
                    .init(
                        kind: .golden,
                        message:
                            "its golden pair \(goldens.name(for: scenario)) (.txt and .jsonl) was left half-updated by an interrupted `journey test --update`; run `journey test --update` to finish it",
                        diff: nil))
                status = .failed
            } else {
                let golden = goldens.goldens(for: scenario)
                let name = goldens.name(for: scenario)
                if let shown = scenario.secretShown(in: golden, name: name) {
                    // Compared, the golden's lines would be printed in the diff, the secret with them.
                    problems.append(.init(kind: .golden, message: shown.description, diff: nil))
                } else {
                    // What stands where a golden goes is said, not only that none was read.
                    problems += compare(first, with: golden, name: name) { path in
                        goldens.inPlace(of: path).map {
                            .init(kind: .golden, message: "no golden transcript at \(path): \($0)")
                        } ?? Self.missing(path)
                    }
                }
                status = problems.isEmpty ? .passed : .failed
            }
        }
        let elapsed = clock.now - started
        let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        return ScenarioOutcome(
            journey: scenario.journey.id, scenario: scenario.id, file: scenario.file, tags: scenario.tags,
            status: status, milliseconds: ms, steps: steps, problems: problems, end: reached.end,
            waiting: reached.waiting, note: status == .passed || status == .recorded ? note : nil)
    }

    /// The golden's problems with this run. The JSON Lines golden is the transcript: its events
    /// must be this run's events (a difference names the first step where they part and shows
    /// it as text), written as `journey` writes them; the text golden must be their rendering
    /// exactly, so the two goldens never disagree.
    static func compare(
        _ run: (text: String, jsonl: String), with golden: (text: String?, jsonl: String?), name: String,
        missing: (String) -> ScenarioOutcome.Problem = SuiteRunner.missing
    ) -> [ScenarioOutcome.Problem] {
        guard let jsonl = golden.jsonl else { return [missing(name + ".jsonl")] }
        // The same bytes are the same events; only a golden that differs is read back.
        if jsonl != run.jsonl {
            return [compareEvents(run.jsonl, with: jsonl, name: name)]
        }
        guard let text = golden.text else { return [missing(name + ".txt")] }
        guard text != run.text else { return [] }
        if let converted = convertedLineEndings(text, run.text, name: name + ".txt") { return [converted] }
        let textDiff = TextDiff(expected: text, actual: run.text)
        let place: String
        if let line = textDiff.firstDifferenceLine {
            let records = (try? JSONLinesDecoder().decode(run.jsonl)) ?? []
            let step = records.record(atTextLine: line).flatMap { records.step(at: $0) }
            place = "at line \(line)" + (step.map { " (step '\($0)')" } ?? "")
        } else {
            place = "in its line endings"
        }
        return [
            .init(
                kind: .golden,
                message:
                    "\(name).txt is not the text rendering of \(name).jsonl: it differs \(place); the text golden is only ever written with its JSON Lines, so re-record both with `journey test --update`",
                diff: textDiff.unified(expectedName: "\(name).txt", actualName: "the rendering of \(name).jsonl"))
        ]
    }

    /// How a JSON Lines golden that is not this run's bytes differs from it: read back, its
    /// events differ (named by step, shown as text), or they are the same events written
    /// otherwise, or it does not read as a transcript.
    static func compareEvents(_ run: String, with golden: String, name: String) -> ScenarioOutcome.Problem {
        let expected: [TranscriptRecord]
        do throws(TranscriptDecodingError) {
            expected = try JSONLinesDecoder().decode(golden)
        } catch {
            return .init(
                kind: .golden,
                message:
                    "\(name).jsonl:\(error.line):\(error.column): the golden does not read as a transcript: \(error.message); restore it, or re-record it with `journey test --update`"
            )
        }
        let actual: [TranscriptRecord]
        do throws(TranscriptDecodingError) {
            actual = try JSONLinesDecoder().decode(run)
        } catch {
            return .init(kind: .transcript, message: "this run's transcript does not read back: line \(error)")
        }
        let diff = TranscriptDiff(expected: expected, actual: actual)
        guard let index = diff.firstDifference else {
            if let converted = convertedLineEndings(golden, run, name: name + ".jsonl") { return converted }
            let line = TextDiff(expected: golden, actual: run).firstDifferenceLine.map { " (line \($0))" } ?? ""
            return .init(
                kind: .golden,
                message:
                    "\(name).jsonl holds this run's events but is not written as `journey` writes them\(line); re-record it with `journey test --update`"
            )
        }
        let step = diff.firstDifferingStep.map { "at step '\($0)'" } ?? "in the header"
        return .init(
            kind: .transcript, message: "transcript differs from the golden \(step) (\(name).jsonl line \(index + 1))",
            diff: diff.unified(expectedName: "\(name).jsonl", actualName: "this run"))
    }

    /// A golden that is this run's bytes but for CRLF line endings where `journey` writes LF:
    /// what a checkout that converts line endings (git's `core.autocrlf`) makes of it.
    static func convertedLineEndings(_ golden: String, _ run: String, name: String) -> ScenarioOutcome.Problem? {
        guard golden.utf8.contains(UInt8(ascii: "\r")), golden.replacing("\r\n", with: "\n") == run else { return nil }
        return .init(
            kind: .golden,
            message:
                "\(name) is this run's transcript with CRLF line endings, where `journey` writes LF: a checkout converted them (git's core.autocrlf); keep transcripts as written with `**/transcripts/** -text` in .gitattributes and check them out again, or re-record them with `journey test --update`"
        )
    }

    static func missing(_ path: String) -> ScenarioOutcome.Problem {
        .init(kind: .golden, message: "no golden transcript at \(path); run `journey test --update` to record it")
    }

    /// Where two runs' transcripts part: the step, and a diff of their events as text (of their
    /// text renderings when the events read back equal).
    static func difference(
        _ first: (text: String, jsonl: String), _ second: (text: String, jsonl: String),
        names: (String, String)
    ) -> (step: String?, diff: String) {
        let decoder = JSONLinesDecoder()
        if let expected = try? decoder.decode(first.jsonl), let actual = try? decoder.decode(second.jsonl) {
            let diff = TranscriptDiff(expected: expected, actual: actual)
            if !diff.isEmpty {
                return (diff.firstDifferingStep, diff.unified(expectedName: names.0, actualName: names.1))
            }
        }
        let diff = TextDiff(expected: first.text, actual: second.text)
        return (nil, diff.unified(expectedName: names.0, actualName: names.1))
    }
}

/// Collects one scenario's transcript in both renderings.
final class TranscriptStrings: TranscriptSink {
    private(set) var text = ""
    private(set) var jsonl = ""
    private let renderer = TranscriptTextRenderer()
    private let encoder = JSONLinesEncoder()

    func record(_ record: TranscriptRecord) {
        text += renderer.render(record)
        jsonl += encoder.encode(record)
    }
}
