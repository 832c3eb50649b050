import Foundation

/// A file handed to the pipeline in memory; the CLI reads files, the core never does.
public struct SourceFile: Sendable {
    public var path: String
    public var data: Data
    /// When true, the file is used only if it is a journey (for example, the files searched
    /// for sub-journeys); scenarios and other YAML among them are skipped. Such a file is
    /// parsed only when a journey it may declare is called or played, or when it may declare
    /// secret a stored key that a run or check asks about; its problems are reported only when
    /// its journey is used.
    public var journeyOnly: Bool

    public init(path: String, data: Data, journeyOnly: Bool = false) {
        self.path = path
        self.data = data
        self.journeyOnly = journeyOnly
    }
}

/// Journeys and scenarios loaded, checked and compiled together.
public struct Project: Sendable {
    /// Every journey that compiled, with every journey it calls: what can run even when other
    /// files have errors.
    public var compiled: CompiledLibrary
    public var journeys: [Journey]
    /// The scenarios that can run: checked, and their journeys compiled.
    public var scenarios: [CompiledScenario]
    /// Scenarios that cannot run because their own file or their journey has errors.
    public var unrunnable: [UnrunnableScenario]
    public var diagnostics: DiagnosticList
    /// How many files of each kind were read.
    public var journeyFiles: Int
    public var scenarioFiles: Int
    /// Every file handed to the loader, whether it was parsed or not (those searched only for
    /// the journeys they may declare too): the project's own files, which no output replaces.
    public var files: [String] = []
    /// How many journeys were read from files not named because a named file plays or calls
    /// them, all the way down (`journey check FILE` checks them too).
    public var journeysReached = 0

    /// The compiled journeys, or nil when any file has an error.
    public var library: CompiledLibrary? { diagnostics.hasErrors ? nil : compiled }
}

/// A scenario that cannot run: its file has errors, or the journey it plays (or one that
/// journey calls) does. Reported as an error by `journey test`, never silently left out.
public struct UnrunnableScenario: Sendable, Equatable {
    public var file: String
    /// The journey it plays and its id, as far as the file could be read.
    public var journey: String
    public var scenario: String
    public var tags: [String]
    /// Why it cannot run: where the errors are.
    public var reason: String

    public init(file: String, journey: String, scenario: String, tags: [String], reason: String) {
        self.file = file
        self.journey = journey
        self.scenario = scenario
        self.tags = tags
        self.reason = reason
    }
}

/// Runs the ``Pipeline`` over a set of files: each file is parsed and loaded as a journey or a
/// scenario by its first key (on every core), the journeys are compiled together (so calls
/// between files resolve), and the scenarios are checked against them. Files given only to
/// find what the others call (``SourceFile/journeyOnly``) are parsed only when needed.
public struct ProjectLoader: Sendable {
    public var pipeline: Pipeline
    public var handlers: HandlerRegistry { pipeline.handlers }
    public var yaml: SafeYAML { pipeline.yaml }
    /// Where the stored keys that journeys not reached declare secret are remembered between
    /// runs, so that they need not be parsed again to be sure; nil: they are parsed every time.
    /// Used only for what it is sure of: a file's answer is looked up by its bytes.
    public var secretDeclarations: (any SecretDeclarationMemory)?
    /// Whether a file of the project could not be opened at all: it may be a journey that
    /// declares any stored key secret, so every one is taken to be (fail closed), as each key a
    /// journey's file whose YAML does not parse holds is.
    public var filesUnopened = false

    static let fileKind = "file.kind"
    /// Below this much YAML, reading files on other threads costs more than it saves.
    static let parallelBytes = 64 << 10

    public init(handlers: HandlerRegistry, yaml: SafeYAML = SafeYAML()) {
        self.pipeline = Pipeline(handlers: handlers, yaml: yaml)
    }

    static func callees(_ journey: Journey) -> [String] {
        journey.steps.compactMap { if case .call(let id) = $0.kind { id.value } else { nil } }
    }

