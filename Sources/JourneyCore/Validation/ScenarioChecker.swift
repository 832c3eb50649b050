/// Checks a scenario against its compiled journey: the journey exists, every scripted step
/// is a step the journey can reach, every input is one that step asks for, and every value
/// has the type it is declared with. Produces a ``CompiledScenario`` ready to run.
public struct ScenarioChecker: Sendable {
    static let unknownStep = "scenario.step"
    static let unknownInput = "scenario.input"
    static let badExpectation = "scenario.expect"
    static let unknownParam = "param.unknown"

    public init() {}

    /// The check stage (see ``Pipeline``): the scenario against its compiled journey; nil when
    /// it has errors, which go to `diagnostics`.
    public func check(
        _ scenario: Scenario, in library: CompiledLibrary, into diagnostics: inout DiagnosticList
    ) -> CompiledScenario? {
        var d = DiagnosticList()
        defer { diagnostics.append(contentsOf: d) }
        guard let journey = library[scenario.journey.value] else {
            d.error(
                JourneyCompiler.unknownJourney,
                "unknown journey '\(scenario.journey.value)'\(Suggestion.hint(for: scenario.journey.value, in: library.ids))",
                at: scenario.journey.location)
            return nil
        }
        var context = JourneyContext(
            journey: journey.source, all: [:], outputTypes: [:], handlers: HandlerRegistry())
        let reachable = Self.reachableJourneys(from: journey, in: library)

        let params = params(of: scenario, journey, context: &context, into: &d)
        let storedDecls = reachable.flatMap(\.stored)
        let (store, pins) = device(of: scenario, storedDecls, library, context: &context)
        let asked = AskedInputs(reachable)
        // The stored keys a run of it can leave: those its journeys declare, those their handlers
        // write under a `key:` (a PIN sealed), and those the device starts with.
        var storedNames = Set(storedDecls.map(\.name)).union(scenario.device.store.map(\.key.value))
            .union(scenario.device.pins.map(\.key.value))
        for j in reachable {
            storedNames.formUnion(j.source.steps.compactMap { $0.literalParameter("key") })
        }
        let sealed = Self.sealedKeys(reachable, pins: scenario.device.pins.map(\.key.value))
        // A key the device starts with that no journey of the run declares, nor any of their
        // handlers reads or writes under a key written as text, is read by nothing (a typo): a
        // warning, since a handler program may read keys of its own.
        var known = Set(storedDecls.map(\.name))
        // A step that clears the store touches every key; a handler program may read any.
        var readsAny = false
        for j in reachable {
            known.formUnion(j.source.steps.compactMap { $0.literalParameter("key") })
            known.formUnion(j.handlerStoreKeys.map(\.key))
            if j.steps.contains(where: { $0.handler?.contract.touchesEveryStoredKey == true }) { readsAny = true }
        }
        for entry in scenario.device.store where !readsAny && !known.contains(entry.key.value) {
            d.warning(
                Self.unreadStored,
                "the device starts with '\(entry.key.value)', which no journey this scenario plays declares or reads, so nothing reads it\(Suggestion.hint(for: entry.key.value, in: known.sorted()))",
                at: entry.key.location)
        }
        for entry in scenario.device.pins {
            guard case .string(let digits)? = pins[entry.key.value]?.revealed else { continue }
            let checks = Self.pads(checking: entry.key.value, reachable, asked.padLengths)
            guard !checks.isEmpty, !checks.contains(where: { $0.length == digits.count }) else { continue }
            let steps = checks.map { "'\($0.step)' takes \($0.length)" }.joined(separator: ", ")
            d.warning(
                Self.untypedPin,
                "PIN '\(entry.key.value)' has \(digits.count) digits, but the pads that check it take another number (\(steps)): it can never be typed there, so no run unlocks with it (its value is not shown)",
                at: entry.key.location)
        }
        var sessions: [CompiledScenario.Session] = []
        for (index, session) in scenario.sessions.enumerated() {
            if let at = session.expect.at, index < scenario.sessions.count - 1 {
                d.error(
                    Self.badExpectation,
                    "session \(index + 1) expects the journey to wait at '\(at.value)', but a session follows: only the last session may stop without an end",
                    at: at.location)
            }
            let script = compileScript(
                session.script, steps: asked.steps, values: asked.values, padLengths: asked.padLengths,
                journey: journey,
                context: &context, into: &d)
            let expectation = compileExpectation(
                session.expect, journey: journey, calledSteps: asked.steps.keys, storedDecls: storedDecls,
                storedNames: storedNames, sealed: sealed, library: library, context: &context, into: &d)
            sessions.append(
                .init(after: session.after, script: script, expectation: expectation, location: session.location))
        }
        if let locale = scenario.locale, !journey.source.locales.contains(locale) {
            d.warning(
                JourneyCompiler.textLocale,
                "journey '\(journey.id)' has no '\(locale)' texts; its default '\(journey.source.defaultLocale)' is used",
                at: scenario.location)
        }
        d.append(contentsOf: context.diagnostics)
        guard !d.hasErrors else { return nil }
        // A key the run never writes reads as its declared default: the first journey (the
        // played one, then those it calls) that declares one gives it.
        var storedDefaults: [String: Value] = [:]
        for variable in reachable.flatMap(\.stored) where storedDefaults[variable.name] == nil {
            if let value = variable.defaultValue { storedDefaults[variable.name] = value }
        }
        let compiled = CompiledScenario(
            id: scenario.id.value, file: scenario.file, idLocation: scenario.id.location, journey: journey,
            title: scenario.title, tags: scenario.tags,
            locale: scenario.locale,
            device: DeviceState(profile: scenario.device.profile, store: store, clock: scenario.device.clock),
            pins: pins, params: params, sessions: sessions, network: scenario.network, needs: scenario.needs,
            storedDefaults: storedDefaults)
        return compiled
    }

