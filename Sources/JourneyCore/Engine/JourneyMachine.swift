/// The journey interpreter as a pure state machine: no I/O, no clock, no randomness.
///
/// Each event (``start()``, ``complete(_:inputs:)``, ``restart()``, …) moves the machine and
/// returns the ``Action`` its caller must perform next. Transcript records are queued and
/// taken with ``takeRecords()``, or, with a ``sink`` attached, written to it as they happen.
/// ``JourneyRunner`` drives it with real handlers and a driver; tests drive it directly.
public struct JourneyMachine {
    public struct Configuration: Sendable {
        /// The locale texts are rendered in; nil uses the journey's default.
        public var locale: String?
        /// Steps a run may take before it is stopped as a runaway loop.
        public var stepBudget: Int
        /// How deep sub-journeys may nest.
        public var maxCallDepth: Int

        /// How deep sub-journeys may nest unless configured otherwise; `journey check` reports
        /// deeper nesting before anything runs.
        public static let defaultMaxCallDepth = 16

        public init(locale: String? = nil, stepBudget: Int = 10_000, maxCallDepth: Int = defaultMaxCallDepth) {
            self.locale = locale
            self.stepBudget = stepBudget
            self.maxCallDepth = maxCallDepth
        }
    }

    /// What the caller must do next.
    public enum Action {
        /// Run this handler for the current step, then call ``complete(_:inputs:)`` or ``fail(_:)``.
        case runHandler(any StepHandler, HandlerInvocation)
        /// The root journey reached an end.
        case finished(RunResult)
        /// The run failed; the transcript says why.
        case failed(RunResult)
    }

    public let library: CompiledLibrary
    public let root: CompiledJourney
    public let configuration: Configuration
    public private(set) var device: DeviceState
    public private(set) var stepsTaken = 0
    private let rootParams: [String: Value]
    private var frames: [Frame] = []
    private var records: [TranscriptRecord] = []
    /// Where records go as they happen; nil queues them for ``takeRecords()``.
    public var sink: (any TranscriptSink)?
    private var phase = Phase.ready
    /// Whether the current step visit has charged its attempt limit.
    private var attemptCharged = false

    enum Phase { case ready, awaitingHandler, done }

    struct Frame {
        let journey: CompiledJourney
        var params: [String: Value]
        var state: [String: Value]
        var step = 0
    }

    /// - Parameters:
    ///   - params: the root journey's params; missing ones take their defaults.
    public init(
        library: CompiledLibrary, journey: CompiledJourney, params: [String: Value] = [:], device: DeviceState,
        configuration: Configuration = Configuration()
    ) {
        self.library = library
        self.root = journey
        self.rootParams = params
        var device = device
        // A key secret anywhere in the project holds a secret whoever wrote it.
        for (key, value) in device.store where library.isSecretStored(key) && !value.isSecret {
            device.store[key] = .secret(value)
        }
        self.device = device
        self.configuration = configuration
        self.locale = configuration.locale ?? journey.source.defaultLocale
    }

    /// The step the innermost journey is at (frames must not be empty). Read in place, so the
    /// frame's params and state are not copied.
    private var topStep: CompiledStep {
        let top = frames.count - 1
        return frames[top].journey.steps[frames[top].step]
    }

    /// The locale texts are rendered in.
    public let locale: String

    /// Takes the transcript records queued since the last call.
    public mutating func takeRecords() -> [TranscriptRecord] {
        defer { records = [] }
        return records
    }

    /// The id of the step the machine is at, if any.
    public var currentStep: String? {
        guard !frames.isEmpty, phase == .awaitingHandler else { return nil }
        return topStep.id
    }

    /// The state of the current (innermost) journey.
    public var currentState: [String: Value] { frames.last?.state ?? [:] }

    /// The root journey's state.
    public var rootState: [String: Value] { frames.first?.state ?? [:] }

    // MARK: Events

    /// Starts the root journey.
    public mutating func start() -> Action {
        precondition(phase == .ready, "start() is called once")
        return launch()
    }

