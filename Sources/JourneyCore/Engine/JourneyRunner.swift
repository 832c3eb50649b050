/// Runs a journey: drives a ``JourneyMachine`` with real handlers and an input driver, and
/// writes every transcript record to a sink as it happens (the sink is lent to the machine for
/// each event, ``JourneyMachine/handle(_:recordingInto:)``).
///
/// A run that breaks an invariant the journey states (`invariants:`), or reaches a success end
/// without passing a step that verifies a credential, fails with a message naming the rule.
///
/// A handler that throws fails the journey with the error recorded; it never takes the
/// process down. The error's message is recorded only for ``HandlerError`` (whose messages
/// handlers write without secrets); for any other error only its type is recorded, because
/// descriptions of decoding and network errors can embed values.
public struct JourneyRunner {
    public var configuration: JourneyMachine.Configuration

    public init(configuration: JourneyMachine.Configuration = .init()) {
        self.configuration = configuration
    }

    /// The end of a run: its result, and the final state and device for assertions.
    public struct Outcome: Sendable {
        public var result: RunResult
        public var rootState: [String: Value]
        /// The state of the journey the run waits in, when its driver stopped it at a step
        /// (``RunResult/waiting``): the root's, or a sub-journey's; nil after an end.
        public var waitingState: [String: Value]? = nil
        public var device: DeviceState
        /// The random stream as the run left it: a later run on the same device (a scenario's
        /// next session) continues it rather than drawing the same bytes again.
        public var random: RandomSource
    }

    public func run(
        _ journey: CompiledJourney, in library: CompiledLibrary, params: [String: Value] = [:], device: DeviceState,
        driver: some InputDriver, network: NetworkTransport? = nil, transcript sink: some TranscriptSink,
        header: TranscriptEvent.Header? = nil
    ) async -> Outcome {
        let machine = JourneyMachine(
            library: library, journey: journey, params: params, device: device, configuration: configuration)
        let context = RunContext(machine: machine, driver: driver, network: network, sink: sink)
        if let header { sink.record(TranscriptRecord(time: 0, depth: 0, event: .header(header))) }
        var action = context.handle(.start)
        // The journey's own invariants, and its credential rule, hold as it runs: a run that
        // breaks one fails, saying which.
        var monitor = InvariantMonitor(journey, library: library)
        while true {
            // A call step completes when its sub-journey returns, inside the machine.
            for called in context.machine.callReturns {
                monitor?.completed(journey: called.journey, step: called.step, outcome: called.outcome)
            }
            if monitor != nil, let broken = monitor?.check(action, context.machine) {
                action = context.handle(.abort(broken.message))
            }
            switch action {
            case .finished(let result), .failed(let result):
                return Outcome(
                    result: result, rootState: context.machine.rootState, device: context.machine.device,
                    random: context.machine.random)
            case .proceed:
                // Only mid-step events answer this, and a handler's context gives those.
                action = context.handle(.abort("the machine waited for a handler that was not running"))
            case .runStep(let invocation):
                guard let handler = context.machine.currentHandler else {
                    action = context.handle(.abort("step '\(invocation.step)' has no handler to run"))
                    continue
                }
                context.inputs = [:]
                do {
                    let result = try await handler.run(invocation, context: context)
                    monitor?.completed(journey: invocation.journey, step: invocation.step, outcome: result.outcome)
                    action = context.handle(.complete(result, inputs: context.inputs))
                } catch let interruption as RunInterruption {
                    switch interruption {
                    case .restart: action = context.handle(.restart)
                    case .abort(let message): action = context.handle(.abort(message))
                    case .ended:
                        guard let result = context.machine.result else {
                            action = context.handle(.abort("the run was said to have ended, but it had not"))
                            continue
                        }
                        action = .failed(result)
                    case .waiting:
                        let result = RunResult(
                            end: nil, kind: nil, failure: nil, steps: context.machine.stepsTaken,
                            waiting: invocation.step, waitingIn: invocation.journey)
                        return Outcome(
                            result: result, rootState: context.machine.rootState,
                            waitingState: context.machine.currentState, device: context.machine.device,
                            random: context.machine.random)
                    }
                } catch let error as HandlerError {
                    action = context.handle(.fail(error.message))
                } catch {
                    action = context.handle(.fail("\(type(of: error)) was thrown"))
                }
            }
        }
    }
}

