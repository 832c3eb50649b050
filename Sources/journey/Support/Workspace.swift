import Foundation
import JourneyCore
import JourneyHandlers

/// Loads journeys and scenarios from disk into a ``Project``.
enum Workspace {
    static let limits = SafeYAML.Limits()

    /// Loads the files under `paths`, plus the journeys they call or play from nearby: see
    /// ``journeySearchPaths(for:)``.
    static func load(paths: [String]) -> (project: Project, readDiagnostics: DiagnosticList) {
        var diagnostics = DiagnosticList()
        let files = Files.yamlFiles(in: paths, diagnostics: &diagnostics)
        var sources = Files.sources(files, limit: limits.maxBytes, diagnostics: &diagnostics)
        sources += nearbyJourneys(for: paths, excluding: Set(files))
        let project = ProjectLoader(handlers: BuiltinHandlers.registry, yaml: SafeYAML(limits: limits)).load(sources)
        return (project, diagnostics)
    }

    /// Journey files that the given paths may call or play, read as candidates: the loader
    /// uses only those it needs.
    static func nearbyJourneys(for paths: [String], excluding: Set<String>) -> [SourceFile] {
        var ignored = DiagnosticList()
        var files: [String] = []
        for path in paths {
            let (folder, recursive) = journeySearchPath(for: path)
            if recursive {
                files += Files.yamlFiles(in: [folder], diagnostics: &ignored)
            } else {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
                files += names.filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }.sorted().map {
                    (folder as NSString).appendingPathComponent($0)
                }
            }
        }
        var seen = excluding
        files = files.filter { seen.insert($0).inserted }
        return Files.sources(files, limit: limits.maxBytes, diagnostics: &ignored).map {
            SourceFile(path: $0.path, data: $0.data, journeyOnly: true)
        }
    }

    /// Where to look for the journeys a file or folder needs: the nearest enclosing folder
    /// named `journeys` (searched recursively); otherwise only the folder itself, or for a
    /// file in a `scenarios` folder, the folder above it.
    static func journeySearchPath(for path: String) -> (folder: String, recursive: Bool) {
        var isDirectory: ObjCBool = false
        FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        var folder = isDirectory.boolValue ? path : (path as NSString).deletingLastPathComponent
        if folder.isEmpty { folder = "." }
        var candidate = (folder as NSString).standardizingPath
        while true {
            if (candidate as NSString).lastPathComponent == "journeys" { return (candidate, true) }
            let parent = (candidate as NSString).deletingLastPathComponent
            if parent == candidate || parent.isEmpty { break }
            candidate = parent
        }
        if (folder as NSString).lastPathComponent == "scenarios" {
            return ((folder as NSString).deletingLastPathComponent, false)
        }
        return (folder, false)
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
