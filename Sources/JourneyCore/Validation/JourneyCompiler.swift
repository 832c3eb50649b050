import Foundation

/// The second stage of the pipeline: checks loaded journeys against the handlers and each
/// other, reports every problem with its location, and compiles them for the engine.
public struct JourneyCompiler: Sendable {
    public var handlers: HandlerRegistry

    public init(handlers: HandlerRegistry) {
        self.handlers = handlers
    }

    /// Below this many steps, compiling on other threads costs more than it saves.
    static let parallelSteps = 200

    static let duplicateId = "id.duplicate"
    static let constantCondition = "branch.constant"
    static let unknownStep = "step.unknown"
    static let unknownJourney = "journey.unknown"
    static let unknownHandler = "handler.unknown"
    static let undeclaredOutcome = "outcome.undeclared"
    static let unhandledOutcome = "outcome.unhandled"
    static let unknownParam = "param.unknown"
    static let missingParam = "param.missing"
    static let unknownLimit = "limit.unknown"
    static let limitCounter = "limit.counter"
    static let limitLockout = "limit.lockout"
    static let unknownVariable = "expr.undefined"
    static let typeMismatch = "value.type"
    static let secretLeak = "secret.leak"
    static let textLocale = "text.locale"
    static let emptyText = "text.empty"
    static let badPattern = "value.pattern"
    static let leadingZero = "value.leading-zero"
    static let outOfRange = "value.range"
    static let invalidValue = "value.invalid"
    static let unknownAction = "param.action"
    static let credentialOutcomes = "verifies.outcomes"

    /// Where the format reference says how a handler of one's own is added.
    static let ownHandlersReference = "docs/journey-format.md#handlers-of-your-own"

    /// What `journey check` says of a handler id no registered handler has: the closest id when
    /// it looks like a typo, else how a handler that is not built in is added.
    static func unknownHandlerMessage(_ id: String, among ids: [String]) -> String {
        if let closest = Suggestion.closest(to: id, in: ids) {
            return "unknown handler '\(id)'; did you mean '\(closest)'?"
        }
        return "unknown handler '\(id)': it is neither built in nor added; a handler of your own is added by a "
            + "Swift package whose executable calls JourneyCLI.main(handlers:) (see \(ownHandlersReference))"
    }

    /// Compiles journeys together. The library holds every journey that compiled and whose
    /// callees (all the way down) compiled too; the rest have errors in `diagnostics`.
    ///
    /// - Parameters:
    ///   - broken: journeys that exist but failed to load, by id, with their file: a call to
    ///     one points there instead of saying "unknown journey".
    ///   - secretStoredKeys: stored keys declared secret by journeys of the project that are
    ///     not compiled here; a key secret anywhere is secret everywhere.
    public func compile(
        _ journeys: [Journey], broken: [String: String] = [:], secretStoredKeys: Set<String> = [],
        into diagnostics: inout DiagnosticList
    ) -> CompiledLibrary {
        var d = DiagnosticList()
        defer { diagnostics.append(contentsOf: d) }
        var byId: [String: Journey] = [:]
        for journey in journeys {
            if let first = byId[journey.id.value] {
                d.error(
                    Self.duplicateId,
                    "journey id '\(journey.id.value)' is already used by \(first.file):\(first.id.location.line)",
                    at: journey.id.location)
                continue
            }
            byId[journey.id.value] = journey
        }
        // Output types first, so callers can type `outcome.NAME`.
        var outputTypes: [String: [DataSpec]] = [:]
        for journey in byId.values {
            let scope = TypeScope(journey: journey)
            outputTypes[journey.id.value] = journey.outputs.map { output in
                DataSpec(name: output.name.value, type: output.value.typeCheck(in: scope).type ?? TypeInfo(.any))
            }
        }
        var secretKeys = secretStoredKeys
        for journey in byId.values { secretKeys.formUnion(journey.secretStoredKeys) }
        // Each journey compiles on its own against the others' declarations: on every core.
        var compiled: [String: CompiledJourney] = [:]
        let ids = byId.keys.sorted()
        let steps = byId.values.reduce(0) { $0 + $1.steps.count }
        let results = Parallel.map(ids, parallel: steps >= Self.parallelSteps) { id in
            var context = JourneyContext(
                journey: byId[id]!, all: byId, outputTypes: outputTypes, handlers: handlers, broken: broken)
            let result = context.compile()
            return (result, context.diagnostics, context.secretStoreKeys)
        }
        for (id, (result, diagnostics, keys)) in zip(ids, results) {
            d.append(contentsOf: diagnostics)
            secretKeys.formUnion(keys)
            if let result { compiled[id] = result }
        }
        let flagged = CallCycleRule.check(byId, into: &d)
        for id in flagged { compiled[id] = nil }
        Self.dropCallersOfMissing(&compiled)
        return CompiledLibrary(journeys: compiled, secretStoredKeys: secretKeys)
    }

