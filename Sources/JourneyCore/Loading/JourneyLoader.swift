import Foundation

/// The load stage for journeys (see ``Pipeline``): a YAML tree → ``Journey``, with located
/// diagnostics for every problem of shape (unknown or missing keys, wrong kinds of value).
///
/// Meaning (unknown steps, handlers, types) is checked later by ``JourneyCompiler``.
public struct JourneyLoader: Sendable {
    public var yaml: SafeYAML

    public init(yaml: SafeYAML = SafeYAML()) {
        self.yaml = yaml
    }

    static let journeyKeys = [
        "journey", "version", "title", "summary", "locales", "params", "state", "stored", "outputs", "limits",
        "start", "steps", "ends", "exceptions", "invariants",
    ]
    static let declarationKeys = ["type", "default", "secret", "description"]
    static let stepKeys = ["handler", "call", "with", "screen", "attempts", "note", "verifies", "on"]
    static let unsupportedVersion = "version.unsupported"

    /// Loads a journey from a parsed YAML document. When the document is a mapping, a journey
    /// is returned even if it has errors (marked ``Journey/isIncomplete``), so that later
    /// checks can report their problems in the same run.
    public func load(_ root: YAMLNode, path: String, into diagnostics: inout DiagnosticList) -> Journey? {
        var r = NodeReader()
        defer { diagnostics.append(contentsOf: r.diagnostics) }
        guard
            let f = r.mapping(
                root, "a journey", allowed: Self.journeyKeys,
                required: ["journey", "version", "title", "start", "steps", "ends"])
        else { return nil }

        let id = f["journey"].flatMap { r.located($0, "'journey'") } ?? Located("", at: root.location)
        if let node = f["journey"], !id.value.isEmpty, !JourneyLoader.isJourneyId(id.value) {
            r.diagnostics.error(
                NodeReader.invalidId,
                "journey id '\(id.value)' \(Self.journeyIdProblem(id.value, example: "eduid.onboarding"))",
                at: node.location)
        }
        if let node = f["version"], let version = r.int(node, "'version'"), version != 1 {
            r.diagnostics.error(
                Self.unsupportedVersion,
                "journey format version \(version) is not supported; this JourneyKit reads version 1",
                at: node.location)
        }
        let title = f["title"].flatMap { r.text($0, "'title'") }
        let summary = f["summary"].flatMap { r.text($0, "'summary'") }
        var locales = f["locales"].map { r.stringList($0, "'locales'").map(\.value) } ?? []
        if locales.isEmpty { locales = ["en"] }

        var unloadedNames: Set<String> = []
        let params =
            f["params"].map { declarations($0, "param", scope: "params.", &r, leavingOut: &unloadedNames) } ?? []
        let state =
            f["state"].map { declarations($0, "state value", scope: "state.", &r, leavingOut: &unloadedNames) } ?? []
        let stored =
            f["stored"].map { declarations($0, "stored value", scope: "stored.", &r, leavingOut: &unloadedNames) } ?? []
        var outputs: [Output] = []
        for entry in f["outputs"].map({ r.namedEntries($0, "'outputs'") }) ?? [] {
            let name = Located(entry.key, at: entry.keyLocation)
            r.checkIdentifier(name, "output")
            if let text = r.string(entry.value, "output '\(entry.key)'"),
                let template = r.template(text, at: entry.value.location)
            {
                outputs.append(Output(name: name, value: template, location: entry.value.location))
            }
        }
        var limits: [AttemptLimit] = []
        for entry in f["limits"].map({ r.namedEntries($0, "'limits'") }) ?? [] {
            if let limit = limit(entry, &r) {
                limits.append(limit)
            } else {
                unloadedNames.insert("limits." + entry.key)
            }
        }
        let start = f["start"].flatMap { r.located($0, "'start'") } ?? Located("", at: root.location)
        if let node = f["start"], node.scalar?.isEmpty == true || node.isNull {
            r.diagnostics.error(
                NodeReader.valueType, "'start' must name the step the journey starts at", at: node.location)
        }
        var steps: [Step] = []
        var unloaded: Set<String> = []
        for entry in f["steps"].map({ r.namedEntries($0, "'steps'") }) ?? [] {
            if let step = step(entry, &r) { steps.append(step) } else { unloaded.insert(entry.key) }
        }
        var ends: [End] = []
        for entry in f["ends"].map({ r.namedEntries($0, "'ends'") }) ?? [] {
            let id = Located(entry.key, at: entry.keyLocation)
            r.checkIdentifier(id, "end")
            guard
                let ef = r.mapping(
                    entry.value, "end '\(entry.key)'", allowed: ["kind", "title", "text"], required: ["kind"])
            else {
                unloaded.insert(entry.key)
                continue
            }
            let kind = ef["kind"].flatMap { r.enumValue($0, "end kind", as: EndKind.self) } ?? .failure
            ends.append(
                End(
                    id: id, kind: kind, title: ef["title"].flatMap { r.text($0, "'title'") },
                    text: ef["text"].flatMap { r.text($0, "'text'") }))
        }

        var journey = Journey(
            id: id, file: path, title: title ?? LocalizedText(entries: [], location: root.location), summary: summary,
            locales: locales, params: params, state: state, stored: stored, outputs: outputs, limits: limits,
            start: start, steps: steps, ends: ends, location: root.location)
        journey.unloadedSteps = unloaded
        journey.unloadedNames = unloadedNames
        journey.exceptions = f["exceptions"].map { exceptions($0, &r) } ?? []
        // A step named by an exception is one of the journey's (one that did not load is still
        // one): said with the file's other problems, not only once it has none.
        let ids = steps.map(\.id.value)
        for exception in journey.exceptions {
            for step in exception.steps ?? [] where !ids.contains(step.value) && !unloaded.contains(step.value) {
                r.diagnostics.error(
                    Self.unknownExceptionStep,
                    "the exception to '\(exception.rule.value)' names step '\(step.value)', which is not a step of this journey\(Suggestion.hint(for: step.value, in: ids))",
                    at: step.location)
            }
        }
        journey.invariants = f["invariants"].map { invariants($0, &r) } ?? []
        journey.isIncomplete = r.diagnostics.hasErrors
        return journey
    }