    /// The handler of the current step produced `result`; `inputs` are what the driver gave it.
    public mutating func complete(_ result: HandlerResult, inputs: [String: Value] = [:]) -> Action {
        guard phase == .awaitingHandler, !frames.isEmpty else {
            return failure(nil, "a handler result arrived while no step was running")
        }
        let step = topStep
        let transition = step.transition(for: result.outcome)
        guard let specs = transition?.data ?? step.contract.outcome(named: result.outcome)?.data else {
            return failure(
                step.id,
                "handler '\(step.label)' returned outcome '\(result.outcome)', which its contract does not declare")
        }
        var data: [String: Value] = [:]
        for d in specs {
            if let value = result.data[d.name] { data[d.name] = value.secret(if: d.type.secret) }
        }
        emit(
            .outcome(step: step.id, outcome: result.outcome, data: data.isEmpty ? [] : .sorted(data)),
            encoded: transition?.outcomeEvent)
        return follow(outcome: result.outcome, transition: transition, data: data, inputs: inputs)
    }

    /// The handler of the current step threw; the run fails with the message recorded.
    public mutating func fail(_ message: String) -> Action {
        guard !frames.isEmpty else { return failure(nil, message) }
        let step = topStep
        emit(.handlerError(step: step.id, handler: step.label, message: message))
        return failure(step.id, "handler '\(step.label)' failed: \(message)")
    }

    /// Fails the run for a reason outside the journey (a scenario mismatch, a driver error).
    public mutating func abort(_ message: String) -> Action {
        failure(currentStep, message)
    }

    /// The app is killed and launched again: every journey's state is lost, the device store
    /// survives, and the root journey starts over.
    public mutating func restart() -> Action {
        emit(.restart)
        frames.removeAll()
        return launch()
    }

    /// Time passes on the virtual clock.
    public mutating func advanceClock(by milliseconds: Int, reason: String) {
        device.clock += milliseconds
        emit(.clockAdvance(milliseconds: milliseconds, reason: reason))
    }

    /// The device's network comes back or goes away; recorded in the transcript.
    public mutating func setNetwork(online: Bool) {
        device.profile.online = online
        emit(.network(online: online))
    }

    /// Writes the device store on a handler's behalf; recorded in the transcript.
    public mutating func store(_ key: String, _ value: Value?) {
        let value = value?.secret(if: library.isSecretStored(key))
        if let value { device.store[key] = value } else { device.store.removeValue(forKey: key) }
        emit(.stateSet(variable: "stored.\(key)", value: value ?? .string("(removed)")))
    }

    /// Charges the current step's attempt limit now and writes the counter to the device,
    /// before the handler acts on what it checks (increment, then verify): a restart or a
    /// kill between here and the outcome cannot give the attempt back. Charged once per visit;
    /// outcomes that neither count nor reset give it back.
    public mutating func chargeAttempt() {
        guard phase == .awaitingHandler || phase == .ready, !attemptCharged, !frames.isEmpty else { return }
        let step = topStep
        guard let limit = step.attempts?.limit else { return }
        let count = counter(limit) + 1
        setCounter(limit, count)
        attemptCharged = true
        emitAttempt(step, .charged, count: count)
    }

    /// Records a handler's HTTP exchange for the current step.
    public mutating func recordHTTP(method: String, url: String, status: Int?, error: String?) {
        guard let step = currentStep else { return }
        emit(.http(step: step, method: method, url: URLRedaction.redact(url), status: status, error: error))
    }

    /// Records input the driver gave for the current step.
    public mutating func recordInput(_ values: [String: Value]) {
        guard !frames.isEmpty, phase == .awaitingHandler else { return }
        let step = topStep
        if let prepared = step.preparedInput(values) {
            emit(.input(step: step.id, values: prepared.values), encoded: prepared.event)
        } else {
            emit(.input(step: step.id, values: .sorted(values)))
        }
    }

    // MARK: Moving

    private mutating func launch() -> Action {
        var params = rootParams
        for p in root.params where params[p.name] == nil {
            guard let value = p.defaultValue else {
                return failure(nil, "param '\(p.name)' of \(root.id) has no default and was not given")
            }
            params[p.name] = value
        }
        for p in root.params { params[p.name] = params[p.name]?.secret(if: p.type.secret) }
        emit(.journeyStart(journey: root.id, params: .sorted(params)))
        frames = [Frame(journey: root, params: params, state: Self.initialState(root))]
        return go(to: root.start)
    }