    /// Removes every journey that calls, directly or not, one that is not compiled: it could
    /// not run. Linear in the number of calls.
    static func dropCallersOfMissing(_ compiled: inout [String: CompiledJourney]) {
        var callers: [String: [String]] = [:]
        var missing: [String] = []
        for (id, journey) in compiled {
            for step in journey.steps {
                guard case .call(let callee) = step.runner else { continue }
                callers[callee, default: []].append(id)
                if compiled[callee] == nil { missing.append(callee) }
            }
        }
        while let id = missing.popLast() {
            for caller in callers[id] ?? [] where compiled[caller] != nil {
                compiled[caller] = nil
                missing.append(caller)
            }
        }
    }
}

/// Compiles one journey, collecting its diagnostics.
struct JourneyContext {
    let journey: Journey
    let all: [String: Journey]
    let outputTypes: [String: [DataSpec]]
    let handlers: HandlerRegistry
    let base: TypeScope
    var diagnostics = DiagnosticList()
    /// The journey's limits, compiled before its steps (which charge them).
    var compiledLimits: [String: CompiledLimit] = [:]
    typealias C = JourneyCompiler

    /// Journeys that failed to load, by id, with their file.
    let broken: [String: String]
    /// Stored keys that handler parameters name as holding secrets (`pin.save`'s `key`).
    var secretStoreKeys: Set<String> = []
    /// The steps that verify a credential, with the outcomes that mean it was right.
    var credentialSteps: [String: Set<String>] = [:]

    init(
        journey: Journey, all: [String: Journey], outputTypes: [String: [DataSpec]], handlers: HandlerRegistry,
        broken: [String: String] = [:]
    ) {
        self.journey = journey
        self.broken = broken
        self.all = all
        self.outputTypes = outputTypes
        self.handlers = handlers
        self.base = TypeScope(journey: journey)
        var targets: [String: Target] = [:]
        for (i, end) in journey.ends.enumerated() { targets[end.id.value] = .end(i) }
        for (i, step) in journey.steps.enumerated() { targets[step.id.value] = .step(i) }
        self.targets = targets
    }

    /// Every step and end a transition may name, by id.
    let targets: [String: Target]