    /// `exceptions:`: each a known rule's id, with a reason in words.
    func exceptions(_ node: YAMLNode, _ r: inout NodeReader) -> [RuleException] {
        let ids = AuthRule.allCases.map(\.rawValue) + ExplorationInvariant.allCases.map(\.rawValue)
        return r.namedEntries(node, "'exceptions'").compactMap { entry in
            let rule = Located(entry.key, at: entry.keyLocation)
            guard ids.contains(entry.key) else {
                r.diagnostics.error(
                    Self.unknownRule,
                    "no rule '\(entry.key)'\(Suggestion.hint(for: entry.key, in: ids)); the rules are "
                        + ids.joined(separator: ", "),
                    at: entry.keyLocation)
                return nil
            }
            // `{reason, steps}` holds for those steps only (an auth rule's findings at them).
            var reasonNode = entry.value
            var steps: [Located<String>]?
            if case .mapping = entry.value.kind {
                guard
                    let fields = r.mapping(
                        entry.value, "the exception to '\(entry.key)'", allowed: ["reason", "steps"],
                        required: ["reason", "steps"]),
                    let reason = fields.entries["reason"]?.value, let listed = fields.entries["steps"]?.value
                else { return nil }
                guard AuthRule(rawValue: entry.key) != nil else {
                    r.diagnostics.error(
                        Self.exceptionReason,
                        "only an auth rule's exception can name steps: '\(entry.key)' is judged on paths, not at steps; give only its reason",
                        at: listed.location)
                    return nil
                }
                reasonNode = reason
                steps = r.stringList(listed, "the steps of the exception to '\(entry.key)'")
                if steps?.isEmpty == true {
                    r.diagnostics.error(
                        Self.exceptionReason,
                        "the exception to '\(entry.key)' names no step: list the steps it holds at, or give only its reason to hold it for the whole journey",
                        at: listed.location)
                    return nil
                }
            }
            // A reason is words: blank, a number, `null`, `true` or a placeholder (`TODO`) says
            // nothing of why; three words at least.
            guard case .scalar(let reason, _) = reasonNode.kind, Self.saysWhy(reason) else {
                r.diagnostics.error(
                    Self.exceptionReason,
                    "say in words why the journey breaks '\(entry.key)' (three words at least, none a placeholder such as TODO): the app's behaviour it reproduces, with its source (\"Diia takes any four digits (seed-flows D1)\")",
                    at: reasonNode.location)
                return nil
            }
            return RuleException(rule: rule, reason: reason, steps: steps)
        }
    }

