import Foundation

/// The journeys of one run or check, compiled together so sub-journey calls resolve.
public final class CompiledLibrary: Sendable {
    public let journeys: [String: CompiledJourney]
    /// Stored keys known secret from the journeys compiled: those they (and any others read
    /// whole) declare `secret`, and those handlers keep secrets under.
    let compiledSecretStoredKeys: Set<String>
    /// The project's journeys that were not compiled, asked about the keys above does not settle.
    let elsewhere: SecretsElsewhere?

    /// Device store keys whose values are secret in every journey and every output: those any
    /// journey of the project declares `secret`, and those handlers keep secrets under (the
    /// key `pin.save` seals a PIN into). When the library was loaded with only what a run
    /// reaches, this looks at every journey file of the project that may declare a secret;
    /// ``isSecretStored(_:)`` asks about one key, which costs less.
    public var secretStoredKeys: Set<String> {
        compiledSecretStoredKeys.union(elsewhere?.all() ?? [])
    }

    init(journeys: [String: CompiledJourney], secretStoredKeys: Set<String> = [], elsewhere: SecretsElsewhere? = nil) {
        self.journeys = journeys
        self.compiledSecretStoredKeys = secretStoredKeys
        self.elsewhere = elsewhere
    }

    /// The same journeys, with the project's other journeys (not compiled) asked whether they
    /// declare a stored key secret.
    func declaringSecrets(elsewhere: SecretsElsewhere?) -> CompiledLibrary {
        guard let elsewhere else { return self }
        return CompiledLibrary(journeys: journeys, secretStoredKeys: compiledSecretStoredKeys, elsewhere: elsewhere)
    }

    /// Whether values stored under `key` are secret: `key` is in ``secretStoredKeys``.
    public func isSecretStored(_ key: String) -> Bool {
        compiledSecretStoredKeys.contains(key) || elsewhere?.declares(key) == true
    }

    public subscript(id: String) -> CompiledJourney? { journeys[id] }

    /// Journey ids in a stable order.
    public var ids: [String] { journeys.keys.sorted() }
}

/// What the journeys of a project that a library did not compile say about stored keys: whether
/// one of them declares a key secret, and every key they declare secret.
struct SecretsElsewhere: Sendable {
    var declares: @Sendable (String) -> Bool
    var all: @Sendable () -> Set<String>

    /// `files`' answers, and the journey files named whose YAML does not parse
    /// (`unreadable`), each taken to declare secret every key it may
    /// (``ProjectJourneyFiles/mayDeclareSecret(_:in:)``); with `everyKey` (a file that could
    /// not be opened), every key; nil when there is none of these.
    static func combining(_ files: SecretsElsewhere?, _ unreadable: [Data], everyKey: Bool = false) -> SecretsElsewhere?
    {
        if everyKey { return SecretsElsewhere(declares: { _ in true }, all: { files?.all() ?? [] }) }
        guard !unreadable.isEmpty else { return files }
        return SecretsElsewhere(
            declares: { key in
                unreadable.contains { ProjectJourneyFiles.mayDeclareSecret(key, in: $0) }
                    || files?.declares(key) == true
            },
            all: { files?.all() ?? [] })
    }
}

/// A journey checked against its handlers and ready to run.
public final class CompiledJourney: Sendable {
    /// The journey as written, for docs and messages.
    public let source: Journey
    public let id: String
    let steps: [CompiledStep]
    let stepIndex: [String: Int]
    let ends: [CompiledEnd]
    let start: Target
    let params: [CompiledVariable]
    let state: [CompiledVariable]
    let stored: [CompiledVariable]
    let limits: [String: CompiledLimit]
    /// ``limits`` in the order of their names, as reports list them.
    let limitsByName: [CompiledLimit]
    /// Whether a limit's maximum is an expression, computed each time the journey starts.
    let computesMaximums: Bool
    let outputs: [(name: String, value: Template)]
    /// The rules the journey states about itself, checked as it runs and explored.
    let invariants: [CompiledInvariant]
    /// The steps that verify a credential, each with the outcomes that mean it was right.
    public let credentialSteps: [String: Set<String>]
    /// Whether a run must watch for a success end reached without a verified credential: the
    /// journey has a step that verifies one, and its steps alone do not keep every success
    /// end behind it.
    let watchesCredential: Bool