    mutating func compile() -> CompiledJourney? {
        let stepIds = Set(journey.steps.map(\.id.value))
        for end in journey.ends where stepIds.contains(end.id.value) {
            diagnostics.error(
                C.duplicateId, "'\(end.id.value)' is both a step and an end; step and end ids share one namespace",
                at: end.id.location)
        }
        let params = declarations(journey.params, "param")
        let state = declarations(journey.state, "state value")
        let stored = declarations(journey.stored, "stored value")
        for text in [journey.title] + (journey.summary.map { [$0] } ?? []) { check(text, scope: base) }
        for end in journey.ends {
            for text in [end.title, end.text].compactMap({ $0 }) { check(text, scope: base) }
        }
        var outputs: [(name: String, value: Template)] = []
        for output in journey.outputs {
            let (_, errors) = output.value.typeCheck(in: base)
            report(errors, at: output.location, plain: false)
            outputs.append((output.name.value, output.value))
        }

        var limits: [String: CompiledLimit] = [:]
        for limit in journey.limits {
            let declared: [VariableDeclaration] = limit.counter.value.scope == .stored ? journey.stored : journey.state
            if let variable = declared.first(where: { $0.name.value == limit.counter.value.name }) {
                if variable.type.type != .int {
                    diagnostics.error(
                        C.limitCounter, "counter '\(limit.counter.value)' must be an int, it is \(variable.type)",
                        at: limit.counter.location)
                }
            } else if !journey.unloadedNames.contains(limit.counter.value.description) {
                diagnostics.error(
                    C.limitCounter,
                    "counter '\(limit.counter.value)' is not declared under '\(limit.counter.value.scope.rawValue)'\(Suggestion.hint(for: limit.counter.value.name, in: declared.map(\.name.value)))",
                    at: limit.counter.location)
            }
            let lockedUntil = checkLockedUntil(limit)
            let max = maximum(limit)
            if let exceeded = transition(limit.exceeded, scope: base, what: "limit '\(limit.name.value)'"),
                let max
            {
                limits[limit.name.value] = CompiledLimit(
                    name: limit.name.value, max: max, counter: limit.counter.value, exceeded: exceeded,
                    keep: limit.keep, lockout: limit.lockout?.value, lockedUntil: lockedUntil)
            }
        }

        compiledLimits = limits
        for limit in journey.limits where limit.lockout != nil {
            for branch in limit.exceeded.branches {
                guard
                    journey.steps.contains(where: {
                        $0.id.value == branch.target.value && $0.attempts?.limit.value == limit.name.value
                    })
                else { continue }
                diagnostics.error(
                    C.limitLockout,
                    "while limit '\(limit.name.value)' is locked, 'exceeded' leads back to step '\(branch.target.value)', which it locks: the journey would loop until the lockout ends; lead to a step that says how long to wait",
                    at: branch.target.location)
            }
        }
        var steps: [CompiledStep] = []
        for step in journey.steps {
            if let compiled = self.step(step) { steps.append(compiled) }
        }
        var start: Target?
        if let s = targets[journey.start.value], case .step = s {
            start = s
        } else if journey.start.value.isEmpty || journey.unloadedSteps.contains(journey.start.value) {
            // Already reported when loading.
        } else {
            diagnostics.error(
                C.unknownStep,
                "start step '\(journey.start.value)' is not a step of this journey\(Suggestion.hint(for: journey.start.value, in: stepIds))",
                at: journey.start.location)
        }
        let invariants = journey.invariants.compactMap { invariant($0) }
        if !journey.isIncomplete {
            ReachabilityRule.check(journey, into: &diagnostics)
            AuthRuleCheck.check(journey, handlers: handlers, all: all, into: &diagnostics)
        }
        guard let start, !diagnostics.hasErrors, !journey.isIncomplete, steps.count == journey.steps.count else {
            return nil
        }
        return CompiledJourney(
            source: journey, steps: steps, ends: journey.ends.map { CompiledEnd(id: $0.id.value, kind: $0.kind) },
            start: start, params: params, state: state, stored: stored, limits: limits, outputs: outputs,
            invariants: invariants, credentialSteps: credentialSteps,
            watchesCredential: !credentialSteps.isEmpty && !credentialFollowsFromSteps())
    }

    /// Whether the journey's steps alone keep every success end behind a credential: with the
    /// transitions of the outcomes that verify one taken away, no success end can be reached
    /// from the start (limits' `exceeded` included). Then no path can break
    /// ``ExplorationInvariant/credentialBeforeSuccess``, and runs need not watch for it.
    func credentialFollowsFromSteps() -> Bool {
        var next: [String: [String]] = [:]
        for step in journey.steps {
            let verifying = credentialSteps[step.id.value] ?? []
            var targets: [String] = []
            for (outcome, transition) in step.transitions where !verifying.contains(outcome.value) {
                targets += transition.branches.map(\.target.value)
            }
            targets += journey.limit(chargedBy: step)?.exceeded.branches.map(\.target.value) ?? []
            next[step.id.value] = targets
        }
        let successes = Set(journey.ends.filter { $0.kind == .success }.map(\.id.value))
        var seen: Set<String> = [journey.start.value]
        var queue = [journey.start.value]
        while let id = queue.popLast() {
            if successes.contains(id) { return false }
            for target in next[id] ?? [] where seen.insert(target).inserted { queue.append(target) }
        }
        return true
    }

