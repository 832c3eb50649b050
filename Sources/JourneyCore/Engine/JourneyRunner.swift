/// Runs a journey: drives a ``JourneyMachine`` with real handlers and an input driver, and
/// writes every transcript record to a sink as it happens.
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
        public var device: DeviceState
    }

    public func run(
        _ journey: CompiledJourney, in library: CompiledLibrary, params: [String: Value] = [:], device: DeviceState,
        driver: some InputDriver, network: NetworkTransport? = nil, transcript sink: some TranscriptSink,
        header: TranscriptEvent.Header? = nil
    ) async -> Outcome {
        var machine = JourneyMachine(
            library: library, journey: journey, params: params, device: device, configuration: configuration)
        machine.sink = sink
        let context = RunContext(machine: machine, driver: driver, network: network)
        if let header { sink.record(TranscriptRecord(time: 0, depth: 0, event: .header(header))) }
        var action = context.machine.start()
        while true {
            switch action {
            case .finished(let result), .failed(let result):
                return Outcome(result: result, rootState: context.machine.rootState, device: context.machine.device)
            case .runHandler(let handler, let invocation):
                context.inputs = [:]
                do {
                    let result = try await handler.run(invocation, context: context)
                    action = context.machine.complete(result, inputs: context.inputs)
                } catch let interruption as RunInterruption {
                    switch interruption {
                    case .restart: action = context.machine.restart()
                    case .abort(let message): action = context.machine.abort(message)
                    }
                } catch let error as HandlerError {
                    action = context.machine.fail(error.message)
                } catch {
                    action = context.machine.fail("\(type(of: error)) was thrown")
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
}

/// The ``HandlerContext`` of one run. The machine writes its records straight to the run's sink.
final class RunContext<Driver: InputDriver>: HandlerContext {
    var machine: JourneyMachine
    let driver: Driver
    let network: NetworkTransport?
    var inputs: [String: Value] = [:]

    init(machine: JourneyMachine, driver: Driver, network: NetworkTransport?) {
        self.machine = machine
        self.driver = driver
        self.network = network
    }

    nonisolated(nonsending) func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let url = request.displayURL ?? request.url
        guard machine.device.profile.online else {
            machine.recordHTTP(method: request.method, url: url, status: nil, error: "offline")
            throw NetworkError.offline
        }
        guard let network else {
            machine.recordHTTP(method: request.method, url: url, status: nil, error: "no network")
            throw NetworkError.noTransport
        }
        var request = request
        request.trustedCAs = machine.device.profile.trustedCAs
        do {
            let response = try await network.send(request)
            machine.recordHTTP(method: request.method, url: url, status: response.status, error: nil)
            return response
        } catch let error as NetworkError {
            machine.recordHTTP(method: request.method, url: url, status: nil, error: error.description)
            if case .unstubbed(let message) = error { throw HandlerError(message) }
            throw error
        }
    }

    nonisolated(nonsending) func input(_ request: InputRequest) async throws -> [String: Value] {
        while true {
            let reply = try await driver.next(for: request)
            switch reply {
            case .advance(let ms):
                machine.advanceClock(by: ms, reason: "scenario")
            case .network(let online):
                let wasOnline = machine.device.profile.online
                machine.setNetwork(online: online)
                // A step that waits for the network (it asks for `network`) hears of it coming
                // back, as a reachability observer does: a change, not a repeat.
                if online, !wasOnline, request.inputs.contains(where: { $0.name == "network" }) {
                    let values: [String: Value] = ["network": .bool(true)]
                    machine.recordInput(values)
                    if inputs.isEmpty { inputs = values } else { inputs.merge(values) { $1 } }
                    return values
                }
            case .restart:
                throw RunInterruption.restart
            case .input(let values):
                let asks = request.inputs
                if !values.keys.allSatisfy({ name in asks.contains { $0.name == name } }) {
                    for name in values.keys.sorted() where !asks.contains(where: { $0.name == name }) {
                        let asked = asks.map(\.name)
                        throw RunInterruption.abort(
                            "input '\(name)' was given for step '\(request.step)', which asks for \(asked.isEmpty ? "nothing" : asked.joined(separator: ", "))"
                        )
                    }
                }
                var typed = values
                var shown = values
                for spec in asks where spec.type.secret || spec.redactsQuery {
                    guard let value = values[spec.name] else { continue }
                    typed[spec.name] = value.secret(if: spec.type.secret)
                    shown[spec.name] = typed[spec.name]
                    if spec.redactsQuery, case .string(let url) = value {
                        shown[spec.name] = .string(URLRedaction.redact(url))
                    }
                }
                machine.recordInput(shown)
                if inputs.isEmpty { inputs = typed } else { inputs.merge(typed) { $1 } }
                return typed
            }
        }
    }

    var device: DeviceProfile { machine.device.profile }
    var now: Int { machine.device.clock }

    func wait(milliseconds: Int, reason: String) {
        machine.advanceClock(by: milliseconds, reason: reason)
    }

    func stored(_ key: String) -> Value? { machine.device.store[key] }

    var storedKeys: [String] { machine.device.store.keys.sorted() }

    func chargeAttempt() {
        machine.chargeAttempt()
    }

    func store(_ key: String, _ value: Value?) {
        machine.store(key, value)
    }
}
