/// JourneyKit's front end, stage by stage. Each stage takes what the one before it produced
/// and writes its problems into the one collector passed along (a ``DiagnosticList``), rather
/// than returning them beside its result. A stage that cannot produce its result returns nil;
/// the later stages go on with what the others produced, so one broken file never hides the
/// problems, or stops the runs, of the rest.
///
/// | stage   | from → to                                                | done by |
/// |---------|----------------------------------------------------------|---------|
/// | read    | files → ``SourceFile`` (a path and its bytes)            | the caller (the CLI, a test, an editor): the core never reads files |
/// | parse   | ``SourceFile`` → ``YAMLNode``                            | ``SafeYAML`` |
/// | load    | ``YAMLNode`` → ``Journey`` or ``Scenario``               | ``JourneyLoader``, ``ScenarioLoader`` |
/// |         | ``YAMLNode`` → ``ProjectSettings`` (`journeykit.yaml`)    | ``ProjectFileLoader`` |
/// | compile | [``Journey``] → ``CompiledLibrary``                      | ``JourneyCompiler``: keeps every journey that compiles, with all it calls, when others fail |
/// | check   | ``Scenario`` + ``CompiledLibrary`` → ``CompiledScenario`` | ``ScenarioChecker`` |
///
/// ``ProjectLoader`` runs the stages over a set of files and gathers what they produce into a
/// ``Project``: the compiled journeys, the scenarios ready to run, the ones that cannot run and
/// why, and every diagnostic.
public struct Pipeline: Sendable {
    public var handlers: HandlerRegistry
    public var yaml: SafeYAML

    public init(handlers: HandlerRegistry, yaml: SafeYAML = SafeYAML()) {
        self.handlers = handlers
        self.yaml = yaml
    }

    /// parse: a file's bytes → its YAML tree, checked for what makes YAML unsafe (size, depth,
    /// aliases, tags, control characters).
    public func parse(_ file: SourceFile, into diagnostics: inout DiagnosticList) -> YAMLNode? {
        yaml.parse(file.data, path: file.path, into: &diagnostics)
    }

    /// load: a YAML tree → a journey. Returned even with errors when the document is a
    /// mapping (marked ``Journey/isIncomplete``), so that compile reports its problems too.
    public func loadJourney(_ root: YAMLNode, path: String, into diagnostics: inout DiagnosticList) -> Journey? {
        JourneyLoader(yaml: yaml).load(root, path: path, into: &diagnostics)
    }

    /// load: a YAML tree → a scenario; nil when it has errors.
    public func loadScenario(_ root: YAMLNode, path: String, into diagnostics: inout DiagnosticList) -> Scenario? {
        ScenarioLoader(yaml: yaml).load(root, path: path, into: &diagnostics)
    }

    /// load, keeping what could be read of a scenario with errors, to be checked for its other
    /// problems and never run (see ``ScenarioLoader/loadPartially(_:path:into:)``).
    func loadScenarioPartially(
        _ root: YAMLNode, path: String, into diagnostics: inout DiagnosticList
    ) -> (scenario: Scenario?, complete: Bool) {
        ScenarioLoader(yaml: yaml).loadPartially(root, path: path, into: &diagnostics)
    }

    /// parse and load a project file (`journeykit.yaml`) → what could be read of its settings
    /// (``ProjectFileLoader/load(_:into:)``: `diagnostics` says whether it has errors); nil when
    /// it does not parse. A file with nothing in it (or only comments) marks a project's root
    /// and keeps every default.
    public func projectSettings(_ file: SourceFile, into diagnostics: inout DiagnosticList) -> ProjectSettings? {
        if SafeYAML.isBlank(String(decoding: file.data, as: UTF8.self)) { return ProjectSettings(journeys: []) }
        guard let root = parse(file, into: &diagnostics) else { return nil }
        return ProjectFileLoader().load(root, into: &diagnostics)
    }

    /// compile: journeys → the library of those that compile (see
    /// ``JourneyCompiler/compile(_:broken:secretStoredKeys:into:)``).
    public func compile(
        _ journeys: [Journey], broken: [String: String] = [:], secretStoredKeys: Set<String> = [],
        into diagnostics: inout DiagnosticList
    ) -> CompiledLibrary {
        JourneyCompiler(handlers: handlers).compile(
            journeys, broken: broken, secretStoredKeys: secretStoredKeys, into: &diagnostics)
    }

    /// check: a scenario against the library → ready to run; nil when it has errors.
    public func check(
        _ scenario: Scenario, in library: CompiledLibrary, into diagnostics: inout DiagnosticList
    ) -> CompiledScenario? {
        ScenarioChecker().check(scenario, in: library, into: &diagnostics)
    }

    /// parse, load and check: a scenario file's bytes → ready to run against the library; nil
    /// when it has errors (a scenario written rather than read: a counterexample, a play's start).
    public func scenario(
        _ file: SourceFile, in library: CompiledLibrary, into diagnostics: inout DiagnosticList
    ) -> CompiledScenario? {
        guard let root = parse(file, into: &diagnostics),
            let loaded = loadScenario(root, path: file.path, into: &diagnostics),
            let compiled = check(loaded, in: library, into: &diagnostics), !diagnostics.hasErrors
        else { return nil }
        return compiled
    }
}
