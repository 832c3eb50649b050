// How a journey's steps compile: what runs each (a handler with its parameters, or a call of
// a journey with its params), the limit it charges, where its outcomes lead, whether it
// verifies a credential, and when its screen's actions are enabled.

extension JourneyContext {
    /// Reports a parameter that names an action (``ParameterSpec/namesAction``) when its value,
    /// written or the default, is none of the step's screen actions: at the value, or at the
    /// step when it gives none. A value computed by a template is checked when the step runs.
    mutating func checkAction(
        _ spec: ParameterSpec, of handler: String, in step: Step,
        parameters: [(name: String, value: CompiledValue)]
    ) {
        guard let value = parameters.first(where: { $0.name == spec.name })?.value,
            case .constant(let constant) = value, case .string(let id) = constant.revealed
        else { return }
        let actions = step.screen?.actions.map(\.id.value) ?? []
        guard !actions.contains(id) else { return }
        let has = actions.isEmpty ? "has no actions" : "has \(actions.map { "'\($0)'" }.joined(separator: ", "))"
        if let written = step.with.first(where: { $0.name.value == spec.name }) {
            diagnostics.error(
                C.unknownAction,
                "parameter '\(spec.name)' of \(handler) names action '\(id)', which the screen of step '\(step.id.value)' does not show (it \(has))\(Suggestion.hint(for: id, in: actions))",
                at: written.value.location)
        } else {
            diagnostics.error(
                C.unknownAction,
                "step '\(step.id.value)': \(handler)'s '\(spec.name)' is '\(id)' unless the step says otherwise, and its screen \(has): name one with 'with: { \(spec.name): ACTION }'",
                at: step.id.location)
        }
    }

    /// What a step's kind makes of it: what runs it (a handler, or a call of a journey), the
    /// contract it keeps there, and what it is given.
    struct StepRunning {
        /// The handler's id, or `call JOURNEY`, as diagnostics name it.
        var label: String
        var runner: CompiledStep.Runner
        var contract: StepContract
        var given = Given()
        /// The rules a handler's parameters are held to when the step runs, by name.
        var rules: [String: CompiledStep.ParameterRule] = [:]
    }

    /// What a step gives what runs it: values (constants, or computed when it runs), and a
    /// handler's literal maps, tables and captures, by parameter name.
    struct Given {
        var parameters: [(name: String, value: CompiledValue)] = []
        var maps: [String: [(key: String, value: String)]] = [:]
        var tables: [String: LiteralTables] = [:]
        var captures: [String: [Capture]] = [:]
    }

    /// Compiles a step: what runs it, the limit it charges, where each outcome leads, whether
    /// it verifies a credential, and when its screen's actions are enabled. Nil when what runs
    /// it is unknown (said in the diagnostics).
    mutating func step(_ step: Step) -> CompiledStep? {
        if let screen = step.screen { check(screen) }
        let running: StepRunning?
        switch step.kind {
        case .handler(let name): running = handlerStep(step, name)
        case .call(let name): running = callStep(step, name)
        }
        guard let running else { return nil }
        let attempts = attempts(of: step, running)
        let transitions = transitions(of: step, running)
        credential(of: step, contract: running.contract, label: running.label)
        let (conditions, clockActions) = actionConditions(of: step)
        return CompiledStep(
            id: step.id.value, label: running.label, runner: running.runner, parameters: running.given.parameters,
            rules: running.rules, maps: running.given.maps, tables: running.given.tables,
            captures: running.given.captures,
            screen: step.screen, actionConditions: conditions, clockActions: clockActions, contract: running.contract,
            attempts: attempts, transitions: transitions,
            journey: journey.id.value, defaultLocale: journey.defaultLocale, limits: compiledLimits)
    }