    static func initialState(_ journey: CompiledJourney) -> [String: Value] {
        var state: [String: Value] = [:]
        for s in journey.state {
            state[s.name] = (s.defaultValue ?? Self.zero(s.type.type)).secret(if: s.type.secret)
        }
        return state
    }

    static func zero(_ type: ValueType) -> Value {
        switch type {
        case .string, .any: .string("")
        case .int: .int(0)
        case .bool: .bool(false)
        case .list: .list([])
        case .duration: .duration(0)
        }
    }

    private mutating func go(to first: Target) -> Action {
        var target = first
        while true {
            let journey = frames[frames.count - 1].journey
            switch target {
            case .step(let index):
                stepsTaken += 1
                let step = journey.steps[index]
                if stepsTaken > configuration.stepBudget {
                    return failure(
                        step.id,
                        "step budget of \(configuration.stepBudget) exhausted at step '\(step.id)'; the journey seems to loop"
                    )
                }
                frames[frames.count - 1].step = index
                emit(.stepEnter(step: step.id, handler: step.label), encoded: step.enterEvent)
                attemptCharged = false
                if let limit = step.attempts?.limit {
                    let count = counter(limit)
                    if count >= limit.max {
                        emitAttempt(step, .exceeded, count: count)
                        switch exceed(limit, from: step.id, outcome: "limit") {
                        case .success(let next): target = next; continue
                        case .failure(let error): return failure(step.id, error.message)
                        }
                    }
                }
                // A step whose parameters and screen never change: nothing to evaluate or render.
                if let fixed = step.fixedVisit {
                    let visit = fixed.visit(in: locale)
                    if let screen = visit.screen {
                        emit(.screen(step: step.id, screen: screen), encoded: visit.screenEvent)
                    }
                    emit(
                        .handlerCall(step: step.id, handler: step.label, params: fixed.callFields),
                        encoded: fixed.callEvent)
                    phase = .awaitingHandler
                    return .runHandler(fixed.handler, visit.invocation)
                }
                let lookup = Lookup(
                    frame: frames[frames.count - 1], device: device, secretStored: library.secretStoredKeys)
                var params: [String: Value] = [:]
                var displays: [String: String] = [:]
                for (name, value) in step.parameters {
                    switch Self.evaluate(value, lookup) {
                    case .success(let evaluated):
                        let v: Value
                        switch step.checked(name, evaluated) {
                        case .success(let checked): v = checked
                        case .failure(let error): return failure(step.id, error.message)
                        }
                        params[name] = v
                        // A value computed partly from secrets (a URL with a code in it) is shown
                        // with just those parts redacted; a parameter secret by type never is.
                        if v.isSecret, step.rules[name]?.secret != true, case .template(let t) = value,
                            !t.isSingleExpression
                        {
                            displays[name] = try? t.display(in: lookup)
                        }
                    case .failure(let error):
                        return failure(step.id, "cannot evaluate '\(name)' of step '\(step.id)': \(error.message)")
                    }
                }
                switch step.runner {
                case .call(let id):
                    guard let callee = library[id] else { return failure(step.id, "unknown journey '\(id)'") }
                    if frames.count > configuration.maxCallDepth {
                        return failure(step.id, "sub-journeys nest deeper than \(configuration.maxCallDepth)")
                    }
                    for p in callee.params where params[p.name] == nil { params[p.name] = p.defaultValue }
                    for p in callee.params { params[p.name] = params[p.name]?.secret(if: p.type.secret) }
                    emit(.subjourneyEnter(journey: id, step: step.id, params: .sorted(params)))
                    frames.append(Frame(journey: callee, params: params, state: Self.initialState(callee)))
                    target = callee.start
                    continue
                case .handler(let handler):
                    let screen: RenderedScreen?
                    switch Self.render(
                        step.screen, step.actionConditions, locale: locale,
                        fallback: journey.source.defaultLocale, lookup)
                    {
                    case .success(let s): screen = s
                    case .failure(let error): return failure(step.id, "cannot render the screen: \(error.message)")
                    }
                    if let screen { emit(.screen(step: step.id, screen: screen)) }
                    var shown = params
                    for (name, text) in displays { shown[name] = .string(text) }
                    emit(.handlerCall(step: step.id, handler: step.label, params: step.shownParameters(shown)))
                    phase = .awaitingHandler
                    let invocation = HandlerInvocation(
                        journey: journey.id, step: step.id, parameters: params, maps: step.maps, tables: step.tables,
                        screen: screen, contract: step.contract, displays: displays)
                    return .runHandler(handler, invocation)
                }
            case .end(let index):
                let end = journey.ends[index]
                if frames.count == 1 {
                    emit(.journeyEnd(journey: journey.id, end: end.id, kind: end.kind, steps: stepsTaken))
                    phase = .done
                    return .finished(RunResult(end: end.id, kind: end.kind, failure: nil, steps: stepsTaken))
                }
                var outputs: [String: Value] = [:]
                let lookup = Lookup(
                    frame: frames[frames.count - 1], device: device, secretStored: library.secretStoredKeys)
                for (name, template) in journey.outputs {
                    do {
                        outputs[name] = try template.evaluate(in: lookup)
                    } catch {
                        return failure(nil, "cannot evaluate output '\(name)' of \(journey.id): \(error.message)")
                    }
                }
                frames.removeLast()
                emit(.subjourneyExit(journey: journey.id, end: end.id, kind: end.kind, outputs: .sorted(outputs)))
                let caller = frames[frames.count - 1].journey.steps[frames[frames.count - 1].step]
                emit(.outcome(step: caller.id, outcome: end.id, data: .sorted(outputs)))
                switch resolve(outcome: end.id, transition: caller.transition(for: end.id), data: outputs, inputs: [:])
                {
                case .success(let next): target = next
                case .failure(let error): return failure(caller.id, error.message)
                }
            }
        }
    }

