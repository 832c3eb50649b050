import JourneyCore

/// Plays scenarios: set up once (for a suite, a `journey run`, the docs) and used for every
/// scenario, so each command prepares a run the same way.
///
/// ``prepare(_:)`` is the set-up every way of playing a scenario shares — the device with its
/// preset PINs sealed, the transcript header, the locale, the driver and the network — and
/// ``run(_:in:transcript:onStart:)`` plays it with the scripted driver and judges the result.
public struct ScenarioRunner: Sendable {
    /// The machine's settings (step budget, nesting depth). Its `locale`, when set, is an
    /// override (`journey run --locale`): it wins over the scenario's own.
    public var configuration: JourneyMachine.Configuration
    /// What the handlers provide: PIN sealing, the real network, service probes.
    public var services: RunServices
    /// What a scenario falls back to when it does not say (a project's defaults).
    public var defaults: Defaults

    public init(
        services: RunServices, configuration: JourneyMachine.Configuration = .init(), defaults: Defaults = .init()
    ) {
        self.services = services
        self.configuration = configuration
        self.defaults = defaults
    }

    /// What a scenario falls back to when it does not say: a project file's `defaults`.
    public struct Defaults: Sendable, Hashable {
        /// The locale when neither the override nor the scenario names one.
        public var locale: String?
        /// The rounds of key derivation when the scenario's device sets none.
        public var kdfRounds: Int?

        public init(locale: String? = nil, kdfRounds: Int? = nil) {
            self.locale = locale
            self.kdfRounds = kdfRounds
        }
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
        /// Said with the result: for a counterexample whose path the journey no longer takes,
        /// where it left it.
        public var note: String? = nil
        /// Ran, and met its expectation (a skipped scenario did not pass).
        public var passed: Bool { problems.isEmpty && skipped == nil }

        /// A run that failed before its journey started.
        static func notRun(_ scenario: CompiledScenario, _ message: String) -> Report {
            Report(
                scenario: scenario.id, journey: scenario.journey.id,
                result: RunResult(end: nil, kind: nil, failure: message, steps: 0), problems: [message])
        }
    }

    /// A scenario that cannot be set up: a preset PIN the handlers cannot seal.
    public struct SetupError: Error, Sendable, Equatable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    /// The locale a scenario's texts are rendered in: the override, else the scenario's, else
    /// the project's default; its journey's default when there is none of these, or when the
    /// journey has no texts in it (as `journey check` warns), so that the transcript's header
    /// names the locale its texts are in.
    public func locale(for scenario: CompiledScenario) -> String {
        scenario.journey.source.locale(for: configuration.locale ?? scenario.locale ?? defaults.locale)
    }

    /// Sets a scenario up to play: everything a run needs except the driver's choices.
    public func prepare(_ scenario: CompiledScenario) throws(SetupError) -> PreparedRun {
        var configuration = self.configuration
        configuration.locale = locale(for: scenario)
        var device = scenario.device
        if device.profile.kdfRounds == nil { device.profile.kdfRounds = defaults.kdfRounds }
        for (key, pin) in scenario.pins.sorted(by: { $0.key < $1.key }) {
            guard case .string(let digits) = pin.revealed else { continue }
            do {
                device.store[key] = .secret(
                    .string(try services.sealPIN(digits, device.profile.kdfRounds, &configuration.random)))
            } catch {
                throw SetupError(message: "cannot seal the scenario's PIN '\(key)'")
            }
        }
        var settings: TranscriptEvent.Fields = []
        if let rounds = device.profile.kdfRounds {
            settings.append(.init("kdfRounds", .int(rounds)))
        }
        let header = TranscriptEvent.Header(
            journey: scenario.journey.id, scenario: scenario.id, locale: configuration.locale ?? "",
            device: device.profile, clock: device.clock, store: .sorted(device.store), settings: settings)
        return PreparedRun(
            scenario: scenario, configuration: configuration, device: device, header: header, services: services)
    }