    init(
        source: Journey, steps: [CompiledStep], ends: [CompiledEnd], start: Target, params: [CompiledVariable],
        state: [CompiledVariable], stored: [CompiledVariable], limits: [String: CompiledLimit],
        outputs: [(name: String, value: Template)], invariants: [CompiledInvariant] = [],
        credentialSteps: [String: Set<String>] = [:], watchesCredential: Bool = false
    ) {
        self.source = source
        self.id = source.id.value
        self.steps = steps
        self.stepIndex = Dictionary(uniqueKeysWithValues: steps.enumerated().map { ($1.id, $0) })
        self.ends = ends
        self.start = start
        self.params = params
        self.state = state
        self.stored = stored
        self.limits = limits
        self.limitsByName = limits.values.sorted { $0.name < $1.name }
        self.computesMaximums = limits.values.contains { $0.fixedMax == nil }
        self.outputs = outputs
        self.invariants = invariants
        self.credentialSteps = credentialSteps
        self.watchesCredential = watchesCredential
    }

    /// The stored values this journey declares, with their defaults.
    public var storedDeclarations: [(name: String, type: TypeInfo, defaultValue: Value?)] {
        stored.map { ($0.name, $0.type, $0.defaultValue) }
    }

    /// The inputs and outcomes of a step, as compiled (for docs and exploration).
    public func contract(ofStep id: String) -> StepContract? {
        stepIndex[id].map { steps[$0].contract }
    }

    /// The device store keys its steps' handlers read or write under a key a parameter names
    /// (``ParameterSpec/storeKey``): as the step writes it as text, or the handler's default
    /// where the step gives none (`session.state`'s token keys). A key a template computes is
    /// not known before the run, and not among them. Each with the id of the step.
    public var handlerStoreKeys: [(key: String, use: ParameterSpec.StoreKeyUse, step: String)] {
        var found: [(key: String, use: ParameterSpec.StoreKeyUse, step: String)] = []
        for step in source.steps {
            guard let index = stepIndex[step.id.value], let handler = steps[index].handler else { continue }
            for spec in handler.contract.parameters where !spec.storeKey.isEmpty {
                let key =
                    step.parameter(spec.name) == nil
                    ? spec.defaultValue.flatMap { if case .string(let text) = $0 { text } else { nil } }
                    : step.literalParameter(spec.name)
                if let key, !key.isEmpty { found.append((key, spec.storeKey, step.id.value)) }
            }
        }
        return found
    }

    func name(of target: Target) -> String {
        switch target {
        case .step(let i): steps[i].id
        case .end(let i): ends[i].id
        }
    }
}

enum Target: Sendable, Hashable {
    case step(Int)
    case end(Int)
}

struct CompiledEnd: Sendable {
    let id: String
    let kind: EndKind
}

struct CompiledVariable: Sendable {
    let name: String
    let type: TypeInfo
    let defaultValue: Value?
}

/// A compiled step. A class, so the interpreter's hot path shares it instead of copying it.
final class CompiledStep: Sendable {
    enum Runner: Sendable {
        case handler(any StepHandler)
        case call(String)
    }

