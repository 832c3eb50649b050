/// The load stage for a project file (see ``Pipeline``): a YAML tree → ``ProjectSettings``.
public struct ProjectFileLoader: Sendable {
    static let keys = ["journeys", "uses", "defaults"]
    static let defaultKeys = ["locale", "jobs", "kdfRounds"]

    public init() {}

    /// Loads a project file's settings; nil when it has errors.
    public func load(_ root: YAMLNode, into diagnostics: inout DiagnosticList) -> ProjectSettings? {
        var r = NodeReader()
        let errors = diagnostics.errorCount
        defer { diagnostics.append(contentsOf: r.diagnostics) }
        guard let f = r.mapping(root, "a project file", allowed: Self.keys) else { return nil }
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
                } else {
                    r.diagnostics.error(
                        NodeReader.valueType, "'locale' must be a language tag like en or pt-BR, found '\(locale)'",
                        at: node.location)
                }
            }
            settings.jobs = d["jobs"].flatMap { r.int($0, "'jobs'", in: NumberRange.jobs) }
            settings.kdfRounds = d["kdfRounds"].flatMap { r.int($0, "'kdfRounds'", in: NumberRange.kdfRounds) }
        }
        return diagnostics.errorCount == errors && r.diagnostics.errorCount == 0 ? settings : nil
    }
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
