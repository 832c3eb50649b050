import Foundation

/// A file handed to the pipeline in memory; the CLI reads files, the core never does.
public struct SourceFile: Sendable {
    public var path: String
    public var data: Data
    /// When true, the file is used only if it is a journey (for example, the files searched
    /// for sub-journeys); scenarios and other YAML among them are skipped.
    public var journeyOnly: Bool

    public init(path: String, data: Data, journeyOnly: Bool = false) {
        self.path = path
        self.data = data
        self.journeyOnly = journeyOnly
    }
}

/// Journeys and scenarios loaded, checked and compiled together.
public struct Project: Sendable {
    /// The compiled journeys, or nil when any journey has an error.
    public var library: CompiledLibrary?
    public var journeys: [Journey]
    public var scenarios: [CompiledScenario]
    public var diagnostics: DiagnosticList
    /// How many files of each kind were read.
    public var journeyFiles: Int
    public var scenarioFiles: Int
}

/// load → validate → compile for a set of files: each file is read as a journey or a
/// scenario by its first key, journeys are compiled together (so calls between files
/// resolve), and scenarios are checked against them.
public struct ProjectLoader: Sendable {
    public var handlers: HandlerRegistry
    public var yaml: SafeYAML

    static let fileKind = "file.kind"
    /// Below this much YAML, reading files on other threads costs more than it saves.
    static let parallelBytes = 64 << 10

    public init(handlers: HandlerRegistry, yaml: SafeYAML = SafeYAML()) {
        self.handlers = handlers
        self.yaml = yaml
    }

    static func callees(_ journey: Journey) -> [String] {
        journey.steps.compactMap { if case .call(let id) = $0.kind { id.value } else { nil } }
    }

    /// Whether a file starts a top-level `journey:` key, judged from its lines without parsing.
    static func looksLikeJourney(_ data: Data) -> Bool {
        let text = String(decoding: data.prefix(64 << 10), as: UTF8.self)
        return text.split(separator: "\n").contains { $0.hasPrefix("journey:") }
    }

    /// What one file came to, read on its own.
    enum FileResult {
        case skipped
        case problems([Diagnostic])
        /// A journey from the files searched for sub-journeys, used only if called.
        case candidate(id: String, journey: Journey?, diagnostics: [Diagnostic])
        /// A journey; `broken` names it when it has errors.
        case journey(Journey?, diagnostics: [Diagnostic], broken: String?)
        case scenario(Scenario?, diagnostics: [Diagnostic])
    }

    /// Parses and loads one file: YAML, then the journey or scenario model.
    func read(_ file: SourceFile) -> FileResult {
        if file.journeyOnly && !Self.looksLikeJourney(file.data) { return .skipped }
        let root: YAMLNode
        switch yaml.parse(file.data, path: file.path) {
        case .failure(let failure):
            return file.journeyOnly ? .skipped : .problems(failure.diagnostics.items)
        case .success(let node): root = node
        }
        guard case .mapping(let entries) = root.kind, let first = entries.first?.key else {
            if file.journeyOnly { return .skipped }
            var d = DiagnosticList()
            d.error(
                Self.fileKind,
                "expected a journey (starting with 'journey:') or a scenario (starting with 'scenario:')",
                at: root.location)
            return .problems(d.items)
        }
        if file.journeyOnly {
            guard first == "journey", let id = entries[0].value.scalar else { return .skipped }
            let (journey, diagnostics) = JourneyLoader(yaml: yaml).load(root, path: file.path)
            return .candidate(id: id, journey: journey, diagnostics: diagnostics.items)
        } else if first == "journey" || (first != "scenario" && entries.contains { $0.key == "steps" }) {
            let (journey, diagnostics) = JourneyLoader(yaml: yaml).load(root, path: file.path)
            var broken: String?
            if journey?.isIncomplete ?? true, let id = entries.first(where: { $0.key == "journey" })?.value.scalar {
                broken = id
            }
            return .journey(journey, diagnostics: diagnostics.items, broken: broken)
        } else if first == "scenario" || entries.contains(where: { $0.key == "script" }) {
            let (scenario, diagnostics) = ScenarioLoader(yaml: yaml).load(root, path: file.path)
            return .scenario(scenario, diagnostics: diagnostics.items)
        } else {
            var d = DiagnosticList()
            d.error(
                Self.fileKind,
                "expected a journey (starting with 'journey:') or a scenario (starting with 'scenario:'), found '\(first):'\(Suggestion.hint(for: first, in: ["journey", "scenario"]))",
                at: entries[0].keyLocation)
            return .problems(d.items)
        }
    }

