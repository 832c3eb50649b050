import Foundation
import JourneyCore

/// Loads journeys and scenarios from disk into a ``Project``.
enum Workspace {
    static let limits = SafeYAML.Limits()

    /// The read stage of the ``Pipeline`` for every command: loads the files under `paths`,
    /// the journeys in `journeyFolders` (used only when called or played), and the journeys
    /// the files call or play from nearby (see ``journeySearchPath(for:)``), with the
    /// handlers the command line knows. `diagnostics` has the problems of reading the files
    /// and those of the project.
    ///
    /// The journeys of the folders are read but parsed only when needed (see
    /// ``ProjectLoader/load(_:)``): a command on one file costs about the same in a project
    /// of a thousand journeys as in one of ten.
    ///
    /// `adding` are files not on disk (yet), loaded as if they were: `journey new` checks
    /// and plays what it is about to write.
    ///
    /// A path that is not there but is the id of a journey or a scenario in the folders read is
    /// said with that file, and `naming` (given what the id is and the id) says what to give
    /// instead: by default the file.
    static func load(
        paths: [String], journeyFolders: [String] = [], toolkit: Toolkit = .current, adding extra: [SourceFile] = [],
        naming: (Declared, String) -> String = { _, _ in "name that file instead" }
    ) -> (project: Project, diagnostics: DiagnosticList) {
        var diagnostics = DiagnosticList()
        var search = Search()
        // A path that is not there but reads as an id is said once the journey folders are
        // read: the journey or scenario with that id may be among them.
        let ids = paths.filter {
            (JourneyLoader.isJourneyId($0) || JourneyLoader.isIdentifier($0)) && !Files.exists($0)
        }
        // A file named twice (`.` and `./a.journey.yaml`) is read once, as it was first named.
        let files = Files.yamlFiles(in: paths.filter { !ids.contains($0) }, diagnostics: &diagnostics).filter {
            search.isNew($0)
        }
        var sources = Files.sources(files, limit: limits.maxBytes, diagnostics: &diagnostics)
        // A folder named is searched whole already: its journeys are not read twice.
        for path in paths where Files.isFolder(path) { _ = search.startSearching(path, recursive: true) }
        for folder in journeyFolders {
            if search.startSearching(folder, recursive: true) {
                sources += search.sources(in: folder, diagnostics: &diagnostics)
            } else if !FileManager.default.fileExists(atPath: folder) {
                diagnostics.error(
                    "file.missing", "no such file or directory", at: SourceLocation(file: folder, line: 1, column: 1))
            }
        }
        sources += nearbyJourneys(for: paths, search: &search)
        sources += extra
        for id in ids {
            let declaring = sources.lazy.compactMap { file in
                Self.declaration(of: id, file.data).map { (kind: $0, file: display(file.path)) }
            }.first
            diagnostics.error(
                "file.missing",
                "no such file or directory"
                    + (declaring.map {
                        "; '\(id)' is the id of the \($0.kind.rawValue) in \($0.file): \(naming($0.kind, id))"
                    } ?? ""),
                at: SourceLocation(file: id, line: 1, column: 1))
        }
        var loader = toolkit.loader()
        // A file that could not be opened may be a journey declaring any stored key secret:
        // every one is taken to be, so that what the runs show and the goldens an update
        // writes keep it secret (the file is reported, and the command fails).
        loader.filesUnopened = diagnostics.items.contains { $0.id == Files.unreadableFile }
        var project = loader.load(sources)
        diagnostics.append(contentsOf: project.diagnostics)
        sharedGoldens(&project, into: &diagnostics)
        return (project, diagnostics)
    }

    /// What a file declares by an id: a journey or a scenario.
    enum Declared: String {
        case journey, scenario
    }

    /// Whether a file declares a scenario or a journey with `id`, read from its text as the
    /// project loader finds a journey's file by its id (``ProjectLoader/declaredKey(_:in:)``):
    /// a scenario's `scenario:`, else a journey's `journey:`.
    static func declaration(of id: String, _ data: Data) -> Declared? {
        // A scenario names the journey it plays the way a journey names itself.
        if let scenario = ProjectLoader.declaredKey("scenario", in: data) { return scenario == id ? .scenario : nil }
        return ProjectLoader.declaredKey("journey", in: data) == id ? .journey : nil
    }

    /// Whether a command's argument that may be a journey's (or scenario's) id or file names a
    /// file: it ends in `.yaml` or `.yml`, has a folder in it, or is there. An id is none of these.
    static func namesFile(_ argument: String) -> Bool {
        argument.hasSuffix(".yaml") || argument.hasSuffix(".yml") || argument.contains("/") || Files.exists(argument)
    }

