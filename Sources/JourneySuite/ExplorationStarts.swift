import JourneyCore

/// Where each journey is explored from, by `journey explore` and `journey test --explore` alike:
/// the default device, when the journey can start with no params given, and where its scenarios
/// start (their device, params, network stubs and typed values), scenarios that start alike
/// explored once, scenarios that need a live service never. A journey no start can run is
/// ``unexplored``, with why.
public struct ExplorationStarts: Sendable {
    public struct Start: Sendable {
        public var journey: CompiledJourney
        public var explorer: JourneyExplorer
        /// The scenario it starts from (the first of those that start alike); nil: the default device.
        public var scenario: CompiledScenario?
        /// The other scenarios that start where `scenario` does.
        public var alike: [String] = []
    }

    /// Why a journey has no start.
    public struct Unexplored: Sendable, CustomStringConvertible {
        public var journey: String
        /// The params it needs that have no default.
        public var params: [String]
        /// Whether it has scenarios among those given, each of which needs a live service (else
        /// it has none).
        public var onlyLiveScenarios: Bool
        /// Why the journey is not explored on purpose, when it says so (its exception to
        /// `explore.explorable`): then not exploring it is what it declares, not a gap.
        public var declared: Declared?

        /// `params`, needed and without a default, as a sentence says them: "param 'a', which
        /// has no default".
        public static func said(_ params: [String]) -> String {
            "param\(params.count == 1 ? "" : "s") \(params.map { "'\($0)'" }.joined(separator: ", ")), which \(params.count == 1 ? "has" : "have") no default"
        }

        public var description: String {
            let params = Self.said(self.params)
            return onlyLiveScenarios
                ? "it needs \(params), and each of its scenarios needs a live service, which exploring does not play against (it plays against a scenario's stubs)"
                : "it needs \(params), and none of its scenarios is among those given"
        }
    }

    /// A journey's declared reason not to be explored (its exception to `explore.explorable`),
    /// as `journey explore` and `journey test --explore` say it.
    public struct Declared: Sendable, Hashable, CustomStringConvertible {
        public var reason: String

        public var description: String { "\(ExplorationInvariant.explorable.rawValue) broken on purpose: \(reason)" }
    }

    /// The starts, journey by journey in the order given (the default device first, then the
    /// scenarios by id); the starts of scenarios of other journeys after them, by journey.
    public var starts: [Start] = []
    /// The journeys given that no start can run, in the order given.
    public var unexplored: [Unexplored] = []

    /// The params `journey` cannot start without: those with no default.
    public static func needed(_ journey: CompiledJourney) -> [String] {
        journey.source.params.filter { $0.defaultValue == nil }.map(\.name.value)
    }

    /// What makes two starts one: the journey, the device, the params, the stubs (where they
    /// are written aside) and the values handlers may use.
    private struct Fingerprint: Hashable {
        var journey: String
        var device: DeviceState
        var params: [String: Value]
        var stubs: [NetworkStub]
        var hints: ExplorationHints
    }

    /// The starts of `journeys` and of `scenarios` (those that need no live service), and of
    /// `named` (those a person names, `journey explore --from`: even one that needs a live
    /// service, played against its stubs alone), scenarios set up by `player`, each explored on
    /// `jobs` threads. A scenario given twice, or one that starts where another does, is one start;
    /// a counterexample an exploration wrote (tagged ``Counterexample/tag``) is none unless named.
    public init(
        journeys: [CompiledJourney], scenarios: [CompiledScenario], named: [CompiledScenario] = [],
        library: CompiledLibrary, player: ScenarioRunner, bounds: JourneyExplorer.Bounds, jobs: Int = 1
    ) throws(ScenarioRunner.SetupError) {
        let defaultExplorer = JourneyExplorer(
            library: library, device: JourneyExplorer.defaultDevice, bounds: bounds, jobs: jobs)
        var needing: [String: [String]] = [:]
        // A scenario that starts where the default device does (no params, no stubs, nothing
        // typed) is that start.
        var seen: [Fingerprint: Int] = [:]
        for journey in journeys {
            let needed = Self.needed(journey)
            if needed.isEmpty {
                seen[
                    Fingerprint(
                        journey: journey.id, device: defaultExplorer.device, params: defaultExplorer.params, stubs: [],
                        hints: defaultExplorer.hints)] = starts.count
                starts.append(Start(journey: journey, explorer: defaultExplorer))
            } else {
                needing[journey.id] = needed
            }
        }
        // A counterexample an exploration wrote starts where that exploration did: no start of
        // its own, unless a person names it.
        var given = scenarios.filter { $0.needs.isEmpty && !$0.tags.contains(Counterexample.tag) }
        for scenario in named where !given.contains(where: { $0.file == scenario.file }) { given.append(scenario) }
        for scenario in given.sorted(by: { ($0.journey.id, $0.id, $0.file) < ($1.journey.id, $1.id, $1.file) }) {
            let explorer = try player.explorer(from: scenario, in: library, bounds: bounds, jobs: jobs)
            let stubs = scenario.network.map { stub in
                var stub = stub
                stub.location = SourceLocation(file: "", line: 0, column: 0)
                return stub
            }
            let fingerprint = Fingerprint(
                journey: scenario.journey.id, device: explorer.device, params: explorer.params, stubs: stubs,
                hints: explorer.hints)
            if let index = seen[fingerprint] {
                starts[index].alike.append(scenario.id)
                continue
            }
            seen[fingerprint] = starts.count
            starts.append(Start(journey: scenario.journey, explorer: explorer, scenario: scenario))
        }
        let rank = Dictionary(journeys.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        starts.sort {
            (rank[$0.journey.id] ?? journeys.count, $0.journey.id, $0.scenario?.id ?? "")
                < (rank[$1.journey.id] ?? journeys.count, $1.journey.id, $1.scenario?.id ?? "")
        }
        let started = Set(starts.map(\.journey.id))
        for journey in journeys where !started.contains(journey.id) {
            guard let needed = needing[journey.id] else { continue }
            unexplored.append(
                Unexplored(
                    journey: journey.id, params: needed,
                    onlyLiveScenarios: scenarios.contains { $0.journey.id == journey.id },
                    declared: journey.source.exception(to: ExplorationInvariant.explorable.rawValue).map {
                        Declared(reason: $0.reason)
                    }))
        }
    }
}
