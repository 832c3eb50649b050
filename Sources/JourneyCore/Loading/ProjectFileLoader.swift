/// The load stage for a project file (see ``Pipeline``): a YAML tree → ``ProjectSettings``.
public struct ProjectFileLoader: Sendable {
    static let keys = ["journeys", "uses", "defaults", "handlers"]
    static let defaultKeys = ["locale", "jobs", "kdfRounds", "explore"]
    static let exploreKeys = ["depth", "restarts", "states", "memory"]

    public init() {}

    /// Loads a project file's settings: what could be read of them, so that the checks of what
    /// they name (its folders, its handlers' ids) report their problems beside the file's own;
    /// nil when the file is not a mapping of a project file's keys. Whether it has errors is
    /// for `diagnostics` to say: settings with errors are never followed.
    public func load(_ root: YAMLNode, into diagnostics: inout DiagnosticList) -> ProjectSettings? {
        var r = NodeReader()
        defer { diagnostics.append(contentsOf: r.diagnostics) }
        guard
            let f = r.mapping(
                root, "a project file", allowed: Self.keys,
                nested: Dictionary(uniqueKeysWithValues: Self.defaultKeys.map { ($0, "defaults") }))
        else { return nil }
        var settings = ProjectSettings(journeys: [])
        if let node = f["journeys"] {
            settings.journeys = r.stringList(node, "'journeys'")
            if settings.journeys.isEmpty, r.diagnostics.errorCount == 0 {
                r.diagnostics.error(
                    NodeReader.valueType, "'journeys' must name at least one folder", at: node.location)
            }
            for folder in settings.journeys where folder.value.isEmpty {
                r.diagnostics.error(NodeReader.valueType, "'journeys' has an empty folder name", at: folder.location)
            }
        }
        if let node = f["uses"] {
            settings.uses = r.stringList(node, "'uses'")
            for folder in settings.uses where folder.value.isEmpty {
                r.diagnostics.error(NodeReader.valueType, "'uses' has an empty folder name", at: folder.location)
            }
        }
        if let node = f["defaults"], let d = r.mapping(node, "'defaults'", allowed: Self.defaultKeys) {
            if let node = d["locale"], let locale = r.string(node, "'locale'") {
                if LocaleName.isValid(locale) {
                    settings.locale = locale
                    settings.localeLocation = node.location
                } else {
                    r.diagnostics.error(
                        NodeReader.valueType, "'locale' must be a language tag like en or pt-BR, found '\(locale)'",
                        at: node.location)
                }
            }
            settings.jobs = d["jobs"].flatMap { r.int($0, "'jobs'", in: NumberRange.jobs) }
            settings.kdfRounds = d["kdfRounds"].flatMap { r.int($0, "'kdfRounds'", in: NumberRange.kdfRounds) }
            if let node = d["explore"], let e = r.mapping(node, "'explore'", allowed: Self.exploreKeys) {
                settings.explore.depth = e["depth"].flatMap { r.int($0, "'depth'", in: NumberRange.exploreDepth) }
                settings.explore.restarts = e["restarts"].flatMap {
                    r.int($0, "'restarts'", in: NumberRange.exploreRestarts)
                }
                settings.explore.states = e["states"].flatMap { r.int($0, "'states'", in: NumberRange.exploreStates) }
                if let node = e["memory"], let size = r.string(node, "'memory'") {
                    if let bytes = MemorySize.parse(size) {
                        settings.explore.memory = bytes
                    } else {
                        r.diagnostics.error(
                            NodeReader.valueType, "'memory' takes \(MemorySize.rule), found '\(size)'",
                            at: node.location)
                    }
                }
            }
        }
        if let node = f["handlers"] {
            settings.handlers = r.namedEntries(node, "'handlers'").compactMap { handler($0, &r) }
        }
        return settings
    }

    static let handlerKeys = [
        "command", "summary", "timeout", "parameters", "inputs", "outcomes", "actionsAreOutcomes", "deterministic",
    ]

