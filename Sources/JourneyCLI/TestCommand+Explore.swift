import Foundation
import JourneyCore
import JourneySuite

/// `journey test --explore`: every journey explored from each of its starts, as one more
/// outcome of the suite per journey (`journey › explore`).
extension TestCommand {
    /// A start that explores this many states or more is said under its journey's result.
    static let manyStates = 20_000

    /// Explores each start, and makes one outcome per journey: `journey › explore`, passed when
    /// no start breaks an invariant the journey does not except, else failed with each broken
    /// one and its shortest path. SIGINT or SIGTERM stops the exploration under way, whose
    /// journey's outcome is skipped, saying how far it got (failed, when it found a broken
    /// invariant before); the journeys after it are not explored, and the signal is answered.
    /// `lister` is the `journey explore` command, without `--journey`, that explores what the
    /// suite explored: a note names it for what an exploration left out.
    static func explore(
        _ starts: ExplorationStarts, files: [String: String], console: Console, progress: Bool, strict: Bool = false,
        lister: String = "journey explore", memory: MemoryBound = .standard
    ) async -> (outcomes: [ScenarioOutcome], interruption: String?) {
        Interruption.catchSignals()
        defer { Interruption.release() }
        var outcomes: [ScenarioOutcome] = []
        var index = 0
        let journeys = Dictionary(grouping: starts.starts, by: \.journey.id)
        for id in journeys.keys.sorted() where !Interruption.isRequested {
            let group = journeys[id]!
            let journey = group[0].journey
            let began = ContinuousClock.now
            var tally = ExploreTally(journey: journey)
            for start in group where !Interruption.isRequested {
                index += 1
                if progress { console.err("\r\u{1B}[2K[\(index)/\(starts.starts.count)] exploring \(id)…") }
                var explorer = start.explorer
                explorer.stop = { Interruption.isRequested }
                explorer.memory = memory.check
                var result = await explorer.explore(journey)
                memory.release()
                result.start = start.scenario?.id
                tally.add(result, from: start)
            }
            if progress { console.err("\r\u{1B}[2K") }
            outcomes.append(
                tally.outcome(
                    of: group, file: files[id] ?? "", elapsed: began.duration(to: .now), strict: strict,
                    lister: "\(lister) --journey \(Path.shellWord(id))"))
        }
        if let interruption = Interruption.signalName { return (outcomes, interruption) }
        // A journey that needs params and whose every scenario needs a live service has no
        // start to explore from: it is skipped, and says why (and the reason it declares for it).
        // With --strict one that declares none fails: every journey explores or says why not.
        for unexplored in starts.unexplored {
            var message = "not explored: \(unexplored)"
            if let declared = unexplored.declared {
                message += "; \(declared)"
            } else if strict {
                message +=
                    " (--strict: give it a scenario that plays against stubs, or declare \(ExplorationInvariant.explorable.rawValue) under exceptions: with the reason)"
            }
            outcomes.append(
                ScenarioOutcome(
                    journey: unexplored.journey, scenario: ScenarioOutcome.exploration,
                    file: files[unexplored.journey] ?? "",
                    tags: [ScenarioOutcome.exploration],
                    status: strict && unexplored.declared == nil ? .failed : .skipped,
                    milliseconds: 0, steps: 0, problems: [ScenarioOutcome.Problem(kind: .unexplored, message: message)])
            )
        }
        return (outcomes.sorted { $0.journey < $1.journey }, nil)
    }

    /// What the starts of one journey explored so far found, as its `explore` outcome says it:
    /// the invariants broken (those the journey does not except), the states and transitions,
    /// the start that explored the most, the one the bounds cut shortest, and the programs
    /// declared deterministic that answered a step two ways.
    struct ExploreTally {
        let journey: CompiledJourney
        private let excepted: [RuleException]
        private(set) var problems: [ScenarioOutcome.Problem] = []
        private(set) var states = 0
        private(set) var transitions = 0
        /// The start that explored the most states, when it explored many.
        private var heaviest: (start: ExplorationStarts.Start, states: Int)?
        /// The start the bounds cut shortest (the most states left unexpanded), and how many
        /// starts they cut.
        private var cut: (start: ExplorationStarts.Start, result: JourneyExplorer.Result, starts: Int)?
        /// What each start found: what they left out (a program that did not keep its
        /// determinism among it) is said of them all.
        private var results: [JourneyExplorer.Result] = []