    /// Whether a file starts a top-level `journey:` key, judged from its lines without parsing.
    static func looksLikeJourney(_ data: Data) -> Bool {
        declaredKey("journey", in: data) != nil && declaredKey("scenario", in: data) == nil
    }

    /// How much of a file's start ``declaredKey(_:in:)`` looks at.
    static let headerBytes = 64 << 10

    /// The value of a top-level `KEY: value` line (the first in the file's first 64 KiB), read
    /// from the text without parsing, for files too broken to parse: so their errors can still
    /// be tied to the journey or scenario they define. Lines are found in the bytes, so that
    /// looking at every file of a large project costs little.
    package static func declaredKey(_ key: String, in data: Data) -> String? {
        let prefix = Array((key + ":").utf8)
        return data.withUnsafeBytes { whole -> String? in
            let bytes = UnsafeRawBufferPointer(rebasing: whole.prefix(headerBytes))
            var start = 0
            while start < bytes.count {
                let end = ByteSearch.firstIndex(of: UInt8(ascii: "\n"), in: bytes, from: start) ?? bytes.count
                if end - start >= prefix.count && bytes[start..<(start + prefix.count)].elementsEqual(prefix),
                    let value = declaredValue(key, line: String(decoding: bytes[start..<end], as: UTF8.self))
                {
                    return value
                }
                start = end + 1
            }
            return nil
        }
    }

    /// The value of `line` when it is `KEY: value` (judged as text, where a combining mark
    /// after the colon makes another character), without a trailing comment (from ` #`),
    /// spaces and tabs (`CharacterSet.whitespaces`), then quotes and carriage returns.
    static func declaredValue(_ key: String, line: String) -> String? {
        guard line.hasPrefix(key + ":") else { return nil }
        var bytes = Array(line.utf8.dropFirst(key.utf8.count + 1))
        if let hash = bytes.indices.dropLast().first(where: { bytes[$0] == 0x20 && bytes[$0 + 1] == 0x23 }) {
            bytes.removeSubrange(hash...)
        }
        var scalars = String(decoding: bytes, as: UTF8.self).unicodeScalars[...]
        func isSpace(_ s: Unicode.Scalar) -> Bool {
            s == " " || s == "\t" || (!s.isASCII && s.properties.generalCategory == .spaceSeparator)
        }
        func isQuote(_ s: Unicode.Scalar) -> Bool { s == "\"" || s == "'" || s == "\r" }
        for trim in [isSpace, isQuote] {
            while let first = scalars.first, trim(first) { scalars.removeFirst() }
            while let last = scalars.last, trim(last) { scalars.removeLast() }
        }
        return String(scalars)
    }

    /// What a file's answer about secret stored keys depends on besides its bytes: the YAML
    /// limits it is parsed with (the handlers are not used to load a journey).
    var secretDeclarationSettings: String {
        let limits = yaml.limits
        return "maxBytes=\(limits.maxBytes) maxDepth=\(limits.maxDepth) maxNodes=\(limits.maxNodes) "
            + "maxScalarBytes=\(limits.maxScalarBytes)"
    }

    /// The stored keys a file searched for sub-journeys declares secret, from what reading it
    /// came to: none unless it loaded as a journey.
    static func secretStoredKeys(_ result: FileResult) -> [String] {
        guard case .candidate(_, _, let journey?, _) = result else { return [] }
        return journey.secretStoredKeys
    }

    /// Whether `file` is a project file (`journeykit.yaml`), read as what it is whatever it holds.
    static func isProjectFile(_ file: SourceFile) -> Bool {
        file.path.split(separator: "/").last == Substring(ProjectSettings.fileName)
    }