    public func load(_ files: [SourceFile]) -> Project {
        var d = DiagnosticList()
        var journeys: [Journey] = []
        var scenarios: [Scenario] = []
        var journeyFiles = 0
        var scenarioFiles = 0
        // Journeys whose files have errors: their scenarios are not checked (the journey's own
        // errors say what is wrong; "unknown journey" would only add noise).
        var broken: Set<String> = []
        // Journeys from files searched for sub-journeys: used only when needed.
        var candidates: [String: (journey: Journey?, diagnostics: [Diagnostic])] = [:]
        // Files are independent until they are compiled together: read them on every core,
        // then take the results in the order the files were given.
        let bytes = files.reduce(0) { $0 + $1.data.count }
        for result in Parallel.map(files, parallel: bytes >= Self.parallelBytes, read) {
            switch result {
            case .skipped: break
            case .problems(let items): d.append(contentsOf: items)
            case .candidate(let id, let journey, let diagnostics):
                if candidates[id] == nil { candidates[id] = (journey, diagnostics) }
            case .journey(let journey, let diagnostics, let brokenId):
                journeyFiles += 1
                d.append(contentsOf: diagnostics)
                if let journey { journeys.append(journey) }
                if let brokenId { broken.insert(brokenId) }
            case .scenario(let scenario, let diagnostics):
                scenarioFiles += 1
                d.append(contentsOf: diagnostics)
                if let scenario { scenarios.append(scenario) }
            }
        }
        // Add the searched journeys that the named files call or play, transitively.
        var known = Set(journeys.map(\.id.value)).union(broken)
        var wanted = scenarios.map(\.journey.value) + journeys.flatMap(Self.callees)
        while let id = wanted.popLast() {
            guard !known.contains(id), let candidate = candidates[id] else { continue }
            known.insert(id)
            d.append(contentsOf: candidate.diagnostics.filter { $0.severity == .error })
            if let journey = candidate.journey {
                journeys.append(journey)
                wanted += Self.callees(journey)
            }
            if candidate.journey?.isIncomplete ?? true { broken.insert(id) }
        }
        let (library, compileDiagnostics) = JourneyCompiler(handlers: handlers).compile(journeys)
        d.append(contentsOf: compileDiagnostics.items)
        var compiled: [CompiledScenario] = []
        if let library {
            var seen: [String: String] = [:]
            for scenario in scenarios where !broken.contains(scenario.journey.value) {
                let key = scenario.journey.value + "/" + scenario.id.value
                if let other = seen[key] {
                    d.error(
                        JourneyCompiler.duplicateId,
                        "scenario '\(scenario.id.value)' of '\(scenario.journey.value)' is already defined in \(other)",
                        at: scenario.id.location)
                    continue
                }
                seen[key] = scenario.file
                let (checked, diagnostics) = ScenarioChecker().check(scenario, in: library)
                d.append(contentsOf: diagnostics.items)
                if let checked { compiled.append(checked) }
            }
        }
        compiled.sort { ($0.journey.id, $0.id) < ($1.journey.id, $1.id) }
        return Project(
            library: library, journeys: journeys, scenarios: compiled, diagnostics: d, journeyFiles: journeyFiles,
            scenarioFiles: scenarioFiles)
    }
}