    static let unknownRule = "exception.unknown"
    static let exceptionReason = "exception.reason"
    static let unknownExceptionStep = "exception.step"

    /// Whether a reason says why in words: three different ones or more, none of them only a
    /// placeholder (`TODO`, `FIXME`, `TBD`), or, in a script written without spaces between
    /// words (Japanese, Chinese, Thai), six of its letters or more.
    static func saysWhy(_ reason: String) -> Bool {
        let words = reason.split(whereSeparator: { $0.isWhitespace }).filter { $0.contains(where: \.isLetter) }
            .map { $0.lowercased().filter(\.isLetter) }
        let placeholders: Set<String> = ["todo", "fixme", "tbd", "xxx", "later", "reason", "lorem", "ipsum"]
        let meant = Set(words).subtracting(placeholders)
        return meant.count >= 3 || reason.filter({ $0.isLetter && !$0.isASCII }).count >= 6
    }
    static let invariantForm = "invariant.form"

    /// `invariants:`: each a kebab-case id with one of `never`, `always` or `only` (a bool
    /// expression), optionally `after` (one for `only`) and a `summary`. Expressions are checked
    /// when the journey compiles.
    func invariants(_ node: YAMLNode, _ r: inout NodeReader) -> [JourneyInvariant] {
        r.namedEntries(node, "'invariants'").compactMap { entry in
            let id = Located(entry.key, at: entry.keyLocation)
            let what = "invariant '\(entry.key)'"
            if !Self.isKebabId(entry.key) {
                r.diagnostics.error(
                    NodeReader.invalidId,
                    "\(what) is not a valid id; use lowercase words joined by '-', like 'pin-before-home'",
                    at: entry.keyLocation)
            } else if let builtin = ExplorationInvariant.allCases.first(where: { $0.name == entry.key }) {
                r.diagnostics.error(
                    NodeReader.invalidId,
                    "\(what) has the name of the built-in rule '\(builtin.rawValue)'; choose another id",
                    at: entry.keyLocation)
            }
            let forms = JourneyInvariant.Form.allCases.map(\.rawValue)
            guard
                let f = r.mapping(entry.value, what, allowed: forms + ["after", "summary"])
            else { return nil }
            let summary = f["summary"].flatMap { r.string($0, "'summary'") }
            let given = forms.filter { f[$0] != nil }
            guard given.count == 1, let form = JourneyInvariant.Form(rawValue: given[0]) else {
                if given.isEmpty {
                    r.diagnostics.error(
                        Self.invariantForm,
                        "\(what) says neither 'never', 'always' nor 'only': give one, with a bool expression",
                        at: f.keyLocation("after") ?? entry.value.location)
                } else {
                    r.diagnostics.error(
                        Self.invariantForm,
                        "\(what) has both '\(given[0])' and '\(given[1])'; an invariant says one of 'never', 'always' or 'only'",
                        at: f.keyLocation(given[1]) ?? entry.value.location)
                }
                return nil
            }
            guard let condition = f[form.rawValue].flatMap({ r.located($0, "'\(form.rawValue)'") }) else { return nil }
            let after = f["after"].flatMap { r.located($0, "'after'") }
            if form == .only && f["after"] == nil {
                r.diagnostics.error(
                    Self.invariantForm,
                    "\(what) says 'only' without 'after': say under 'after' what must have held first",
                    at: f.keyLocation("only") ?? entry.value.location)
                return nil
            }
            return JourneyInvariant(
                id: id, summary: summary, form: form, condition: condition, after: after, location: entry.value.location
            )
        }
    }