    /// Two scenario files whose golden transcripts would be the same files (`a.scenario.yaml`
    /// and `a.yaml` in one folder): each would compare with, and `--update` write over, the
    /// other's. An error at each file after the first, in path order, and neither runs.
    static func sharedGoldens(_ project: inout Project, into diagnostics: inout DiagnosticList) {
        let files = Set(project.scenarios.map(\.file) + project.unrunnable.map(\.file)).sorted()
        var first: [String: String] = [:]
        var shared: [String: String] = [:]
        for file in files {
            let base = goldenBase(for: file)
            guard let earlier = first[base] else {
                first[base] = file
                continue
            }
            let message =
                "its golden transcripts, \(display(base)).txt and .jsonl, are those of \(earlier) too; rename one of the two files"
            diagnostics.error("scenario.golden", message, at: SourceLocation(file: file, line: 1, column: 1))
            shared[file] = message
            shared[earlier] = shared[earlier] ?? "\(file) shares its golden transcripts"
        }
        guard !shared.isEmpty else { return }
        project.unrunnable += project.scenarios.filter { shared[$0.file] != nil }.map { scenario in
            UnrunnableScenario(
                file: scenario.file, journey: scenario.journey.id, scenario: scenario.id, tags: scenario.tags,
                reason: "\(scenario.file): \(shared[scenario.file]!)")
        }
        project.scenarios.removeAll { shared[$0.file] != nil }
    }

    /// Starts listing and reading the project's journey folders (those of the
    /// `journeykit.yaml` found from the working folder) on another thread, for ``load(paths:journeyFolders:)``
    /// to join when a command asks for them: a command that will search them (`journey run`)
    /// calls this first, so that they are read while it parses its arguments. A project file
    /// with errors starts nothing; the command reports them.
    static func prefetchProjectFolders() {
        Files.prefetchSources(limit: limits.maxBytes) {
            var diagnostics = DiagnosticList()
            let context = ProjectContext.load(into: &diagnostics)
            return diagnostics.hasErrors ? [] : context.searchFolders
        }
    }

    /// The files and folders already searched, so that a file is read once, however many of
    /// the paths and folders lead to it, and a folder is listed once.
    struct Search {
        let cwd = FileManager.default.currentDirectoryPath
        /// Files found, by absolute path.
        var seen: Set<String> = []
        /// Folders searched with all their subfolders, as absolute components.
        var searched: [[String]] = []

        /// Whether `file` was not found before; it is now.
        @discardableResult
        mutating func isNew(_ file: String) -> Bool {
            seen.insert(Path.absolute(file, cwd: cwd)).inserted
        }

        /// Whether `folder` is still to be searched: neither it nor a folder above it has been
        /// searched with its subfolders. It counts as searched from now on.
        mutating func startSearching(_ folder: String, recursive: Bool) -> Bool {
            let components = Path.absoluteComponents(folder, cwd: cwd)
            if searched.contains(where: { components.starts(with: $0) }) { return false }
            if recursive { searched.append(components) }
            return true
        }

        /// The YAML files under `folder` not found before (or `folder` itself, when it is a
        /// file), its subfolders too, read as journeys to use only when needed.
        mutating func sources(in folder: String, diagnostics: inout DiagnosticList) -> [SourceFile] {
            if let found = Files.yamlSources(under: folder, limit: limits.maxBytes, diagnostics: &diagnostics) {
                let base = "/" + Path.absoluteComponents(folder, cwd: cwd).joined(separator: "/")
                seen.reserveCapacity(seen.count + found.count)
                // One pass: a project's thousand files are each joined, looked up and kept once.
                var read: [SourceFile] = []
                read.reserveCapacity(found.count)
                for (path, data) in found where seen.insert(Path.join(base, path)).inserted {
                    if var file = Files.source(Path.join(folder, path), data, diagnostics: &diagnostics) {
                        file.journeyOnly = true
                        read.append(file)
                    }
                }
                return read
            }
            let read = isNew(folder) ? Files.sources([folder], limit: limits.maxBytes, diagnostics: &diagnostics) : []
            return read.map { SourceFile(path: $0.path, data: $0.data, journeyOnly: true) }
        }
    }

