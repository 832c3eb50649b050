import JourneyCore

/// The files a suite is made of, and what depends on what: which scenarios a change to
/// files touches, for `journey test --watch`. Paths are absolute.
struct SuiteFiles: Equatable, Sendable {
    /// The journey each scenario plays, by the scenario's file: every scenario, those that
    /// cannot run too (their journey as far as the file could be read, "" when not at all).
    var scenarios: [String: String] = [:]
    /// The file of each journey, by id.
    var journeys: [String: String] = [:]
    /// The journeys each journey calls, by id.
    var calls: [String: Set<String>] = [:]

    init(scenarios: [String: String] = [:], journeys: [String: String] = [:], calls: [String: Set<String>] = [:]) {
        self.scenarios = scenarios
        self.journeys = journeys
        self.calls = calls
    }

    /// The files of a loaded project, made absolute from `cwd`.
    init(_ project: Project, cwd: String) {
        func absolute(_ path: String) -> String { "/" + Path.absoluteComponents(path, cwd: cwd).joined(separator: "/") }
        for scenario in project.scenarios { scenarios[absolute(scenario.file)] = scenario.journey.id }
        for scenario in project.unrunnable { scenarios[absolute(scenario.file)] = scenario.journey }
        // The journeys read (those only searched too, when something reaches them), and
        // those compiled.
        for journey in project.journeys + project.compiled.journeys.values.map(\.source) {
            journeys[journey.id.value] = journeys[journey.id.value] ?? absolute(journey.file)
            calls[journey.id.value, default: []].formUnion(
                journey.steps.compactMap { if case .call(let id) = $0.kind { id.value } else { nil } })
        }
    }

    /// The golden transcripts of the scenario in `file`: `transcripts/NAME.jsonl` and `.txt`.
    static func goldens(of file: String) -> [String] {
        let base = Workspace.goldenBase(for: file)
        return [base + ".jsonl", base + ".txt"]
    }

    /// Whether a change to `path` may matter to this suite: a YAML file (which may be a new
    /// journey or scenario, or one that no longer reads as either), a scenario's golden, or a
    /// folder holding a file of the suite.
    func concerns(_ path: String) -> Bool {
        if path.hasSuffix(".yaml") || path.hasSuffix(".yml") { return true }
        for file in scenarios.keys {
            if Workspace.path(path, covers: file)
                || Self.goldens(of: file).contains(where: { Workspace.path(path, covers: $0) })
            {
                return true
            }
        }
        return journeys.values.contains { Workspace.path(path, covers: $0) }
    }

    /// The scenario files of this suite (the files as they are now) that a change to
    /// `changed` touches: a scenario whose file changed; one whose golden changed; and every
    /// scenario whose journey reaches a journey whose file changed (that journey itself, or
    /// one that calls it, directly or through others). A changed folder counts as a change
    /// to every file under it. `before` is the suite as it was before the change: a file
    /// that no longer reads still tells which journey it held, and whom that one called.
    func affected(by changed: [String], before: SuiteFiles) -> Set<String> {
        func isChanged(_ file: String) -> Bool { changed.contains { Workspace.path($0, covers: file) } }
        // The journeys in changed files, as they are and as they were.
        var touched: Set<String> = []
        for files in [journeys, before.journeys] {
            for (id, file) in files where isChanged(file) { touched.insert(id) }
        }
        // Then every journey that calls one of those, directly or through others.
        var callers: [String: Set<String>] = [:]
        for graph in [calls, before.calls] {
            for (caller, callees) in graph {
                for callee in callees { callers[callee, default: []].insert(caller) }
            }
        }
        var pending = Array(touched)
        while let id = pending.popLast() {
            for caller in callers[id] ?? [] where touched.insert(caller).inserted { pending.append(caller) }
        }
        var affected: Set<String> = []
        for (file, journey) in scenarios
        where isChanged(file) || touched.contains(journey) || Self.goldens(of: file).contains(where: isChanged) {
            affected.insert(file)
        }
        return affected
    }
}