    /// A limit's `max`: the number written, or an int expression over the journey's params,
    /// checked against the range with the params' defaults when they give one.
    mutating func maximum(_ limit: AttemptLimit) -> CompiledLimit.Maximum? {
        switch limit.max {
        case .fixed(let n): return .fixed(n)
        case .computed(let raw):
            let what = "'max' of limit '\(limit.name.value)'"
            let scope = TypeScope(params: journey)
            guard
                case .template(let template)? = compileValue(
                    raw, expected: TypeInfo(.int, secret: true), scope: scope, what: what)
            else { return nil }
            if template.typeCheck(in: scope).type?.secret == true {
                diagnostics.error(
                    C.secretLeak,
                    "\(what) cannot be computed from a secret: transcripts and screens show a limit's maximum",
                    at: raw.location)
                return nil
            }
            if case .success(.int(let n)) = journey.withDefaults(template), !NumberRange.attempts.contains(n) {
                diagnostics.error(
                    C.outOfRange,
                    "\(what) is \(n) with the params' defaults, outside 1 to 1000",
                    at: limit.maxLocation)
            }
            return .computed(template)
        }
    }

    /// Checks where a limit keeps the end of its lockout: a declared int, under `stored` when
    /// the counter is (so a restart cannot end a lockout), and not the counter itself.
    mutating func checkLockedUntil(_ limit: AttemptLimit) -> VariableReference? {
        guard let located = limit.lockedUntil else { return nil }
        let ref = located.value
        let declared = ref.scope == .stored ? journey.stored : journey.state
        guard let variable = declared.first(where: { $0.name.value == ref.name }) else {
            if journey.unloadedNames.contains(ref.description) { return nil }
            diagnostics.error(
                C.limitLockout,
                "'lockedUntil' names '\(ref)', which is not declared under '\(ref.scope.rawValue)'\(Suggestion.hint(for: ref.name, in: declared.map(\.name.value)))",
                at: located.location)
            return nil
        }
        if variable.type.type != .int {
            diagnostics.error(
                C.limitLockout,
                "'lockedUntil' '\(ref)' must be an int (seconds since 1970, as device.now), it is \(variable.type)",
                at: located.location)
            return nil
        }
        if ref == limit.counter.value {
            diagnostics.error(
                C.limitLockout, "'lockedUntil' must be another value than the counter '\(ref)'",
                at: located.location)
            return nil
        }
        if limit.counter.value.scope == .stored && ref.scope == .state {
            diagnostics.error(
                C.limitLockout,
                "'lockedUntil' '\(ref)' lives in this run only, but the counter is stored: a restart would end the lockout; keep it under 'stored'",
                at: located.location)
            return nil
        }
        return ref
    }

    mutating func declarations(_ list: [VariableDeclaration], _ what: String) -> [CompiledVariable] {
        list.map { decl in
            var value: Value?
            if let raw = decl.defaultValue {
                if case .constant(let v)? = compileValue(
                    raw, expected: decl.type, scope: TypeScope(journey: journey),
                    what: "default of \(what) '\(decl.name.value)'",
                    allowTemplates: false)
                {
                    value = v
                }
            }
            return CompiledVariable(name: decl.name.value, type: decl.type, defaultValue: value)
        }
    }

    // MARK: Invariants

    /// Checks an invariant's expressions: bool, over the journey's names and `step` and `end`;
    /// a `step == '…'` names a step or end of the journey, an `end == '…'` a kind of end.
    mutating func invariant(_ invariant: JourneyInvariant) -> CompiledInvariant? {
        var scope = base
        scope.declare("step", TypeInfo(.string))
        scope.declare("end", TypeInfo(.string))
        func compile(_ text: Located<String>, _ key: String) -> Expression? {
            switch Expression.parse(text.value) {
            case .failure(let error):
                diagnostics.error(error.id, error.message, at: text.location.advanced(by: error.offset))
                return nil
            case .success(let expression):
                let (type, errors) = expression.typeCheck(in: scope)
                report(errors, at: text.location, plain: true)
                guard errors.isEmpty else { return nil }
                if let type, type.type != .bool, type.type != .any {
                    diagnostics.error(
                        C.typeMismatch,
                        "'\(key)' of invariant '\(invariant.id.value)' must be a bool, this one is \(type.type)",
                        at: text.location)
                    return nil
                }
                var named = true
                for (name, value, offset) in expression.comparedNames() {
                    let known: [String]
                    switch name {
                    case "step": known = Array(targets.keys) + Array(journey.unloadedSteps)
                    case "end": known = EndKind.allCases.map(\.rawValue) + [""]
                    default: continue
                    }
                    guard !known.contains(value) else { continue }
                    named = false
                    let what = name == "step" ? "step or end of this journey" : "kind of end (success, failure, cancel)"
                    diagnostics.error(
                        C.unknownStep, "'\(value)' is not a \(what)\(Suggestion.hint(for: value, in: known))",
                        at: text.location.advanced(by: offset))
                }
                return named ? expression : nil
            }
        }
        let condition = compile(invariant.condition, invariant.form.rawValue)
        let after = invariant.after.map { compile($0, "after") }
        guard let condition, after ?? nil != nil || invariant.after == nil else { return nil }
        return CompiledInvariant(
            id: invariant.reportedId, summary: invariant.summary, form: invariant.form, condition: condition,
            after: after ?? nil, written: invariant.written)
    }

