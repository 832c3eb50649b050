import Foundation
import JourneyCore
import JourneyHandlers

/// Loads journeys and scenarios from disk into a ``Project``.
enum Workspace {
    static let limits = SafeYAML.Limits()

    /// Loads the files under `paths`, plus the journeys that scenarios among them may need:
    /// those in the `journeys` folder enclosing each path. Problems in those extra journeys
    /// are reported only when they are errors.
    static func load(paths: [String]) -> (project: Project, readDiagnostics: DiagnosticList) {
        var diagnostics = DiagnosticList()
        let files = Files.yamlFiles(in: paths, diagnostics: &diagnostics)
        var sources = Files.sources(files, limit: limits.maxBytes, diagnostics: &diagnostics)
        let roots = Set(
            paths.map { path in
                var isDirectory: ObjCBool = false
                FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
                // journeysRoot takes a file; for a folder, look from inside it.
                return journeysRoot(for: isDirectory.boolValue ? (path as NSString).appendingPathComponent("x") : path)
            })
        var ignored = DiagnosticList()
        let extra = Files.yamlFiles(in: roots.sorted(), diagnostics: &ignored).filter { !files.contains($0) }
        sources += Files.sources(extra, limit: limits.maxBytes, diagnostics: &ignored).map {
            SourceFile(path: $0.path, data: $0.data, journeyOnly: true)
        }
        var project = ProjectLoader(handlers: BuiltinHandlers.registry, yaml: SafeYAML(limits: limits)).load(sources)
        let named = Set(files)
        var kept = DiagnosticList()
        kept.append(contentsOf: project.diagnostics.items.filter { named.contains($0.location.file) || $0.severity == .error })
        project.diagnostics = kept
        project.journeyFiles -= project.journeys.filter { !named.contains($0.file) }.count
        return (project, diagnostics)
    }

    /// The folder sub-journeys are looked up in: the nearest enclosing folder named
    /// `journeys`, else the file's own folder (or its parent, for a `scenarios` folder).
    static func journeysRoot(for path: String) -> String {
        var directory = ((path as NSString).deletingLastPathComponent as NSString).standardizingPath
        if directory.isEmpty { directory = "." }
        var candidate = directory
        while true {
            if (candidate as NSString).lastPathComponent == "journeys" { return candidate }
            let parent = (candidate as NSString).deletingLastPathComponent
            if parent == candidate || parent.isEmpty { break }
            candidate = parent
        }
        if (directory as NSString).lastPathComponent == "scenarios" {
            return (directory as NSString).deletingLastPathComponent
        }
        return directory
    }

    /// Where a scenario's golden transcripts live: `transcripts/NAME.txt` and `.jsonl` beside
    /// the `scenarios` folder that holds it.
    static func goldenBase(for scenarioFile: String) -> String {
        let directory = (scenarioFile as NSString).deletingLastPathComponent
        var name = (scenarioFile as NSString).lastPathComponent
        for suffix in [".scenario.yaml", ".scenario.yml", ".yaml", ".yml"] where name.hasSuffix(suffix) {
            name = String(name.dropLast(suffix.count))
            break
        }
        let base =
            (directory as NSString).lastPathComponent == "scenarios"
            ? (directory as NSString).deletingLastPathComponent : directory
        return ((base as NSString).appendingPathComponent("transcripts") as NSString).appendingPathComponent(name)
    }

    /// A path shown relative to the current folder when it is inside it.
    static func display(_ path: String) -> String {
        let cwd = FileManager.default.currentDirectoryPath + "/"
        return path.hasPrefix(cwd) ? String(path.dropFirst(cwd.count)) : path
    }
}