    /// Plays the scenario with its script, holding the locks of the services it needs, and
    /// judges the run against its expectation.
    ///
    /// - Parameter onStart: called when the scenario starts to play, after any wait for the
    ///   services it needs, so a caller timing the run does not count the wait.
    public func run(
        _ scenario: CompiledScenario, in library: CompiledLibrary, transcript sink: some TranscriptSink,
        onStart: @Sendable () -> Void = {}
    ) async -> Report {
        guard !scenario.needs.isEmpty else {
            return await play(scenario, in: library, transcript: sink, onStart: onStart)
        }
        switch await ServiceLock.withLocks(
            for: scenario.needs, { await play(scenario, in: library, transcript: sink, onStart: onStart) })
        {
        case .success(let report): return report
        case .failure(let busy):
            return .notRun(
                scenario,
                "waited \(Int(busy.seconds)) s for \(busy.server), which other scenarios kept busy; the scenario did not run"
            )
        }
    }

    /// The first needed service that does not answer, if any.
    public func missingService(_ scenario: CompiledScenario) async -> String? {
        for base in scenario.needs where await !services.probe(base, scenario.device.profile.trustedCAs) {
            return base
        }
        return nil
    }

    func play(
        _ scenario: CompiledScenario, in library: CompiledLibrary, transcript sink: some TranscriptSink,
        onStart: @Sendable () -> Void
    ) async -> Report {
        onStart()
        if let missing = await missingService(scenario) {
            return Report(
                scenario: scenario.id, journey: scenario.journey.id,
                result: RunResult(end: nil, kind: nil, failure: nil, steps: 0), problems: [],
                skipped: "needs \(missing), which does not answer")
        }
        let prepared: PreparedRun
        do { prepared = try prepare(scenario) } catch { return .notRun(scenario, error.message) }
        var problems: [String] = []
        var result = RunResult(end: nil, kind: nil, failure: nil, steps: 0)
        var steps = 0
        var previous: JourneyRunner.Outcome?
        let numbered = scenario.sessions.count > 1
        let network = prepared.makeNetwork()
        // A counterexample's script is a path: where the journey no longer goes that way, what
        // the path was written to catch cannot happen along it, and the replay passes, saying so.
        let followsAPath = scenario.tags.contains(Counterexample.tag)
        var pathGone: String?
        for (index, session) in scenario.sessions.enumerated() {
            let driver = ScriptedDriver(
                script: session.script, stopsWhenDone: session.expectation.at != nil, followsAPath: followsAPath)
            let outcome: JourneyRunner.Outcome
            if let previous {
                outcome = await prepared.relaunch(
                    after: previous, session: index + 1, in: library, driver: driver, transcript: sink,
                    network: network)
            } else {
                outcome = await prepared.run(in: library, driver: driver, transcript: sink, network: network)
            }
            steps += outcome.result.steps
            result = outcome.result
            if followsAPath,
                let gone = driver.pathGone
                    ?? Self.departure(of: outcome.result, from: session.expectation, leaving: driver.remaining)
            {
                pathGone = numbered ? "session \(index + 1): \(gone)" : gone
                break
            }
            var store = outcome.device.store
            for (key, value) in scenario.storedDefaults where store[key] == nil { store[key] = value }
            let state =
                session.expectation.waitingIn == nil ? outcome.rootState : outcome.waitingState ?? outcome.rootState
            var found = session.expectation.verdict(result: outcome.result, state: state, store: store)
            if outcome.result.failure == nil, let next = driver.remaining.first {
                found.append(
                    "the journey ended, but the script has \(driver.remaining.count) more entries, from line \(next.location.line)"
                )
            }
            problems += numbered ? found.map { "session \(index + 1): \($0)" } : found
            // A later session starts from where this one ended; after a failure there is no end.
            if outcome.result.failure != nil { break }
            previous = outcome
        }
        // Where the script leaves the run, whether an end can still be reached: explored from there.
        if problems.isEmpty, pathGone == nil, let canEnd = scenario.sessions.last?.expectation.canEnd {
            problems += await endReachability(of: scenario, in: library, expected: canEnd)
        }
        result.steps = steps
        return Report(
            scenario: scenario.id, journey: scenario.journey.id, result: result, problems: problems,
            note: pathGone.map(Self.pathGoneNote))
    }

    /// What a counterexample's replay says when the journey no longer takes its path (`gone`:
    /// where and why it left it).
    static func pathGoneNote(_ gone: String) -> String {
        "the journey no longer takes its path (\(gone)): what it caught cannot happen along it (journey explore checks every path)"
    }