    /// One entry of `handlers:`: a program's id, command and contract.
    private func handler(_ entry: YAMLNode.Entry, _ r: inout NodeReader) -> ExternalHandlerDeclaration? {
        let id = Located(entry.key, at: entry.keyLocation)
        if !ExternalHandlerDeclaration.isHandlerID(id.value) {
            r.diagnostics.error(
                Self.handlerID,
                "handler id '\(id.value)' must be two or more names joined by '.', your app's or company's "
                    + "first (such as 'acme.riskScore'); each name a letter, then letters, digits, '_' or '-'",
                at: id.location)
        }
        let what = "handler '\(id.value)'"
        guard let f = r.mapping(entry.value, what, allowed: Self.handlerKeys, required: ["command"]) else {
            return nil
        }
        var command: [String] = []
        if let node = f["command"] {
            if let text = node.scalar {
                let words = text.split(whereSeparator: \.isWhitespace).map(String.init)
                let hint = words.count > 1 ? ": [\(words.joined(separator: ", "))]" : ""
                r.diagnostics.error(
                    NodeReader.valueType,
                    "'command' must be a list of the program and its arguments\(hint), so that no shell splits it",
                    at: node.location)
            } else {
                let words = r.stringList(node, "'command'")
                if words.isEmpty {
                    r.diagnostics.error(NodeReader.valueType, "'command' must name a program", at: node.location)
                } else if words[0].value.isEmpty {
                    r.diagnostics.error(
                        NodeReader.valueType, "'command' has an empty program name", at: words[0].location)
                }
                command = words.map(\.value)
            }
        }
        var declaration = ExternalHandlerDeclaration(id: id, command: command)
        declaration.summary = f["summary"].flatMap { r.string($0, "'summary'") } ?? ""
        if let node = f["timeout"], let ms = r.duration(node, "'timeout'") {
            if (1...ExternalHandlerDeclaration.maximumTimeout).contains(ms) {
                declaration.timeout = ms
            } else {
                r.diagnostics.error(
                    NodeReader.outOfRange, "'timeout' must be from 1ms to 10m, found '\(node.scalar ?? "")'",
                    at: node.location)
            }
        }
        declaration.actionsAreOutcomes = f["actionsAreOutcomes"].flatMap { r.bool($0, "'actionsAreOutcomes'") } ?? false
        declaration.deterministic = f["deterministic"].flatMap { r.bool($0, "'deterministic'") } ?? false
        if let node = f["parameters"] {
            declaration.parameters = r.namedEntries(node, "'parameters' of \(what)").compactMap { parameter($0, &r) }
        }
        if let node = f["inputs"] {
            declaration.inputs = r.namedEntries(node, "'inputs' of \(what)").compactMap { input($0, &r) }
            if declaration.actionsAreOutcomes, declaration.inputs.contains(where: { $0.name == "action" }) {
                r.diagnostics.error(
                    Self.handlerContract,
                    "\(what) has 'actionsAreOutcomes', which makes 'action' its input: it cannot declare one",
                    at: f.node.location)
            }
        }
        if let node = f["outcomes"] {
            declaration.outcomes = r.namedEntries(node, "'outcomes' of \(what)").compactMap { outcome($0, &r) }
        }
        if declaration.outcomes.isEmpty && !declaration.actionsAreOutcomes {
            r.diagnostics.error(
                Self.handlerContract,
                "\(what) declares no outcome: a step must end with one (add 'outcomes', or 'actionsAreOutcomes: true')",
                at: id.location)
        }
        return declaration
    }