    /// A step run by handler `name`: its parameters checked against the handler's (each given
    /// one known, of its type and range, each required one given) and compiled, the defaults
    /// of the others added, and the handler's contract as the step's shape makes it.
    mutating func handlerStep(_ step: Step, _ name: Located<String>) -> StepRunning? {
        guard let handler = handlers[name.value] else {
            diagnostics.error(
                C.unknownHandler, C.unknownHandlerMessage(name.value, among: handlers.ids), at: name.location)
            return nil
        }
        let specs = handler.contract.parameters
        var rules: [String: CompiledStep.ParameterRule] = [:]
        for spec in specs {
            guard case .value(let type) = spec.kind,
                type.secret || spec.range != nil || spec.shown != nil || spec.check != nil
            else { continue }
            rules[spec.name] = CompiledStep.ParameterRule(
                secret: type.secret, range: spec.range, type: type.type, shown: spec.shown, check: spec.check)
        }
        var given = Given()
        for (param, raw) in step.with {
            guard let spec = specs.first(where: { $0.name == param.value }) else {
                diagnostics.error(
                    C.unknownParam,
                    "handler '\(name.value)' has no parameter '\(param.value)'\(Suggestion.hint(for: param.value, in: specs.map(\.name)))",
                    at: param.location)
                continue
            }
            parameter(param, raw, spec, of: name.value, into: &given)
        }
        for spec in specs where spec.required && !step.with.contains(where: { $0.name.value == spec.name }) {
            diagnostics.error(
                C.missingParam,
                "step '\(step.id.value)' must give handler '\(name.value)' the parameter '\(spec.name)'",
                at: step.location)
        }
        for spec in specs where !step.with.contains(where: { $0.name.value == spec.name }) {
            if let value = spec.defaultValue { given.parameters.append((spec.name, .constant(value))) }
        }
        for spec in specs where spec.namesAction {
            checkAction(spec, of: name.value, in: step, parameters: given.parameters)
        }
        var constants: [String: Value] = [:]
        for (name, value) in given.parameters { if case .constant(let v) = value { constants[name] = v } }
        for spec in specs
        where constants[spec.name] == nil && !step.with.contains(where: { $0.name.value == spec.name }) {
            if let d = spec.defaultValue { constants[spec.name] = d }
        }
        let contract = handler.contract.resolve(
            for: shape(
                of: step, maps: given.maps, tables: given.tables, captures: given.captures, constants: constants,
                given: Set(step.with.map(\.name.value))))
        return StepRunning(label: name.value, runner: .handler(handler), contract: contract, given: given, rules: rules)
    }

    /// Parameter `param` of handler `handler`, written `raw`, as its spec takes it: a value
    /// (typed, and a constant checked against its range and check now), a map, tables or
    /// captures; added to `given`, or reported.
    mutating func parameter(
        _ param: Located<String>, _ raw: RawValue, _ spec: ParameterSpec, of handler: String,
        into given: inout Given
    ) {
        let what = "parameter '\(param.value)' of \(handler)"
        switch spec.kind {
        case .value(let type):
            let accepted = TypeInfo(type.type, secret: type.secret || spec.mayBeSecret)
            guard let v = compileValue(raw, expected: accepted, scope: base, what: "parameter '\(param.value)'")
            else { return }
            if case .constant(let constant) = v {
                if let range = spec.range, let number = NumberRange.number(constant), !range.contains(number) {
                    diagnostics.error(
                        C.outOfRange,
                        "\(what) is \(NumberRange.describe(number, type.type)), outside \(NumberRange.describe(range, type.type))",
                        at: raw.location)
                    return
                }
                if let check = spec.check, let problem = check(constant) {
                    diagnostics.error(C.invalidValue, "\(what): \(problem)", at: raw.location)
                    return
                }
                if spec.namesSecretStoreKey, case .string(let key) = constant.revealed {
                    secretStoreKeys.insert(key)
                }
                if spec.mayBeSecret && !type.secret {
                    given.parameters.append((param.value, .constant(constant.revealed)))
                    return
                }
            }
            given.parameters.append((param.value, v))
        case .map:
            if let pairs = LiteralMapRule.map(raw, spec: spec, what: what, into: &diagnostics) {
                given.maps[param.value] = pairs
            }
        case .tables:
            if let written = LiteralMapRule.tables(raw, spec: spec, what: what, into: &diagnostics) {
                given.tables[param.value] = written
            }
        case .captures:
            if let written = CaptureRule.captures(raw, spec: spec, what: what, into: &diagnostics) {
                given.captures[param.value] = written
            }
        }
    }

