import JourneyCore

/// Runs one scenario with the scripted driver and judges the result against its expectation.
public struct ScenarioRunner {
    public var configuration: JourneyMachine.Configuration
    /// Makes the real-network transport (`URLSessionTransport` by default): for a scenario
    /// without stubs, and for the services a scenario with stubs `needs`.
    public var transport: @Sendable () -> any NetworkTransport
    /// Called when the scenario starts to play: after any wait for the services it needs, so a
    /// caller timing the run does not count the wait.
    public var onStart: (@Sendable () -> Void)?

    public init(
        configuration: JourneyMachine.Configuration = .init(),
        transport: @escaping @Sendable () -> any NetworkTransport = { URLSessionTransport() }
    ) {
        self.configuration = configuration
        self.transport = transport
    }

    /// What a scenario run came to.
    public struct Report: Sendable {
        public var scenario: String
        public var journey: String
        public var result: RunResult
        /// Why the scenario failed; empty when it passed.
        public var problems: [String]
        /// Why the scenario did not run (a service it needs does not answer).
        public var skipped: String? = nil
        /// Ran, and met its expectation (a skipped scenario did not pass).
        public var passed: Bool { problems.isEmpty && skipped == nil }
    }

    /// The first needed service that does not answer, if any. An https service is asked the
    /// way the scenario's device would ask it: trusting the CAs the device trusts.
    public static func missingService(_ scenario: CompiledScenario) async -> String? {
        for base in scenario.needs {
            let transport = URLSessionTransport(timeout: 2)
            var request = HTTPRequest(method: "GET", url: base)
            request.trustedCAs = scenario.device.profile.trustedCAs
            do { _ = try await transport.send(request) } catch { return base }
        }
        return nil
    }

    public func run(
        _ scenario: CompiledScenario, in library: CompiledLibrary, transcript sink: some TranscriptSink
    ) async -> Report {
        guard !scenario.needs.isEmpty else { return await play(scenario, in: library, transcript: sink) }
        switch await ServiceLock.withLocks(for: scenario.needs, { await play(scenario, in: library, transcript: sink) })
        {
        case .success(let report): return report
        case .failure(let busy):
            let message =
                "waited \(Int(busy.seconds)) s for \(busy.server), which other scenarios kept busy; the scenario did not run"
            return Report(
                scenario: scenario.id, journey: scenario.journey.id,
                result: RunResult(end: nil, kind: nil, failure: message, steps: 0), problems: [message])
        }
    }

    /// Real HTTP without stubs; only the stubs with them; both when the scenario also needs
    /// live services (their origins go to the real network).
    func network(for scenario: CompiledScenario) -> any NetworkTransport {
        if scenario.network.isEmpty { return transport() }
        let stubs = StubNetwork(stubs: scenario.network)
        if scenario.needs.isEmpty { return stubs }
        return RoutingNetwork(live: transport(), stubs: stubs, liveServices: scenario.needs)
    }

    func play(
        _ scenario: CompiledScenario, in library: CompiledLibrary, transcript sink: some TranscriptSink
    ) async -> Report {
        onStart?()
        if let missing = await Self.missingService(scenario) {
            return Report(
                scenario: scenario.id, journey: scenario.journey.id,
                result: RunResult(end: nil, kind: nil, failure: nil, steps: 0), problems: [],
                skipped: "needs \(missing), which does not answer")
        }
        var configuration = self.configuration
        configuration.locale = scenario.locale ?? configuration.locale
        let driver = ScriptedDriver(script: scenario.script)
        let locale = configuration.locale ?? scenario.journey.source.defaultLocale
        var device = scenario.device
        let rounds = device.profile.kdfRounds ?? PinVault.defaultRounds
        for (key, pin) in scenario.pins.sorted(by: { $0.key < $1.key }) {
            guard case .string(let digits) = pin.revealed else { continue }
            do {
                device.store[key] = .secret(
                    .string(try PinVault.seal(pin: digits, rounds: rounds, using: &configuration.random)))
            } catch {
                return Report(
                    scenario: scenario.id, journey: scenario.journey.id,
                    result: RunResult(end: nil, kind: nil, failure: "cannot seal PIN '\(key)'", steps: 0),
                    problems: ["cannot seal the scenario's PIN '\(key)'"])
            }
        }
        var settings: TranscriptEvent.Fields = []
        if let rounds = device.profile.kdfRounds {
            settings.append(.init("kdfRounds", .int(rounds)))
        }
        let header = TranscriptEvent.Header(
            journey: scenario.journey.id, scenario: scenario.id, locale: locale, device: device.profile,
            clock: device.clock, store: .sorted(device.store), settings: settings)
        let outcome = await JourneyRunner(configuration: configuration).run(
            scenario.journey, in: library, params: scenario.params, device: device, driver: driver,
            network: network(for: scenario),
            transcript: sink, header: header)
        var store = outcome.device.store
        for journey in ScenarioChecker.reachableJourneys(from: scenario.journey, in: library) {
            for variable in journey.storedDeclarations where store[variable.name] == nil {
                if let value = variable.defaultValue { store[variable.name] = value }
            }
        }
        var problems = scenario.verdict(result: outcome.result, state: outcome.rootState, store: store)
        if outcome.result.failure == nil, let next = driver.remaining.first {
            problems.append(
                "the journey ended, but the script has \(driver.remaining.count) more entries, from line \(next.location.line)"
            )
        }
        return Report(scenario: scenario.id, journey: scenario.journey.id, result: outcome.result, problems: problems)
    }
}
