import ArgumentParser
import Foundation
import JourneyCore
import JourneySuite

/// `journey test --watch`: the suite runs once, then again each time files change, only the
/// scenarios the change touches, until Ctrl-C.
extension TestCommand {
    /// Why an option given with `--watch` cannot go with it, if one cannot.
    var watchConflict: String? {
        if update {
            return
                "--watch cannot be used with --update: a watch that re-recorded goldens would accept every change it saw; run journey test --update once, then watch"
        }
        if let option = junit != nil ? "--junit" : json != nil ? "--json" : nil {
            return
                "--watch cannot be used with \(option): a report describes one whole run; write it with a run of its own"
        }
        if shard != nil {
            return
                "--watch cannot be used with --shard: a shard is one machine's part of a CI run; choose what a watch runs with --filter or --tag"
        }
        if explore {
            return
                "--watch cannot be used with --explore: explore the journey you change with journey explore"
        }
        return nil
    }

    /// Runs the suite, then watches the folders it is read from and runs again, on each
    /// change, the scenarios it touches (see ``SuiteFiles/affected(by:before:)``). Files that
    /// no longer read are reported and the watch goes on. Ends only with SIGINT (exit 130) or
    /// SIGTERM (143).
    func runWatching(
        paths: [String], context: ProjectContext, loaded: (project: Project, diagnostics: DiagnosticList),
        console: Console
    ) throws {
        let cwd = FileManager.default.currentDirectoryPath
        let events = try FileWatch.platform()
        SignalPipe.shared.install()
        defer { SignalPipe.shared.uninstall() }
        let folders = Self.watchedFolders(paths: paths, context: context, cwd: cwd)
        guard !folders.isEmpty else {
            console.print(loaded.diagnostics.errors)
            throw CLIError("--watch found no folder to watch: none of \(paths.joined(separator: ", ")) exists")
        }
        try events.watch(folders)

        var (project, diagnostics) = loaded
        var files = SuiteFiles(project, cwd: cwd)
        var interruption = try runAgain(
            project, diagnostics, only: nil, paths: paths, context: context, console: console)
        while interruption == nil {
            let count = events.folderCount
            // A folder given that is gone is said, with what brings it back.
            let gone = events.awaited.map(Workspace.display)
            let waiting = gone.isEmpty ? "" : ", and waiting for \(gone.joined(separator: ", ")) to come back"
            console.err("watching \(counted(count, "folder"))\(waiting) — press Ctrl-C to stop\n")
            var changed: [String] = []
            while changed.isEmpty && interruption == nil {
                switch FileWatch.next(events) {
                case .signal(let name): interruption = name
                case .changed(let paths): changed = paths.filter(files.concerns)
                case .quiet: break
                }
            }
            guard interruption == nil else { break }
            (project, diagnostics) = Workspace.load(
                paths: paths, journeyFolders: context.searchFolders, toolkit: context.toolkit)
            let now = SuiteFiles(project, cwd: cwd)
            let affected = now.affected(by: changed, before: files)
            files = now
            interruption = try runAgain(
                project, diagnostics, only: (changed, affected), paths: paths, context: context, console: console)
        }
        console.err("stopped watching\n")
        throw ExitCode(Interruption.exitStatus(interruption ?? "SIGINT"))
    }

    /// Runs the selected scenarios and prints their results and the summary line. After a
    /// change (`only`), first says what changed and how many scenarios it touches, and runs
    /// only those (the scenarios whose absolute file is among them); the errors in the files
    /// are printed either way. Returns the signal that stopped the run, if one did.
    private func runAgain(
        _ project: Project, _ diagnostics: DiagnosticList, only: (changed: [String], scenarios: Set<String>)?,
        paths: [String],
        context: ProjectContext, console: Console
    ) throws -> String? {
        let cwd = FileManager.default.currentDirectoryPath
        func chosen(_ file: String) -> Bool {
            only?.scenarios.contains("/" + Path.absoluteComponents(file, cwd: cwd).joined(separator: "/")) ?? true
        }
        let options = SuiteOptions(filter: filter, tags: tags, repeats: repeats)
        let runner = SuiteRunner(options: options, player: context.toolkit.player(defaults: context.scenarioDefaults))
        let selected = runner.select(project.scenarios).filter { chosen($0.file) }
        let unrunnable = runner.select(project.unrunnable).filter { chosen($0.file) }.map(
            ScenarioOutcome.init(unrunnable:))
        if let only { console.err("\n" + Self.describe(only.changed, running: selected.count + unrunnable.count)) }
        console.print(diagnostics.shownWhenRunning)
        if only != nil && selected.isEmpty && unrunnable.isEmpty { return nil }
        for outcome in unrunnable { console.out(render(outcome, console: console)) }
        let jobs = jobs ?? context.settings.jobs ?? ProcessInfo.processInfo.activeProcessorCount
        let played = try play(selected, paths: paths, jobs: jobs, console: console)
        let summary = SuiteSummary(played.results + unrunnable)
        console.out(summary.line + (played.interruption.map { ", interrupted by \($0)" } ?? "") + "\n")
        return played.interruption
    }

    /// The folders to watch, as absolute paths, none inside another: each path given (the
    /// folder holding it, for a file), the folder its journeys are looked for in (see
    /// ``Workspace/journeySearchPath(for:)``), which holds the goldens of a scenario named
    /// alone, and the project's journey folders. Those that do not exist are left out.
    static func watchedFolders(paths: [String], context: ProjectContext, cwd: String) -> [String] {
        var candidates: [String] = []
        for path in paths {
            candidates.append(Files.isFolder(path) ? path : Path.parent(path))
            candidates.append(Workspace.journeySearchPath(for: path).folder)
        }
        candidates += context.searchFolders
        let absolute = candidates.map { "/" + Path.absoluteComponents($0, cwd: cwd).joined(separator: "/") }
            .filter(Files.isFolder)
        var folders: [String] = []
        for folder in Set(absolute).sorted() where !folders.contains(where: { Workspace.path($0, covers: folder) }) {
            folders.append(folder)
        }
        return folders
    }

    /// The line that says what changed and how many scenarios run again.
    static func describe(_ changed: [String], running: Int) -> String {
        let names = changed.map(Workspace.display)
        let what: String
        switch names.count {
        case 1: what = names[0]
        case 2, 3: what = "\(names.count) files (\(names.joined(separator: ", ")))"
        default: what = "\(names.count) files (\(names.prefix(2).joined(separator: ", ")) and \(names.count - 2) more)"
        }
        let run = running == 0 ? "no scenario to run" : "running \(counted(running, "scenario"))"
        return "\(what) changed: \(run)\n"
    }
}