    let id: String
    /// The handler id, or `call JOURNEY` for a sub-journey step.
    let label: String
    let runner: Runner
    /// The runner's handler, if it is one: read on every step, without copying the runner.
    let handler: (any StepHandler)?
    /// What the handler's contract says of its steps, read once (a contract read from its
    /// handler is a copy of every list and closure it holds): whether a step may wait for
    /// input (``HandlerContract/takesInput``), answers the same way every time
    /// (``HandlerContract/deterministic``), and reads how long it has waited
    /// (``HandlerContract/readsTimeAtStep``, or this step's ``StepContract/readsTimeAtStep``). A
    /// sub-journey's call takes no input.
    let takesInput: Bool
    let deterministic: Bool
    /// A handler program declared deterministic: `journey explore` runs each of its steps twice
    /// and judges where the step leads only when both runs end alike.
    let heldToDeterminism: Bool
    let readsTimeAtStep: Bool
    /// The handler, when it makes the inputs an explorer gives it (``ExplorableHandler``): cast
    /// once, not at every state an exploration reaches.
    let explorable: (any ExplorableHandler)?
    let parameters: [(name: String, value: CompiledValue)]
    /// What the handler's contract says about some parameters: secret whatever they are built
    /// from, a range their values keep to, what transcripts show of them. By name.
    let rules: [String: ParameterRule]
    let maps: [String: [(key: String, value: String)]]
    let tables: [String: LiteralTables]
    let captures: [String: [Capture]]
    let screen: Screen?
    /// Conditions of actions written `enabled: "${…}"`, by action id.
    let actionConditions: [String: Expression]
    /// The actions whose `enabled:` condition reads the virtual clock (`device.now`, `since`,
    /// `until`, or a limit that locks out): they may enable while the screen shows.
    let clockActions: Set<String>
    let contract: StepContract
    let attempts: CompiledAttempts?
    /// The transition of each outcome the step handles, by outcome name. A list: a step has a
    /// few outcomes, and comparing a few short names is cheaper than hashing one.
    let transitions: [(outcome: String, transition: CompiledTransition)]

    /// A contract's rules for one parameter.
    struct ParameterRule: Sendable {
        let secret: Bool
        let range: ClosedRange<Int>?
        let type: ValueType
        let shown: (@Sendable (Value) -> Value)?
        let check: (@Sendable (Value) -> String?)?
    }

    /// A parameter's evaluated value as the handler gets it: secret when its type is, and
    /// checked against its range (a message when outside it).
    func checked(_ name: String, _ value: Value) -> Result<Value, RunFailureMessage> {
        Self.checked(name, value, rules: rules, step: id)
    }

    static func checked(
        _ name: String, _ value: Value, rules: [String: ParameterRule], step id: String
    ) -> Result<Value, RunFailureMessage> {
        guard let rule = rules[name] else { return .success(value) }
        if let range = rule.range, let number = NumberRange.number(value), !range.contains(number) {
            return .failure(
                RunFailureMessage(
                    "parameter '\(name)' of step '\(id)' is \(NumberRange.describe(number, rule.type)), outside \(NumberRange.describe(range, rule.type))"
                ))
        }
        if let check = rule.check, let problem = check(value) {
            return .failure(RunFailureMessage("parameter '\(name)' of step '\(id)': \(problem)"))
        }
        return .success(value.secret(if: rule.secret))
    }

    /// Parameters as the `handler.call` event shows them.
    func shownParameters(_ values: [String: Value]) -> TranscriptEvent.Fields {
        Self.shown(values, rules: rules)
    }

    static func shown(_ values: [String: Value], rules: [String: ParameterRule]) -> TranscriptEvent.Fields {
        var shown = TranscriptEvent.Fields.sorted(values)
        for index in shown.indices {
            if let show = rules[shown[index].name]?.shown { shown[index].value = show(shown[index].value) }
        }
        return shown
    }

    /// The transition of an outcome.
    func transition(for outcome: String) -> CompiledTransition? {
        transitions.first { $0.outcome == outcome }?.transition
    }

    // What never changes between visits, prepared once so the interpreter does not redo it
    // on every step: the transcript events' JSON and, for a handler step whose parameters
    // are all constants and whose screen has no templates, the whole visit.

    /// The JSON of this step's `step.enter` event.
    let enterEvent: [UInt8]
    /// The visit in each locale, when nothing in it depends on the run.
    let fixedVisit: FixedVisit?
    /// The names a visit of the step reads, when the visit is a function of their values alone:
    /// what its parameters' templates, its screen's texts and its actions' conditions read. Nil
    /// for a fixed visit, a sub-journey's call, and a visit something of which reads the clock.
    var visitReads: [[String]]? { visitNames?.map(\.path) }
    /// ``visitReads``, each resolved to where the run keeps it.
    let visitNames: [VisitRead]?
    /// Visits already prepared, by the values of ``visitReads`` they were prepared with.
    let visitMemo = VisitMemo()