    /// Where a session that ran without failing left the path its script and expectation
    /// describe: it ended before the script ran out, or stopped elsewhere than the step (or
    /// the end) the path leads to. Nil when it kept to the path.
    static func departure(
        of result: RunResult, from expectation: CompiledScenario.Expectation,
        leaving remaining: ArraySlice<CompiledScenario.Entry>
    ) -> String? {
        guard result.failure == nil else { return nil }
        let reached = result.waiting.map { "waits at step '\($0)'" } ?? "reached end '\(result.end ?? "none")'"
        if let next = remaining.first {
            return "the journey \(reached) before line \(next.location.line)"
        }
        if let at = expectation.at {
            let elsewhere = expectation.waitingIn != nil && result.waitingIn != expectation.waitingIn
            guard result.waiting != at || elsewhere else { return nil }
            return "the journey \(reached) where the script ends, not step '\(at)'"
                + (expectation.waitingIn.map { " of \($0)" } ?? "")
        }
        guard let end = expectation.end, result.end != end else { return nil }
        return "the journey \(reached) where the script ends, not end '\(end)'"
    }
}

/// A scenario set up to play: its device (preset PINs sealed), the transcript header, the
/// machine's settings with the locale decided, and its network. Any driver can play it: the
/// scenario's script, a person at a terminal, an explorer trying every input.
public struct PreparedRun: Sendable {
    public let scenario: CompiledScenario
    /// The machine's settings, with ``JourneyMachine/Configuration/locale`` decided.
    public let configuration: JourneyMachine.Configuration
    public let device: DeviceState
    public let header: TranscriptEvent.Header
    let services: RunServices

    /// The run's network: the real one without stubs; only the stubs with them; both when the
    /// scenario also needs live services (their origins go to the real network).
    ///
    /// - Parameter answered: what the stubs that answer in turn have answered already (a
    ///   ``CountingNetwork``'s `answered`), for a run taken up where another left off.
    public func makeNetwork(answered: [Int] = []) -> any NetworkTransport {
        if scenario.network.isEmpty { return services.transport() }
        let stubs = StubNetwork(stubs: scenario.network, answered: answered)
        if scenario.needs.isEmpty { return stubs }
        return RoutingNetwork(live: services.transport(), stubs: stubs, liveServices: scenario.needs)
    }

    /// Plays the scenario's journey with `driver`, writing the header and every record to `sink`.
    ///
    /// - Parameter network: the run's network; by default ``makeNetwork()``. A scenario's
    ///   sessions share one, as an app's launches share the servers they talk to.
    public func run(
        in library: CompiledLibrary, driver: some InputDriver, transcript sink: some TranscriptSink,
        network: (any NetworkTransport)? = nil
    ) async -> JourneyRunner.Outcome {
        await JourneyRunner(configuration: configuration).run(
            scenario.journey, in: library, params: scenario.params, device: device, driver: driver,
            network: network ?? makeNetwork(), transcript: sink, header: header)
    }

    /// Plays the journey again on the device a previous run left, as a relaunched app does:
    /// the store, the clock (moved on by the session's `after`), the device's settings and the
    /// random stream are kept; the journey's state starts afresh. The transcript says so first.
    public func relaunch(
        after previous: JourneyRunner.Outcome, session number: Int, in library: CompiledLibrary,
        driver: some InputDriver, transcript sink: some TranscriptSink, network: (any NetworkTransport)? = nil
    ) async -> JourneyRunner.Outcome {
        var device = previous.device
        var configuration = configuration
        configuration.random = previous.random
        sink.record(TranscriptRecord(time: device.elapsed, depth: 0, event: .session(number: number)))
        let gap = scenario.sessions[number - 1].after
        if gap > 0 {
            device.clock += gap
            sink.record(
                TranscriptRecord(
                    time: device.elapsed, depth: 0,
                    event: .clockAdvance(milliseconds: gap, reason: "before session \(number)")))
        }
        return await JourneyRunner(configuration: configuration).run(
            scenario.journey, in: library, params: scenario.params, device: device, driver: driver,
            network: network ?? makeNetwork(), transcript: sink, header: nil)
    }
}
