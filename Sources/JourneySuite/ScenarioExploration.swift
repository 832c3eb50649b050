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

    /// What is wrong with where `scenario`'s script leaves the run, by its `canEnd:`: whether an
    /// end can still be reached from there without killing the app, found by exploring from
    /// there with the default bounds as `journey explore` does (`explore.reaches-an-end`);
    /// empty when it is as `expected`.
    func endReachability(of scenario: CompiledScenario, in library: CompiledLibrary, expected: Bool) async -> [String] {
        let explorer: JourneyExplorer
        do throws(SetupError) {
            explorer = try self.explorer(from: scenario, in: library, bounds: JourneyExplorer.Bounds())
        } catch {
            return [error.message]
        }
        let result = await explorer.explore(scenario.journey, after: Self.moves(of: scenario))
        // The state the script leaves the run in is the exploration's first: trapped, it is the
        // first state a trap is reported at, with no move before it.
        let trapped = result.violations.first { $0.invariant == .reachesAnEnd && $0.path.isEmpty }
        let waits = scenario.sessions.last?.expectation.at.map { "step '\($0)'" } ?? "where the script stops"
        switch (expected, trapped) {
        case (true, let trapped?):
            // "from here no end can be reached …", said of the place the script leaves the run.
            let here = "from here no end can be reached"
            let said =
                trapped.message.hasPrefix(here)
                ? "no end can be reached from \(waits), where the script leaves the run,"
                    + trapped.message.dropFirst(here.count)
                : "from \(waits), where the script leaves the run: \(trapped.message)"
            return ["\(said) (explore.reaches-an-end)"]
        case (false, nil):
            if result.truncated || result.interrupted {
                return [
                    "whether an end can be reached from \(waits) could not be told within the bounds of journey explore"
                ]
            }
            return ["an end can still be reached from \(waits), though the scenario expects none (canEnd: false)"]
        default:
            return []
        }
    }

    /// The moves of `scenario`'s script, as the explorer plays them: each input as written
    /// (not those the app is to refuse, which change nothing), restarts, waits and the network;
    /// each later session the app opened again after the end the one before it reached.
    static func moves(of scenario: CompiledScenario) -> [JourneyExplorer.Move] {
        var moves: [JourneyExplorer.Move] = []
        for (index, session) in scenario.sessions.enumerated() {
            if index > 0 {
                moves.append(.relaunch(after: scenario.sessions[index - 1].expectation.end ?? ""))
                if session.after > 0 { moves.append(.clock(milliseconds: session.after)) }
            }
            for entry in session.script where entry.refused == nil {
                switch entry.kind {
                case .input(let step, let values): moves.append(.input(step: step, label: "script", values: values))
                case .restart: moves.append(.restart)
                case .advance(let milliseconds): moves.append(.clock(milliseconds: milliseconds))
                case .online(let online): moves.append(.network(online: online))
                }
            }
        }
        return moves
    }
}