    private mutating func follow(
        outcome: String, transition: CompiledTransition?, data: [String: Value], inputs: [String: Value]
    ) -> Action {
        phase = .ready
        switch resolve(outcome: outcome, transition: transition, data: data, inputs: inputs) {
        case .success(let target): return go(to: target)
        case .failure(let error): return failure(currentStepId, error.message)
        }
    }

    private var currentStepId: String? {
        frames.last.map { $0.journey.steps[$0.step].id }
    }

    /// Applies the attempt rules and the transition of `outcome` at the current step
    /// (`transition`, looked up by the caller).
    private mutating func resolve(
        outcome: String, transition: CompiledTransition?, data: [String: Value], inputs: [String: Value]
    ) -> Result<Target, RunFailureMessage> {
        let step = topStep
        if let attempts = step.attempts {
            let limit = attempts.limit
            if attempts.counts.contains(outcome) {
                if !attemptCharged { chargeAttempt() }
                let count = counter(limit)
                if count >= limit.max {
                    emitAttempt(step, .exceeded, count: count)
                    return exceed(limit, from: step.id, outcome: outcome, inputs: inputs, data: data)
                }
            } else if attempts.resets.contains(outcome) {
                setCounter(limit, 0)
                emitAttempt(step, .reset, count: 0)
            } else if attemptCharged {
                let count = max(0, counter(limit) - 1)
                setCounter(limit, count)
                emitAttempt(step, .refunded, count: count)
            }
            attemptCharged = false
        }
        guard let transition else {
            return .failure(.init("step '\(step.id)' has no transition for outcome '\(outcome)'"))
        }
        return take(transition, from: step.id, outcome: outcome, inputs: inputs, data: data, prepared: true)
    }

    private mutating func exceed(
        _ limit: CompiledLimit, from step: String, outcome: String, inputs: [String: Value] = [:],
        data: [String: Value] = [:]
    ) -> Result<Target, RunFailureMessage> {
        if !limit.keep { setCounter(limit, 0) }
        return take(
            limit.exceeded, from: step, outcome: "\(outcome) (limit \(limit.name) reached)", inputs: inputs, data: data)
    }

