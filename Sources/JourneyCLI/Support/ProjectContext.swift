import ArgumentParser
import Foundation
import JourneyCore
import JourneySuite

/// The project a command runs in: the `journeykit.yaml` found in the working folder or the
/// nearest folder above it, with its journey folders as paths from the working folder. With
/// no project file, the defaults every command had before: the `journeys` folder, and nothing
/// else decided.
struct ProjectContext: Sendable {
    /// The project file, as a path from the working folder; nil when there is none.
    var file: String?
    var settings: ProjectSettings
    /// The project's journey folders, as paths from the working folder.
    var journeyFolders: [String]
    /// The folders of journeys it uses, as paths from the working folder.
    var usedFolders: [String]
    /// The handlers journeys may name: the command line's, and the programs the project file
    /// declares under `handlers:`.
    var toolkit = Toolkit.current

    static var none: ProjectContext {
        ProjectContext(file: nil, settings: ProjectSettings(journeys: []), journeyFolders: [], usedFolders: [])
    }

    /// Every folder a call may find its journey in.
    var searchFolders: [String] { journeyFolders + usedFolders }

    /// The paths a command works on: those given, else the project's journey folders, else
    /// `journeys`.
    func paths(_ given: [String]) -> [String] {
        if !given.isEmpty { return given }
        return journeyFolders.isEmpty ? ["journeys"] : journeyFolders
    }

    /// ``paths(_:)``, for a command that needs journeys to work on: with no path given, no
    /// journey folder in a project file and no `journeys` folder here, an error that says where
    /// journeys were looked for and how to name them (`usage`, the command with a folder named),
    /// instead of one about a missing `journeys`.
    func paths(_ given: [String], usage: String) throws -> [String] {
        let paths = self.paths(given)
        guard given.isEmpty, journeyFolders.isEmpty, !Files.exists("journeys") else { return paths }
        if let file {
            let shown = Workspace.display(file)
            throw CLIError(
                "no journeys found: \(shown) names no journey folders and there is no folder 'journeys' beside it; name their files or folders (\(usage)), or list the folders in \(shown) (journeys: [flows])"
            )
        }
        throw CLIError(
            "no journeys found: there is no journeykit.yaml in this folder or a folder above it, and no folder 'journeys' here; name their files or folders (\(usage)), or start a project with `journey new project`"
        )
    }

    /// What a scenario falls back to when it does not say.
    var scenarioDefaults: ScenarioRunner.Defaults {
        ScenarioRunner.Defaults(locale: settings.locale, kdfRounds: settings.kdfRounds)
    }

    /// Finds and reads the project file. Its problems are printed as diagnostics and stop the
    /// command with exit 2: a project that says what it wants is never half followed.
    static func load(console: Console) throws -> ProjectContext {
        var diagnostics = DiagnosticList()
        let context = load(into: &diagnostics)
        if diagnostics.errorCount > 0 {
            console.print(diagnostics)
            throw ExitCode(ExitStatus.invalid)
        }
        return context
    }

    static func load(into diagnostics: inout DiagnosticList) -> ProjectContext {
        let cwd = FileManager.default.currentDirectoryPath
        guard let (file, levels) = find(from: cwd) else { return .none }
        var read = DiagnosticList()
        let sources = Files.sources([file], limit: Workspace.limits.maxBytes, diagnostics: &read)
        diagnostics.append(contentsOf: read)
        let pipeline = Pipeline(handlers: Toolkit.current.handlers, yaml: SafeYAML(limits: Workspace.limits))
        guard let source = sources.first, let settings = pipeline.projectSettings(source, into: &diagnostics)
        else { return .none }
        return resolve(settings, file: file, levels: levels, into: &diagnostics)
    }

    /// The settings with their folders as paths from the working folder, each checked to be
    /// a folder.
    private static func resolve(
        _ settings: ProjectSettings, file: String, levels: Int, into diagnostics: inout DiagnosticList
    ) -> ProjectContext {
        let base = Array(repeating: "..", count: levels).joined(separator: "/")
        func resolve(_ folders: [Located<String>]) -> [String] {
            folders.map { folder in
                let path = folder.value.hasPrefix("/") ? folder.value : Path.join(base, folder.value)
                var isDirectory: ObjCBool = false
                if !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) || !isDirectory.boolValue {
                    diagnostics.error(
                        missingFolder, "no folder '\(folder.value)' (looked for \(path))", at: folder.location)
                }
                return path
            }
        }
        // Not naming any, the project's journeys are in `journeys` beside the file, if anywhere.
        let beside = Path.join(base, "journeys")
        let journeys =
            !settings.journeys.isEmpty
            ? resolve(settings.journeys) : FileManager.default.fileExists(atPath: beside) ? [beside] : []
        var context = ProjectContext(
            file: file, settings: settings, journeyFolders: journeys, usedFolders: resolve(settings.uses))
        context.toolkit = externalHandlers(settings.handlers, folder: Path.parent(file), into: &diagnostics)
        return context
    }

    /// The command line's handlers with the project's programs added, each run in the
    /// project file's folder. An id already taken is reported where the project file declares it.
    private static func externalHandlers(
        _ declarations: [ExternalHandlerDeclaration], folder: String, into diagnostics: inout DiagnosticList
    ) -> Toolkit {
        var toolkit = Toolkit.current
        let cwd = FileManager.default.currentDirectoryPath
        let absolute = "/" + Path.absoluteComponents(folder, cwd: cwd).joined(separator: "/")
        for declaration in declarations {
            let id = declaration.id.value
            guard toolkit.handlers[id] == nil else {
                let by = Toolkit.builtin.handlers[id] != nil ? "a built-in handler" : "a handler of this command line"
                diagnostics.error(
                    ProjectFileLoader.handlerID,
                    "handler id '\(id)' is taken by \(by); give the program an id of its own, prefixed with your "
                        + "app's or company's name (such as 'acme.')",
                    at: declaration.id.location)
                continue
            }
            toolkit = toolkit.adding(
                external: ExternalHandler(declaration) { () throws(HandlerTransportFailure) in
                    try HandlerProcess(command: declaration.command, folder: absolute, timeout: declaration.timeout)
                })
        }
        if !declarations.isEmpty { HandlerProcess.stopAllAtExit() }
        return toolkit
    }

    static let missingFolder = "project.folder"

    /// The nearest `journeykit.yaml` from `folder` up, as a path from `folder`, and how many
    /// folders up it is.
    static func find(from folder: String) -> (file: String, levels: Int)? {
        var components = Path.absoluteComponents(folder, cwd: "/")
        var levels = 0
        while true {
            let candidate = "/" + (components + [ProjectSettings.fileName]).joined(separator: "/")
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), !isDirectory.boolValue {
                let prefix = Array(repeating: "..", count: levels).joined(separator: "/")
                return (Path.join(prefix, ProjectSettings.fileName), levels)
            }
            guard !components.isEmpty else { return nil }
            components.removeLast()
            levels += 1
        }
    }
}