    /// A name a step's visit reads (``visitReads``), resolved when the journey is compiled: a
    /// param, a variable of the state, or a number of one of the journey's limits, read where
    /// the run keeps them; any other name read as an expression reads it.
    enum VisitRead: Sendable {
        case param(String)
        case state(String)
        case limit(CompiledLimit, LimitField)
        case other([String])

        /// What a limit tells an expression (`limits.NAME.FIELD`).
        enum LimitField: String, Sendable {
            case count, max, remaining, locked, unlocksIn
        }

        init(_ path: [String], limits: [String: CompiledLimit]) {
            switch path.first {
            case "params" where path.count == 2: self = .param(path[1])
            case "state" where path.count == 2: self = .state(path[1])
            case "limits" where path.count == 3:
                if let limit = limits[path[1]], let field = LimitField(rawValue: path[2]) {
                    self = .limit(limit, field)
                } else {
                    self = .other(path)
                }
            default: self = .other(path)
            }
        }

        var path: [String] {
            switch self {
            case .param(let name): ["params", name]
            case .state(let name): ["state", name]
            case .limit(let limit, let field): ["limits", limit.name, field.rawValue]
            case .other(let path): path
            }
        }
    }
    /// The `input` event of pressing each of the screen's actions, when the step takes its
    /// `action` as plain input.
    let actionInputs: [(action: String, values: TranscriptEvent.Fields, event: [UInt8])]

    /// The prepared `input` event for exactly these values, if they press one of the actions.
    func preparedInput(_ values: [String: Value]) -> (values: TranscriptEvent.Fields, event: [UInt8])? {
        guard values.count == 1, case .string(let pressed)? = values.value(named: "action") else { return nil }
        for input in actionInputs where input.action == pressed { return (input.values, input.event) }
        return nil
    }

    /// A handler step's visit prepared ahead: its screen and `handler.call` events and the
    /// handler's invocation, per locale.
    final class FixedVisit: Sendable {
        final class Visit: Sendable {
            let screen: RenderedScreen?
            let screenEvent: [UInt8]?
            let invocation: HandlerInvocation

            init(screen: RenderedScreen?, screenEvent: [UInt8]?, invocation: HandlerInvocation) {
                self.screen = screen
                self.screenEvent = screenEvent
                self.invocation = invocation
            }
        }
        let handler: any StepHandler
        let callFields: TranscriptEvent.Fields
        let callEvent: [UInt8]
        /// The locales the screen's texts name, and the visit in each of them.
        let locales: [String]
        let visits: [Visit]
        /// The visit in any other locale.
        let other: Visit

        init(
            handler: any StepHandler, callFields: TranscriptEvent.Fields, callEvent: [UInt8], locales: [String],
            visits: [Visit], other: Visit
        ) {
            self.handler = handler
            self.callFields = callFields
            self.callEvent = callEvent
            self.locales = locales
            self.visits = visits
            self.other = other
        }

        func visit(in locale: String) -> Visit {
            for (i, l) in locales.enumerated() where l == locale { return visits[i] }
            return other
        }
    }