        init(journey: CompiledJourney) {
            self.journey = journey
            excepted = journey.source.explorationExceptions
        }

        /// Counts in what the journey explored from `start` found.
        mutating func add(_ result: JourneyExplorer.Result, from start: ExplorationStarts.Start) {
            states += result.states
            transitions += result.transitions
            if result.states >= TestCommand.manyStates, result.states > heaviest?.states ?? 0 {
                heaviest = (start, result.states)
            }
            results.append(result)
            if result.cutShort {
                let starts = (cut?.starts ?? 0) + 1
                // The start a signal stopped is said; else the one the bounds cut shortest.
                if let shortest = cut, !result.interrupted,
                    shortest.result.truncated || shortest.result.frontier >= result.frontier
                {
                    cut = (shortest.start, shortest.result, starts)
                } else {
                    cut = (start, result, starts)
                }
            }
            for violation in ExploreCommand.reported(result, excepted) {
                let moves = violation.path.map(\.description).joined(separator: " → ")
                let from = start.scenario.map { " from where scenario \($0.id) starts" } ?? ""
                let command =
                    "journey explore \(start.scenario.map { "--from \(Path.shellWord($0.file))" } ?? Path.shellWord(journey.source.file))"
                problems.append(
                    ScenarioOutcome.Problem(
                        kind: .invariant,
                        message:
                            "\(violation.id)\(from): \(violation.message); \(counted(violation.path.count, "move")): \(moves.isEmpty ? "at the start" : moves) (\(command) --emit DIR writes it as a scenario)"
                    ))
            }
        }

        /// The journey's `explore` outcome, its starts (`group`) explored in `elapsed`: failed
        /// with the invariants broken; else passed, or skipped when a signal stopped it, with
        /// notes on what it leaves unjudged (with `strict`, a cut short by the bounds fails).
        func outcome(
            of group: [ExplorationStarts.Start], file: String, elapsed: Swift.Duration, strict: Bool,
            lister: String = "journey explore"
        ) -> ScenarioOutcome {
            var problems = problems
            let milliseconds =
                Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
            let fromDevice = group.contains { $0.scenario == nil }
            let scenarios = group.count - (fromDevice ? 1 : 0) + group.reduce(0) { $0 + $1.alike.count }
            // A start that explores this much is worth knowing about before it slows every run;
            // a program that does not keep its declared determinism, before it is relied on.
            let heavy = heaviest.map { heaviest in
                let (from, command) = TestCommand.said(heaviest.start, of: journey)
                return
                    "from \(from): \(counted(heaviest.states, "state")) of the \(states) explored (`\(command)` shows what it plays)"
            }
            // A pass within the bounds, said: clean is not read as explored to the end. With
            // --strict it is no pass (a signal's stop aside: the run ends with the signal's status).
            var short = cut.map { TestCommand.cutShort($0.result, from: $0.start, of: journey, starts: $0.starts) }
            if strict, let said = short, cut?.result.interrupted == false {
                problems.append(ScenarioOutcome.Problem(kind: .unexplored, message: "\(said) (--strict)"))
                short = nil
            }
            // An exploration a signal stopped before it found a broken invariant has not passed:
            // skipped, saying how far it got (as a scenario the signal stops is not counted a pass).
            var skipped: [ScenarioOutcome.Problem] = []
            if problems.isEmpty, cut?.result.interrupted == true, let said = short {
                skipped = [ScenarioOutcome.Problem(kind: .interrupted, message: said)]
                short = nil
            }
            // Programs declared deterministic that answered a step two ways, each once.
            let unsteady = Set(results.flatMap(\.unsteady).map(\.description)).sorted()
            let left = TestCommand.leftOut(JourneyExplorer.leftOut(ofStarts: results), of: journey.id, lister: lister)
            let notes =
                (heavy.map { [$0] } ?? []) + (short.map { [$0] } ?? []) + unsteady + (left.map { [$0] } ?? [])
            let explored = ScenarioOutcome.Problem(
                kind: .invariant,
                message:
                    "explored \(counted(group.count, "start")) (\(fromDevice ? "the default device, " : "")\(counted(scenarios, "scenario"))): \(counted(states, "state")), \(counted(transitions, "transition"))"
            )
            return ScenarioOutcome(
                journey: journey.id, scenario: ScenarioOutcome.exploration, file: file,
                tags: [ScenarioOutcome.exploration],
                status: !problems.isEmpty ? .failed : skipped.isEmpty ? .passed : .skipped,
                milliseconds: milliseconds, steps: transitions,
                problems: problems.isEmpty ? skipped : problems + [explored],
                note: notes.isEmpty ? nil : notes.joined(separator: "; "))
        }
    }