    /// The scenario's `params:`, each one the journey declares and of its type; a param
    /// without a default that the scenario does not give is reported.
    private func params(
        of scenario: Scenario, _ journey: CompiledJourney, context: inout JourneyContext,
        into d: inout DiagnosticList
    ) -> [String: Value] {
        var params: [String: Value] = [:]
        for (name, raw) in scenario.params {
            guard let decl = journey.params.first(where: { $0.name == name.value }) else {
                d.error(
                    Self.unknownParam,
                    "journey '\(journey.id)' has no param '\(name.value)'\(Suggestion.hint(for: name.value, in: journey.params.map(\.name)))",
                    at: name.location)
                continue
            }
            if case .constant(let v)? = context.compileValue(
                raw, expected: decl.type, scope: context.base, what: "param '\(name.value)'", allowTemplates: false)
            {
                params[name.value] = v
            }
        }
        // An address the scenario gives, for a redirect URI or a server the journey builds from
        // it, is held to the auth rules the journey's own defaults are (unless it declares an
        // exception to them): a run would send the code or the tokens there.
        var given: [String: String] = [:]
        var locations: [String: SourceLocation] = [:]
        for (name, raw) in scenario.params {
            guard case .scalar(let text, _, let location) = raw, !text.contains("${") else { continue }
            given[name.value] = text
            locations[name.value] = location
        }
        let excepted = Set(journey.source.exceptions.filter { $0.steps == nil }.map(\.rule.value))
        for found in AuthRuleCheck.addressProblems(
            in: journey.source, given: given, handlers: HandlerRegistry(), all: [:])
        where !excepted.contains(found.rule.rawValue) {
            guard let location = locations[found.param] else { continue }
            d.warning(
                found.rule.rawValue,
                "params.\(found.param) gives step '\(found.step)' of \(journey.id) a '\(found.parameter)' that \(found.problem)",
                at: location)
        }
        for p in journey.params where p.defaultValue == nil && params[p.name] == nil {
            d.error(
                JourneyCompiler.missingParam,
                "journey '\(journey.id)' needs param '\(p.name)'; give it under 'params:'",
                at: scenario.location)
        }
        return params
    }

    /// A key the scenario's device starts with that nothing the run plays reads.
    public static let unreadStored = "scenario.store"
    /// A PIN the scenario's device keeps whose length no pad that checks it takes.
    public static let untypedPin = "scenario.pin"

    /// The steps that read a PIN sealed under `key` (a parameter that reads the key, written as
    /// text or the handler's default) from a pad whose length they give as a constant, with
    /// that length: where the steps of an id disagree, or one computes its length, none of them.
    static func pads(
        checking key: String, _ reachable: [CompiledJourney], _ padLengths: [String: Int?]
    ) -> [(step: String, length: Int)] {
        var found: [(step: String, length: Int)] = []
        for journey in reachable {
            for use in journey.handlerStoreKeys where use.key == key && use.use.contains(.reads) {
                guard let contract = journey.contract(ofStep: use.step) else { continue }
                for input in contract.inputs where input.pad != nil {
                    guard case .some(.some(let length)) = padLengths[use.step + "/" + input.name] else { return [] }
                    if !found.contains(where: { $0.step == use.step }) { found.append((use.step, length)) }
                }
            }
        }
        return found
    }