    /// A step that calls journey `name`: its params checked against the callee's (each known
    /// and typed, each without a default given); its outcomes are the callee's ends.
    mutating func callStep(_ step: Step, _ name: Located<String>) -> StepRunning? {
        guard let callee = all[name.value] else {
            if let file = broken[name.value] {
                diagnostics.append(
                    Diagnostic(
                        .note, C.unknownJourney,
                        "journey '\(name.value)' did not load; its errors are reported in \(file)",
                        at: name.location))
                return nil
            }
            diagnostics.error(
                C.unknownJourney, "unknown journey '\(name.value)'\(Suggestion.hint(for: name.value, in: all.keys))",
                at: name.location)
            return nil
        }
        let data = outputTypes[name.value] ?? []
        var running = StepRunning(
            label: "call \(name.value)", runner: .call(name.value),
            contract: StepContract(
                inputs: [],
                outcomes: callee.ends.map {
                    OutcomeSpec(name: $0.id.value, summary: "\(name.value) ended with \($0.kind.rawValue)", data: data)
                }))
        for (param, raw) in step.with {
            guard let decl = callee.params.first(where: { $0.name.value == param.value }) else {
                diagnostics.error(
                    C.unknownParam,
                    "journey '\(name.value)' has no param '\(param.value)'\(Suggestion.hint(for: param.value, in: callee.params.map(\.name.value)))",
                    at: param.location)
                continue
            }
            if let v = compileValue(raw, expected: decl.type, scope: base, what: "param '\(param.value)'") {
                running.given.parameters.append((param.value, v))
            }
        }
        for decl in callee.params
        where decl.defaultValue == nil && !step.with.contains(where: { $0.name.value == decl.name.value }) {
            diagnostics.error(
                C.missingParam,
                "step '\(step.id.value)' must give journey '\(name.value)' its param '\(decl.name.value)'",
                at: step.location)
        }
        return running
    }

    /// The limit the step charges (`attempts:`), with the outcomes that count and reset it,
    /// each one the step's; nil when it charges none, or the limit is unknown or did not compile
    /// (said already: the journey will not run).
    mutating func attempts(of step: Step, _ running: StepRunning) -> CompiledAttempts? {
        guard let charge = step.attempts else { return nil }
        guard journey.limits.contains(where: { $0.name.value == charge.limit.value }) else {
            if !journey.unloadedNames.contains("limits." + charge.limit.value) {
                diagnostics.error(
                    C.unknownLimit,
                    "unknown limit '\(charge.limit.value)'\(Suggestion.hint(for: charge.limit.value, in: journey.limits.map(\.name.value)))",
                    at: charge.limit.location)
            }
            return nil
        }
        for outcome in charge.counts + charge.resets where running.contract.outcome(named: outcome.value) == nil {
            undeclared(outcome, label: running.label, contract: running.contract)
        }
        return compiledLimits[charge.limit.value].map {
            CompiledAttempts(
                step: step.id.value, limit: $0, counts: charge.counts.map(\.value), resets: charge.resets.map(\.value))
        }
    }

    /// Where each outcome of the step leads (`on:`), compiled in the scope of the step's inputs
    /// and the outcome's data; an outcome the contract does not declare, and one it declares
    /// (not optional) that the step does not handle, are reported.
    mutating func transitions(of step: Step, _ running: StepRunning) -> [String: CompiledTransition] {
        let (label, contract) = (running.label, running.contract)
        var transitions: [String: CompiledTransition] = [:]
        for (outcome, transition) in step.transitions {
            guard let spec = contract.outcome(named: outcome.value) else {
                undeclared(outcome, label: label, contract: contract)
                continue
            }
            let scope = base.adding(inputs: contract.inputs, outcome: spec.data)
            if let t = self.transition(
                transition, scope: scope, what: "'\(outcome.value)' of step '\(step.id.value)'",
                taken: (step.id.value, outcome.value))
            {
                transitions[outcome.value] = t
            }
        }
        for spec in contract.outcomes where !spec.optional && transitions[spec.name] == nil {
            if step.transitions.contains(where: { $0.outcome.value == spec.name }) { continue }
            diagnostics.error(
                C.unhandledOutcome,
                "step '\(step.id.value)' does not handle outcome '\(spec.name)' of \(label); add it under 'on:'",
                at: step.id.location)
        }
        return transitions
    }

