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
    static func load(paths: [String], journeyFolders: [String] = []) -> (project: Project, diagnostics: DiagnosticList)
    {
        var diagnostics = DiagnosticList()
        let files = Files.yamlFiles(in: paths, diagnostics: &diagnostics)
        var sources = Files.sources(files, limit: limits.maxBytes, diagnostics: &diagnostics)
        // A file is read once, however many of the paths and folders lead to it.
        let cwd = FileManager.default.currentDirectoryPath
        var seen = Set(files.map { Path.absoluteComponents($0, cwd: cwd) })
        let extra = Files.yamlFiles(in: journeyFolders, diagnostics: &diagnostics).filter {
            seen.insert(Path.absoluteComponents($0, cwd: cwd)).inserted
        }
        sources += Files.sources(extra, limit: limits.maxBytes, diagnostics: &diagnostics).map {
            SourceFile(path: $0.path, data: $0.data, journeyOnly: true)
        }
        sources += nearbyJourneys(for: paths, excluding: seen)
        let project = Toolkit.current.loader().load(sources)
        diagnostics.append(contentsOf: project.diagnostics)
        return (project, diagnostics)
    }

    /// Journey files that the given paths may call or play, read as candidates: the loader
    /// uses only those it needs.
    static func nearbyJourneys(for paths: [String], excluding: Set<[String]>) -> [SourceFile] {
        var ignored = DiagnosticList()
        var files: [String] = []
        for path in paths {
            let (folder, recursive) = journeySearchPath(for: path)
            if recursive {
                files += Files.yamlFiles(in: [folder], diagnostics: &ignored)
            } else {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
                files += names.filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }.sorted().map {
                    Path.join(folder, $0)
                }
            }
        }
        let cwd = FileManager.default.currentDirectoryPath
        var seen = excluding
        files = files.filter { seen.insert(Path.absoluteComponents($0, cwd: cwd)).inserted }
        return Files.sources(files, limit: limits.maxBytes, diagnostics: &ignored).map {
            SourceFile(path: $0.path, data: $0.data, journeyOnly: true)
        }
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

    /// Where a scenario's golden transcripts live: `transcripts/NAME.txt` and `.jsonl` beside
    /// the `scenarios` folder that holds it.
    static func goldenBase(for scenarioFile: String) -> String {
        let directory = Path.parent(scenarioFile)
        let name = Path.removingSuffix(
            Path.lastComponent(scenarioFile), [".scenario.yaml", ".scenario.yml", ".yaml", ".yml"])
        let base = Path.lastComponent(directory) == "scenarios" ? Path.parent(directory) : directory
        return Path.join(Path.join(base, "transcripts"), name)
    }

    /// A path shown relative to the current folder when it is inside it.
    static func display(_ path: String) -> String {
        let cwd = FileManager.default.currentDirectoryPath + "/"
        return path.hasPrefix(cwd) ? String(path.dropFirst(cwd.count)) : path
    }
}