    /// The stored keys a secret is sealed under, each with who opens or seals it there: a step
    /// whose handler opens a seal the device keeps under a key it is given (`pin.verify`'s
    /// `key`: a handler that ``HandlerContract/releasesKey`` with a parameter that
    /// ``ParameterSpec/namesSecretStoreKey``), or the scenario's device, whose `pins` are sealed
    /// before the run. A handler that only keeps a secret under a key (a device id) keeps a
    /// value a scenario can expect.
    static func sealedKeys(_ reachable: [CompiledJourney], pins: [String]) -> [String: String] {
        var sealed: [String: String] = [:]
        for journey in reachable {
            for step in journey.steps {
                guard let contract = step.handler?.contract, contract.releasesKey else { continue }
                for (name, value) in step.parameters {
                    guard contract.parameters.contains(where: { $0.name == name && $0.namesSecretStoreKey }),
                        case .constant(let constant) = value, case .string(let key) = constant.revealed,
                        sealed[key] == nil
                    else { continue }
                    sealed[key] = "step '\(step.id)', \(contract.id)"
                }
            }
        }
        for key in pins where sealed[key] == nil { sealed[key] = "the device's pins seal a PIN there" }
        return sealed
    }

    /// What the scenario's device starts with: its store, each value of the type the journeys
    /// declare for its key (secret where the project keeps the key secret), and its PINs.
    private func device(
        of scenario: Scenario, _ storedDecls: [CompiledVariable], _ library: CompiledLibrary,
        context: inout JourneyContext
    ) -> (store: [String: Value], pins: [String: Value]) {
        var store: [String: Value] = [:]
        for (key, raw) in scenario.device.store {
            var type = storedDecls.first { $0.name == key.value }?.type ?? TypeInfo(.any)
            type.secret = type.secret || library.isSecretStored(key.value)
            if case .constant(let v)? = context.compileValue(
                raw, expected: type, scope: context.base, what: "stored value '\(key.value)'", allowTemplates: false)
            {
                store[key.value] = v
            }
        }
        var pins: [String: Value] = [:]
        for (key, raw) in scenario.device.pins {
            guard
                case .constant(let v)? = context.compileValue(
                    raw, expected: TypeInfo(.string, secret: true), scope: context.base, what: "PIN '\(key.value)'",
                    allowTemplates: false)
            else { continue }
            // A PIN pad types digits: a PIN of anything else could never be entered.
            guard case .string(let digits) = v.revealed, !digits.isEmpty,
                digits.unicodeScalars.allSatisfy(\.isASCIIDigit)
            else {
                context.diagnostics.error(
                    JourneyCompiler.typeMismatch,
                    "PIN '\(key.value)' must be digits, as a PIN pad types them (its value is not shown)",
                    at: raw.location)
                continue
            }
            pins[key.value] = v
        }
        return (store, pins)
    }

    /// What the steps a scenario can reach ask for, by step id, for its script to be checked
    /// against. Input goes to handler steps; a call step never asks for any. Where journeys
    /// share a step id, an input is valid if any of those steps asks for it.
    struct AskedInputs {
        private(set) var steps: [String: StepContract] = [:]
        /// The values an input can take where they are few and known: a screen's actions, and
        /// the classes of a handler the explorer plays by them (a biometric prompt's results).
        /// Where steps share an id, any of theirs; where one of them takes any value, not checked.
        private(set) var values: [String: [String: Set<String>?]] = [:]
        /// The keys a pad takes (`step/input` → its length), where the steps of that id agree.
        private(set) var padLengths: [String: Int?] = [:]

        init(_ reachable: [CompiledJourney]) {
            for j in reachable {
                for step in j.steps {
                    if case .call = step.runner { continue }
                    if var known = steps[step.id] {
                        known.inputs += step.contract.inputs.filter { known.input(named: $0.name) == nil }
                        steps[step.id] = known
                    } else {
                        steps[step.id] = step.contract
                    }
                    for input in step.contract.inputs { add(input, of: step) }
                }
            }
        }