    /// Journey files that the given paths may call or play, read as candidates: the loader
    /// uses only those it needs.
    static func nearbyJourneys(for paths: [String], search: inout Search) -> [SourceFile] {
        var ignored = DiagnosticList()
        var sources: [SourceFile] = []
        for path in paths {
            let (folder, recursive) = journeySearchPath(for: path)
            guard search.startSearching(folder, recursive: recursive) else { continue }
            if recursive {
                sources += search.sources(in: folder, diagnostics: &ignored)
            } else {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
                let files = names.filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }.sorted().map {
                    Path.join(folder, $0)
                }.filter { search.isNew($0) }
                sources += Files.sources(files, limit: limits.maxBytes, diagnostics: &ignored).map {
                    SourceFile(path: $0.path, data: $0.data, journeyOnly: true)
                }
            }
        }
        return sources
    }

    /// Where to look for the journeys a file or folder needs: the nearest enclosing folder
    /// named `journeys` (searched recursively); otherwise only the folder itself, or for a
    /// file in a `scenarios` folder, the folder above it.
    static func journeySearchPath(for path: String) -> (folder: String, recursive: Bool) {
        var isDirectory: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        let folder = isDirectory.boolValue ? path : Path.parent(path)
        let cwd = FileManager.default.currentDirectoryPath
        var candidate = folder
        while true {
            let components = Path.absoluteComponents(candidate, cwd: cwd)
            guard let name = components.last else { break }
            if name == "journeys" { return (candidate, true) }
            candidate = Path.parent(candidate)
        }
        if Path.lastComponent(folder) == "scenarios" { return (Path.parent(folder), false) }
        return (folder, false)
    }

    /// Every file `project` was read from, and those its scenarios are compared with, by real
    /// path (links resolved), with what each is: for an output that must not replace one. The
    /// files the project's handler programs are started with (their command's words that name
    /// a file, from the project file's folder) are among them: a run starts them.
    static func inputs(
        of project: Project, projectFile: String?, handlers: [ExternalHandlerDeclaration] = []
    )
        -> [String: String]
    {
        var inputs: [String: String] = [:]
        func add(_ path: String, _ what: String) {
            if let real = Files.realPath(path), inputs[real] == nil { inputs[real] = what }
        }
        if let projectFile {
            add(projectFile, "the project file")
            let folder = Path.parent(projectFile)
            for handler in handlers {
                for word in handler.command where !word.isEmpty && !word.hasPrefix("-") {
                    let path = word.hasPrefix("/") ? word : Path.join(folder, word)
                    guard Files.exists(path), !Files.isFolder(path) else { continue }
                    add(path, "a file handler \(handler.id.value) is started with")
                }
            }
        }
        for journey in project.journeys { add(journey.file, "journey \(journey.id.value)'s file") }
        let scenarios = project.scenarios.map(\.file) + project.unrunnable.map(\.file)
        for file in scenarios { add(file, "a scenario") }
        // The files of the project's folders not parsed (searched only for the journeys they
        // may declare) are its files all the same; those named as scenarios have goldens.
        let named = project.files.filter(ProjectLoader.isScenarioName)
        for file in project.files {
            add(file, ProjectLoader.isScenarioName(file) ? "a scenario" : "a file of the project")
        }
        for file in scenarios + named {
            let base = goldenBase(for: file)
            add(base + ".txt", "a golden transcript")
            add(base + ".jsonl", "a golden transcript")
        }
        return inputs
    }

    /// The golden transcripts in the golden folders of `project`'s scenarios that no scenario
    /// plays any more (one renamed or removed), a warning at each: nothing reads them, and they
    /// would come back to life, stale, if a scenario took the name again.
    static func orphanGoldens(of project: Project) -> DiagnosticList {
        var diagnostics = DiagnosticList()
        let scenarios =
            project.scenarios.map(\.file) + project.unrunnable.map(\.file)
            + project.files.filter(ProjectLoader.isScenarioName)
        let played = Set(scenarios.map { resolved(goldenBase(for: $0)) })
        let folders = Set(scenarios.map { Path.parent(goldenBase(for: $0)) })
        for folder in folders.sorted() {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { continue }
            for name in names.sorted()
            where !name.hasPrefix(".") && (name.hasSuffix(".txt") || name.hasSuffix(".jsonl")) {
                let base = Path.join(folder, Path.removingSuffix(name, [".jsonl", ".txt"]))
                guard !played.contains(resolved(base)) else { continue }
                // A scenario of that name beside the golden folder, not among the files read.
                let home = Path.parent(folder)
                let stem = Path.lastComponent(base)
                let candidates =
                    PathText.scenarioSuffixes.map { Path.join(Path.join(home, "scenarios"), stem + $0) }
                    + PathText.scenarioSuffixes.filter { $0.hasPrefix(".scenario.") }.map { Path.join(home, stem + $0) }
                guard !candidates.contains(where: { FileManager.default.fileExists(atPath: $0) }) else { continue }
                diagnostics.warning(
                    "golden.orphan",
                    "a golden transcript of no scenario: no scenarios/\(stem).scenario.yaml plays it (renamed or removed?); remove it, or give a scenario that name",
                    at: SourceLocation(file: Path.join(folder, name), line: 1, column: 1))
            }
        }
        return diagnostics
    }

    /// What of `inputs` (``inputs(of:projectFile:)``) an output written to `path` would
    /// replace, or nil when it would replace none of them.
    static func replaced(by path: String, among inputs: [String: String]) -> String? {
        inputs[resolved(path)]
    }

    /// Whether `file` is `root` or inside the folder `root`, however each is written (`.`,
    /// `./journeys/`, `../app`, absolute): compared as absolute paths from the working folder.
    static func path(_ root: String, covers file: String) -> Bool {
        Path.components(of: file, below: root, cwd: FileManager.default.currentDirectoryPath) != nil
    }

    /// The file a path names, links resolved: the real path of the file, else of its folder
    /// with the name, else the path as given (nothing of it exists yet). A link whose target
    /// does not exist yet names that target, which a write through it makes.
    static func resolved(_ path: String) -> String {
        if let real = Files.realPath(path) { return real }
        var named = path
        // As many links as the system follows before it calls it a loop (Linux's 40).
        for _ in 0..<40 {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: named) else { break }
            named = target.hasPrefix("/") ? target : Path.join(Path.parent(named), target)
        }
        return Files.realPath(Path.parent(named)).map { Path.join($0, Path.lastComponent(named)) } ?? named
    }

    /// Where a scenario's golden transcripts live: `transcripts/NAME.txt` and `.jsonl` beside
    /// the `scenarios` folder that holds it.
    static func goldenBase(for scenarioFile: String) -> String {
        let directory = Path.parent(scenarioFile)
        let name = PathText.scenarioName(of: scenarioFile)
        let base = Path.lastComponent(directory) == "scenarios" ? Path.parent(directory) : directory
        return Path.join(Path.join(base, "transcripts"), name)
    }

    /// A path shown relative to the current folder when it is inside it.
    static func display(_ path: String) -> String {
        let cwd = FileManager.default.currentDirectoryPath + "/"
        return path.hasPrefix(cwd) ? String(path.dropFirst(cwd.count)) : path
    }
}