/// Stops a handler from the outside: the driver restarted the app, or the run must stop.
/// Handlers must let it propagate.
public enum RunInterruption: Error, Sendable, Equatable {
    case restart
    /// The run stops with this message (for example, a scenario gives input for another step).
    case abort(String)
    /// The run has already ended while the handler waited (the step's screen, rendered again as
    /// the clock moved, could not be); the transcript says why.
    case ended
    /// The driver has nothing more to give and the run stops where it is, the step waiting for
    /// input: neither an end nor a failure (a scenario that `expect`s `at:` that step).
    case waiting
}

/// A step of a journey: the journey's id and the step's.
struct StepName: Hashable, Sendable {
    var journey: String
    var step: String
}

/// The ``HandlerContext`` of one run: every change a handler makes goes to the machine as an
/// event, and the records the machine makes go to the run's sink as they are made.
///
/// A run is one sequence of steps and a handler uses its context only from its own `run`, so
/// nothing reaches the context's state from two places at once: its properties skip the
/// dynamic exclusivity checks, which the machine's hot path would otherwise pay on every event.
final class RunContext<Driver: InputDriver, Sink: TranscriptSink>: HandlerContext {
    @exclusivity(unchecked) var machine: JourneyMachine
    let driver: Driver
    let network: NetworkTransport?
    let sink: Sink
    @exclusivity(unchecked) var inputs: [String: Value] = [:]
    /// The steps (journey and step) whose handler sent a request while there was no network to
    /// send it to, since the set was last emptied: it went as if the device were offline.
    @exclusivity(unchecked) var sentWithoutNetwork: Set<StepName> = []
    /// Where the keys handlers write in the device store are noted, when someone reads them
    /// (an explorer, which tells a secret sealed again from one left as it was); nil otherwise.
    @exclusivity(unchecked) var storeWrites: StoreWrites?

    init(machine: JourneyMachine, driver: Driver, network: NetworkTransport?, sink: Sink) {
        self.machine = machine
        self.driver = driver
        self.network = network
        self.sink = sink
    }

    /// Gives the machine an event, lending it the run's sink for the records it makes.
    @discardableResult
    func handle(_ event: consuming JourneyMachine.Event) -> JourneyMachine.Action {
        if sink.discardsRecords { return machine.handleDiscardingRecords(event) }
        return machine.handle(event, recordingInto: sink)
    }