    /// What one file came to, read on its own.
    indirect enum FileResult {
        case skipped
        case problems(DiagnosticList)
        /// A journey from the files searched for sub-journeys, used only if called.
        case candidate(id: String, file: String, journey: Journey?, diagnostics: DiagnosticList)
        /// A journey; `broken` names it when it has errors.
        case journey(Journey?, diagnostics: DiagnosticList, broken: String?)
        /// A scenario; `complete` is false when it has errors and is only what could be read of
        /// it, to be checked for its other problems and never run.
        case scenario(Scenario?, diagnostics: DiagnosticList, declared: UnrunnableScenario, complete: Bool = true)
    }

    /// Parses and loads one file: YAML, then the journey or scenario model.
    func read(_ file: SourceFile) -> FileResult {
        if file.journeyOnly && !Self.looksLikeJourney(file.data) { return .skipped }
        var d = DiagnosticList()
        // A project file among the files (`journey check .` at a project's root, or a
        // project inside the folder checked) is checked as what it is.
        if Self.isProjectFile(file) {
            if file.journeyOnly { return .skipped }
            _ = pipeline.projectSettings(file, into: &d)
            return .problems(d)
        }
        guard let root = pipeline.parse(file, into: &d) else {
            // A file too broken to parse is still tied to what it declares, so that a caller
            // or a scenario points to its errors instead of saying "unknown journey".
            // (A scenario names its journey too, but only a scenario has `scenario:`.)
            let isScenario =
                Self.declaredKey("scenario", in: file.data) != nil
                || (Self.declaredKey("journey", in: file.data) == nil && Self.isScenarioName(file.path))
            if !isScenario, let id = Self.declaredKey("journey", in: file.data), !id.isEmpty {
                if file.journeyOnly {
                    return .candidate(id: id, file: file.path, journey: nil, diagnostics: d)
                }
                return .journey(nil, diagnostics: d, broken: id)
            }
            if file.journeyOnly { return .skipped }
            if isScenario { return .scenario(nil, diagnostics: d, declared: declared(file)) }
            return .problems(d)
        }
        guard case .mapping(let entries) = root.kind, let first = entries.first?.key else {
            if file.journeyOnly { return .skipped }
            d.error(
                Self.fileKind,
                "expected a journey (starting with 'journey:') or a scenario (starting with 'scenario:')",
                at: root.location)
            return Self.isScenarioName(file.path)
                ? .scenario(nil, diagnostics: d, declared: declared(file)) : .problems(d)
        }
        if file.journeyOnly {
            guard first == "journey", let id = entries[0].value.scalar else { return .skipped }
            let journey = pipeline.loadJourney(root, path: file.path, into: &d)
            return .candidate(id: id, file: file.path, journey: journey, diagnostics: d)
        } else if first == "journey" || (first != "scenario" && entries.contains { $0.key == "steps" }) {
            let journey = pipeline.loadJourney(root, path: file.path, into: &d)
            var broken: String?
            if journey?.isIncomplete ?? true, let id = entries.first(where: { $0.key == "journey" })?.value.scalar {
                broken = id
            }
            return .journey(journey, diagnostics: d, broken: broken)
        } else if first == "scenario" || entries.contains(where: { $0.key == "script" || $0.key == "sessions" }) {
            let (scenario, complete) = pipeline.loadScenarioPartially(root, path: file.path, into: &d)
            return .scenario(scenario, diagnostics: d, declared: declared(file), complete: complete)
        } else {
            d.error(
                Self.fileKind,
                "expected a journey (starting with 'journey:') or a scenario (starting with 'scenario:'), found '\(first):'\(Suggestion.hint(for: first, in: ["journey", "scenario"]))",
                at: entries[0].keyLocation)
            return Self.isScenarioName(file.path)
                ? .scenario(nil, diagnostics: d, declared: declared(file)) : .problems(d)
        }
    }

    /// Whether a file is named as a scenario: `NAME.scenario.yaml` (or `.yml`), or any file in
    /// a `scenarios` folder. A file so named that cannot be read as one is a scenario that
    /// cannot run (`journey test` counts it), not only a file with errors.
    public static func isScenarioName(_ path: String) -> Bool {
        if path.hasSuffix(".scenario.yaml") || path.hasSuffix(".scenario.yml") { return true }
        let parts = path.split(separator: "/")
        return parts.count >= 2 && parts[parts.count - 2] == "scenarios"
    }