extension Workspace {
    /// When none of `journeys` has texts in `locale` (and there are some), the locales they
    /// have, sorted, as a message lists them; nil when one has it.
    static func localesWithout(_ locale: String, in journeys: [Journey]) -> String? {
        guard !journeys.isEmpty, !journeys.contains(where: { $0.locales.contains(locale) }) else { return nil }
        return Set(journeys.flatMap(\.locales)).sorted().joined(separator: ", ")
    }

    /// Why `path`, given to `option` (`--from`, `--scenario`), is no scenario file when it is a
    /// folder (`forFolder` says what takes one); nil when it is not a folder.
    static func folderGiven(_ path: String, option: String, forFolder: String) -> CLIError? {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else {
            return nil
        }
        return CLIError("\(path) is a folder, and \(option) takes one scenario file: \(forFolder)")
    }

    /// Why `path`, given to `option` (`--from`, `--scenario`), names no scenario of `project`:
    /// a folder (`forFolder` says what takes one), one of its journeys, or a file of another
    /// kind.
    static func notAScenario(_ path: String, option: String, in project: Project, forFolder: String) -> CLIError {
        if let folder = folderGiven(path, option: option, forFolder: forFolder) { return folder }
        if let journey = project.journeys.first(where: { $0.file == path }) {
            return CLIError(
                "\(path) is a journey (\(journey.id.value)), not a scenario: \(option) takes a scenario file (journey new scenario writes one)"
            )
        }
        if !Files.exists(path) {
            let scenario =
                (project.scenarios.map { ($0.id, $0.file) } + project.unrunnable.map { ($0.scenario, $0.file) })
                .first { $0.0 == path }
            return CLIError(
                "no scenario file \(path)"
                    + (scenario.map {
                        "; '\(path)' is the id of the scenario in \(display($0.1)): \(option) takes its file"
                    }
                        ?? ""))
        }
        return CLIError("\(path) is not a scenario file")
    }
}