    nonisolated(nonsending) func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let url = request.displayURL ?? request.url
        guard machine.device.profile.online else {
            handle(.recordHTTP(method: request.method, url: url, status: nil, error: "offline"))
            throw NetworkError.offline
        }
        guard let network else {
            if let invocation = machine.currentInvocation {
                sentWithoutNetwork.insert(StepName(journey: invocation.journey, step: invocation.step))
            }
            handle(.recordHTTP(method: request.method, url: url, status: nil, error: "no network"))
            throw NetworkError.noTransport
        }
        var request = request
        request.trustedCAs = machine.device.profile.trustedCAs
        do {
            let response = try await network.send(request)
            handle(.recordHTTP(method: request.method, url: url, status: response.status, error: nil))
            return response
        } catch let error as NetworkError {
            handle(.recordHTTP(method: request.method, url: url, status: nil, error: error.description))
            if case .unstubbed(let message) = error { throw HandlerError(message) }
            throw error
        }
    }

    nonisolated(nonsending) func input(_ request: InputRequest) async throws -> [String: Value] {
        // No deadline: only input ends the wait.
        try await input(request, until: Int.max) ?? [:]
    }

    nonisolated(nonsending) func input(_ request: InputRequest, until deadline: Int) async throws -> [String: Value]? {
        var request = request
        while true {
            let reply = try await driver.next(for: request)
            switch reply {
            case .advance(let ms):
                handle(.advanceClock(milliseconds: ms, reason: "scenario"))
                if machine.result != nil { throw RunInterruption.ended }
                if machine.device.clock >= deadline { return nil }
                // The driver and the checks of input see the screen as it shows now.
                request = current(request)
            case .network(let online):
                let wasOnline = machine.device.profile.online
                handle(.setNetwork(online: online))
                // A step that waits for the network (it asks for `network`) hears of it coming
                // back, as a reachability observer does: a change, not a repeat.
                if online, !wasOnline, request.inputs.contains(where: { $0.name == "network" }) {
                    let values: [String: Value] = ["network": .bool(true)]
                    handle(.recordInput(values))
                    if inputs.isEmpty { inputs = values } else { inputs.merge(values) { $1 } }
                    return values
                }
            case .restart:
                throw RunInterruption.restart
            case .refusedInput(let values, let expected, let line):
                try checkAsked(values, request)
                guard let reason = request.refusal(of: values) else {
                    throw RunInterruption.abort(
                        "the script says input for step '\(request.step)' (line \(line)) must be refused, but its screen does not refuse it (refused: is for what a screen refuses: an action it does not show enabled, a field that fails its checks)"
                    )
                }
                guard expected.isEmpty || reason.contains(expected) else {
                    throw RunInterruption.abort(
                        "the step refused the input of line \(line), but because \(reason), not '\(expected)'")
                }
                handle(.recordRefusedInput(shown(values, request).shown, reason: reason))
            case .input(let values):
                try checkAsked(values, request)
                if let reason = request.refusal(of: values) { throw HandlerError(reason) }
                let (typed, shown) = shown(values, request)
                handle(.recordInput(shown))
                if inputs.isEmpty { inputs = typed } else { inputs.merge(typed) { $1 } }
                return typed
            }
        }
    }

    /// Stops the run when input names something the step does not ask for.
    func checkAsked(_ values: [String: Value], _ request: InputRequest) throws {
        let asks = request.inputs
        // Sorted only when one is unknown, to name the first.
        guard values.keys.contains(where: { name in !asks.contains(where: { $0.name == name }) }) else { return }
        for name in values.keys.sorted() where !asks.contains(where: { $0.name == name }) {
            let asked = asks.map(\.name)
            throw RunInterruption.abort(
                "input '\(name)' was given for step '\(request.step)', which asks for \(asked.isEmpty ? "nothing" : asked.joined(separator: ", "))"
            )
        }
    }

    /// The input as the handler gets it (secrets typed) and as the transcript shows it (URLs
    /// with their query values redacted too).
    func shown(_ values: [String: Value], _ request: InputRequest) -> (typed: [String: Value], shown: [String: Value]) {
        var typed = values
        for spec in request.inputs where spec.type.secret {
            guard let value = values[spec.name], !value.isSecret else { continue }
            typed[spec.name] = .secret(value)
        }
        // The shown input is the typed one unless a URL's query is redacted: one copy, not two.
        var shown = typed
        for spec in request.inputs where spec.redactsQuery {
            guard case .string(let url)? = values[spec.name] else { continue }
            shown[spec.name] = .string(URLRedaction.redact(url))
        }
        return (typed, shown)
    }

    /// Input the driver gives is checked against the screen as it shows (``input(_:until:)``).
    var refusesInput: Bool { true }

    func current(_ request: InputRequest) -> InputRequest {
        guard let invocation = machine.currentInvocation, invocation.step == request.step,
            invocation.journey == request.journey, invocation.screen != request.screen
        else { return request }
        return InputRequest(
            journey: request.journey, step: request.step, inputs: request.inputs, screen: invocation.screen)
    }

    var device: DeviceProfile { machine.device.profile }
    var now: Int { machine.device.clock }
    var stepEnteredAt: Int { machine.stepEnteredAt }
    var wallClock: Int { machine.configuration.wallClock.milliseconds }

    /// The machine's stream: a handler's draws move it, and a fork of the machine keeps its own.
    var random: RandomSource {
        get { machine.random }
        set { machine.random = newValue }
    }

    func wait(milliseconds: Int, reason: String) {
        handle(.advanceClock(milliseconds: milliseconds, reason: reason))
    }

    func stored(_ key: String) -> Value? { machine.device.store.value(named: key) }

    var storedKeys: [String] { machine.device.store.keys.sorted() }

    func chargeAttempt() {
        handle(.chargeAttempt)
    }

    func store(_ key: String, _ value: Value?) {
        storeWrites?.keys.append(key)
        handle(.store(key, value))
    }
}

/// The keys handlers wrote in the device store (or removed), in order, since the list was last
/// emptied: a value written again with the same bytes is written all the same.
final class StoreWrites {
    @exclusivity(unchecked) var keys: [String] = []
}