    /// What a scenario file says it is, read from its text: for reporting it when it cannot run.
    func declared(_ file: SourceFile) -> UnrunnableScenario {
        let name = file.path.split(separator: "/").last.map(String.init) ?? file.path
        let stem = name.split(separator: ".").first.map(String.init) ?? name
        let scenario = Self.declaredKey("scenario", in: file.data).flatMap { $0.isEmpty ? nil : $0 } ?? stem
        return UnrunnableScenario(
            file: file.path, journey: Self.declaredKey("journey", in: file.data) ?? "", scenario: scenario, tags: [],
            reason: "")
    }

    /// Loads the files: those a command names are parsed and checked whole; those given as
    /// ``SourceFile/journeyOnly`` are parsed only when what the named files play or call, all
    /// the way down, needs them, or when a stored key's secrecy depends on them (see
    /// ``ProjectJourneyFiles``).
    public func load(_ files: [SourceFile]) -> Project {
        loadTracingParsed(files).project
    }

    /// Reports `id.duplicate` for each other file of `others` that declares journey `id`, which
    /// `file` declares at `location`: at the file whose path sorts later, naming the earlier,
    /// as a check of the whole project does; or, for a file the command names (`named`), at
    /// that file, however the two paths are spelt. The file the first error is reported at, if any.
    static func reportDuplicates(
        of id: String, in file: String, at location: SourceLocation, among others: ProjectJourneyFiles,
        named: Bool = false, into d: inout DiagnosticList
    ) -> String? {
        var reported: String?
        for other in others.otherDeclarations(of: id, besides: file) {
            let otherLocation = SourceLocation(file: other.file, line: other.line, column: other.column)
            let (first, second) =
                named || other.file < file ? (otherLocation, location) : (location, otherLocation)
            d.error(
                JourneyCompiler.duplicateId, "journey id '\(id)' is already used by \(first.file):\(first.line)",
                at: second)
            reported = reported ?? second.file
        }
        return reported
    }

    /// What the files of a load give, gathered as the load goes: the journeys and scenarios read,
    /// the scenarios that cannot run and why, the journeys that have errors, and the diagnostics.
    struct Gathered {
        var d = DiagnosticList()
        var journeys: [Journey] = []
        /// The scenarios read, each with what it declares and whether it was read whole (one
        /// with errors is checked for its other problems, never run).
        var scenarios: [(scenario: Scenario, declared: UnrunnableScenario, complete: Bool)] = []
        var unrunnable: [UnrunnableScenario] = []
        var journeyFiles = 0
        var scenarioFiles = 0
        /// Journeys whose files have errors, and the file: their scenarios are not checked (the
        /// journey's own errors say what is wrong; "unknown journey" would only add noise).
        var broken: [String: String] = [:]
        /// The ids of the journeys read or found broken.
        var known: Set<String> = []
        /// How many journeys were found among the files searched for sub-journeys.
        var reached = 0

        /// Takes one named file's result, in the order the files were given.
        mutating func take(_ result: FileResult) {
            switch result {
            case .skipped, .candidate: break
            case .problems(let items): d.append(contentsOf: items)
            case .journey(let journey, let diagnostics, let brokenId):
                journeyFiles += 1
                d.append(contentsOf: diagnostics)
                if let journey { journeys.append(journey) }
                if let brokenId { broken[brokenId] = journey?.file ?? diagnostics.items.first?.location.file ?? "" }
            case .scenario(let scenario, let diagnostics, var declared, let complete):
                scenarioFiles += 1
                d.append(contentsOf: diagnostics)
                if let scenario {
                    scenarios.append((scenario, declared, complete))
                } else {
                    declared.reason = "\(declared.file) has errors"
                    unrunnable.append(declared)
                }
            }
        }