    init(
        id: String, label: String, runner: Runner, parameters: [(name: String, value: CompiledValue)],
        rules: [String: ParameterRule] = [:], maps: [String: [(key: String, value: String)]],
        tables: [String: LiteralTables] = [:], captures: [String: [Capture]] = [:], screen: Screen?,
        actionConditions: [String: Expression], clockActions: Set<String> = [], contract: StepContract,
        attempts: CompiledAttempts?, transitions: [String: CompiledTransition], journey: String, defaultLocale: String,
        limits: [String: CompiledLimit] = [:]
    ) {
        self.id = id
        self.label = label
        self.runner = runner
        if case .handler(let handler) = runner { self.handler = handler } else { self.handler = nil }
        let handlerContract = handler?.contract
        self.takesInput = handlerContract?.takesInput ?? false
        self.deterministic = handlerContract?.deterministic ?? true
        self.heldToDeterminism = deterministic && handler is ExternalHandler
        self.readsTimeAtStep = handlerContract?.readsTimeAtStep == true || contract.readsTimeAtStep
        self.explorable = handler as? any ExplorableHandler
        self.parameters = parameters
        self.rules = rules
        self.maps = maps
        self.tables = tables
        self.captures = captures
        self.screen = screen
        self.actionConditions = actionConditions
        self.clockActions = clockActions
        self.contract = contract
        self.attempts = attempts
        self.enterEvent = JSONLinesEncoder.encodedEvent(.stepEnter(step: id, handler: label))

        self.transitions = transitions.sorted { $0.key < $1.key }.map { outcome, transition in
            let data = contract.outcome(named: outcome)?.data
            return (
                outcome,
                CompiledTransition(
                    branches: transition.branches, data: data,
                    outcomeEvent: data?.isEmpty == true
                        ? JSONLinesEncoder.encodedEvent(.outcome(step: id, outcome: outcome, data: [])) : nil)
            )
        }
        if let spec = contract.input(named: "action"), !spec.type.secret, !spec.redactsQuery, let screen {
            actionInputs = screen.actions.map { action in
                let values: TranscriptEvent.Fields = [.init("action", .string(action.id.value))]
                return (action.id.value, values, JSONLinesEncoder.encodedEvent(.input(step: id, values: values)))
            }
        } else {
            actionInputs = []
        }
        self.fixedVisit = Self.fixedVisit(
            id: id, label: label, runner: runner, parameters: parameters, rules: rules, maps: maps, tables: tables,
            captures: captures, screen: screen, conditions: actionConditions, contract: contract, journey: journey,
            fallback: defaultLocale)
        self.visitNames =
            fixedVisit == nil && handler != nil
            ? Self.visitReads(parameters: parameters, screen: screen, conditions: actionConditions)?.map {
                VisitRead($0, limits: limits)
            } : nil
    }

    /// The names ``visitReads`` lists, each once, in the order first read; nil when something
    /// of the visit reads the clock.
    private static func visitReads(
        parameters: [(name: String, value: CompiledValue)], screen: Screen?, conditions: [String: Expression]
    ) -> [[String]]? {
        var templates: [Template] = []
        func add(_ value: CompiledValue) {
            switch value {
            case .constant: break
            case .template(let template): templates.append(template)
            case .list(let items): items.forEach(add)
            }
        }
        for (_, value) in parameters { add(value) }
        let texts =
            [screen?.title, screen?.text].compactMap { $0 } + (screen?.actions.map(\.label) ?? [])
            + (screen?.fields.compactMap(\.label) ?? [])
        templates += texts.flatMap { $0.entries.map(\.template) }
        let expressions = conditions.sorted { $0.key < $1.key }.map(\.value)
        guard !templates.contains(where: \.readsClock), !expressions.contains(where: \.readsClock) else { return nil }
        var seen = Set<[String]>()
        return (templates.flatMap(\.references) + expressions.flatMap(\.references)).filter { seen.insert($0).inserted }
    }