        private mutating func add(_ input: InputSpec, of step: CompiledStep) {
            if let pad = input.pad {
                // How many keys the pad takes, where every step of this id says one number.
                var length: Int?
                if case .constant(.int(let n))? = step.parameters.first(where: { $0.name == pad.lengthParameter })?
                    .value
                {
                    length = n
                }
                let key = step.id + "/" + input.name
                if let known = padLengths[key] {
                    padLengths[key] = known == length ? known : .some(nil)
                } else {
                    padLengths[key] = .some(length)
                }
            }
            let literal =
                !input.classes.isEmpty && input.type.type == .string && !input.type.secret
                && (input.name == "action" || step.explorable == nil)
            let allowed: Set<String>? = literal ? Set(input.classes) : nil
            if let known = values[step.id]?[input.name] {
                values[step.id]?[input.name] = known.flatMap { known in allowed.map { known.union($0) } }
            } else {
                values[step.id, default: [:]][input.name] = .some(allowed)
            }
        }
    }

    /// A session's script, each input checked against the step it names.
    private func compileScript(
        _ entries: [ScriptEntry], steps: [String: StepContract], values known: [String: [String: Set<String>?]],
        padLengths: [String: Int?], journey: CompiledJourney, context: inout JourneyContext,
        into d: inout DiagnosticList
    ) -> [CompiledScenario.Entry] {
        var script: [CompiledScenario.Entry] = []
        for entry in entries {
            switch entry.kind {
            case .restart: script.append(.init(kind: .restart, location: entry.location))
            case .advance(let ms): script.append(.init(kind: .advance(milliseconds: ms), location: entry.location))
            case .online(let online): script.append(.init(kind: .online(online), location: entry.location))
            case .input(let step, let raw):
                guard let contract = steps[step.value] else {
                    d.error(
                        Self.unknownStep,
                        "journey '\(journey.id)' has no step '\(step.value)'\(Suggestion.hint(for: step.value, in: steps.keys))",
                        at: step.location)
                    continue
                }
                var values: [String: Value] = [:]
                for (name, rawValue) in raw {
                    guard let spec = contract.input(named: name.value) else {
                        let names = contract.inputs.map(\.name)
                        d.error(
                            Self.unknownInput,
                            "step '\(step.value)' does not ask for '\(name.value)'\(Suggestion.hint(for: name.value, in: names)) (it asks for: \(names.isEmpty ? "nothing" : names.joined(separator: ", ")))",
                            at: name.location)
                        continue
                    }
                    if case .constant(let v)? = context.compileValue(
                        rawValue, expected: spec.type, scope: context.base, what: "input '\(name.value)'",
                        allowTemplates: false)
                    {
                        values[name.value] = v.secret(if: spec.type.secret)
                        // Keys the pad does not have (letters on a PIN pad) fail the run there.
                        if entry.refused == nil, let keys = spec.keys, case .string(let typed) = v.revealed,
                            typed.contains(where: { !keys.contains($0) })
                        {
                            d.error(
                                Self.unknownInput,
                                "'\(name.value)' at step '\(step.value)' is typed with the keys \(String(keys.sorted())) only",
                                at: rawValue.location)
                        }
                        // Keys a pad would not take as they are typed (a PIN a digit short, or
                        // keys typed after the pad advanced) fail the run there. Only counts are
                        // said: the keys may be a secret.
                        if entry.refused == nil, let pad = spec.pad, case .string(let typed) = v.revealed,
                            case .some(.some(let length)) = padLengths[step.value + "/" + name.value]
                        {
                            switch pad.entered(typed, length: length) {
                            case .keys(let kept) where kept.count != length:
                                d.error(
                                    Self.unknownInput,
                                    "'\(name.value)' at step '\(step.value)' comes to \(kept.count) of the \(length) keys its pad takes (the step's \(pad.lengthParameter)), deletes applied",
                                    at: rawValue.location)
                            case .advancedEarly(let leftOver):
                                d.error(
                                    Self.unknownInput,
                                    "'\(name.value)' at step '\(step.value)' has \(leftOver) \(leftOver == 1 ? "key" : "keys") more than the \(length) its pad takes (the step's \(pad.lengthParameter)): the pad goes on once it has \(length)",
                                    at: rawValue.location)
                            case .keys: break
                            }
                        }
                        // A value the step can never take (a typo of an action) fails the run
                        // there; an entry that expects its input refused may give one.
                        if entry.refused == nil, case .string(let text) = v,
                            case .some(.some(let allowed)) = known[step.value]?[name.value], !allowed.contains(text)
                        {
                            let what = name.value
                            d.error(
                                Self.unknownInput,
                                "step '\(step.value)' takes no \(what) '\(text)'\(Suggestion.hint(for: text, in: allowed.sorted())) (it takes: \(allowed.sorted().joined(separator: ", ")))",
                                at: rawValue.location)
                        }
                    }
                }
                script.append(
                    .init(
                        kind: .input(step: step.value, values: values), location: entry.location,
                        refused: entry.refused))
            }
        }
        return script
    }

