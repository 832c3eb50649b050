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
    private let steps: [String: Step]
    private(set) var findings: [(rule: AuthRule, message: String, at: SourceLocation)] = []

    /// Checks `journey` and reports what it finds into `diagnostics`.
    static func check(
        _ journey: Journey, handlers: HandlerRegistry, all: [String: Journey] = [:],
        into diagnostics: inout DiagnosticList
    ) {
        var check = AuthRuleCheck(
            journey: journey, handlers: handlers, all: all,
            steps: Dictionary(journey.steps.map { ($0.id.value, $0) }, uniquingKeysWith: { first, _ in first }))
        check.literalSecrets()
        check.redirectURIs()
        check.serverAddresses()
        check.pinCreation()
        check.pinsInTheStore()
        check.biometry()
        check.counters()
        check.refusals()
        check.pinResets()
        check.captures()
        check.oneTimeCodes()
        // A step named by an exception is one of the journey's.
        let ids = journey.steps.map(\.id.value)
        for exception in journey.exceptions {
            for step in exception.steps ?? [] where !ids.contains(step.value) {
                diagnostics.error(
                    unknownExceptionStep,
                    "the exception to '\(exception.rule.value)' names step '\(step.value)', which is not a step of this journey\(Suggestion.hint(for: step.value, in: ids))",
                    at: step.location)
            }
        }
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
        // `journey explore` judges the exceptions to its invariants.
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

    static let unknownExceptionStep = "exception.step"

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

    private mutating func find(_ rule: AuthRule, _ message: String, at location: SourceLocation) {
        findings.append((rule, message, location))
    }

    // MARK: - The steps, as the rules see them

    private func handlerID(_ step: Step) -> String? { step.handlerID }

    private func contract(_ step: Step) -> HandlerContract? {
        step.handlerID.flatMap { handlers[$0]?.contract }
    }

    private func parameter(_ step: Step, _ name: String) -> RawValue? { step.parameter(name) }

    /// A parameter written as one literal text (not a template).
    private func literal(_ value: RawValue?) -> String? {
        guard case .scalar(let text, _, _)? = value, !text.contains("${") else { return nil }
        return text
    }

    /// Whether a value is written into the journey: literal text, or a template that reads
    /// nothing but constants and params that are not secret (`${'12' + '34'}`,
    /// `${params.defaultPin}`): what it gives is in the file, whatever it computes.
    private func writtenIn(_ value: RawValue?) -> Bool {
        guard case .scalar(let text, _, _)? = value, !text.isEmpty else { return false }
        guard text.contains("${") else { return true }
        guard case .success(let template) = Template.parse(text) else { return false }
        let plainParams = Set(journey.params.filter { !$0.type.secret }.map(\.name.value))
        for case .expression(let expression, _) in template.parts {
            for path in expression.references {
                guard path.count == 2 else { return false }
                if path[0] == "params", plainParams.contains(path[1]) { continue }
                if path[0] == "state", constantState.contains(path[1]) { continue }
                return false
            }
        }
        return true
    }

    /// The state values that keep their written default for the whole run: declared with one
    /// and set by no transition (a "service PIN" kept in state is written into the journey).
    private var constantState: Set<String> {
        var branches: [Branch] = journey.steps.flatMap { $0.transitions.flatMap(\.transition.branches) }
        branches += journey.limits.flatMap(\.exceeded.branches)
        var assigned = Set<String>()
        for assignment in branches.flatMap(\.assignments) where assignment.target.value.scope == .state {
            assigned.insert(assignment.target.value.name)
        }
        return Set(
            journey.state.filter { declaration in
                // An empty default holds nothing ("no token yet").
                guard let text = literal(declaration.defaultValue), !text.isEmpty else { return false }
                return !assigned.contains(declaration.name.value)
            }.map(\.name.value))
    }

    /// A parameter's text: written literally, or as a template of text and `${params.NAME}`
    /// with each param's default (`"${params.appHost}/callback"`).
    private func resolved(_ value: RawValue?) -> String? {
        if let text = literal(value) { return text }
        guard case .scalar(let text, _, _)? = value, case .success(let template) = Template.parse(text) else {
            return nil
        }
        var result = ""
        for part in template.parts {
            switch part {
            case .text(let text): result += text
            case .expression(let expression, _):
                let path = expression.source.trimmingCharacters(in: .whitespaces).split(separator: ".")
                guard path.count == 2, path[0] == "params",
                    let value = literal(journey.params.first { $0.name.value == path[1] }?.defaultValue)
                else { return nil }
                result += value
            }
        }
        return result
    }

    /// Whether a step checks a credential: one the user types again (its handler's
    /// ``HandlerContract/credentialCheck``), a sign-in (outcomes that verify), or one the
    /// journey marks (`verifies:`).
    private func checksCredential(_ step: Step) -> Bool {
        if step.verifies != nil { return true }
        guard let contract = contract(step) else { return false }
        return contract.credentialCheck != nil || !contract.verifiedOutcomes.isEmpty
    }

    /// Whether a step may wait for the user, where the app can be killed and opened again (a
    /// refinement for pinning asks nothing).
    private func waits(_ step: Step) -> Bool {
        guard let contract = contract(step) else { return false }
        return !contract.inputs.isEmpty || !contract.refinedInputs.isEmpty || contract.actionsAreOutcomes
    }

    /// The journey a `call` step runs, walked from its start as a path through the call goes:
    /// not past a step `stops` accepts (a sign-in, a wipe). The steps it passes, and the ends it
    /// reaches that way, whose transitions of the call step the path goes on by; a journey it
    /// calls is walked the same way. Nil when one of them is not in the project (nothing is
    /// known of what it does), and for a step that calls nothing.
    private func walk(
        calledBy step: Step, stoppingAt stops: (Step) -> Bool, visiting: Set<String> = []
    ) -> (steps: [Step], ends: Set<String>)? {
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
            guard let inner = byId[next], !stops(inner) else { continue }
            if case .call = inner.kind {
                guard let nested = walk(calledBy: inner, stoppingAt: stops, visiting: visiting.union([id.value])) else {
                    return nil
                }
                passed += nested.steps
                for (outcome, transition) in inner.transitions where nested.ends.contains(outcome.value) {
                    queue += transition.branches.map(\.target.value)
                }
                continue
            }
            passed.append(inner)
            queue += called.branches(from: inner).map(\.target.value)
        }
        return (passed, ends)
    }

    /// The targets of the branches a `call` step takes after the ends in `ends`.
    private func branches(of step: Step, after ends: Set<String>) -> [Branch] {
        step.transitions.filter { ends.contains($0.outcome.value) }.flatMap(\.transition.branches)
    }

    /// Where a step can go next: every transition's targets, and its limit's `exceeded`.
    private func successors(_ step: Step) -> [String] {
        journey.branches(from: step).map(\.target.value)
    }

    /// The steps and ends reachable from `targets`, not going through a step `stop` accepts.
    private func reachable(from targets: [String], stoppingAt stop: (Step) -> Bool) -> Set<String> {
        var seen = Set<String>()
        var queue = targets
        while let id = queue.popLast() {
            guard seen.insert(id).inserted, let step = steps[id], !stop(step) else { continue }
            queue += successors(step)
        }
        return seen
    }

    // MARK: - The rules

    /// ``AuthRule/literalSecret``: a secret parameter, declaration default or assignment
    /// written as literal text.
    private mutating func literalSecrets() {
        for step in journey.steps {
            guard let contract = contract(step) else { continue }
            for (name, value) in step.with {
                // A parameter with a stand-in of its own (an HTTP body shows its size) is never
                // recorded whatever it holds; it is not a secret by nature.
                guard let spec = contract.parameters.first(where: { $0.name == name.value }), spec.shown == nil,
                    case .value(let type) = spec.kind, type.secret, writtenIn(value)
                else { continue }
                find(
                    .literalSecret,
                    "'\(name.value)' of step '\(step.id.value)' is a secret written into the journey; a secret comes from the user, the device or a server (a template such as ${state.newPin})",
                    at: value.location)
            }
        }
        let declarations: [(String, [VariableDeclaration])] = [
            ("param", journey.params), ("state value", journey.state), ("stored value", journey.stored),
        ]
        for (what, list) in declarations {
            for declaration in list where declaration.type.secret {
                guard let value = declaration.defaultValue, let text = literal(value), !text.isEmpty else { continue }
                find(
                    .literalSecret,
                    "\(what) '\(declaration.name.value)' is secret but its default is written into the journey; leave the default out",
                    at: value.location)
            }
        }
        let secretVariables = Set(
            journey.state.filter(\.type.secret).map { "state.\($0.name.value)" }
                + journey.stored.filter(\.type.secret).map { "stored.\($0.name.value)" })
        for step in journey.steps {
            for branch in step.transitions.flatMap(\.transition.branches) {
                for assignment in branch.assignments where secretVariables.contains(assignment.target.value.description)
                {
                    guard writtenIn(assignment.value) else { continue }
                    find(
                        .literalSecret,
                        "the secret \(assignment.target.value) is set to text written into the journey; set it from what the user, the device or a server gives",
                        at: assignment.value.location)
                }
            }
        }
    }

    static let redirectParameters: Set<String> = ["redirectUri", "postLogoutRedirectUri", "callbackUrl"]

    /// The handlers that talk to an authorization server: every address a step of theirs is
    /// given is the server's.
    static let serverHandlerPrefixes = ["oidc.", "tinkoff."]

    /// ``AuthRule/plainHTTP``: an address given to a handler that talks to an authorization
    /// server, plain http to another machine.
    private mutating func serverAddresses() {
        for step in journey.steps {
            guard let handler = handlerID(step), Self.serverHandlerPrefixes.contains(where: handler.hasPrefix) else {
                continue
            }
            for (name, value) in step.with where !Self.redirectParameters.contains(name.value) {
                guard let text = resolved(value), let problem = AuthRule.endpointProblem(text) else { continue }
                find(.plainHTTP, "'\(name.value)' of step '\(step.id.value)' \(problem)", at: value.location)
            }
        }
    }

    /// ``AuthRule/redirectURI``: plain http to a host that is not a loopback IP, or `localhost`.
    private mutating func redirectURIs() {
        for step in journey.steps {
            for (name, value) in step.with where Self.redirectParameters.contains(name.value) {
                guard let text = resolved(value), let problem = AuthRule.redirectProblem(text) else { continue }
                find(.redirectURI, "'\(name.value)' of step '\(step.id.value)' \(problem)", at: value.location)
            }
        }
    }

    /// ``AuthRule/weakPIN`` and ``AuthRule/pinReuse``: PIN creation without a weak-PIN policy,
    /// and a PIN change that does not check the new PIN against the old.
    private mutating func pinCreation() {
        let saves = journey.steps.filter { handlerID($0) == "pin.save" }
        guard !saves.isEmpty else { return }
        let entries = journey.steps.filter { handlerID($0) == "pin.entry" }
        for step in entries {
            // A template decides when the step runs; only a policy left out or switched off
            // (literally, or by a param's default) is reported.
            let policy = parameter(step, "warnWeak")
            guard policy == nil || resolved(policy) == "false" else { continue }
            find(
                .weakPIN,
                "step '\(step.id.value)' creates a PIN with no weak-PIN policy: give pin.entry 'warnWeak: true' and handle 'weak' (NIST SP 800-63B 5.1.1.2 asks to refuse repetitive, sequential and common secrets)",
                at: step.id.location)
        }
        // A change: a new PIN chosen after the one stored under the same key was verified.
        let savedKeys = Set(saves.compactMap { literal(parameter($0, "key")) })
        for verify in journey.steps where handlerID(verify) == "pin.verify" {
            guard let key = literal(parameter(verify, "key")), savedKeys.contains(key) else { continue }
            let afterCorrect = verify.transitions.filter { $0.outcome.value == "correct" }.flatMap {
                $0.transition.branches.map(\.target.value)
            }
            // Not through a wipe (the PIN is gone: the next is a first one) nor another check
            // of the PIN (a later unlock, whose own `correct` is looked at in turn).
            let reached = reachable(from: afterCorrect) { next in
                ["pin.verify", "session.clear"].contains(handlerID(next) ?? "")
            }
            for step in entries where reached.contains(step.id.value) {
                // Only a PIN chosen for the key verified: one sealed under another key (a
                // payment PIN beside the app's) is another PIN.
                let sealed = reachable(from: successors(step)) { handlerID($0) == "pin.save" }
                    .compactMap { steps[$0] }.filter { handlerID($0) == "pin.save" }
                    .map { literal(parameter($0, "key")) }
                if !sealed.isEmpty, !sealed.contains(where: { $0 == nil || $0 == key }) { continue }
                let against = parameter(step, "differentFrom")
                if against == nil {
                    find(
                        .pinReuse,
                        "step '\(step.id.value)' chooses a new PIN for '\(key)' after the old one was verified, but does not check that it differs: give pin.entry 'differentFrom: \(key)' and handle 'same'",
                        at: step.id.location)
                } else if let other = resolved(against), other != key {
                    find(
                        .pinReuse,
                        "step '\(step.id.value)' chooses a new PIN for '\(key)' but checks that it differs from the PIN under '\(other)', not from the one it replaces: give pin.entry 'differentFrom: \(key)'",
                        at: step.id.location)
                }
            }
        }
    }

    /// Handlers whose outcome data `pin` is a PIN as the user typed it.
    static let pinHandlers: Set<String> = ["pin.entry", "pin.repeat", "ui.pin"]

    /// Every assignment of the journey, with whether its step's outcome data `pin` is a PIN the
    /// user typed.
    private var assignments: [(assignment: Assignment, fromPIN: Bool)] {
        journey.steps.flatMap { step in
            step.transitions.flatMap(\.transition.branches).flatMap(\.assignments).map {
                (assignment: $0, fromPIN: handlerID(step).map(Self.pinHandlers.contains) ?? false)
            }
        }
    }

    /// The state values that hold a PIN the user typed in this run, directly or through state.
    private var typedPINState: Set<String> {
        let assignments = self.assignments
        var holdsPIN = Set<String>()
        var changed = true
        while changed {
            changed = false
            for (assignment, fromPIN) in assignments where assignment.target.value.scope == .state {
                let name = assignment.target.value.name
                guard !holdsPIN.contains(name) else { continue }
                let paths = assignment.value.references
                if (fromPIN && paths.contains(["outcome", "pin"]))
                    || paths.contains(where: { $0.count >= 2 && $0[0] == "state" && holdsPIN.contains($0[1]) })
                {
                    holdsPIN.insert(name)
                    changed = true
                }
            }
        }
        return holdsPIN
    }

    /// Whether `step` is entered straight from a PIN pad whose transition sets one of `read`
    /// (`state.NAME`) from the PIN typed there: it asks for the same PIN again, to confirm it.
    private func confirms(_ step: Step, _ read: Set<String>) -> Bool {
        journey.steps.contains { pad in
            guard let handler = handlerID(pad), Self.pinHandlers.contains(handler) else { return false }
            return pad.transitions.flatMap(\.transition.branches).contains { branch in
                branch.target.value == step.id.value
                    && branch.assignments.contains {
                        read.contains($0.target.value.description) && $0.value.references.contains(["outcome", "pin"])
                    }
            }
        }
    }

    /// ``AuthRule/pinInStore``: a stored value set from a PIN, directly or through state.
    private mutating func pinsInTheStore() {
        let holdsPIN = typedPINState
        for (assignment, fromPIN) in assignments where assignment.target.value.scope == .stored {
            let paths = assignment.value.references
            guard
                (fromPIN && paths.contains(["outcome", "pin"]))
                    || paths.contains(where: { $0.count >= 2 && $0[0] == "state" && holdsPIN.contains($0[1]) })
            else { continue }
            find(
                .pinInStore,
                "\(assignment.target.value) is set from a PIN the user typed: the device would keep the PIN itself; seal it with pin.save, which keeps only a key derived from it",
                at: assignment.target.location)
        }
    }

    /// The steps and ends reachable from `targets` without opening a key: past a step that
    /// opens one only by its other outcomes (`pin.verify`'s `missing` opened nothing), and
    /// through a call only when the journey it runs neither opens a key nor checks a credential
    /// (a help sheet); one that may, or that is not in the project, stops the way.
    private func unkeyed(from targets: [String]) -> Set<String> {
        var seen = Set<String>()
        var queue = targets
        while let id = queue.popLast() {
            guard seen.insert(id).inserted, let step = steps[id] else { continue }
            if case .call = step.kind {
                // On by the ends the called journey reaches without opening a key or checking
                // a credential (a help sheet's).
                guard
                    let walked = walk(
                        calledBy: step, stoppingAt: { contract($0)?.releasesKey == true || checksCredential($0) })
                else { continue }
                queue += branches(of: step, after: walked.ends).map(\.target.value)
                continue
            }
            // A step that opens data with keys the device opened on its own (a keyring from
            // locker.deviceKeys) opens nothing the user unlocked.
            guard let other = contract(step), other.releasesKey, !usesDeviceKeys(step) else {
                queue += successors(step)
                continue
            }
            guard !other.keyOutcomes.isEmpty else { continue }
            for (outcome, transition) in step.transitions where !other.keyOutcomes.contains(outcome.value) {
                queue += transition.branches.map(\.target.value)
            }
            // Its limit spent opens nothing either.
            queue += journey.limit(chargedBy: step)?.exceeded.branches.map(\.target.value) ?? []
        }
        return seen
    }

    /// Whether a step's parameters read state that a `locker.deviceKeys` step sets from its
    /// outcome: keys the device opens without the user.
    private func usesDeviceKeys(_ step: Step) -> Bool {
        let fromDevice = Set(
            journey.steps.filter { handlerID($0) == "locker.deviceKeys" }
                .flatMap { $0.transitions.flatMap(\.transition.branches).flatMap(\.assignments) }
                .filter { $0.target.value.scope == .state && $0.value.references.contains { $0.first == "outcome" } }
                .map(\.target.value.name))
        guard !fromDevice.isEmpty else { return false }
        return step.with.contains { _, value in
            value.references.contains { $0.count >= 2 && $0[0] == "state" && fromDevice.contains($0[1]) }
        }
    }

    /// ``AuthRule/biometryWithoutKey`` and ``AuthRule/unlimitedBiometry``.
    private mutating func biometry() {
        let successEnds = Set(journey.ends.filter { $0.kind == .success }.map(\.id.value))
        for step in journey.steps where handlerID(step) == "biometry.authenticate" {
            for (outcome, transition) in step.transitions where outcome.value == "success" {
                let reached = unkeyed(from: transition.branches.map(\.target.value))
                if let end = successEnds.sorted().first(where: reached.contains) {
                    find(
                        .biometryWithoutKey,
                        "a biometric success at step '\(step.id.value)' reaches the success end '\(end)' without a step that opens a key the user unlocks (pin.verify, locker.easyAccess, locker.decrypt): the sensor's answer alone signs in, so faking it is enough",
                        at: outcome.location)
                }
            }
            guard step.attempts == nil else { continue }
            for (outcome, transition) in step.transitions where outcome.value == "failure" {
                let reached = reachable(from: transition.branches.map(\.target.value)) { _ in false }
                if reached.contains(step.id.value) {
                    find(
                        .unlimitedBiometry,
                        "a failed biometric match at step '\(step.id.value)' leads back to it with no attempt limit: charge one ('attempts:') so that the journey counts its own tries",
                        at: outcome.location)
                }
            }
        }
    }

    /// ``AuthRule/counterInState``: a limit counting in `state`.
    private mutating func counters() {
        for limit in journey.limits where limit.counter.value.scope == .state {
            find(
                .counterInState,
                "limit '\(limit.name.value)' counts in \(limit.counter.value), which an app restart resets: keep it in stored, so that restarting the app cannot buy more attempts",
                at: limit.counter.location)
        }
    }

    /// ``AuthRule/uncountedFailure``: a step that checks a credential the user can try again
    /// (its handler's ``HandlerContract/credentialCheck``) whose refusals no attempt limit counts,
    /// or whose count something other than a success sets back; and a limit that, once
    /// exceeded, gives its tries back while the credential stays.
    private mutating func refusals() {
        func listed(_ names: [String], _ conjunction: String) -> String {
            let quoted = names.map { "'\($0)'" }
            return quoted.count < 2
                ? quoted.joined() : quoted.dropLast().joined(separator: ", ") + " \(conjunction) " + quoted.last!
        }
        var checks: [String: Step] = [:]
        let typed = typedPINState
        for step in journey.steps {
            guard let handler = handlerID(step), let check = contract(step)?.credentialCheck else { continue }
            // A PIN typed again to confirm the one just chosen, straight after it (kept in state,
            // which no restart keeps), is compared with what the same person typed: there is
            // nothing to guess. One checked later (a lock screen against the PIN of the sign-in)
            // is a check like any other.
            if let read = step.checkedAgainst, !read.isEmpty,
                read.allSatisfy({ $0.hasPrefix("state.") && typed.contains(String($0.dropFirst("state.".count))) }),
                confirms(step, read)
            {
                continue
            }
            // The refusals this step can have: those it handles (`ui.pin` refuses only with `expected`).
            let refusals = step.transitions.filter { check.refused.contains($0.outcome.value) }
            guard !refusals.isEmpty else { continue }
            let id = step.id.value
            checks[id] = step
            guard let charge = step.attempts else {
                // A biometric prompt without a limit is `auth.biometry-unlimited`'s to report.
                guard handler != "biometry.authenticate" else { continue }
                let back = refusals.filter { retries(step, after: $0.transition.branches) }.map(\.outcome)
                guard let first = back.first else { continue }
                let names = back.map(\.value)
                find(
                    .uncountedFailure,
                    "\(listed(names, "and")) at step '\(id)' \(names.count == 1 ? "leads" : "lead") back to it, or to an end after which the app is opened again, with no attempt limit: the \(handler) check can be tried without end; charge a limit that counts \(names.count == 1 ? "it" : "them") ('attempts: {limit: NAME, counts: [\(names.joined(separator: ", "))]}')",
                    at: first.location)
                continue
            }
            let counted = Set(charge.counts.map(\.value))
            let uncounted = refusals.map(\.outcome.value).filter { !counted.contains($0) }
            if !uncounted.isEmpty {
                find(
                    .uncountedFailure,
                    "limit '\(charge.limit.value)' at step '\(id)' does not count \(listed(uncounted, "or")), the \(handler) check's refusal: wrong tries cost nothing; put \(uncounted.count == 1 ? "it" : "them") under 'counts'",
                    at: charge.location)
            }
            for reset in charge.resets where !check.accepted.contains(reset.value) {
                let what =
                    check.refused.contains(reset.value)
                    ? "a refusal of the \(handler) check" : "not a success of the \(handler) check"
                find(
                    .uncountedFailure,
                    "limit '\(charge.limit.value)' at step '\(id)' is set back by '\(reset.value)', \(what): the tries spent before it come back; only \(listed(check.accepted, "or")) may reset it",
                    at: reset.location)
            }
        }
        // Two pads for the same PIN, each with a count of its own and each reached without the
        // other's check: every pad gives a round of tries. A pad of a journey a step calls (a
        // shared PIN check) is that step's, with the called journey's counter.
        let start = journey.start.value
        var pads: [(step: Step, key: String, counter: String?)] = []
        for step in journey.steps {
            if checks[step.id.value] != nil, handlerID(step) == "pin.verify", step.attempts != nil,
                let key = literal(parameter(step, "key"))
            {
                pads.append((step, key, journey.limit(chargedBy: step).map { $0.counter.value.description }))
            } else if case .call(let callee) = step.kind, let called = all[callee.value] {
                for pad in called.steps where handlerID(pad) == "pin.verify" && pad.attempts != nil {
                    guard let key = literal(parameter(pad, "key")) else { continue }
                    pads.append((step, key, called.limit(chargedBy: pad).map { $0.counter.value.description }))
                }
            }
        }
        for (index, first) in pads.enumerated() {
            for second in pads[(index + 1)...]
            where second.key == first.key && second.counter != first.counter && second.step.id != first.step.id {
                let toSecond = reachable(from: [start]) { $0.id.value == first.step.id.value }
                let toFirst = reachable(from: [start]) { $0.id.value == second.step.id.value }
                guard toSecond.contains(second.step.id.value), toFirst.contains(first.step.id.value) else { continue }
                find(
                    .uncountedFailure,
                    "steps '\(first.step.id.value)' and '\(second.step.id.value)' check the PIN under '\(first.key)' against counts of their own (\(first.counter ?? "none"), \(second.counter ?? "none")), and either is reached without the other: each pad gives its own round of tries; charge them one limit, or limits that keep one counter",
                    at: second.step.id.location)
            }
        }
        // A called journey's limit whose maximum the call computes from what the run keeps: the
        // allowance grows between runs (each lockout buying one more try, say).
        for step in journey.steps {
            guard case .call(let callee) = step.kind, let called = all[callee.value] else { continue }
            for limit in called.limits {
                // The limits of the called journey's credential checks.
                guard case .computed(let max) = limit.max,
                    called.steps.contains(where: {
                        $0.attempts?.limit.value == limit.name.value && contract($0)?.credentialCheck != nil
                    })
                else { continue }
                let params = Set(max.references.filter { $0.count == 2 && $0[0] == "params" }.map { $0[1] })
                for (name, value) in step.with where params.contains(name.value) {
                    let read = value.references.filter { $0.count >= 2 && ["stored", "state"].contains($0[0]) }
                    guard let first = read.first else { continue }
                    find(
                        .uncountedFailure,
                        "step '\(step.id.value)' gives \(callee.value) the maximum of its limit '\(limit.name.value)' ('\(name.value)') from \(first.prefix(2).joined(separator: ".")), which changes as the app is used: the number of tries is no longer fixed (it can grow with every round); give a constant",
                        at: name.location)
                }
            }
        }
        // More tries than a verifier may allow before it stops (NIST SP 800-63B 5.2.2: 100).
        for limit in journey.limits {
            guard case .fixed(let max) = limit.max, max > 100,
                checks.values.contains(where: { $0.attempts?.limit.value == limit.name.value })
            else { continue }
            find(
                .uncountedFailure,
                "limit '\(limit.name.value)' allows \(max) wrong tries in a row at a credential check; NIST SP 800-63B 5.2.2 allows at most 100 before the check stops (a four-digit PIN falls to ten thousand)",
                at: limit.maxLocation)
        }
        // A limit set back to 0 when exceeded (no `keep`, no lockout), after which the same
        // credential is asked for again: each round of `max` tries buys another.
        for limit in journey.limits where !limit.keep && limit.lockout == nil {
            let charging = checks.values.filter { $0.attempts?.limit.value == limit.name.value }
            for step in charging.sorted(by: { $0.id.value < $1.id.value })
            where retries(step, after: limit.exceeded.branches) {
                find(
                    .uncountedFailure,
                    "limit '\(limit.name.value)' is set back to 0 when exceeded, and its 'exceeded' leads back to step '\(step.id.value)', or to an end after which the app is opened again, with the credential it checks unchanged: every round of tries buys another; give the limit 'keep: true' or a 'lockout', or remove the credential on the way (session.clear, pin.save)",
                    at: limit.name.location)
                break
            }
        }
    }

    /// Whether, after `branches` (a refusal's, or a limit's `exceeded`), the credential `step`
    /// checks can be tried again unchanged: a path reaches the step without a step or an
    /// assignment that removes or replaces the credential. The app may be opened again at an
    /// end, and killed and opened again wherever a step waits: the path goes on from the start.
    private func retries(_ step: Step, after branches: [Branch]) -> Bool {
        let key = literal(parameter(step, "key"))
        let read = step.checkedAgainst ?? []
        func replaces(_ branch: Branch) -> Bool {
            branch.assignments.contains { read.contains($0.target.value.description) }
        }
        func removes(_ next: Step) -> Bool {
            switch handlerID(next) {
            case "pin.save":
                guard let key, let saved = literal(parameter(next, "key")) else { return true }
                return saved == key
            case "session.clear":
                // A wipe that keeps the key leaves the credential as it was.
                guard let key, case .list(let kept, _)? = parameter(next, "keep") else { return true }
                return !kept.contains { literal($0) == key }
            default: return false
            }
        }
        let ends = Set(journey.ends.map(\.id.value))
        var seen = Set<String>()
        var queue = branches.filter { !replaces($0) }.map(\.target.value)
        let start = journey.start.value
        while let id = queue.popLast() {
            guard seen.insert(id).inserted else { continue }
            if id == step.id.value { return true }
            if ends.contains(id) {
                queue.append(start)
                continue
            }
            guard let next = steps[id], !removes(next) else { continue }
            if case .call = next.kind {
                // Through a called journey by the ends it reaches without signing in or
                // removing the credential (a help sheet's, a "Not now" past a sign-in); one not
                // in the project stops the way.
                guard let walked = walk(calledBy: next, stoppingAt: { checksCredential($0) || removes($0) }) else {
                    continue
                }
                if walked.steps.contains(where: waits) { queue.append(start) }
                queue += self.branches(of: next, after: walked.ends).filter { !replaces($0) }.map(\.target.value)
                continue
            } else if waits(next) {
                queue.append(start)
            }
            queue += journey.branches(from: next).filter { !replaces($0) }.map(\.target.value)
        }
        return false
    }

    /// ``AuthRule/unverifiedReset``: a `pin.save` of the key a `pin.verify` checks, reached from
    /// that check by any way but the PIN being right or missing (its "Forgot PIN?", a wrong PIN,
    /// its limit spent), without a credential checked on the way or the store wiped: whoever
    /// holds the phone chooses a new PIN and gets in.
    private mutating func pinResets() {
        for verify in journey.steps where handlerID(verify) == "pin.verify" {
            guard let key = literal(parameter(verify, "key")) else { continue }
            var queue = verify.transitions.filter { !["correct", "missing"].contains($0.outcome.value) }
                .flatMap { $0.transition.branches.map(\.target.value) }
            queue += journey.limit(chargedBy: verify)?.exceeded.branches.map(\.target.value) ?? []
            // A wipe that keeps the PIN leaves the data it guards too.
            func wipes(_ step: Step) -> Bool {
                guard handlerID(step) == "session.clear" else { return false }
                guard case .list(let kept, _)? = parameter(step, "keep") else { return true }
                return !kept.contains { literal($0) == key }
            }
            func seals(_ step: Step) -> Bool { handlerID(step) == "pin.save" && literal(parameter(step, "key")) == key }
            // A new PIN compared with the one kept (`differentFrom`): its `same` says whether a
            // guess is the PIN, charging no limit.
            func compares(_ step: Step) -> Bool {
                handlerID(step) == "pin.entry" && literal(parameter(step, "differentFrom")) == key
            }
            var seen = Set<String>()
            while let id = queue.popLast() {
                guard id != verify.id.value, seen.insert(id).inserted, let step = steps[id] else { continue }
                // Through a call, its journey's steps (and those of the journeys it calls) are
                // looked at as one: a sign-in or a wipe there ends the way, as does a journey
                // not in the project.
                let looked: [Step]
                let onward: [String]
                if case .call = step.kind {
                    // The called journey's steps on the ways that neither sign in nor wipe, and
                    // on by the ends those reach.
                    guard let walked = walk(calledBy: step, stoppingAt: { checksCredential($0) || wipes($0) }) else {
                        continue
                    }
                    looked = walked.steps
                    onward = branches(of: step, after: walked.ends).map(\.target.value)
                } else {
                    if checksCredential(step) || wipes(step) { continue }
                    looked = [step]
                    onward = successors(step)
                }
                // What the step does, or the journey it calls does, said of it.
                func does(_ what: String) -> String {
                    if case .call(let callee) = step.kind {
                        "step '\(step.id.value)' calls \(callee.value), which \(what),"
                    } else {
                        "step '\(step.id.value)' \(what)"
                    }
                }
                let unverified =
                    "on a way from step '\(verify.id.value)' where the PIN was not right (\"Forgot PIN?\", a wrong PIN, its limit spent) and no credential was checked"
                if looked.contains(where: compares) {
                    find(
                        .unverifiedReset,
                        "\(does("compares a new PIN with the one under '\(key)' (differentFrom)")) \(unverified): its 'same' tells whoever holds the phone whether a guess is the PIN, with no limit counting; check a credential first (the code sent to the account, a sign-in), or compare after it",
                        at: step.id.location)
                    break
                }
                if looked.contains(where: seals) {
                    find(
                        .unverifiedReset,
                        "\(does("seals a new PIN under '\(key)'")) \(unverified): whoever holds the phone chooses a PIN and gets in; sign in again first (a step that verifies a credential), or wipe what the PIN guards (session.clear)",
                        at: step.id.location)
                    break
                }
                queue += onward
            }
        }
    }

    /// ``AuthRule/clearCapture``: an `http.request` capture whose name or last key says it
    /// holds a token, a session, a password or a secret, not declared secret.
    private mutating func captures() {
        for step in journey.steps where handlerID(step) == "http.request" {
            guard case .map(let entries, _)? = parameter(step, "captures") else { continue }
            var secretNames = Set<String>()
            if case .list(let items, _)? = parameter(step, "secret") {
                secretNames = Set(items.compactMap { literal($0) })
            }
            for entry in entries where !secretNames.contains(entry.key) {
                // Read as the compiler reads it; what is wrong with it, the compiler says.
                var ignored = DiagnosticList()
                guard let capture = CaptureRule.capture(entry.key, entry.value, what: "", into: &ignored),
                    !capture.secret
                else { continue }
                var last = ""
                for case .key(let key) in capture.path.segments { last = key }
                let path = capture.path.description
                guard let word = [entry.key, last].first(where: Self.namesASecret) else { continue }
                find(
                    .clearCapture,
                    "capture '\(entry.key)' of step '\(step.id.value)' reads '\(word)' out of the answer in clear: a transcript, a report and the store would show it; declare it '{ path: \(path), secret: true }'",
                    at: entry.keyLocation)
            }
        }
    }

    /// ``AuthRule/otpReplay``: a TOTP check without the period of the last code used, kept
    /// where a restart keeps it and set when a code is valid; an HOTP check whose counter is
    /// not kept in `stored`, or never moved on.
    private mutating func oneTimeCodes() {
        // Stored values are the device's: a journey of the project may move a counter on
        // (when a code is sent, say) for another to check it.
        let journeys = [journey] + all.values.filter { $0.id.value != journey.id.value }
        /// Whether a transition sets stored `name` on from where it was: from the outcome's
        /// `counter`, or from itself (`${stored.counter + 1}`); setting it to a constant is no move.
        func movedOn(_ name: String) -> Bool {
            journeys.contains { j in
                (j.steps.flatMap { $0.transitions.flatMap(\.transition.branches) }
                    + j.limits.flatMap(\.exceeded.branches))
                    .flatMap(\.assignments).contains { assignment in
                        assignment.target.value.scope == .stored && assignment.target.value.name == name
                            && assignment.value.references.contains {
                                $0 == ["outcome", "counter"] || $0 == ["stored", name]
                            }
                    }
            }
        }
        func stored(_ value: RawValue?) -> String? {
            value?.references.first { $0.count == 2 && $0[0] == "stored" }.map { $0[1] }
        }
        // A value a calling journey gives (`${params.lastStep}`) is that journey's to keep.
        func given(_ value: RawValue?) -> Bool {
            value?.references.contains { $0.count == 2 && $0[0] == "params" } ?? false
        }
        for step in journey.steps {
            guard let handler = handlerID(step), ["otp.totp", "otp.hotp"].contains(handler),
                parameter(step, "code") != nil
            else { continue }
            let id = step.id.value
            if handler == "otp.hotp" {
                if given(parameter(step, "counter")) { continue }
                guard let counter = stored(parameter(step, "counter")) else {
                    find(
                        .otpReplay,
                        "step '\(id)' checks an HOTP code against a counter the device does not keep: after a restart the same code is good again; keep the counter in stored and move it on (RFC 4226 7.2)",
                        at: step.id.location)
                    continue
                }
                if !movedOn(counter) {
                    find(
                        .otpReplay,
                        "step '\(id)' checks an HOTP code against stored.\(counter), which no transition moves on: a code accepted once is accepted again; set it from outcome.counter when the code is valid, or move it on when a code is sent (RFC 4226 7.2)",
                        at: step.id.location)
                }
                continue
            }
            // A TOTP check: the period of the last code used, kept, and set when one is valid.
            if given(parameter(step, "lastStep")) { continue }
            let valid = step.transitions.first { $0.outcome.value == "valid" }?.transition.branches ?? []
            guard let last = stored(parameter(step, "lastStep")),
                !valid.isEmpty,
                valid.allSatisfy({ branch in
                    branch.assignments.contains {
                        $0.target.value.scope == .stored && $0.target.value.name == last
                            && $0.value.references.contains(["outcome", "step"])
                    }
                })
            else {
                find(
                    .otpReplay,
                    "step '\(id)' accepts a TOTP code without refusing one already used: the same code signs in again within its period (seen over a shoulder, or phished); give it 'lastStep: \"${stored.lastStep}\"' and set stored.lastStep from outcome.step when the code is valid (RFC 6238 5.2)",
                    at: step.id.location)
                continue
            }
        }
    }

    /// Whether a capture's name or key reads as a token, a session, a password or a secret
    /// (`access_token`, `sessionId`, `refreshToken`), not as something about one (`token_type`,
    /// `expires_in`).
    static func namesASecret(_ name: String) -> Bool {
        let lowered = name.lowercased().filter { $0.isLetter }
        // Something about a secret, not one: its type, when it expires, how many, how long it
        // must be or lasts, what the policy asks, whether it is needed or on.
        let about = ["expire", "length", "timeout", "ttl", "policy", "required", "enabled", "lifetime"]
        guard !lowered.hasSuffix("type"), !lowered.hasSuffix("count"), !about.contains(where: lowered.contains)
        else { return false }
        return ["token", "password", "secret", "session", "cookie", "jwt", "apikey", "credential"].contains {
            lowered.contains($0)
        }
    }
}