    // MARK: Transitions

    /// Reports a condition computed from a secret (`startsWith(outcome.pin, '7')`, a `<` on a
    /// secret): what it decides, which transcripts show, tells the secret bit by bit. A secret
    /// is compared with `==` or `!=` (or `len`, `matches`), whose results are not secret.
    mutating func secretCondition(_ type: TypeInfo?, _ text: String, at location: SourceLocation, shows: String) -> Bool
    {
        guard type?.secret == true else { return false }
        diagnostics.error(
            C.secretLeak,
            "the condition '\(ExpressionLexer.maskingLiterals(text))' is computed from a secret, and transcripts show \(shows): compare the secret with == or != (or len, matches), whose results are not secret",
            at: location)
        return true
    }

    /// A condition that reads nothing is the same on every run: false, its branch is never
    /// taken; true, none after it is (`- if: "false"`, `- if: 1 > 2`).
    mutating func constantCondition(_ expression: Expression, at location: SourceLocation, last: Bool) {
        struct Nothing: ValueProvider {
            func value(at path: [String]) -> Value? { nil }
        }
        guard expression.references.isEmpty, !expression.readsClock,
            case .bool(let holds)? = try? expression.evaluate(in: Nothing()).revealed
        else { return }
        if !holds {
            diagnostics.warning(
                C.constantCondition,
                "the condition '\(expression.source)' reads nothing and is always false: this branch is never taken; correct the condition or remove the branch",
                at: location)
        } else if !last {
            diagnostics.warning(
                C.constantCondition,
                "the condition '\(expression.source)' reads nothing and is always true: the branches after it are never taken; correct the condition, or make this branch the last one",
                at: location)
        }
    }

    /// - Parameter taken: the step and outcome the transition belongs to (nil for a limit's),
    ///   to prepare the transcript events of its branches.
    mutating func transition(
        _ transition: Transition, scope: TypeScope, what: String, taken: (step: String, outcome: String)? = nil
    ) -> CompiledTransition? {
        var branches: [CompiledBranch] = []
        var failed = false
        for (index, branch) in transition.branches.enumerated() {
            var condition: Expression?
            if let text = branch.condition {
                switch Expression.parse(text.value) {
                case .failure(let error):
                    diagnostics.error(error.id, error.message, at: text.location.advanced(by: error.offset))
                    failed = true
                case .success(let expression):
                    let (type, errors) = expression.typeCheck(in: scope)
                    report(errors, at: text.location, plain: true)
                    if let type, type.type != .bool, type.type != .any {
                        diagnostics.error(
                            C.typeMismatch, "a condition must be a bool, this one is \(type.type)", at: text.location)
                    }
                    failed =
                        secretCondition(type, text.value, at: text.location, shows: "which branch is taken") || failed
                    condition = expression
                    constantCondition(expression, at: text.location, last: index == transition.branches.count - 1)
                }
            }
            var assignments: [(target: VariableReference, value: CompiledValue)] = []
            for assignment in branch.assignments {
                let ref = assignment.target.value
                let declared = ref.scope == .stored ? journey.stored : journey.state
                guard let decl = declared.first(where: { $0.name.value == ref.name }) else {
                    failed = true
                    if journey.unloadedNames.contains(ref.description) { continue }
                    diagnostics.error(
                        C.unknownVariable,
                        "'\(ref)' is not declared under '\(ref.scope.rawValue)'\(Suggestion.hint(for: ref.name, in: declared.map(\.name.value)))",
                        at: assignment.target.location)
                    continue
                }
                if let v = compileValue(assignment.value, expected: decl.type, scope: scope, what: "'\(ref)'") {
                    assignments.append((ref, v))
                } else {
                    failed = true
                }
            }
            guard let target = targets[branch.target.value] else {
                failed = true
                if journey.unloadedSteps.contains(branch.target.value) { continue }
                diagnostics.error(
                    C.unknownStep,
                    "\(what) goes to '\(branch.target.value)', which is not a step or end of this journey\(Suggestion.hint(for: branch.target.value, in: targets.keys))",
                    at: branch.target.location)
                continue
            }
            let label = branch.isElse ? "else" : (branch.condition == nil ? "always" : "if \(index + 1)")
            let event = taken.map {
                JSONLinesEncoder.encodedEvent(
                    .transition(from: $0.step, outcome: $0.outcome, branch: label, to: branch.target.value))
            }
            branches.append(
                CompiledBranch(
                    condition: condition, label: label, assignments: assignments, target: target, event: event))
        }
        return failed ? nil : CompiledTransition(branches: branches)
    }