    /// - Parameter prepared: whether the transition is taken for its step's own outcome, so
    ///   its branches' prepared events apply.
    private mutating func take(
        _ transition: CompiledTransition, from step: String, outcome: String, inputs: [String: Value],
        data: [String: Value], prepared: Bool = false
    ) -> Result<Target, RunFailureMessage> {
        // The common transition (one branch, no condition, nothing to assign) reads nothing.
        if transition.branches.count == 1, let branch = transition.branches.first, branch.condition == nil,
            branch.assignments.isEmpty
        {
            let journey = frames[frames.count - 1].journey
            emit(
                .transition(from: step, outcome: outcome, branch: branch.label, to: journey.name(of: branch.target)),
                encoded: prepared ? branch.event : nil)
            return .success(branch.target)
        }
        var lookup = Lookup(
            frame: frames[frames.count - 1], device: device, secretStored: library.secretStoredKeys, inputs: inputs,
            outcome: data)
        for branch in transition.branches {
            if let condition = branch.condition {
                do {
                    guard try condition.evaluate(in: lookup).revealed == .bool(true) else { continue }
                } catch {
                    return .failure(.init("cannot evaluate '\(condition.source)' at step '\(step)': \(error.message)"))
                }
            }
            for (variable, value) in branch.assignments {
                let result: Value
                switch Self.evaluate(value, lookup) {
                case .success(let v): result = v
                case .failure(let error):
                    return .failure(
                        .init("cannot evaluate the value of '\(variable)' at step '\(step)': \(error.message)"))
                }
                assign(variable, result)
                lookup.frame = frames[frames.count - 1]
                lookup.device = device
            }
            let journey = frames[frames.count - 1].journey
            emit(
                .transition(from: step, outcome: outcome, branch: branch.label, to: journey.name(of: branch.target)),
                encoded: prepared ? branch.event : nil)
            return .success(branch.target)
        }
        return .failure(.init("no branch matched for '\(outcome)' at step '\(step)'"))
    }

    private mutating func assign(_ variable: VariableReference, _ value: Value) {
        let journey = frames[frames.count - 1].journey
        switch variable.scope {
        case .state:
            let secret = journey.state.first { $0.name == variable.name }?.type.secret ?? false
            frames[frames.count - 1].state[variable.name] = value.secret(if: secret)
            emit(.stateSet(variable: variable.description, value: value.secret(if: secret)))
        case .stored:
            let secret =
                library.isSecretStored(variable.name)
                || journey.stored.first { $0.name == variable.name }?.type.secret ?? false
            device.store[variable.name] = value.secret(if: secret)
            emit(.stateSet(variable: variable.description, value: value.secret(if: secret)))
        }
    }

    private func counter(_ limit: CompiledLimit) -> Int {
        Self.count(of: limit, in: frames[frames.count - 1], device: device)
    }

    /// A limit's count: its counter's value, or the counter's declared default while it was
    /// never written.
    static func count(of limit: CompiledLimit, in frame: Frame, device: DeviceState) -> Int {
        let value: Value?
        switch limit.counter.scope {
        case .state: value = frame.state[limit.counter.name]
        case .stored:
            value =
                device.store[limit.counter.name]
                ?? frame.journey.stored.first { $0.name == limit.counter.name }?.defaultValue
        }
        if case .int(let n)? = value?.revealed { return n }
        return 0
    }

    /// Writes a limit's counter at once: it is on the device before the result is acted on.
    private mutating func setCounter(_ limit: CompiledLimit, _ count: Int) {
        switch limit.counter.scope {
        case .state: frames[frames.count - 1].state[limit.counter.name] = .int(count)
        case .stored: device.store[limit.counter.name] = .int(count)
        }
    }

    /// A step's screen with its texts in `locale` (falling back to `fallback`).
    static func render(
        _ screen: Screen?, _ conditions: [String: Expression], locale: String, fallback: String,
        _ lookup: some ValueProvider
    ) -> Result<RenderedScreen?, EvaluationError> {
        guard let screen else { return .success(nil) }
        func text(_ t: LocalizedText?) throws(EvaluationError) -> String? {
            guard let template = t?.template(for: locale, fallback: fallback) else { return nil }
            return try template.display(in: lookup)
        }
        do {
            let actions = try screen.actions.map { action throws(EvaluationError) in
                var enabled = action.enabled
                if enabled, let condition = conditions[action.id.value] {
                    enabled = try condition.evaluate(in: lookup).revealed == .bool(true)
                }
                return RenderedScreen.Action(
                    id: action.id.value, label: try text(action.label) ?? action.id.value, enabled: enabled)
            }
            let fields = try screen.fields.map { field throws(EvaluationError) in
                RenderedScreen.Field(
                    name: field.name.value, label: try text(field.label), kind: field.kind, required: field.required,
                    pattern: field.pattern?.value, minLength: field.minLength, maxLength: field.maxLength,
                    secret: field.secret)
            }
            return .success(
                RenderedScreen(
                    title: try text(screen.title), text: try text(screen.text), actions: actions, fields: fields))
        } catch {
            return .failure(error)
        }
    }