    /// What a journey's `explore` result notes of what its starts left out (``JourneyExplorer/LeftOut``):
    /// how many, each kind with the steps it is said of (a step of the journey by its name,
    /// another journey's as `journey.step`), and the command (`lister`) whose output says why
    /// of each; nil when nothing was left out. A program that did not keep its determinism is
    /// noted on its own, as it was.
    static func leftOut(_ items: [JourneyExplorer.LeftOut], of journey: String, lister: String) -> String? {
        let items = items.filter { if case .unsteady = $0 { false } else { true } }
        guard !items.isEmpty else { return nil }
        var kinds: [String] = []
        var places: [String: [String]] = [:]
        for item in items {
            let place =
                item.step.map { item.journey == journey ? $0 : "\(item.journey).\($0)" }
                ?? (item.journey == journey ? nil : item.journey)
            if places[item.kind] == nil { kinds.append(item.kind) }
            places[item.kind, default: []] += place.map { [$0] } ?? []
        }
        let said = kinds.sorted().map { kind in
            let at = places[kind]!.sorted()
            return at.isEmpty ? kind : "\(kind) at \(at.joined(separator: ", "))"
        }
        return "left out (\(items.count)): \(said.joined(separator: "; ")) (`\(lister)` says why)"
    }

    /// A start of `journey` as a note says it (the default device, or where a scenario starts),
    /// and the `journey explore` command that plays it.
    static func said(_ start: ExplorationStarts.Start, of journey: CompiledJourney) -> (from: String, command: String) {
        guard let scenario = start.scenario else {
            return ("the default device", "journey explore \(Path.shellWord(journey.source.file))")
        }
        return ("where scenario \(scenario.id) starts", "journey explore --from \(Path.shellWord(scenario.file))")
    }

    /// What a journey's `explore` result notes when the bounds cut `starts` of its starts short:
    /// the one cut shortest (`result`, from `start`), which bound, and the command that goes
    /// further; or that a signal stopped it.
    static func cutShort(
        _ result: JourneyExplorer.Result, from start: ExplorationStarts.Start, of journey: CompiledJourney, starts: Int
    ) -> String {
        let (from, command) = said(start, of: journey)
        let bounds = result.bounds
        if result.interrupted {
            return "interrupted: from \(from), \(counted(result.frontier, "state")) found but not expanded"
        }
        let what =
            if let memory = result.memoryFull {
                "stopped at the memory bound (\(MemorySize.format(memory))) after \(counted(result.states, "state")); `\(command) --states \(result.states)` stops at the state bound there instead, and a larger --memory (the project file's defaults.explore.memory) explores further where the machine has the memory"
            } else if result.truncated {
                "stopped at the state bound (\(bounds.states)); `\(command) --states \(bounds.states * 4)` goes further"
            } else {
                "\(counted(result.frontier, "state")) at the depth bound (\(bounds.depth)) not expanded; `\(command) --depth \(bounds.depth * 2)` goes further"
            }
        return "cut short by the bounds\(starts > 1 ? " from \(starts) starts" : ""): from \(from), \(what)"
    }
}
