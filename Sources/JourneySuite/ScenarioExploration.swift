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
        // Tokens a live service issues are checked against the real time, and what is sent to
        // it (a state, a nonce, a PKCE verifier) drawn from the system's secure generator, as
        // journey test does.
        if live && !scenario.needs.isEmpty {
            explorer.wallClock = .system
            explorer.random = .system
        }
        return explorer
    }

    /// What is wrong with where `scenario`'s script leaves the run, by its `canEnd:`: whether an
    /// end can still be reached from there without killing the app, found by exploring from
    /// there with the default bounds as `journey explore` does (`explore.reaches-an-end`);
    /// empty when it is as `expected`. Where the exploration cannot tell (its bounds cut it
    /// short before an end was found, or requests went unanswered), it says so, and fails.
    func endReachability(of scenario: CompiledScenario, in library: CompiledLibrary, expected: Bool) async -> [String] {
        let expectation = scenario.sessions.last?.expectation
        let waits =
            expectation?.at.map { "step '\($0)'" + (expectation?.waitingIn.map { " of \($0)" } ?? "") }
            ?? "where the script stops"
        guard scenario.needs.isEmpty else {
            return [
                "canEnd explores from \(waits) against the scenario's stubs, never a live service, and the scenario needs \(scenario.needs.joined(separator: ", ")): stub what the journey asks instead"
            ]
        }
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
        let complete = !result.cutShort
        let canEnd: Bool? =
            if trapped != nil {
                false
            } else if result.endPaths.values.contains(where: { !$0.contains(where: \.launchesAgain) }) {
                true
            } else if complete {
                // Every way on explored: no end at all (every way fails), or one past a restart
                // only where the trap search found a way without one.
                !result.endPaths.isEmpty
            } else {
                nil
            }
        // Requests no stub answers, or sent with no network: the ways on past them are not known.
        let unanswered = result.leftOut.contains { note in
            switch note {
            case .sentWithoutNetwork, .unstubbed: true
            default: false
            }
        }
        switch (expected, canEnd) {
        case (true, true), (false, false): return []
        case (_, nil),
            (false, true) where unanswered, (true, false) where unanswered:
            let why =
                unanswered
                ? "the journey sends requests the scenario's stubs do not answer (canEnd explores against its stubs alone)"
                : "the bounds of journey explore (depth \(result.bounds.depth), \(result.bounds.states) states) cut the exploration short before an end was found"
            return ["whether an end can be reached from \(waits) could not be told: \(why)"]
        case (true, _):
            // "from here no end can be reached …", said of the place the script leaves the run.
            let here = "from here no end can be reached"
            guard let message = trapped?.message else {
                return [
                    "no end can be reached from \(waits), where the script leaves the run: every way on from there fails (explore.reaches-an-end)"
                ]
            }
            let said =
                message.hasPrefix(here)
                ? "no end can be reached from \(waits), where the script leaves the run,"
                    + message.dropFirst(here.count)
                : "from \(waits), where the script leaves the run: \(message)"
            return ["\(said) (explore.reaches-an-end)"]
        case (false, _):
            return ["an end can still be reached from \(waits), though the scenario expects none (canEnd: false)"]
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
