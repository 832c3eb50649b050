import Foundation
import JourneyCore
import JourneyHandlers

/// Loads journeys and scenarios from disk into a ``Project``.
enum Workspace {
    static let limits = SafeYAML.Limits()

    static func load(paths: [String]) -> (project: Project, readDiagnostics: DiagnosticList) {
        var diagnostics = DiagnosticList()
        let files = Files.yamlFiles(in: paths, diagnostics: &diagnostics)
        let sources = Files.sources(files, limit: limits.maxBytes, diagnostics: &diagnostics)
        let project = ProjectLoader(handlers: BuiltinHandlers.registry, yaml: SafeYAML(limits: limits)).load(sources)
        return (project, diagnostics)
    }

    /// The folder sub-journeys are looked up in: the nearest enclosing folder named
    /// `journeys`, else the file's own folder.
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