    /// A session's expectation, each value typed as its state or stored value is declared.
    /// A session's expectation. `calledSteps` are the handler steps of the journey and of every
    /// journey it calls: a run can wait at any of them (a counterexample that breaks a rule inside
    /// a sub-journey stops there).
    private func compileExpectation(
        _ expect: Scenario.Expectation, journey: CompiledJourney, calledSteps: Dictionary<String, StepContract>.Keys,
        storedDecls: [CompiledVariable], storedNames: Set<String>, sealed: [String: String], library: CompiledLibrary,
        context: inout JourneyContext,
        into d: inout DiagnosticList
    ) -> CompiledScenario.Expectation {
        func compile(_ check: ValueCheck<RawValue>, _ type: TypeInfo, _ what: String) -> ValueCheck<Value>? {
            switch check {
            case .isSet: return .isSet
            case .isEmpty: return .isEmpty
            case .equals(let raw):
                guard
                    case .constant(let v)? = context.compileValue(
                        raw, expected: type, scope: context.base, what: what, allowTemplates: false)
                else { return nil }
                return .equals(v)
            }
        }
        // `in:` a journey the root calls: the run waits at its step, and `state` is its state.
        var waiting = journey
        var stateKnown = true
        if let within = expect.waitingIn, within.value != journey.id {
            let reachable = Self.reachableJourneys(from: journey, in: library).dropFirst()
            if let called = reachable.first(where: { $0.id == within.value }) {
                waiting = called
            } else {
                stateKnown = false  // whose state it names is unknown: its names are not judged
                d.error(
                    Self.badExpectation,
                    "journey '\(journey.id)' calls no journey '\(within.value)', so the run never waits in it\(Suggestion.hint(for: within.value, in: reachable.map(\.id)))",
                    at: within.location)
            }
        }
        var state: [(String, ValueCheck<Value>)] = []
        for (name, check) in expect.state where stateKnown {
            guard let decl = waiting.state.first(where: { $0.name == name.value }) else {
                d.error(
                    Self.badExpectation,
                    "journey '\(waiting.id)' has no state '\(name.value)'\(Suggestion.hint(for: name.value, in: waiting.state.map(\.name)))",
                    at: name.location)
                continue
            }
            if let c = compile(check, decl.type, "'state.\(name.value)'") { state.append((name.value, c)) }
        }
        var stored: [(String, ValueCheck<Value>)] = []
        for (name, check) in expect.stored {
            // A key no journey of the run declares or writes is never there (a typo): a warning,
            // since a handler program may write keys of its own.
            if !storedNames.contains(name.value) {
                d.warning(
                    Self.badExpectation,
                    "stored '\(name.value)' is declared and written by no journey this scenario plays, so a run finds nothing there\(Suggestion.hint(for: name.value, in: storedNames.sorted()))",
                    at: name.location)
            }
            // A sealed record holds no value the scenario can write: salted and encrypted afresh.
            if let sealer = sealed[name.value], case .equals = check {
                d.warning(
                    Self.badExpectation,
                    "stored '\(name.value)' is a key a secret is sealed under (\(sealer)): it holds the sealed record, never the secret itself, so no value written here can equal it; write `\(name.value): { is: set }` to expect it kept, or `{ is: empty }` to expect it gone",
                    at: name.location)
            }
            var type = storedDecls.first { $0.name == name.value }?.type ?? TypeInfo(.any)
            type.secret = type.secret || library.isSecretStored(name.value)
            if let c = compile(check, type, "'stored.\(name.value)'") { stored.append((name.value, c)) }
        }
        // A limit's count is its counter's value: a check of the counter, in `state` where the
        // run waits in the limit's journey (or the root's), or in `stored`.
        for (name, check) in expect.limits {
            let owners = [waiting, journey] + Self.reachableJourneys(from: journey, in: library)
            guard let owner = owners.first(where: { $0.limits[name.value] != nil }),
                let limit = owner.limits[name.value]
            else {
                let names = Set(owners.flatMap(\.limits.keys)).sorted()
                d.error(
                    Self.badExpectation,
                    "no journey this scenario plays has a limit '\(name.value)'\(Suggestion.hint(for: name.value, in: names))",
                    at: name.location)
                continue
            }
            guard case .equals = check else {
                d.error(
                    Self.badExpectation, "a limit's count is a whole number, not '{is: set}' or '{is: empty}'",
                    at: name.location)
                continue
            }
            let counter = limit.counter
            guard let c = compile(check, TypeInfo(.int), "'limits.\(name.value)'") else { continue }
            switch counter.scope {
            case .stored: stored.append((counter.name, c))
            case .state where owner.id == waiting.id && stateKnown: state.append((counter.name, c))
            case .state:
                d.error(
                    Self.badExpectation,
                    "limit '\(name.value)' of \(owner.id) counts in its state ('\(counter)'), which the run does not wait in here; expect it with 'in: \(owner.id)' and 'at:' a step of it",
                    at: name.location)
            }
        }
        if let end = expect.end {
            let endNames = journey.ends.map(\.id)
            if !endNames.contains(end.value) {
                d.error(
                    Self.badExpectation,
                    "journey '\(journey.id)' has no end '\(end.value)'\(Suggestion.hint(for: end.value, in: endNames))",
                    at: end.location)
            }
        }
        // A step of the journey `in:` names; without `in:`, of the journey or of one it calls.
        // (A journey `in:` names that the run cannot wait in is said above.)
        if let at = expect.at, stateKnown {
            if expect.waitingIn != nil {
                if waiting.stepIndex[at.value] == nil {
                    d.error(
                        Self.badExpectation,
                        "journey '\(waiting.id)' has no step '\(at.value)'\(Suggestion.hint(for: at.value, in: waiting.steps.map(\.id)))",
                        at: at.location)
                }
            } else if journey.stepIndex[at.value] == nil, !calledSteps.contains(at.value) {
                let stepNames = journey.steps.map(\.id) + calledSteps.filter { journey.stepIndex[$0] == nil }.sorted()
                d.error(
                    Self.badExpectation,
                    "journey '\(journey.id)' has no step '\(at.value)'\(Suggestion.hint(for: at.value, in: stepNames))",
                    at: at.location)
            }
        }
        return .init(
            end: expect.end?.value, at: expect.at?.value, waitingIn: expect.waitingIn == nil ? nil : waiting.id,
            canEnd: expect.canEnd?.value, kind: expect.kind, state: state, stored: stored)
    }