    /// When each action of the step's screen is enabled (`enabled: "${…}"`, one bool
    /// expression), by action id, and the actions whose condition reads the clock.
    mutating func actionConditions(of step: Step) -> (conditions: [String: Expression], clockActions: Set<String>) {
        var conditions: [String: Expression] = [:]
        var clockActions: Set<String> = []
        for action in step.screen?.actions ?? [] {
            guard let text = action.enabledWhen else { continue }
            // The location is the text's own (see the loader), so no quote to step over.
            guard let template = parseTemplate(text.value, at: text.location, plain: true) else { continue }
            let (type, errors) = template.typeCheck(in: base)
            report(errors, at: text.location, plain: true)
            if secretCondition(type, text.value, at: text.location, shows: "whether the action is enabled") { continue }
            if case .expression(let expression, _)? = template.parts.first, template.isSingleExpression,
                type?.type == .bool || type?.type == .any
            {
                conditions[action.id.value] = expression
                if readsClock(expression) { clockActions.insert(action.id.value) }
            } else if errors.isEmpty {
                diagnostics.error(
                    C.typeMismatch, "'enabled' takes true, false or one \"${…}\" bool expression", at: text.location)
            }
        }
        return (conditions, clockActions)
    }

    /// Whether an expression's value can change as the virtual clock moves: it reads the
    /// clock, or a limit that locks out (whose lock ends with time).
    func readsClock(_ expression: Expression) -> Bool {
        if expression.readsClock { return true }
        return expression.references.contains { path in
            path.count == 3 && path[0] == "limits"
                && journey.limits.contains { $0.name.value == path[1] && $0.locksOut }
        }
    }

    /// Outcomes that say a credential was not verified, whatever the handler: a `verifies` mark
    /// naming one would let a path through it count as signed in (failing open).
    static let unverifiedOutcomes: Set<String> = [
        "offline", "failed", "failure", "error", "cancel", "cancelled", "missing", "unavailable", "timeout",
        "wrong", "invalid", "replayed", "denied", "expired", "mismatch", "stateMismatch", "lockout", "locked",
    ]

    /// Whether the step verifies a credential, and with which outcomes: those its mark names,
    /// else those its handler declares (``HandlerContract/verifiedOutcomes``).
    mutating func credential(of step: Step, contract: StepContract, label: String) {
        var declared: [String] = []
        if case .handler(let name) = step.kind { declared = handlers[name.value]?.contract.verifiedOutcomes ?? [] }
        guard let mark = step.verifies else {
            if !declared.isEmpty { credentialSteps[step.id.value] = Set(declared) }
            return
        }
        guard !mark.outcomes.isEmpty else {
            guard !declared.isEmpty else {
                diagnostics.error(
                    C.credentialOutcomes,
                    "\(label) does not say which of its outcomes verify a credential; name them, like 'verifies: {credential: [ok]}'",
                    at: mark.location)
                return
            }
            credentialSteps[step.id.value] = Set(declared)
            return
        }
        var outcomes: Set<String> = []
        var refused = Self.unverifiedOutcomes
        if case .handler(let name) = step.kind, let check = handlers[name.value]?.contract.credentialCheck {
            refused.formUnion(check.refused)
        }
        for outcome in mark.outcomes {
            if contract.outcome(named: outcome.value) == nil {
                undeclared(outcome, label: label, contract: contract)
            } else if refused.contains(outcome.value) {
                diagnostics.error(
                    C.credentialOutcomes,
                    "\(label) counts '\(outcome.value)' as a credential verified, but it is an outcome where none was: a path through it would sign in unverified (whoever blocks the server, or types a wrong one); name only the outcomes that mean the credential was right",
                    at: outcome.location)
            } else {
                outcomes.insert(outcome.value)
            }
        }
        if outcomes.count == mark.outcomes.count { credentialSteps[step.id.value] = outcomes }
    }

    mutating func undeclared(_ outcome: Located<String>, label: String, contract: StepContract) {
        let names = contract.outcomes.map(\.name)
        let list = names.isEmpty ? "none" : names.joined(separator: ", ")
        diagnostics.error(
            C.undeclaredOutcome,
            "\(label) has no outcome '\(outcome.value)'\(Suggestion.hint(for: outcome.value, in: names)) (its outcomes: \(list))",
            at: outcome.location)
    }

    func shape(
        of step: Step, maps: [String: [(key: String, value: String)]], tables: [String: LiteralTables],
        captures: [String: [Capture]], constants: [String: Value], given: Set<String>
    ) -> StepShape {
        StepShape(
            actions: step.screen?.actions.map { .init(id: $0.id.value, enabled: $0.enabled) } ?? [],
            fields: step.screen?.fields.map { .init(name: $0.name.value, kind: $0.kind, secret: $0.secret) } ?? [],
            maps: maps, tables: tables, captures: captures, constants: constants, given: given)
    }
}
