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
        for file in files {
            if file.journeyOnly && !Self.looksLikeJourney(file.data) { continue }
            let root: YAMLNode
            switch yaml.parse(file.data, path: file.path) {
            case .failure(let failure):
                if !file.journeyOnly { d.append(contentsOf: failure.diagnostics.items) }
                continue
            case .success(let node): root = node
            }
            guard case .mapping(let entries) = root.kind, let first = entries.first?.key else {
                if !file.journeyOnly {
                    d.error(
                        Self.fileKind,
                        "expected a journey (starting with 'journey:') or a scenario (starting with 'scenario:')",
                        at: root.location)
                }
                continue
            }
            if file.journeyOnly {
                guard first == "journey", let id = entries[0].value.scalar, candidates[id] == nil else { continue }
                let (journey, diagnostics) = JourneyLoader(yaml: yaml).load(root, path: file.path)
                candidates[id] = (journey, diagnostics.items)
            } else if first == "journey" || (first != "scenario" && entries.contains { $0.key == "steps" }) {
                journeyFiles += 1
                let (journey, diagnostics) = JourneyLoader(yaml: yaml).load(root, path: file.path)
                d.append(contentsOf: diagnostics.items)
                if let journey { journeys.append(journey) }
                if journey?.isIncomplete ?? true, let id = entries.first(where: { $0.key == "journey" })?.value.scalar {
                    broken.insert(id)
                }
            } else if first == "scenario" || entries.contains(where: { $0.key == "script" }) {
                scenarioFiles += 1
                let (scenario, diagnostics) = ScenarioLoader(yaml: yaml).load(root, path: file.path)
                d.append(contentsOf: diagnostics.items)
                if let scenario { scenarios.append(scenario) }
            } else {
                d.error(
                    Self.fileKind,
                    "expected a journey (starting with 'journey:') or a scenario (starting with 'scenario:'), found '\(first):'\(Suggestion.hint(for: first, in: ["journey", "scenario"]))",
                    at: entries[0].keyLocation)
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