    // MARK: Values and texts

    /// Types a value as written against the type expected where it is written.
    mutating func compileValue(
        _ raw: RawValue, expected: TypeInfo, scope: TypeScope, what: String, allowTemplates: Bool = true
    ) -> CompiledValue? {
        switch raw {
        case .scalar(let text, let plain, let location):
            if text.contains("${") && allowTemplates {
                guard let template = parseTemplate(text, at: location, plain: plain) else { return nil }
                let (type, errors) = template.typeCheck(in: scope)
                report(errors, at: location, plain: plain)
                guard let type, errors.isEmpty else { return nil }
                if type.type != expected.type && type.type != .any && expected.type != .any {
                    // A secret's template may hold the secret written in: its literals not shown.
                    let shown = expected.secret ? ExpressionLexer.maskingLiterals(text) : text
                    diagnostics.error(
                        C.typeMismatch, "\(what) is \(expected.type), but '\(shown)' is \(type.type)", at: location)
                    return nil
                }
                if type.secret && !expected.secret {
                    diagnostics.error(
                        C.secretLeak,
                        "\(what) is not secret, but '\(ExpressionLexer.maskingLiterals(text))' is computed from a secret; declare it with 'secret: true'",
                        at: location)
                    return nil
                }
                return .template(template)
            }
            if expected.type == .list {
                diagnostics.error(C.typeMismatch, "\(what) is a list; write it as [a, b]", at: location)
                return nil
            }
            guard let value = LiteralParser.value(text, plain: plain, as: expected.type) else {
                // A secret's text is never shown, not even in a message about it.
                if expected.type == .duration, Duration.isTooLong(text) {
                    let problem = expected.secret ? "too long (secret, not shown)" : Duration.problem(with: text) ?? ""
                    diagnostics.error(C.outOfRange, "\(what): \(problem)", at: location)
                    return nil
                }
                let found = expected.secret ? "a value that is not one (secret, not shown)" : "'\(text)'"
                diagnostics.error(
                    C.typeMismatch, "\(what) is \(expected.type), found \(found)\(hint(for: text, expected.type))",
                    at: location)
                return nil
            }
            if plain && expected.type == .string && text.count > 1 && text.first == "0"
                && text.allSatisfy({ $0.isASCII && $0.isNumber })
            {
                diagnostics.warning(
                    C.leadingZero,
                    expected.secret
                        ? "quote this secret so that every YAML tool reads it as text (its leading zero kept); JourneyKit keeps it as a string"
                        : "quote '\(text)' so that every YAML tool reads it as text; JourneyKit keeps it as the string \"\(text)\"",
                    at: location)
            }
            return .constant(value.secret(if: expected.secret))
        case .list(let items, let location):
            guard expected.type == .list || expected.type == .any else {
                diagnostics.error(C.typeMismatch, "\(what) is \(expected.type), found a list", at: location)
                return nil
            }
            var values: [CompiledValue] = []
            for item in items {
                guard
                    let v = compileValue(
                        item, expected: TypeInfo(.string, secret: expected.secret), scope: scope,
                        what: "item of \(what)",
                        allowTemplates: allowTemplates)
                else { return nil }
                values.append(v)
            }
            if values.allSatisfy({ if case .constant = $0 { true } else { false } }) {
                let constants = values.map { if case .constant(let v) = $0 { v.revealed } else { Value.string("") } }
                return .constant(Value.list(constants).secret(if: expected.secret))
            }
            return .list(values)
        case .map(_, let location):
            diagnostics.error(C.typeMismatch, "\(what) is \(expected.type), found a mapping", at: location)
            return nil
        }
    }