    private func parameter(_ entry: YAMLNode.Entry, _ r: inout NodeReader) -> ExternalHandlerDeclaration.Parameter? {
        let name = Located(entry.key, at: entry.keyLocation)
        r.checkIdentifier(name, "parameter")
        guard
            let f = r.mapping(
                entry.value, "parameter '\(entry.key)'",
                allowed: ["type", "secret", "required", "default", "summary"], required: ["type"]),
            let type = f["type"].flatMap({ r.enumValue($0, "type", as: DeclaredType.self) })
        else { return nil }
        let secret = f["secret"].flatMap { r.bool($0, "'secret'") } ?? false
        let required = f["required"].flatMap { r.bool($0, "'required'") } ?? false
        var defaultValue: Value?
        if let node = f["default"] {
            if required {
                r.diagnostics.error(
                    Self.handlerContract, "parameter '\(entry.key)' is required, so it cannot have a default",
                    at: node.location)
            } else if secret {
                r.diagnostics.error(
                    Self.handlerContract,
                    "parameter '\(entry.key)' is secret: a default would write a secret into the project file",
                    at: node.location)
            } else if case .scalar(let text, let plain) = node.kind,
                let value = LiteralParser.value(text, plain: plain, as: type.valueType)
            {
                defaultValue = value
            } else {
                r.diagnostics.error(
                    NodeReader.valueType, "the default of parameter '\(entry.key)' must be a \(type.rawValue)",
                    at: node.location)
            }
        }
        return ExternalHandlerDeclaration.Parameter(
            name: entry.key, type: TypeInfo(type.valueType, secret: secret), required: required,
            defaultValue: defaultValue, summary: f["summary"].flatMap { r.string($0, "'summary'") } ?? "")
    }

    private func input(_ entry: YAMLNode.Entry, _ r: inout NodeReader) -> InputSpec? {
        r.checkIdentifier(Located(entry.key, at: entry.keyLocation), "input")
        guard
            let f = r.mapping(
                entry.value, "input '\(entry.key)'", allowed: ["type", "secret", "summary", "classes"],
                required: ["type"]),
            let type = f["type"].flatMap({ r.enumValue($0, "type", as: DeclaredType.self) })
        else { return nil }
        return InputSpec(
            name: entry.key,
            type: TypeInfo(type.valueType, secret: f["secret"].flatMap { r.bool($0, "'secret'") } ?? false),
            summary: f["summary"].flatMap { r.string($0, "'summary'") } ?? "",
            classes: f["classes"].map { r.stringList($0, "'classes'").map(\.value) } ?? [])
    }

    private func outcome(_ entry: YAMLNode.Entry, _ r: inout NodeReader) -> OutcomeSpec? {
        r.checkIdentifier(Located(entry.key, at: entry.keyLocation), "outcome")
        var outcome = OutcomeSpec(name: entry.key, summary: "")
        if entry.value.isNull { return outcome }
        guard
            let f = r.mapping(entry.value, "outcome '\(entry.key)'", allowed: ["summary", "data", "optional"])
        else { return nil }
        outcome.summary = f["summary"].flatMap { r.string($0, "'summary'") } ?? ""
        outcome.optional = f["optional"].flatMap { r.bool($0, "'optional'") } ?? false
        if let node = f["data"] {
            for item in r.namedEntries(node, "'data' of outcome '\(entry.key)'") {
                r.checkIdentifier(Located(item.key, at: item.keyLocation), "data")
                let what = "data '\(item.key)'"
                if item.value.scalar != nil {
                    if let type = r.enumValue(item.value, "the type of \(what)", as: DeclaredType.self) {
                        outcome.data.append(DataSpec(name: item.key, type: TypeInfo(type.valueType)))
                    }
                } else if let d = r.mapping(item.value, what, allowed: ["type", "secret"], required: ["type"]),
                    let type = d["type"].flatMap({ r.enumValue($0, "type", as: DeclaredType.self) })
                {
                    let secret = d["secret"].flatMap { r.bool($0, "'secret'") } ?? false
                    outcome.data.append(DataSpec(name: item.key, type: TypeInfo(type.valueType, secret: secret)))
                }
            }
        }
        return outcome
    }

    /// A handler id that is not one.
    public static let handlerID = "project.handler"
    /// A contract that contradicts itself.
    public static let handlerContract = "project.contract"
}

/// Language tags as locales are written in journeys and scenarios: letters, digits, `-` and
/// `_`, starting with a letter, at most 35 characters.
enum LocaleName {
    static func isValid(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, text.unicodeScalars.count <= 35,
            ("a"..."z").contains(first) || ("A"..."Z").contains(first)
        else { return false }
        return text.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_"
        }
    }
}
