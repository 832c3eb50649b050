import JourneyCore

extension ScenarioRunner {
    /// An explorer that starts where `scenario` starts: its device with its PINs sealed (with a
    /// seeded stream, so every run seals them alike), its params, the texts it types, and its
    /// network stubs, answering in turn along each path. A scenario that needs a live service is
    /// not explored; with `live` (a person playing it, one path), it plays against that service
    /// as `journey test` does, on the real network where it has no stubs.
    public func explorer(
        from scenario: CompiledScenario, in library: CompiledLibrary, bounds: JourneyExplorer.Bounds, jobs: Int = 1,
        live: Bool = false
    ) throws(SetupError) -> JourneyExplorer {
        guard scenario.needs.isEmpty || live else {
            throw SetupError(
                message:
                    "\(scenario.file) needs \(scenario.needs.joined(separator: ", ")): journey explore plays against a scenario's stubs, never a live service"
            )
        }
        var seeded = self
        seeded.configuration.random = .seeded(0)
        let prepared = try seeded.prepare(scenario)
        var network: (@Sendable ([Int]) -> any NetworkTransport)?
        if live && !scenario.needs.isEmpty {
            // One request at a time reaches a needed server, and none while a scenario of
            // journey test plays against it: a person's play lasts too long to hold its lock.
            let needs = scenario.needs
            network = { ServiceLockedNetwork(prepared.makeNetwork(answered: $0), services: needs) }
        } else if live || !scenario.network.isEmpty {
            network = { prepared.makeNetwork(answered: $0) }
        }
        // The PINs the scenario sets and types: the right PIN for the seal it made is one of them.
        var pins = scenario.pins.values.compactMap { pin -> String? in
            if case .string(let digits) = pin.revealed { return digits }
            return nil
        }
        // And every text it types, by input name: a field's accepted value, a vault's password.
        var typed: [String: [String]] = [:]
        for session in scenario.sessions {
            for entry in session.script {
                guard case .input(_, let values) = entry.kind else { continue }
                // An action pressed is no text typed: the explorer presses every enabled one.
                for (name, value) in values.sorted(by: { $0.key < $1.key }) where name != "action" {
                    guard case .string(let text) = value.revealed else { continue }
                    if name == "pin" { pins.append(text) }
                    if !(typed[name] ?? []).contains(text) { typed[name, default: []].append(text) }
                }
            }
        }
        var seen = Set<String>()
        var explorer = JourneyExplorer(
            library: library, device: prepared.device, bounds: bounds, params: scenario.params, network: network,
            hints: ExplorationHints(
                pins: pins.sorted().filter { seen.insert($0).inserted }, typed: typed.mapValues { $0.sorted() },
                waits: ExplorationHints.waits(in: scenario.network)),
            jobs: jobs)
        // Tokens a live service issues are checked against the real time, as journey test does.
        if live && !scenario.needs.isEmpty { explorer.wallClock = .system }
        return explorer
    }
}