    private static func fixedVisit(
        id: String, label: String, runner: Runner, parameters: [(name: String, value: CompiledValue)],
        rules: [String: ParameterRule], maps: [String: [(key: String, value: String)]],
        tables: [String: LiteralTables], captures: [String: [Capture]], screen: Screen?,
        conditions: [String: Expression], contract: StepContract, journey: String, fallback: String
    ) -> FixedVisit? {
        guard case .handler(let handler) = runner, conditions.isEmpty else { return nil }
        var constants: [String: Value] = [:]
        for (name, value) in parameters {
            guard case .constant(let v) = value, case .success(let checked) = checked(name, v, rules: rules, step: id)
            else { return nil }
            constants[name] = checked
        }
        let texts =
            [screen?.title, screen?.text].compactMap { $0 } + (screen?.actions.map(\.label) ?? [])
            + (screen?.fields.compactMap(\.label) ?? [])
        guard texts.allSatisfy({ $0.entries.allSatisfy(\.template.isLiteral) }) else { return nil }
        var locales: [String] = []
        // Texts written once read the same in every locale: one rendering serves them all.
        if screen != nil, texts.contains(where: { $0.entries.count > 1 }) {
            for entry in texts.flatMap(\.entries) {
                if let locale = entry.locale, !locales.contains(locale) { locales.append(locale) }
            }
            if !locales.contains(fallback) { locales.append(fallback) }
        }
        func visit(_ locale: String) -> FixedVisit.Visit? {
            guard
                case .success(let rendered) = JourneyMachine.render(
                    screen, conditions, locale: locale, fallback: fallback, NoValues())
            else { return nil }
            return .init(
                screen: rendered,
                screenEvent: rendered.map { JSONLinesEncoder.encodedEvent(.screen(step: id, screen: $0)) },
                invocation: HandlerInvocation(
                    journey: journey, step: id, parameters: constants, maps: maps, tables: tables, captures: captures,
                    screen: rendered, contract: contract))
        }
        // A locale none of the texts name picks the same texts as any other such locale.
        var other = "und"
        while locales.contains(other) { other += "-x" }
        let visits = locales.compactMap(visit)
        guard visits.count == locales.count, let otherVisit = visit(other) else { return nil }
        let fields = shown(constants, rules: rules)
        return FixedVisit(
            handler: handler, callFields: fields,
            callEvent: JSONLinesEncoder.encodedEvent(.handlerCall(step: id, handler: label, params: fields)),
            locales: locales, visits: visits, other: otherVisit)
    }
}

/// The visits of a step already prepared, by the values of the names they read
/// (``CompiledStep/visitReads``) and the locale: a visit is a function of those, so a machine
/// that enters the step with the same values shows the same screen, records the same call and
/// runs the handler with the same invocation, prepared once. Shared by every run and thread
/// that uses the compiled journey; it keeps at most ``capacity`` visits a step, starting again
/// when full.
final class VisitMemo: @unchecked Sendable {
    /// What decides a visit: the locale and the values of the names it reads.
    struct Key: Equatable {
        var locale: String
        var values: [Value?]
    }

    /// A prepared visit: shared, not copied, by every run that finds it.
    final class Visit: Sendable {
        let screen: RenderedScreen?
        let callFields: TranscriptEvent.Fields
        let invocation: HandlerInvocation

        init(screen: RenderedScreen?, callFields: TranscriptEvent.Fields, invocation: HandlerInvocation) {
            self.screen = screen
            self.callFields = callFields
            self.invocation = invocation
        }
    }

    static let capacity = 64
    private let lock = NSLock()
    /// The visits prepared, the latest last. A step reads few values and shows few visits, so
    /// they are found by comparing, latest first, without hashing.
    private var visits: [(key: Key, visit: Visit)] = []

    /// The visits kept now.
    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return visits.count
    }

    /// Keeps `visit`, prepared for `key`.
    func remember(_ visit: Visit, under key: Key) {
        lock.lock()
        defer { lock.unlock() }
        if visits.count >= Self.capacity { visits.removeAll(keepingCapacity: true) }
        visits.append((key, visit))
    }

    /// The visit prepared in `locale` for these values of the names the step reads, if one was
    /// (``remember(_:under:)``). The caller holds the values where it likes: a run reads them
    /// into a buffer on its stack, so that finding a visit allocates nothing.
    func visit(locale: String, values: UnsafeBufferPointer<Value?>) -> Visit? {
        lock.lock()
        defer { lock.unlock() }
        var index = visits.count
        while index > 0 {
            index -= 1
            if visits[index].key.locale == locale, visits[index].key.values.elementsEqual(values) {
                return visits[index].visit
            }
        }
        return nil
    }
}

/// Answers no name: what literal templates are rendered with.
private struct NoValues: ValueProvider {
    func value(at path: [String]) -> Value? { nil }
}

