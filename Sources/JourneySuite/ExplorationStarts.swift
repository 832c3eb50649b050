import JourneyCore

/// Where `journey test --explore` explores each journey from: the default device, when the
/// journey can start with no params given, and where each of its scenarios starts (its device,
/// params, network stubs and typed values), scenarios that start alike explored once.
public struct ExplorationStarts: Sendable {
    public struct Start: Sendable {
        public var journey: CompiledJourney
        public var explorer: JourneyExplorer
        /// The scenario it starts from (the first of those that start alike); nil: the default device.
        public var scenario: CompiledScenario?
        /// The other scenarios that start where `scenario` does.
        public var alike: [String] = []
    }

    public var starts: [Start] = []
    /// Journeys not explored from the default device: the params they need.
    public var unexplored: [(id: String, needs: String)] = []

    /// What makes two starts one: the journey, the device, the params, the stubs (where they
    /// are written aside) and the values handlers may use.
    private struct Fingerprint: Hashable {
        var journey: String
        var device: DeviceState
        var params: [String: Value]
        var stubs: [NetworkStub]
        var hints: ExplorationHints
    }

    /// The starts of `journeys` and of `scenarios` (those that need no live service), scenarios
    /// set up by `player`, each explored on `jobs` threads.
    public init(
        journeys: [CompiledJourney], scenarios: [CompiledScenario], library: CompiledLibrary, player: ScenarioRunner,
        bounds: JourneyExplorer.Bounds, jobs: Int = 1
    ) throws(ScenarioRunner.SetupError) {
        let defaultExplorer = JourneyExplorer(
            library: library, device: JourneyExplorer.defaultDevice, bounds: bounds, jobs: jobs)
        for journey in journeys.sorted(by: { $0.id < $1.id }) {
            let needed = journey.source.params.filter { $0.defaultValue == nil }.map(\.name.value)
            if needed.isEmpty {
                starts.append(Start(journey: journey, explorer: defaultExplorer))
            } else {
                unexplored.append(
                    (
                        journey.id,
                        "param\(needed.count == 1 ? "" : "s") " + needed.map { "'\($0)'" }.joined(separator: ", ")
                    ))
            }
        }
        var seen: [Fingerprint: Int] = [:]
        for scenario in scenarios.sorted(by: { ($0.journey.id, $0.id, $0.file) < ($1.journey.id, $1.id, $1.file) })
        where scenario.needs.isEmpty {
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
        starts.sort { ($0.journey.id, $0.scenario?.id ?? "") < ($1.journey.id, $1.scenario?.id ?? "") }
    }
}
