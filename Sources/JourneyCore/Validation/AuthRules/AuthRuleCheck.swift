/// The static half of the auth rules (``AuthRule``): finds where a journey breaks one, as
/// warnings with the rule's id, except the rules the journey declares under `exceptions:`.
/// An exception the journey does not need is a warning too, so that none outlives its reason.
struct AuthRuleCheck {
    static let unusedException = "exception.unused"

    let journey: Journey
    let handlers: HandlerRegistry
    /// The project's journeys by id: the rules look through a `call` into the journey it runs.
    let all: [String: Journey]
    /// The journey's steps by id.
    let steps: [String: Step]
    private(set) var findings: [(rule: AuthRule, message: String, at: SourceLocation)] = []

    init(journey: Journey, handlers: HandlerRegistry, all: [String: Journey]) {
        self.journey = journey
        self.handlers = handlers
        self.all = all
        steps = Dictionary(journey.steps.map { ($0.id.value, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Checks `journey` and reports what it finds into `diagnostics`.
    static func check(
        _ journey: Journey, handlers: HandlerRegistry, all: [String: Journey] = [:],
        into diagnostics: inout DiagnosticList
    ) {
        var check = AuthRuleCheck(journey: journey, handlers: handlers, all: all)
        check.literalSecrets()
        check.redirectURIs()
        check.serverAddresses()
        check.addressesGivenToCalls()
        check.pinCreation()
        check.pinsInTheStore()
        check.biometry()
        check.counters()
        check.refusals()
        check.pinResets()
        check.captures()
        check.oneTimeCodes()
        check.tokensInURLs()
        check.typedInClear()
        var used = Set<Int>()
        for finding in check.findings {
            // The exception that holds for it: one for the whole journey, or one naming its step.
            let step = check.step(at: finding.at)
            if let index = journey.exceptions.firstIndex(where: { exception in
                exception.rule.value == finding.rule.rawValue
                    && (exception.steps.map { steps in step.map { id in steps.contains { $0.value == id } } ?? false }
                        ?? true)
            }) {
                used.insert(index)
                continue
            }
            diagnostics.warning(finding.rule.rawValue, finding.message, at: finding.at)
        }
        // `journey explore` judges the exceptions to its invariants; but one that can never
        // apply is said here.
        if let exception = journey.exceptions.first(where: {
            $0.rule.value == ExplorationInvariant.credentialBeforeSuccess.rawValue
        }), !check.checksACredential() {
            diagnostics.warning(
                unusedException,
                "the journey declares an exception to '\(exception.rule.value)', but neither it nor a journey it calls has a step that verifies a credential, so the rule never applies to it; remove it",
                at: exception.rule.location)
        }
        for (index, exception) in journey.exceptions.enumerated()
        where !used.contains(index) && AuthRule(rawValue: exception.rule.value) != nil {
            let steps =
                exception.steps.map {
                    " at step\($0.count == 1 ? "" : "s") " + $0.map { "'\($0.value)'" }.joined(separator: ", ")
                } ?? ""
            diagnostics.warning(
                unusedException,
                "the journey declares an exception to '\(exception.rule.value)'\(steps) but breaks no such rule there; remove it",
                at: exception.rule.location)
        }
    }

    /// Whether the journey, or a journey it calls, has a step that verifies a credential (marked
    /// `verifies`, or a handler that says it does): where ``ExplorationInvariant/credentialBeforeSuccess``
    /// applies. A call to a journey that is not loaded may: it counts.
    func checksACredential() -> Bool {
        var seen: Set<String> = [journey.id.value]
        var queue = [journey]
        while let next = queue.popLast() {
            for step in next.steps {
                if step.verifies != nil || contract(step)?.verifiedOutcomes.isEmpty == false { return true }
                guard case .call(let id) = step.kind, seen.insert(id.value).inserted else { continue }
                guard let callee = all[id.value] else { return true }
                queue.append(callee)
            }
        }
        return false
    }

    /// The step whose lines hold `location`: the last step written at or before it, while
    /// before the journey's first end; nil above the steps (a limit) or among the ends.
    func step(at location: SourceLocation) -> String? {
        let firstEnd = journey.ends.map(\.id.location.line).min() ?? Int.max
        let ordered = journey.steps.sorted { $0.id.location.line < $1.id.location.line }
        guard let first = ordered.first, location.line >= first.id.location.line,
            firstEnd < first.id.location.line || location.line < firstEnd
        else { return nil }
        return ordered.last { $0.id.location.line <= location.line }?.id.value
    }

    mutating func find(_ rule: AuthRule, _ message: String, at location: SourceLocation) {
        findings.append((rule, message, location))
    }

    // MARK: - The steps, as the rules see them

    func contract(_ step: Step) -> HandlerContract? {
        step.handlerID.flatMap { handlers[$0]?.contract }
    }

    /// A parameter written as one literal text (not a template).
    func literal(_ value: RawValue?) -> String? {
        guard case .scalar(let text, _, _)? = value, !text.contains("${") else { return nil }
        return text
    }

    /// Whether a value is written into the journey: literal text, or a template that reads
    /// nothing but constants and params that are not secret (`${'12' + '34'}`,
    /// `${params.defaultPin}`): what it gives is in the file, whatever it computes.
    func writtenIn(_ value: RawValue?) -> Bool { writtenIn(value, constants: constantState) }

    /// ``writtenIn(_:)``, with the state values written into the journey (``constantState``)
    /// given.
    func writtenIn(_ value: RawValue?, constants: Set<String>) -> Bool {
        guard case .scalar(let text, _, _)? = value, !text.isEmpty else { return false }
        guard text.contains("${") else { return true }
        guard case .success(let template) = Template.parse(text) else { return false }
        let plainParams = Set(journey.params.filter { !$0.type.secret }.map(\.name.value))
        for case .expression(let expression, _) in template.parts {
            for path in expression.references {
                guard path.count == 2 else { return false }
                if path[0] == "params", plainParams.contains(path[1]) { continue }
                if path[0] == "state", constants.contains(path[1]) { continue }
                return false
            }
        }
        return true
    }

    /// The state values that only ever hold text written into the journey: a written default,
    /// and what transitions set them to written in too (`set: { state.code: "4826" }`, or from
    /// another such value), some of it not empty (a "service PIN" kept in state, however it
    /// gets there, is written into the journey). Emptied (`""`) holds nothing.
    var constantState: Set<String> {
        var branches: [Branch] = journey.steps.flatMap { $0.transitions.flatMap(\.transition.branches) }
        branches += journey.limits.flatMap(\.exceeded.branches)
        let assignments = branches.flatMap(\.assignments).filter { $0.target.value.scope == .state }
        func empty(_ value: RawValue?) -> Bool { literal(value)?.isEmpty ?? false }
        // Those whose default is written in or absent, less, until none is left to remove, those
        // set to what is not written in given the others. (A secret one set to written text is
        // reported where it is set.)
        var candidates = Set(
            journey.state.filter { declaration in
                !declaration.type.secret
                    && (declaration.defaultValue == nil || literal(declaration.defaultValue) != nil)
            }.map(\.name.value))
        var changed = true
        while changed {
            changed = false
            for assignment in assignments where candidates.contains(assignment.target.value.name) {
                guard !empty(assignment.value), !writtenIn(assignment.value, constants: candidates) else { continue }
                candidates.remove(assignment.target.value.name)
                changed = true
            }
        }
        return candidates.filter { name in
            let declared = journey.state.first { $0.name.value == name }?.defaultValue
            return (literal(declared).map { !$0.isEmpty } ?? false)
                || assignments.contains { $0.target.value.name == name && !empty($0.value) }
        }
    }

    /// A parameter's text: written literally, or as a template of text and `${params.NAME}`
    /// with each param's default (`"${params.appHost}/callback"`).
    ///
    /// `given` holds what a caller gives this journey's params (the text it resolves to in the
    /// caller), read in place of their defaults.
    func resolved(_ value: RawValue?, given: [String: String] = [:]) -> String? {
        if let text = literal(value) { return text }
        guard case .scalar(let text, _, _)? = value, case .success(let template) = Template.parse(text) else {
            return nil
        }
        var result = ""
        for part in template.parts {
            switch part {
            case .text(let text): result += text
            case .expression(let expression, _):
                if let param = param(readBy: expression), let value = given[param.name.value] {
                    result += value
                } else if let value = literal(param(readBy: expression)?.defaultValue) {
                    result += value
                } else if let value = constant(expression, given: given) {
                    result += value
                } else {
                    return nil
                }
            }
        }
        return result
    }

    /// What an expression of constants and params with written defaults gives, as text
    /// (`${false}`, `${1 == 2}`, `${!params.warn}` with its default); nil for one that reads
    /// anything else, or cannot be worked out before a run.
    func constant(_ expression: Expression, given: [String: String] = [:]) -> String? {
        var values: [String: Value] = [:]
        for path in expression.references {
            if path.count == 2, path[0] == "params", let text = given[path[1]],
                let param = journey.params.first(where: { $0.name.value == path[1] }), param.type.type == .string
            {
                values[path[1]] = .string(text)
                continue
            }
            guard path.count == 2, path[0] == "params",
                let param = journey.params.first(where: { $0.name.value == path[1] }),
                case .scalar(let text, let plain, _)? = param.defaultValue,
                let value = LiteralParser.value(text, plain: plain, as: param.type.type)
            else { return nil }
            values[path[1]] = value
        }
        guard let value = try? expression.evaluate(in: ParamValues(values: values)) else { return nil }
        switch value {
        case .string(let text): return text
        case .bool(let flag): return flag ? "true" : "false"
        case .int(let n): return String(n)
        default: return nil
        }
    }

    /// The store key a step of this journey names (`key: pin`, or `key: "${params.key}"` by
    /// the param's default): what `pin.verify` checks and `pin.save` seals under.
    func key(of step: Step) -> String? { resolved(step.parameter("key")) }

    /// The journey's param an expression is, when it is one alone (`${params.issuer}`).
    func param(readBy expression: Expression) -> VariableDeclaration? {
        let path = expression.source.trimmingCharacters(in: .whitespaces).split(separator: ".")
        guard path.count == 2, path[0] == "params" else { return nil }
        return journey.params.first { $0.name.value == path[1] }
    }

    /// Whether a step checks a credential: one the user types again (its handler's
    /// ``HandlerContract/credentialCheck``), a sign-in (outcomes that verify), or one the
    /// journey marks (`verifies:`).
    func checksCredential(_ step: Step) -> Bool {
        if step.verifies != nil { return true }
        guard let contract = contract(step) else { return false }
        return contract.credentialCheck != nil || !contract.verifiedOutcomes.isEmpty
    }

    /// The outcomes by which a way through `step` has a credential verified: those its
    /// `verifies:` names (its handler's sign-in outcomes when it names none), its handler's
    /// sign-in outcomes (`oidc.token`'s `ok`), or the credential its handler checks being
    /// right (`pin.verify`'s `correct`); nil for a step that checks none. A way on by any other
    /// outcome (a wrong PIN, a password refused, a cancel) verified nothing.
    func verifiedOutcomes(_ step: Step) -> Set<String>? {
        let contract = contract(step)
        if let mark = step.verifies {
            return mark.outcomes.isEmpty ? Set(contract?.verifiedOutcomes ?? []) : Set(mark.outcomes.map(\.value))
        }
        guard let contract else { return nil }
        if !contract.verifiedOutcomes.isEmpty { return Set(contract.verifiedOutcomes) }
        return contract.credentialCheck.map { Set($0.accepted) }
    }

    /// Where a way goes on from `step` of `journey` (its transitions and its limit's
    /// `exceeded`, a spent limit verifying nothing), leaving out the outcomes in `closed`.
    func branches(from step: Step, in journey: Journey, closed: Set<String>) -> [Branch] {
        guard !closed.isEmpty else { return journey.branches(from: step) }
        return step.transitions.filter { !closed.contains($0.outcome.value) }.flatMap(\.transition.branches)
            + (journey.limit(chargedBy: step)?.exceeded.branches ?? [])
    }

    /// Whether `step` wipes the store (`session.clear`) and with it one of `keys`: its `keep`
    /// leaves one out. With no keys known (a secret kept in state), any wipe counts, as far as
    /// the rules can tell.
    func wipes(_ step: Step, removing keys: Set<String>) -> Bool {
        guard step.handlerID == "session.clear" else { return false }
        guard !keys.isEmpty, case .list(let kept, _)? = step.parameter("keep") else { return true }
        return !keys.isSubset(of: Set(kept.compactMap(literal)))
    }

    /// Whether a step may wait for the user, where the app can be killed and opened again (a
    /// refinement for pinning asks nothing).
    func waits(_ step: Step) -> Bool {
        guard let contract = contract(step) else { return false }
        return !contract.inputs.isEmpty || !contract.refinedInputs.isEmpty || contract.actionsAreOutcomes
    }

    /// The journey a `call` step runs, walked from its start as a path through the call goes:
    /// not past a step `stops` accepts (a wipe), nor on by the outcomes `closed` gives of a step
    /// (by default those that verify a credential: a sign-in ends the way, a password refused
    /// goes on; nil stops the way at the step). The steps it passes, and the ends it reaches
    /// that way, whose transitions of the call step the path goes on by; a journey it calls is
    /// walked the same way. Nil when one of them is not in the project (nothing is known of what
    /// it does), and for a step that calls nothing.
    func walk(
        calledBy step: Step, stoppingAt stops: (Step) -> Bool, closed: ((Step) -> Set<String>?)? = nil,
        visiting: Set<String> = []
    ) -> (steps: [Step], ends: Set<String>)? {
        let closed = closed ?? { verifiedOutcomes($0) ?? [] }
        guard case .call(let id) = step.kind, !visiting.contains(id.value), let called = all[id.value] else {
            return nil
        }
        let byId = Dictionary(called.steps.map { ($0.id.value, $0) }, uniquingKeysWith: { first, _ in first })
        let endIds = Set(called.ends.map(\.id.value))
        var passed: [Step] = []
        var ends = Set<String>()
        var seen = Set<String>()
        var queue = [called.start.value]
        while let next = queue.popLast() {
            guard seen.insert(next).inserted else { continue }
            if endIds.contains(next) {
                ends.insert(next)
                continue
            }
            guard let inner = byId[next], !stops(inner), let shut = closed(inner) else { continue }
            if case .call = inner.kind {
                guard
                    let nested = walk(
                        calledBy: inner, stoppingAt: stops, closed: closed, visiting: visiting.union([id.value]))
                else {
                    return nil
                }
                passed += nested.steps
                for (outcome, transition) in inner.transitions
                where nested.ends.contains(outcome.value) && !shut.contains(outcome.value) {
                    queue += transition.branches.map(\.target.value)
                }
                continue
            }
            passed.append(inner)
            queue += branches(from: inner, in: called, closed: shut).map(\.target.value)
        }
        return (passed, ends)
    }

    /// The targets of the branches a `call` step takes after the ends in `ends`.
    func branches(of step: Step, after ends: Set<String>) -> [Branch] {
        step.transitions.filter { ends.contains($0.outcome.value) }.flatMap(\.transition.branches)
    }

    /// Where a step can go next: every transition's targets, and its limit's `exceeded`.
    func successors(_ step: Step) -> [String] {
        journey.branches(from: step).map(\.target.value)
    }

    /// The steps and ends reachable from `targets`, not going through a step `stop` accepts.
    func reachable(from targets: [String], stoppingAt stop: (Step) -> Bool) -> Set<String> {
        var seen = Set<String>()
        var queue = targets
        while let id = queue.popLast() {
            guard seen.insert(id).inserted, let step = steps[id], !stop(step) else { continue }
            queue += successors(step)
        }
        return seen
    }

    /// Handlers whose outcome data `pin` is a PIN as the user typed it.
    static let pinHandlers: Set<String> = ["pin.entry", "pin.repeat", "ui.pin"]

    /// Every assignment of the journey, with whether its step's outcome data `pin` is a PIN the
    /// user typed.
    var assignments: [(assignment: Assignment, fromPIN: Bool)] {
        journey.steps.flatMap { step in
            step.transitions.flatMap(\.transition.branches).flatMap(\.assignments).map {
                (assignment: $0, fromPIN: step.handlerID.map(Self.pinHandlers.contains) ?? false)
            }
        }
    }

    /// The journey's state and stored values declared secret, as `set:` names them
    /// (`state.password`, `stored.token`).
    var secretVariables: Set<String> {
        Set(
            journey.state.filter(\.type.secret).map { "state.\($0.name.value)" }
                + journey.stored.filter(\.type.secret).map { "stored.\($0.name.value)" })
    }

    /// The state values that hold a PIN the user typed in this run, directly or through state.
    var typedPINState: Set<String> {
        let typed = assignments.filter { assignment, fromPIN in
            fromPIN && assignment.target.value.scope == .state
                && assignment.value.carriedReferences.contains(["outcome", "pin"])
        }
        return statesCarrying(Set(typed.map(\.assignment.target.value.name)))
    }

    /// `held` (state values' names) and every state value a transition sets from one of them,
    /// through as many as it takes: where what they hold goes.
    func statesCarrying(_ held: Set<String>) -> Set<String> {
        let assignments = self.assignments.map(\.assignment).filter { $0.target.value.scope == .state }
        var holds = held
        var changed = true
        while changed {
            changed = false
            for assignment in assignments where !holds.contains(assignment.target.value.name) {
                guard
                    assignment.value.carriedReferences.contains(where: {
                        $0.count == 2 && $0[0] == "state" && holds.contains($0[1])
                    })
                else { continue }
                holds.insert(assignment.target.value.name)
                changed = true
            }
        }
        return holds
    }

    /// Whether `step` asks again for a PIN the same person has just chosen, to confirm it: a
    /// check against state that holds the PIN typed (`typed`, ``typedPINState``), entered
    /// straight from the pad it was typed on (``confirms(_:_:)``).
    func confirmsChosenPIN(_ step: Step, typed: Set<String>) -> Bool {
        guard let read = step.checkedAgainst, !read.isEmpty else { return false }
        return read.allSatisfy { $0.hasPrefix("state.") && typed.contains(String($0.dropFirst("state.".count))) }
            && confirms(step, read)
    }

    /// Whether `step` is entered straight from a PIN pad whose transition sets one of `read`
    /// (`state.NAME`) from the PIN typed there: it asks for the same PIN again, to confirm it.
    func confirms(_ step: Step, _ read: Set<String>) -> Bool {
        journey.steps.contains { pad in
            guard let handler = pad.handlerID, Self.pinHandlers.contains(handler) else { return false }
            return pad.transitions.flatMap(\.transition.branches).contains { branch in
                branch.target.value == step.id.value
                    && branch.assignments.contains {
                        read.contains($0.target.value.description) && $0.value.references.contains(["outcome", "pin"])
                    }
            }
        }
    }
}