    /// The journey and every journey it calls, directly or not.
    public static func reachableJourneys(
        from journey: CompiledJourney, in library: CompiledLibrary
    ) -> [CompiledJourney] {
        var result = [journey]
        var seen: Set<String> = [journey.id]
        var index = 0
        while index < result.count {
            for step in result[index].steps {
                if case .call(let id) = step.runner, seen.insert(id).inserted, let callee = library[id] {
                    result.append(callee)
                }
            }
            index += 1
        }
        return result
    }
}

/// A scenario checked against its journey, with every value typed.
public struct CompiledScenario: Sendable {
    public struct Entry: Sendable {
        public enum Kind: Sendable, Equatable {
            case input(step: String, values: [String: Value])
            case restart
            case advance(milliseconds: Int)
            case online(Bool)
        }
        public var kind: Kind
        public var location: SourceLocation
        /// For input the app must refuse: the text its reason contains ("" for any).
        public var refused: String? = nil
    }

    public struct Expectation: Sendable {
        /// The end the run reaches; nil when it is expected to wait ``at`` a step.
        public var end: String?
        /// The step the run waits at when the script runs out.
        public var at: String?
        /// The journey the run waits in at ``at``, whose state ``state`` names (`in:`); nil for
        /// the root journey's state.
        public var waitingIn: String?
        /// With ``at``: whether an end can still be reached from where the run waits, found by
        /// exploring from there (`canEnd:`); nil when the scenario does not say.
        public var canEnd: Bool? = nil
        public var kind: EndKind?
        public var state: [(name: String, check: ValueCheck<Value>)]
        public var stored: [(name: String, check: ValueCheck<Value>)]