    /// Lowercase words of letters and digits joined by '-', starting with a letter.
    static func isKebabId(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, ("a"..."z").contains(first), text.count <= 64,
            !text.hasSuffix("-"), !text.contains("--")
        else { return false }
        return text.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || $0.isASCIIDigit || $0 == "-" }
    }

    /// How long a journey id may be, in characters.
    public static let longestJourneyId = 128

    /// What is wrong with `text` as a journey id (``isJourneyId(_:)`` is false), said after it:
    /// its length, when it is too long, else what an id is made of, with `example`.
    public static func journeyIdProblem(_ text: String, example: String) -> String {
        if text.count > longestJourneyId {
            return "is \(text.count) characters long; a journey id is at most \(longestJourneyId)"
        }
        return "is not valid; use lowercase words joined by '.' or '-', like '\(example)'"
    }

    /// Whether `text` is a valid journey id: lowercase words joined by `.` or `-`, like
    /// `eduid.onboarding`, at most ``longestJourneyId`` characters.
    public static func isJourneyId(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return !parts.isEmpty && text.count <= longestJourneyId
            && parts.allSatisfy { part in
                guard let first = part.unicodeScalars.first, ("a"..."z").contains(first) || first.isASCIIDigit else {
                    return false
                }
                return part.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || $0.isASCIIDigit || $0 == "-" }
            }
    }

    /// Whether `text` is a valid id of a step, end or scenario: letters, digits, `_` and `-`,
    /// starting with a letter, at most 64 characters.
    public static func isIdentifier(_ text: String) -> Bool { NodeReader.isIdentifier(text) }

    /// The declarations under `params`, `state` or `stored` (`what`, as messages name one;
    /// `scope`, as expressions read them: `params.`); the names of those left out for their
    /// errors are added to `unloaded`.
    func declarations(
        _ node: YAMLNode, _ what: String, scope: String, _ r: inout NodeReader, leavingOut unloaded: inout Set<String>
    ) -> [VariableDeclaration] {
        var result: [VariableDeclaration] = []
        for entry in r.namedEntries(node, "'\(what)s'") {
            let name = Located(entry.key, at: entry.keyLocation)
            r.checkIdentifier(name, what)
            guard
                let f = r.mapping(
                    entry.value, "\(what) '\(entry.key)'", allowed: Self.declarationKeys, required: ["type"])
            else {
                unloaded.insert(scope + entry.key)
                continue
            }
            let type = f["type"].flatMap { r.enumValue($0, "type", as: DeclaredType.self) }
            let secret = f["secret"].flatMap { r.bool($0, "'secret'") } ?? false
            let description = f["description"].flatMap { r.string($0, "'description'") }
            guard let type else {
                unloaded.insert(scope + entry.key)
                continue
            }
            result.append(
                VariableDeclaration(
                    name: name, type: TypeInfo(type.valueType, secret: secret),
                    defaultValue: f["default"].map { r.raw($0) }, description: description))
        }
        return result
    }

    func limit(_ entry: YAMLNode.Entry, _ r: inout NodeReader) -> AttemptLimit? {
        let name = Located(entry.key, at: entry.keyLocation)
        r.checkIdentifier(name, "limit")
        guard
            let f = r.mapping(
                entry.value, "limit '\(entry.key)'",
                allowed: ["max", "counter", "exceeded", "keep", "lockout", "lockedUntil"],
                required: ["max", "counter", "exceeded"])
        else { return nil }
        var max: AttemptLimit.Maximum?
        if let node = f["max"] {
            if let text = node.scalar, text.contains("${") {
                max = .computed(r.raw(node))
            } else {
                max = r.int(node, "'max'", in: NumberRange.attempts).map { .fixed($0) }
            }
        }
        func variable(_ key: String) -> Located<VariableReference>? {
            guard let node = f[key], let text = r.string(node, "'\(key)'") else { return nil }
            guard let ref = VariableReference(text) else {
                r.diagnostics.error(
                    NodeReader.valueType, "'\(key)' must be 'stored.NAME' or 'state.NAME', found '\(text)'",
                    at: node.location)
                return nil
            }
            return Located(ref, at: node.location)
        }
        let counter = variable("counter")
        let lockedUntil = variable("lockedUntil")
        var lockout: Located<Int>?
        if let node = f["lockout"], let ms = r.duration(node, "'lockout'") {
            if ms < 1000 || ms % 1000 != 0 {
                r.diagnostics.error(
                    NodeReader.outOfRange,
                    "'lockout' must be whole seconds from 1s to 3650d, like 30s, 15m or 1h30m, found '\(node.scalar ?? "")'",
                    at: node.location)
            } else {
                lockout = Located(ms, at: node.location)
            }
        }
        // A lockout is kept somewhere, and only a lockout needs a place.
        if let node = f["lockout"], f["lockedUntil"] == nil {
            r.diagnostics.error(
                NodeReader.missingKey,
                "limit '\(entry.key)' has a 'lockout' but no 'lockedUntil': name the int (stored.NAME, like the counter) that keeps when the lockout ends",
                at: node.location)
        }
        if f["lockout"] == nil, let at = f.keyLocation("lockedUntil") {
            r.diagnostics.error(
                NodeReader.missingKey,
                "limit '\(entry.key)' has 'lockedUntil' but no 'lockout'; say how long the limit locks, like 'lockout: 15m'",
                at: at)
        }
        let exceeded = f["exceeded"].flatMap { transition($0, "'exceeded'", &r) }
        let keep = f["keep"].flatMap { r.bool($0, "'keep'") } ?? false
        guard let max, let maxNode = f["max"], let counter, let exceeded else { return nil }
        return AttemptLimit(
            name: name, max: max, maxLocation: maxNode.location, counter: counter, exceeded: exceeded, keep: keep,
            lockout: lockout, lockedUntil: lockedUntil)
    }

    func step(_ entry: YAMLNode.Entry, _ r: inout NodeReader) -> Step? {
        let id = Located(entry.key, at: entry.keyLocation)
        r.checkIdentifier(id, "step")
        let what = "step '\(entry.key)'"
        guard let f = r.mapping(entry.value, what, allowed: Self.stepKeys, required: ["on"]) else { return nil }
        let kind: Step.Kind
        switch (f["handler"], f["call"]) {
        case (let handler?, nil):
            guard let name = r.located(handler, "'handler'") else { return nil }
            kind = .handler(name)
        case (nil, let call?):
            guard let name = r.located(call, "'call'") else { return nil }
            kind = .call(name)
        case (.some, .some):
            r.diagnostics.error(
                "step.kind",
                "\(what) has both 'handler' and 'call'; a step runs a handler or calls a journey, not both",
                at: f.keyLocation("call") ?? entry.value.location)
            return nil
        case (nil, nil):
            r.diagnostics.error(
                NodeReader.missingKey, "\(what) needs 'handler' (what runs the step) or 'call' (a sub-journey)",
                at: entry.value.location)
            return nil
        }
        var with: [(name: Located<String>, value: RawValue)] = []
        for param in f["with"].map({ r.namedEntries($0, "'with'") }) ?? [] {
            with.append((Located(param.key, at: param.keyLocation), r.raw(param.value)))
        }
        let screen = f["screen"].flatMap { self.screen($0, what, &r) }
        var attempts: AttemptCharge?
        if let node = f["attempts"],
            let af = r.mapping(
                node, "'attempts'", allowed: ["limit", "counts", "resets"], required: ["limit", "counts"])
        {
            if let limit = af["limit"].flatMap({ r.located($0, "'limit'") }) {
                attempts = AttemptCharge(
                    limit: limit, counts: af["counts"].map { r.stringList($0, "'counts'") } ?? [],
                    resets: af["resets"].map { r.stringList($0, "'resets'") } ?? [], location: node.location)
            }
        }
        let note = f["note"].flatMap { r.string($0, "'note'") }
        let verifies = f["verifies"].flatMap { credentialMark($0, what, &r) }
        var transitions: [(outcome: Located<String>, transition: Transition)] = []
        for outcome in f["on"].map({ r.namedEntries($0, "'on'") }) ?? [] {
            if let t = transition(outcome.value, "transition for '\(outcome.key)'", &r) {
                transitions.append((Located(outcome.key, at: outcome.keyLocation), t))
            }
        }
        return Step(
            id: id, kind: kind, with: with, screen: screen, attempts: attempts, note: note, transitions: transitions,
            location: entry.value.location, verifies: verifies)
    }

    /// `verifies: credential`, or `verifies: {credential: [outcome, …]}` naming the outcomes
    /// that mean the credential was right.
    func credentialMark(_ node: YAMLNode, _ what: String, _ r: inout NodeReader) -> CredentialMark? {
        if let text = node.scalar {
            guard text == "credential" else {
                r.diagnostics.error(
                    NodeReader.valueType,
                    "'verifies' of \(what) is 'credential' or '{credential: [outcome, …]}', found '\(text)'",
                    at: node.location)
                return nil
            }
            return CredentialMark(outcomes: [], location: node.location)
        }
        guard let f = r.mapping(node, "'verifies' of \(what)", allowed: ["credential"], required: ["credential"]),
            let list = f["credential"]
        else { return nil }
        let outcomes = r.stringList(list, "'credential'")
        guard !outcomes.isEmpty else {
            if list.isNull || list.scalar == nil {
                r.diagnostics.error(
                    NodeReader.valueType, "name the outcomes with which \(what) has verified the credential",
                    at: list.location)
            }
            return nil
        }
        return CredentialMark(outcomes: outcomes, location: node.location)
    }

    func screen(_ node: YAMLNode, _ what: String, _ r: inout NodeReader) -> Screen? {
        guard let f = r.mapping(node, "'screen' of \(what)", allowed: ["title", "text", "actions", "fields"]) else {
            return nil
        }
        var actions: [ScreenAction] = []
        for entry in f["actions"].map({ r.namedEntries($0, "'actions'") }) ?? [] {
            let id = Located(entry.key, at: entry.keyLocation)
            r.checkIdentifier(id, "action")
            if case .mapping(let inner) = entry.value.kind, inner.contains(where: { $0.key == "label" }) {
                guard
                    let af = r.mapping(
                        entry.value, "action '\(entry.key)'", allowed: ["label", "enabled", "style"],
                        required: ["label"]),
                    let label = af["label"].flatMap({ r.text($0, "'label'") })
                else { continue }
                var enabled = true
                var enabledWhen: Located<String>?
                if let node = af["enabled"] {
                    if let text = node.scalar, text.contains("${") {
                        // Located at the text itself: past the opening quote of a quoted scalar.
                        enabledWhen = Located(
                            text, at: node.isPlainScalar ? node.location : node.location.advanced(by: 1))
                    } else {
                        enabled = r.bool(node, "'enabled'") ?? true
                    }
                }
                actions.append(
                    ScreenAction(
                        id: id, label: label, enabled: enabled, enabledWhen: enabledWhen,
                        style: af["style"].flatMap { r.enumValue($0, "'style'", as: ScreenAction.Style.self) }))
            } else if let label = r.text(entry.value, "label of action '\(entry.key)'") {
                actions.append(ScreenAction(id: id, label: label, enabled: true, enabledWhen: nil, style: nil))
            }
        }
        var fields: [FormField] = []
        for entry in f["fields"].map({ r.namedEntries($0, "'fields'") }) ?? [] {
            let name = Located(entry.key, at: entry.keyLocation)
            r.checkIdentifier(name, "field")
            guard
                let ff = r.mapping(
                    entry.value, "field '\(entry.key)'",
                    allowed: ["label", "kind", "required", "pattern", "minLength", "maxLength", "secret"])
            else { continue }
            let kind = ff["kind"].flatMap { r.enumValue($0, "'kind'", as: FormField.Kind.self) } ?? .text
            let minLength = ff["minLength"].flatMap { r.int($0, "'minLength'", in: NumberRange.fieldLength) }
            let maxLength = ff["maxLength"].flatMap { r.int($0, "'maxLength'", in: NumberRange.fieldLength) }
            if let minLength, let maxLength, minLength > maxLength, let node = ff["minLength"] {
                r.diagnostics.error(
                    NodeReader.outOfRange,
                    "'minLength' (\(minLength)) is more than 'maxLength' (\(maxLength)); no text could be entered",
                    at: node.location)
            }
            fields.append(
                FormField(
                    name: name, label: ff["label"].flatMap { r.text($0, "'label'") }, kind: kind,
                    required: ff["required"].flatMap { r.bool($0, "'required'") } ?? true,
                    pattern: ff["pattern"].flatMap { r.located($0, "'pattern'") },
                    minLength: minLength, maxLength: maxLength,
                    secret: ff["secret"].flatMap { r.bool($0, "'secret'") } ?? (kind == .password)))
        }
        return Screen(
            title: f["title"].flatMap { r.text($0, "'title'") }, text: f["text"].flatMap { r.text($0, "'text'") },
            actions: actions, fields: fields)
    }

    /// A transition in any of its three forms.
    func transition(_ node: YAMLNode, _ what: String, _ r: inout NodeReader) -> Transition? {
        switch node.kind {
        case .scalar(let text, _):
            let branch = Branch(
                condition: nil, isElse: false, assignments: [], target: Located(text, at: node.location),
                location: node.location)
            return Transition(branches: [branch], location: node.location)
        case .mapping:
            guard let branch = branch(node, what, guarded: false, &r) else { return nil }
            return Transition(branches: [branch], location: node.location)
        case .sequence(let items):
            var branches: [Branch] = []
            for item in items {
                if case .mapping(let entries) = item.kind, let elseEntry = entries.first(where: { $0.key == "else" }) {
                    if entries.count > 1, let extra = entries.first(where: { $0.key != "else" }) {
                        r.diagnostics.error(
                            NodeReader.unknownKey,
                            "'else' stands alone in its list item; put '\(extra.key)' under it (else: {to: …, set: …})",
                            at: extra.keyLocation)
                    }
                    guard let inner = transition(elseEntry.value, "'else' of \(what)", &r) else { continue }
                    if inner.branches.count != 1 || inner.branches[0].condition != nil {
                        r.diagnostics.error(
                            "transition.nested-branches", "'else' takes a target or {to, set}, not a list of branches",
                            at: elseEntry.value.location)
                        continue
                    }
                    var b = inner.branches[0]
                    b.isElse = true
                    b.location = elseEntry.keyLocation
                    branches.append(b)
                } else if let b = branch(item, "branch of \(what)", guarded: true, &r) {
                    branches.append(b)
                }
            }
            checkBranchOrder(branches, node, what, &r)
            return Transition(branches: branches, location: node.location)
        }
    }

    func checkBranchOrder(_ branches: [Branch], _ node: YAMLNode, _ what: String, _ r: inout NodeReader) {
        let elses = branches.indices.filter { branches[$0].isElse }
        if elses.isEmpty {
            r.diagnostics.error(
                "transition.missing-else",
                "guarded branches of \(what) need an explicit '- else: TARGET' as the last item", at: node.location)
        } else if elses.count > 1 {
            r.diagnostics.error(
                "transition.else-not-last", "\(what) has more than one 'else'", at: branches[elses[1]].location)
        } else if elses[0] != branches.count - 1 {
            r.diagnostics.error(
                "transition.else-not-last", "'else' must be the last branch of \(what); later branches never run",
                at: branches[elses[0]].location)
        }
    }

    func branch(_ node: YAMLNode, _ what: String, guarded: Bool, _ r: inout NodeReader) -> Branch? {
        let allowed = guarded ? ["if", "set", "to"] : ["set", "to"]
        guard let f = r.mapping(node, what, allowed: allowed, required: guarded ? ["if", "to"] : ["to"]) else {
            return nil
        }
        var assignments: [Assignment] = []
        for entry in f["set"].map({ r.namedEntries($0, "'set'") }) ?? [] {
            guard let ref = VariableReference(entry.key) else {
                r.diagnostics.error(
                    NodeReader.valueType,
                    "'set' writes 'state.NAME' or 'stored.NAME', found '\(entry.key)'", at: entry.keyLocation)
                continue
            }
            assignments.append(Assignment(target: Located(ref, at: entry.keyLocation), value: r.raw(entry.value)))
        }
        let condition = f["if"].flatMap { r.located($0, "'if'") }
        guard let target = f["to"].flatMap({ r.located($0, "'to'") }) else { return nil }
        return Branch(
            condition: condition, isElse: false, assignments: assignments, target: target, location: node.location)
    }
}

/// The types a declaration may name.
enum DeclaredType: String, CaseIterable {
    case string, int, bool, list, duration
    var valueType: ValueType {
        switch self {
        case .string: .string
        case .int: .int
        case .bool: .bool
        case .list: .list
        case .duration: .duration
        }
    }
}