        /// A journey named that a file of the project declares too: the id would be resolved one
        /// way here and another where the whole project is read. Either way no scenario of an id
        /// declared twice is run (the compiler reports two named files declaring one).
        mutating func markDuplicates(among others: ProjectJourneyFiles) {
            var declaredBy: [String: String] = [:]
            for journey in journeys {
                let id = journey.id.value
                if let reported = ProjectLoader.reportDuplicates(
                    of: id, in: journey.file, at: journey.id.location, among: others, named: true, into: &d)
                {
                    broken[id] = reported
                } else if let first = declaredBy[id] {
                    broken[id] = max(first, journey.file)
                }
                declaredBy[id] = declaredBy[id] ?? journey.file
            }
        }

        /// Adds the searched journeys that the named files call or play, transitively.
        mutating func reach(_ others: ProjectJourneyFiles) {
            known = Set(journeys.map(\.id.value)).union(broken.keys)
            var wanted = scenarios.map(\.scenario.journey.value) + journeys.flatMap(ProjectLoader.callees)
            while let id = wanted.popLast() {
                guard !known.contains(id), let candidate = others.journey(id) else { continue }
                known.insert(id)
                reached += 1
                d.append(contentsOf: candidate.diagnostics.errors)
                let location =
                    candidate.journey?.id.location ?? SourceLocation(file: candidate.file, line: 1, column: 1)
                if let reported = ProjectLoader.reportDuplicates(
                    of: id, in: candidate.file, at: location, among: others, into: &d)
                {
                    broken[id] = reported
                    continue
                }
                if let journey = candidate.journey {
                    journeys.append(journey)
                    wanted += ProjectLoader.callees(journey)
                }
                if candidate.journey?.isIncomplete ?? true { broken[id] = candidate.file }
            }
        }

        /// Checks each scenario against the compiled library, or says why it cannot run.
        mutating func check(in library: CompiledLibrary, with pipeline: Pipeline) -> [CompiledScenario] {
            var compiled: [CompiledScenario] = []
            let keepers = ProjectLoader.scenarioIdKeepers(scenarios.map(\.scenario))
            for (index, (scenario, declared, complete)) in scenarios.enumerated() {
                let journeyId = scenario.journey.value
                var cannotRun = declared
                cannotRun.journey = journeyId
                cannotRun.scenario = scenario.id.value
                cannotRun.tags = scenario.tags
                if let file = broken[journeyId] {
                    cannotRun.reason = "its journey '\(journeyId)' has errors (\(file))"
                    unrunnable.append(cannotRun)
                    continue
                }
                if let keeper = keepers[journeyId + "/" + scenario.id.value], keeper != index {
                    let other = scenarios[keeper].scenario.id.location
                    d.error(
                        JourneyCompiler.duplicateId,
                        "scenario '\(scenario.id.value)' of '\(journeyId)' is already defined at \(other.file):\(other.line):\(other.column); give this one an id of its own, such as its file's name '\(PathText.scenarioName(of: scenario.file))'",
                        at: scenario.id.location)
                    cannotRun.reason = "\(scenario.file) has errors"
                    unrunnable.append(cannotRun)
                    continue
                }
                // A journey that did not compile (or calls one that did not) has reported why.
                if library[journeyId] == nil && known.contains(journeyId) {
                    cannotRun.reason = ProjectLoader.whyNotCompiled(
                        journeyId, journeys: journeys, broken: broken, diagnostics: d)
                    unrunnable.append(cannotRun)
                    continue
                }
                if let checked = pipeline.check(scenario, in: library, into: &d), complete {
                    compiled.append(checked)
                } else {
                    cannotRun.reason = "\(scenario.file) has errors"
                    unrunnable.append(cannotRun)
                }
            }
            return compiled
        }
    }