    static func evaluate(_ value: CompiledValue, _ lookup: Lookup) -> Result<Value, EvaluationError> {
        switch value {
        case .constant(let v): return .success(v)
        case .template(let t):
            do { return .success(try t.evaluate(in: lookup)) } catch { return .failure(error) }
        case .list(let items):
            var values: [Value] = []
            var secret = false
            for item in items {
                switch evaluate(item, lookup) {
                case .success(let v):
                    secret = secret || v.isSecret
                    values.append(v.revealed)
                case .failure(let e): return .failure(e)
                }
            }
            return .success(Value.list(values).secret(if: secret))
        }
    }

    private mutating func failure(_ step: String?, _ message: String) -> Action {
        emit(.failure(step: step, message: message))
        phase = .done
        return .failed(RunResult(end: nil, kind: nil, failure: message, steps: stepsTaken))
    }

    /// Records what happened to the step's attempt limit, with the event prepared when the
    /// count is one the limit can reach.
    private mutating func emitAttempt(
        _ step: CompiledStep, _ action: TranscriptEvent.AttemptAction, count: Int
    ) {
        guard let attempts = step.attempts else { return }
        let limit = attempts.limit
        emit(
            .attempt(step: step.id, limit: limit.name, action: action, count: count, max: limit.max),
            encoded: attempts.event(action, count: count))
    }

    /// Queues a transcript record; `encoded` is the event's JSON when it was prepared ahead.
    private mutating func emit(_ event: consuming TranscriptEvent, encoded: consuming [UInt8]? = nil) {
        assert(
            encoded == nil || encoded == JSONLinesEncoder.encodedEvent(event),
            "a prepared event's JSON must be the event's own: \(event)")
        let record = TranscriptRecord(
            time: device.elapsed, depth: max(0, frames.count - 1), event: event, encoded: encoded)
        if sink == nil { records.append(record) } else { sink?.record(record) }
    }

    /// Reads names for expressions: params, state, stored values, the device, inputs and outcome data.
    struct Lookup: ValueProvider {
        var frame: Frame
        var device: DeviceState
        /// Stored keys secret in the project (see ``CompiledLibrary/secretStoredKeys``).
        let secretStored: Set<String>
        var inputs: [String: Value] = [:]
        var outcome: [String: Value] = [:]

        func value(at path: [String]) -> Value? {
            guard path.count >= 2 else { return nil }
            let name = path[1]
            switch path[0] {
            case "params": return frame.params[name]
            case "state": return frame.state[name]
            case "stored":
                let decl = frame.journey.stored.first { $0.name == name }
                let value = device.store[name] ?? decl?.defaultValue ?? decl.map { JourneyMachine.zero($0.type.type) }
                return value?.secret(if: decl?.type.secret ?? false || secretStored.contains(name))
            case "input": return inputs[name]
            case "outcome": return outcome[name]
            case "device":
                switch name {
                case "biometry": return .string(device.profile.biometry.rawValue)
                case "biometryEnrolled": return .bool(device.profile.biometryEnrolled)
                case "online": return .bool(device.profile.online)
                case "apps": return .list(device.profile.apps.map(Value.string))
                case "opensLinks": return .bool(device.profile.opensLinks)
                case "now": return .int(device.clock / 1000)
                default: return nil
                }
            case "limits":
                guard path.count == 3, let limit = frame.journey.limits[name] else { return nil }
                let count = JourneyMachine.count(of: limit, in: frame, device: device)
                switch path[2] {
                case "count": return .int(count)
                case "max": return .int(limit.max)
                case "remaining": return .int(max(0, limit.max - count))
                default: return nil
                }
            default: return nil
            }
        }
    }
}

/// How a run ended.
public struct RunResult: Sendable, Equatable {
    /// The end reached, or nil if the run failed.
    public var end: String?
    public var kind: EndKind?
    /// Why the run failed, if it did.
    public var failure: String?
    public var steps: Int

    public init(end: String?, kind: EndKind?, failure: String?, steps: Int) {
        self.end = end
        self.kind = kind
        self.failure = failure
        self.steps = steps
    }
}

struct RunFailureMessage: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