    func hint(for text: String, _ type: ValueType) -> String {
        switch type {
        case .int where text.count > 1 && text.first == "0" && text.unicodeScalars.allSatisfy(\.isASCIIDigit):
            "; numbers are written without leading zeros"
        // Digits that reached here as text: quoted, or past what a whole number holds.
        case .int where !text.isEmpty && text.drop { $0 == "-" }.unicodeScalars.allSatisfy(\.isASCIIDigit):
            Int(text) == nil ? "; a whole number is from \(Int.min) to \(Int.max)" : "; write the number without quotes"
        // A bool that reached here as text was quoted.
        case .bool where ["true", "false"].contains(text): "; write \(text) without quotes"
        case .bool: LiteralParser.boolHint(text) ?? "; write true or false"
        case .duration: "; write \(Duration.rule)"
        default: ""
        }
    }

    mutating func parseTemplate(_ text: String, at location: SourceLocation, plain: Bool) -> Template? {
        switch Template.parse(text) {
        case .success(let t): return t
        case .failure(let error):
            diagnostics.error(error.id, error.message, at: location.advanced(by: error.offset + (plain ? 0 : 1)))
            return nil
        }
    }

    mutating func report(_ errors: [ExpressionError], at location: SourceLocation, plain: Bool) {
        for error in errors {
            diagnostics.error(error.id, error.message, at: location.advanced(by: error.offset + (plain ? 0 : 1)))
        }
    }

    mutating func check(_ screen: Screen) {
        for text in [screen.title, screen.text].compactMap({ $0 }) { check(text, scope: base) }
        for action in screen.actions { check(action.label, scope: base) }
        for field in screen.fields {
            if let label = field.label { check(label, scope: base) }
            if let pattern = field.pattern, (try? NSRegularExpression(pattern: pattern.value)) == nil {
                diagnostics.error(
                    C.badPattern, "pattern '\(pattern.value)' is not a valid regular expression", at: pattern.location)
            }
        }
    }

    mutating func check(_ text: LocalizedText, scope: TypeScope) {
        let locales = text.entries.compactMap(\.locale)
        if !locales.isEmpty && !locales.contains(journey.defaultLocale) {
            diagnostics.error(
                C.textLocale, "text has no '\(journey.defaultLocale)' version, the journey's default locale",
                at: text.location)
        }
        for entry in text.entries {
            if let locale = entry.locale, !journey.locales.contains(locale) {
                diagnostics.warning(
                    C.textLocale,
                    "locale '\(locale)' is not in the journey's locales (\(journey.locales.joined(separator: ", ")))",
                    at: entry.location)
            }
            if entry.template.isBlank {
                diagnostics.warning(
                    C.emptyText,
                    "the text is empty: screens and docs would show nothing here; write it, or leave out the key where it may be left out",
                    at: entry.location)
            }
            let (_, errors) = entry.template.typeCheck(in: scope)
            report(errors, at: entry.location, plain: false)
        }
    }
}

extension Journey {
    /// A limit's maximum in a run with the params' defaults: the number written, or its
    /// expression evaluated with the defaults; nil when that needs a param without one.
    public func defaultMaximum(of limit: AttemptLimit) -> Int? {
        switch limit.max {
        case .fixed(let n): return n
        case .computed(let raw):
            guard case .scalar(let text, _, _) = raw, case .success(let template) = Template.parse(text),
                case .success(.int(let n))? = withDefaults(template)
            else { return nil }
            return n
        }
    }

    /// A template's value with the params' defaults, when every param it reads has one.
    func withDefaults(_ template: Template) -> Result<Value, EvaluationError>? {
        var defaults: [String: Value] = [:]
        for p in params {
            guard case .scalar(let text, let plain, _)? = p.defaultValue,
                let value = LiteralParser.value(text, plain: plain, as: p.type.type)
            else { continue }
            defaults[p.name.value] = value
        }
        do {
            return .success(try template.evaluate(in: ParamValues(values: defaults)).revealed)
        } catch {
            return .failure(error)
        }
    }
}