    /// ``load(_:)``, and the paths of the `journeyOnly` files it parsed, in the order it did.
    func loadTracingParsed(_ files: [SourceFile]) -> (project: Project, parsed: [String]) {
        var gathered = Gathered()
        let named = files.filter { !$0.journeyOnly }
        // Journeys from files searched for sub-journeys: parsed only when needed.
        let others = ProjectJourneyFiles(files.filter(\.journeyOnly), loader: self)
        // Files are independent until they are compiled together: read them on every core,
        // then take the results in the order the files were given.
        let bytes = named.reduce(0) { $0 + $1.data.count }
        let results = Parallel.map(named, parallel: bytes >= Self.parallelBytes, read)
        for result in results { gathered.take(result) }
        gathered.markDuplicates(among: others)
        gathered.reach(others)
        // A stored key declared secret by a journey not loaded is still secret: the library
        // asks the other files about each key it is asked about.
        let declaredSecret = Set(gathered.journeys.flatMap(\.secretStoredKeys))
        // A journey's file whose YAML does not parse may declare any key it holds secret: each
        // such key is taken to be (fail closed), as it is of such a file not loaded.
        let unreadable = zip(named, results).compactMap { file, result -> Data? in
            if case .journey(nil, _, _) = result { file.data } else { nil }
        }
        let library = pipeline.compile(
            gathered.journeys, broken: gathered.broken, secretStoredKeys: declaredSecret, into: &gathered.d
        )
        .declaringSecrets(
            elsewhere: SecretsElsewhere.combining(
                others.isEmpty ? nil : others.secrets, unreadable, everyKey: filesUnopened))
        var compiled = gathered.check(in: library, with: pipeline)
        compiled.sort { ($0.journey.id, $0.id) < ($1.journey.id, $1.id) }
        gathered.unrunnable.sort { ($0.journey, $0.scenario, $0.file) < ($1.journey, $1.scenario, $1.file) }
        let project = Project(
            compiled: library, journeys: gathered.journeys, scenarios: compiled, unrunnable: gathered.unrunnable,
            diagnostics: gathered.d, journeyFiles: gathered.journeyFiles, scenarioFiles: gathered.scenarioFiles,
            files: files.map(\.path), journeysReached: gathered.reached)
        return (project, others.parsed)
    }

    /// For each journey and scenario id that more than one scenario file gives, the scenario
    /// that keeps it: the one whose file is named after the id (a scenario copied to a new file
    /// and not yet renamed is the copy, whichever name sorts first), else the first read.
    static func scenarioIdKeepers(_ scenarios: [Scenario]) -> [String: Int] {
        var keepers: [String: Int] = [:]
        for (index, scenario) in scenarios.enumerated() {
            let key = scenario.journey.value + "/" + scenario.id.value
            guard let kept = keepers[key] else {
                keepers[key] = index
                continue
            }
            let named = { (s: Scenario) in PathText.scenarioName(of: s.file) == s.id.value }
            if !named(scenarios[kept]) && named(scenario) { keepers[key] = index }
        }
        return keepers
    }

    /// Why a journey did not compile: the first journey in its call tree whose file has errors.
    static func whyNotCompiled(
        _ id: String, journeys: [Journey], broken: [String: String], diagnostics: DiagnosticList
    ) -> String {
        let byId = Dictionary(journeys.map { ($0.id.value, $0) }, uniquingKeysWith: { first, _ in first })
        let failing = Set(diagnostics.items.filter { $0.severity == .error }.map(\.location.file))
        var queue = [id]
        var seen: Set<String> = [id]
        var index = 0
        while index < queue.count {
            let current = queue[index]
            index += 1
            let file = broken[current] ?? byId[current].flatMap { failing.contains($0.file) ? $0.file : nil }
            if let file {
                return current == id
                    ? "its journey '\(id)' has errors (\(file))"
                    : "its journey '\(id)' calls '\(current)', which has errors (\(file))"
            }
            for callee in byId[current].map(callees) ?? [] where seen.insert(callee).inserted { queue.append(callee) }
        }
        return "its journey '\(id)' has errors"
    }
}