final class CompiledAttempts: Sendable {
    let limit: CompiledLimit
    /// The outcomes that count and reset (a few each: compared in a list, not hashed).
    let counts: [String]
    let resets: [String]
    /// The step's `attempt` events for every action and each count from 0 to the limit's
    /// maximum, prepared (for limits of at most 64 attempts).
    private let events: [[UInt8]]

    init(step: String, limit: CompiledLimit, counts: [String], resets: [String]) {
        self.limit = limit
        self.counts = counts
        self.resets = resets
        var events: [[UInt8]] = []
        if let max = limit.fixedMax, max <= 64 {
            for action in TranscriptEvent.AttemptAction.allCases {
                for count in 0...max {
                    events.append(
                        JSONLinesEncoder.encodedEvent(
                            .attempt(step: step, limit: limit.name, action: action, count: count, max: max)))
                }
            }
        }
        self.events = events
    }

    /// The prepared JSON of an `attempt` event at this step, if it was prepared (for a limit
    /// whose maximum is written as a number).
    func event(_ action: TranscriptEvent.AttemptAction, count: Int) -> [UInt8]? {
        guard !events.isEmpty, let max = limit.fixedMax, count >= 0, count <= max,
            let row = TranscriptEvent.AttemptAction.allCases.firstIndex(of: action)
        else { return nil }
        return events[row * (max + 1) + count]
    }
}

final class CompiledLimit: Sendable {
    /// How many attempts the limit allows.
    enum Maximum: Sendable {
        case fixed(Int)
        /// Evaluated over the journey's params when the journey starts; each run of the journey
        /// keeps its value (``JourneyMachine/Frame/maximums``).
        case computed(Template)
    }

    let name: String
    let max: Maximum
    let counter: VariableReference
    let exceeded: CompiledTransition
    let keep: Bool
    /// How long the limit locks once exceeded, in milliseconds; nil without a lockout.
    let lockout: Int?
    /// Where the end of a lockout is kept, in seconds since 1970 (0: not locked).
    let lockedUntil: VariableReference?

    init(
        name: String, max: Maximum, counter: VariableReference, exceeded: CompiledTransition, keep: Bool,
        lockout: Int? = nil, lockedUntil: VariableReference? = nil
    ) {
        self.name = name
        self.max = max
        self.counter = counter
        self.exceeded = exceeded
        self.keep = keep
        self.lockout = lockout
        self.lockedUntil = lockedUntil
    }

    /// The maximum when it is written as a number.
    var fixedMax: Int? {
        if case .fixed(let n) = max { return n }
        return nil
    }
}

final class CompiledTransition: Sendable {
    let branches: [CompiledBranch]
    /// The data the outcome that leads here carries (nil for a limit's transition).
    let data: [DataSpec]?
    /// The JSON of the `outcome` event that leads here, when the outcome carries no data.
    let outcomeEvent: [UInt8]?

    init(branches: [CompiledBranch], data: [DataSpec]? = nil, outcomeEvent: [UInt8]? = nil) {
        self.branches = branches
        self.data = data
        self.outcomeEvent = outcomeEvent
    }
}

final class CompiledBranch: Sendable {
    let condition: Expression?
    /// `always`, `if 1`, `if 2`, …, or `else`: how transcripts name the branch taken.
    let label: String
    let assignments: [(target: VariableReference, value: CompiledValue)]
    let target: Target
    /// The JSON of the `transition` event when the branch is taken for its step's outcome
    /// (nil for the transitions of limits, which many steps share).
    let event: [UInt8]?

    init(
        condition: Expression?, label: String, assignments: [(target: VariableReference, value: CompiledValue)],
        target: Target, event: [UInt8]?
    ) {
        self.condition = condition
        self.label = label
        self.assignments = assignments
        self.target = target
        self.event = event
    }
}

/// A value written in a journey, typed: a constant, or a template evaluated at run time.
indirect enum CompiledValue: Sendable {
    case constant(Value)
    case template(Template)
    case list([CompiledValue])
}