        /// What is wrong with a run that ended with `result`, the `state` the expectation reads
        /// (the root journey's, or with ``waitingIn`` that of the journey the run waits in) and
        /// the device's `store`; empty when it met the expectation. Never shows a secret.
        public func verdict(result: RunResult, state: [String: Value], store: [String: Value]) -> [String] {
            var problems: [String] = []
            if let failure = result.failure {
                problems.append(failure)
                return problems
            }
            // The run waits in another journey than the one whose state `state` names.
            let waitsElsewhere = waitingIn != nil && result.waitingIn != waitingIn
            if let at {
                let inside = waitingIn.map { " of \($0)" } ?? ""
                if result.waiting != at || waitsElsewhere {
                    let found =
                        result.waiting.map { step in
                            "it waits at step '\(step)'"
                                + (waitingIn == nil ? "" : result.waitingIn.map { " of \($0)" } ?? "")
                        } ?? "it reached end '\(result.end ?? "none")'"
                    problems.append(
                        "expected the journey to wait at step '\(at)'\(inside) when the script ran out; \(found)")
                }
            } else if result.end != end {
                problems.append("expected end '\(end ?? "none")', reached '\(result.end ?? "none")'")
            }
            if let kind, result.kind != kind {
                problems.append("expected a \(kind.rawValue) end, reached a \(result.kind?.rawValue ?? "none") end")
            }
            // Another journey's state, where the run waits elsewhere, is not the one named.
            for (name, check) in self.state where !waitsElsewhere {
                if let problem = CompiledScenario.problem("state.\(name)", check, found: state[name]) {
                    problems.append(problem)
                }
            }
            for (name, check) in self.stored {
                if let problem = CompiledScenario.problem("stored.\(name)", check, found: store[name]) {
                    problems.append(problem)
                }
            }
            return problems
        }
    }

    /// One run of the journey; after the first, the app is launched again `after` the previous
    /// one ended, with the device (store, clock) as it left it.
    public struct Session: Sendable {
        /// Milliseconds between the previous session's end and this one's launch.
        public var after: Int
        public var script: [Entry]
        public var expectation: Expectation
        public var location: SourceLocation
    }

    public let id: String
    public let file: String
    /// Where the scenario names its id (`scenario:`): where a problem with the whole scenario is said.
    public let idLocation: SourceLocation
    public let journey: CompiledJourney
    public let title: String?
    public let tags: [String]
    public let locale: String?
    public let device: DeviceState
    /// PINs to seal into the device store before the run, by key.
    public let pins: [String: Value]
    public let params: [String: Value]
    /// The journey's runs, in order; most scenarios have one.
    public let sessions: [Session]
    /// Canned responses for the run's network, in order; none means the real network.
    public let network: [NetworkStub]
    /// Services that must answer for the scenario to run.
    public let needs: [String]
    /// The declared default of every stored key the played journey or one it calls declares
    /// with a default: what a key the run never wrote reads as, when the expectation looks.
    public let storedDefaults: [String: Value]

    /// Every session's script, in order.
    public var script: [Entry] { sessions.flatMap(\.script) }

    /// What is wrong with `found` for `check`; nil when it holds.
    static func problem(_ name: String, _ check: ValueCheck<Value>, found: Value?) -> String? {
        let empty: Bool
        switch found?.revealed {
        case nil, .string("")?, .list([])?: empty = true
        default: empty = false
        }
        switch check {
        case .equals(let expected):
            return found?.revealed == expected.revealed ? nil : mismatch(name, expected: expected, found: found)
        case .isSet:
            return empty ? "expected \(name) to be set, but it is \(found == nil ? "not set" : "empty")" : nil
        case .isEmpty:
            guard !empty else { return nil }
            let shown = found.map { $0.isSecret ? "a value (secret, not shown)" : $0.displayText } ?? ""
            return "expected \(name) to be empty, but it holds \(shown)"
        }
    }

    /// Says that a value is not the one expected; a secret's values are never shown, on
    /// either side.
    static func mismatch(_ name: String, expected: Value, found: Value?) -> String {
        guard expected.isSecret || found?.isSecret == true else {
            return "expected \(name) = \(expected.displayText), found \(found?.displayText ?? "nothing")"
        }
        return
            "\(name) (secret, not shown) is not the value the scenario expects; it is \(found == nil ? "not set" : "another value")"
    }
}
