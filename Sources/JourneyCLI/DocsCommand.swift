import ArgumentParser
import Foundation
import JourneyCore
import JourneyDocs
import JourneySuite

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct DocsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "docs",
        abstract: "Generate flow documentation from the journeys and their scenarios.",
        discussion: """
            Writes a page per journey — diagram, steps table, params, attempt limits in words, the \
            state it reads and writes, a walkthrough of every scenario taken from its golden \
            transcript, and which transitions no scenario covers — and an index grouped by folder \
            with the graph of which journey calls which.

            Walkthroughs and coverage come from each scenario's golden transcript \
            (transcripts/NAME.jsonl beside its scenarios folder), which `journey test` keeps \
            equal to a real run: nothing is played, so no service needs to be running and the \
            pages show what the committed goldens show, byte for byte, whether a service a \
            scenario `needs` answers or not (the summary line names those services). A scenario without a golden, or with one \
            that does not read as a transcript or shows a secret the scenario gives in clear, is \
            an error naming it (`path:line:column` for the golden); record goldens with `journey test --update`, and run `journey test` \
            before the docs to be sure they are current.

            Formats: md (Markdown with Mermaid diagrams, as GitHub renders it), html (an offline \
            site with SVG diagrams; needs Graphviz's `dot`), dot (Graphviz sources).

            Examples:
              journey docs journeys --out docs/journeys
              journey docs journeys --out site --format html --locale en
              journey docs journeys --out docs/journeys --check  # in CI: fail if stale

            Output is deterministic, and --out changes as a whole: every page written and every \
            obsolete one removed, or (when the run fails) none; a run killed half-way is finished \
            by the next `journey docs`, and --check says so until then. Only files that \
            `journey docs` wrote are ever replaced or removed in --out: a file of yours with a \
            page's name (or a link, which is never followed) stops the run before anything is \
            written. A page is named by its journey's id, so a journey called `index` would \
            replace the index: it is refused, before anything is written; give it another id. \
            Exits 0 on success, 1 when \
            --check finds stale pages or an unfinished update, 2 for invalid files or options, a \
            journey called `index`, a missing or unreadable golden, or when --out cannot be written.
            """
    )

    @Argument(
        help: "Folders or files holding journeys and scenarios (default: the project's journey folders, else journeys)."
    )
    var paths: [String] = []

    @Option(help: "The folder to write the documentation to.")
    var out: String

    @Option(help: "md, html or dot.")
    var format: DocsFormat = .md

    @Option(
        help:
            "The language for screen texts (default: the project's locale); a journey without texts in it shows its default's, and one no journey has is refused."
    )
    var locale: String?

    @Flag(help: "Write nothing; fail if any page differs from what would be generated.")
    var check = false

    func validate() throws {
        if out.isEmpty { throw ValidationError("--out takes a folder to write the documentation to") }
        if locale?.isEmpty == true { throw ValidationError("--locale takes a language tag, like 'en' or 'nl'") }
    }

    /// `file` (a path from `cwd`) as a path from `root`, when it is inside it; else as given.
    static func fromRoot(_ file: String, root: String?, cwd: String) -> String {
        guard let root, let below = Path.components(of: file, below: root, cwd: cwd), !below.isEmpty else {
            return file
        }
        return below.joined(separator: "/")
    }

    /// The scenarios' committed goldens as recordings, and the goldens that cannot be read.
    static func recordings(_ scenarios: [CompiledScenario]) -> ([ScenarioRecording], [GoldenProblem]) {
        var recordings: [ScenarioRecording] = []
        var problems: [GoldenProblem] = []
        let goldens = FileGoldenStore()
        for scenario in scenarios {
            switch goldens.events(for: scenario) {
            case .success(let records):
                recordings.append(
                    ScenarioRecording(
                        journey: scenario.journey.id, scenario: scenario.id, title: scenario.title, tags: scenario.tags,
                        // Only a run that met its expectation is ever recorded as a golden.
                        file: scenario.file, records: records, passed: true))
            case .failure(let problem):
                problems.append(problem)
            }
        }
        return (recordings, problems)
    }

    func run() async throws {
        let console = Console()
        let context = try ProjectContext.load(console: console)
        let locale = self.locale ?? context.settings.locale
        let (project, diagnostics) = Workspace.load(
            paths: try context.paths(paths, usage: "journey docs path/to/journeys --out \(out)"),
            journeyFolders: context.searchFolders, toolkit: context.toolkit)
        console.print(diagnostics.shownWhenRunning)
        guard !diagnostics.hasErrors, let library = project.library else { throw ExitCode(ExitStatus.invalid) }
        // A --locale none of the journeys has would give every page in its default's texts.
        if let asked = self.locale, let offered = Workspace.localesWithout(asked, in: project.journeys) {
            throw CLIError("no journey here has texts in '\(PrintableText.escaped(asked))': they have \(offered)")
        }

        // Walkthroughs come from the committed goldens, which `journey test` keeps equal to
        // real runs: nothing is played, so no page depends on what happens to be running.
        let (recordings, problems) = Self.recordings(project.scenarios)
        guard problems.isEmpty else {
            for problem in problems { console.err("\(problem.location): error: \(problem.message) [\(problem.id)]\n") }
            throw ExitCode(ExitStatus.invalid)
        }
        let source = Self.sourceNote(project.scenarios.map(\.needs))
        let files = try pages(project, library: library, recordings: recordings, locale: locale, context: context)
        try prepareFolder(console)
        let existing = existingFiles(in: out)
        let folder = DocsSite.compare(files, format: format, existing: existing.files)
        try refuseForeign(folder, others: existing.others, files: files, console)

        if check { return try compared(folder, existing: existing.files, count: files.count, source: source, console) }
        try write(files, removing: folder.obsolete, console)
        console.err("wrote \(counted(files.count, "file")) to \(out)\(source)\n")
        // A page of an earlier run that no journey makes now goes; each is named, so that a
        // file someone kept under a generated page's header is not gone unsaid.
        if !folder.obsolete.isEmpty {
            let names = folder.obsolete.sorted().map { Path.join(out, $0) }.joined(separator: ", ")
            console.err("removed \(counted(folder.obsolete.count, "page")) no journey given makes any more: \(names)\n")
        }
    }

    /// The pages of the journeys that compiled, by file name: walkthroughs from `recordings`,
    /// texts in `locale`, files named from the project's folder.
    func pages(
        _ project: Project, library: CompiledLibrary, recordings: [ScenarioRecording], locale: String?,
        context: ProjectContext
    ) throws -> [String: String] {
        // Pages name files from the project's folder (the one that holds journeykit.yaml), so
        // they are the same from wherever in the project they are made; without a project
        // file, from the working folder.
        let cwd = FileManager.default.currentDirectoryPath
        let root = context.file.map { Path.absolute(Path.parent($0), cwd: cwd) }
        let journeys = project.journeys.filter { library[$0.id.value] != nil }.map { journey in
            var journey = journey
            journey.file = Self.fromRoot(journey.file, root: root ?? cwd, cwd: cwd)
            return journey
        }
        let docs = DocsBuilder.build(
            journeys: journeys,
            recordings: recordings.map { recording in
                var recording = recording
                recording.file = Self.fromRoot(recording.file, root: root ?? cwd, cwd: cwd)
                return recording
            }, locale: locale, secretStoredKeys: library.secretStoredKeys, library: library)
        // A journey's page is named by its id: one called `index` would replace the index.
        if let clash = DocsSite.pageTakingTheIndex(docs) {
            var problem = DiagnosticList()
            problem.error(
                "docs.index-page",
                "journey '\(clash.id)' would have its page written as \(DocsSite.indexName).\(format.rawValue), the page that lists every journey; give the journey another id",
                at: project.journeys.first { $0.id.value == clash.id }?.id.location
                    ?? SourceLocation(file: clash.file, line: 1, column: 1))
            Console().print(problem)
            throw ExitCode(ExitStatus.invalid)
        }
        // From where the pages and the files really are: an output folder reached through a
        // link is linked from where it points.
        let link = SourceLink(
            pagesFolder: Files.realPathOfExisting(Path.absolute(out, cwd: cwd)),
            workingFolder: Files.realPathOfExisting(root ?? cwd))
        if format == .html {
            let dot = try Graphviz()
            // Stopped while it draws, journey docs stops its dot and writes nothing.
            Interruption.catchSignals()
            defer { Interruption.release() }
            let files = try DocsSite.files(docs, format: format, link: link, svg: dot.svg)
            if let signal = Interruption.signalName { throw ExitCode(Interruption.exitStatus(signal)) }
            return files
        }
        return DocsSite.files(docs, format: format, link: link) { _ in "" }
    }

    /// With `--check`, a folder an interrupted `journey docs` left half updated fails; otherwise
    /// what such a run left is finished before the folder is compared.
    func prepareFolder(_ console: Console) throws {
        if check {
            if !FileTransaction.unfinishedJournals(in: out).isEmpty {
                console.err(
                    "\(out):1:1: error: the folder has an unfinished update from an interrupted `journey docs`; run \(command) to finish it [docs.unfinished]\n"
                )
                throw ExitCode(ExitStatus.failed)
            }
        } else {
            // What an interrupted run left is finished before the folder is compared.
            do throws(WriteError) { try FolderRecovery.shared.prepare(out) } catch {
                console.err("error: cannot write the docs to \(out): \(error.reason(after: out))\n")
                throw ExitCode(ExitStatus.invalid)
            }
        }
    }

    /// Refuses to write over what journey docs never replaces: a file of the format it did not
    /// write (`folder.foreign`), or an entry of `others` (a link, a folder, a file that is not
    /// UTF-8 text, each with why) whose name a page takes.
    func refuseForeign(
        _ folder: DocsSite.Comparison, others: [String: String], files: [String: String], _ console: Console
    ) throws {
        let unsafe = others.filter { files[$0.key] != nil }
        if !folder.foreign.isEmpty || !unsafe.isEmpty {
            var reasons = unsafe
            for name in folder.foreign {
                reasons[name] = "this file was not written by journey docs, which never replaces such files"
            }
            for name in reasons.keys.sorted() {
                console.err(
                    "\(Path.join(out, name)):1:1: error: \(reasons[name]!); move it or choose another --out [docs.foreign]\n"
                )
            }
            throw ExitCode(ExitStatus.invalid)
        }
    }

    /// `--check`: whether the folder holds the pages as they are made now; each page that
    /// differs is said as it is: not there, out of date, or made by none of the journeys.
    func compared(
        _ folder: DocsSite.Comparison, existing: [String: String], count: Int, source: String, _ console: Console
    ) throws {
        if folder.changed.isEmpty && folder.obsolete.isEmpty {
            console.err("\(count) pages in \(out) are up to date\(source)\n")
            return
        }
        var problems: [String: String] = [:]
        for name in folder.changed {
            problems[name] =
                existing[name] == nil
                ? "missing: not generated in this folder"
                : "stale: it is not what the journeys make now (they changed, or the page was edited)"
        }
        for name in folder.obsolete {
            problems[name] = "obsolete: none of the journeys given makes it any more"
        }
        for name in problems.keys.sorted() {
            console.err("\(Path.join(out, name)): \(problems[name]!)\n")
        }
        console.err("regenerate with \(command) and commit the result\n")
        throw ExitCode(ExitStatus.failed)
    }

    /// Every page and every removal as one change: a kill leaves the old site or a journal
    /// that the next run finishes, never a mix of old and new pages.
    func write(_ files: [String: String], removing obsolete: [String], _ console: Console) throws {
        var made: [String] = []
        do throws(WriteError) {
            made = try Files.makeFolders(out)
            var change = try FileTransaction(folder: out, label: "journey-docs")
            for name in files.keys.sorted() { try change.stage(files[name]!, as: name) }
            for name in obsolete { change.delete(name) }
            try change.commit()
        } catch {
            for folder in made.reversed() { rmdir(folder) }
            console.err("error: cannot write the docs to \(out): \(error.reason(after: out))\n")
            throw ExitCode(ExitStatus.invalid)
        }
    }

    /// What the summary line says of where the walkthroughs come from, given the services
    /// each scenario needs: the committed goldens, whatever is running, and which services
    /// some of them need (by origin, sorted) that `journey docs` never contacts. The same
    /// files always give the same words.
    static func sourceNote(_ needs: [[String]]) -> String {
        guard !needs.isEmpty else { return "" }
        let scenarios = needs.count == 1 ? "1 scenario" : "\(needs.count) scenarios"
        var note = ": walkthroughs from the committed goldens of \(scenarios)"
        let needing = needs.filter { !$0.isEmpty }
        guard !needing.isEmpty else { return note }
        let origins = Set(needing.joined().map { URLOrigin.of($0).map(URLOrigin.shown) ?? $0 }).sorted()
        note +=
            " (\(needing.count) \(needing.count == 1 ? "needs" : "need") \(origins.joined(separator: ", ")),"
            + " which journey docs never contacts: `journey test` keeps \(needing.count == 1 ? "its golden" : "their goldens") current where \(origins.count == 1 ? "it answers" : "they answer"))"
        return note
    }

    /// The command that writes these docs, as the user would type it.
    var command: String {
        let words =
            paths.map(Path.shellWord) + ["--out", Path.shellWord(out)]
            + (format == .md ? [] : ["--format", format.rawValue])
            + (locale.map { ["--locale", Path.shellWord($0)] } ?? [])
        return "`" + (["journey docs"] + words).joined(separator: " ") + "`"
    }

    /// The regular files of this format in `folder`, name → content (none when it does not
    /// exist), and why each other entry of this format is never read, replaced or removed: a
    /// link (never followed), a folder, a file that is not UTF-8 text.
    func existingFiles(in folder: String) -> (files: [String: String], others: [String: String]) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        var files: [String: String] = [:]
        var others: [String: String] = [:]
        for name in names where name.hasSuffix(".\(format.rawValue)") {
            let path = Path.join(folder, name)
            var status = stat()
            guard lstat(path, &status) == 0 else { continue }
            switch status.st_mode & S_IFMT {
            case S_IFREG:
                if let content = try? String(contentsOfFile: path, encoding: .utf8) {
                    files[name] = content
                } else {
                    others[name] = "this file cannot be read as UTF-8 text, so journey docs never replaces it"
                }
            case S_IFLNK: others[name] = "this is a symbolic link, which journey docs never replaces or follows"
            default: others[name] = "this is not a regular file, which journey docs never replaces"
            }
        }
        return (files, others)
    }
}

extension DocsFormat: ExpressibleByArgument {}

/// Graphviz's `dot`, run as a process to turn DOT into SVG.
struct Graphviz {
    let executable: String

    init() throws {
        let candidates = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map {
            Path.join(String($0), "dot")
        }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw CLIError(
                "--format html draws its diagrams with Graphviz's `dot`, which is not installed (Debian: apt-get install graphviz); --format md and --format dot need nothing"
            )
        }
        executable = found
    }

    /// How long one diagram may take: a `dot` that takes longer is stopped.
    static let timeout: TimeInterval = 60

    /// What is known of one `dot` while it draws: whether it was stopped, and why, and what it
    /// wrote to its standard error.
    final class Watch: @unchecked Sendable {
        enum State { case running, done, timedOut, interrupted }
        private let lock = NSLock()
        private var _state = State.running
        private var _errors = Data()

        var state: State { lock.withLock { _state } }
        var errors: Data {
            get { lock.withLock { _errors } }
            set { lock.withLock { _errors = newValue } }
        }

        /// Ends the watch for `reason`; false when it had ended already.
        func stop(_ reason: State) -> Bool {
            lock.withLock {
                guard _state == .running else { return false }
                _state = reason
                return true
            }
        }
    }

    /// What a reader thread read.
    final class Output: @unchecked Sendable {
        private let lock = NSLock()
        private var _data = Data()
        var data: Data {
            get { lock.withLock { _data } }
            set { lock.withLock { _data = newValue } }
        }
    }

    func svg(_ dot: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-Tsvg"]
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // A dot that hangs is stopped, and so is one still running when journey docs is asked
        // to stop (its caller catches SIGINT and SIGTERM while diagrams are drawn): none is
        // left behind.
        let watch = Watch()
        // Either the output is read to its end or the watch stops the dot: whichever comes
        // first wakes the caller. A dot stopped may leave a program it started holding the
        // pipe open; its reader is then left to end with the process, not waited for.
        let finished = DispatchSemaphore(value: 0)
        let watcher = Thread {
            let deadline = Date().addingTimeInterval(Self.timeout)
            while watch.state == .running {
                let reason: Watch.State? =
                    Interruption.isRequested ? .interrupted : Date() >= deadline ? .timedOut : nil
                if let reason, watch.stop(reason) {
                    // SIGKILL: Foundation starts the child with the signal mask of the thread that
                    // starts it, and a thread of the pool blocks SIGTERM.
                    kill(process.processIdentifier, SIGKILL)
                    finished.signal()
                    return
                }
                usleep(20_000)
            }
        }
        watcher.start()
        defer { _ = watch.stop(.done) }
        // Its errors are read beside its output, so that neither pipe fills while the other waits.
        let reader = Thread { watch.errors = (try? errors.fileHandleForReading.readToEnd()) ?? Data() }
        reader.start()
        var sent: SystemError?
        do { try Descriptor(raw: input.fileHandleForWriting.fileDescriptor).write(dot) } catch { sent = error }
        try input.fileHandleForWriting.close()
        let read = Output()
        let outputReader = Thread {
            read.data = (try? output.fileHandleForReading.readToEnd()) ?? Data()
            finished.signal()
        }
        outputReader.start()
        finished.wait()
        switch watch.state {
        case .timedOut: throw CLIError("dot took longer than \(Int(Self.timeout)) s to draw a diagram, and was stopped")
        case .interrupted: throw ExitCode(Interruption.exitStatus(Interruption.signalName ?? "SIGINT"))
        case .running, .done: break
        }
        let data = read.data
        process.waitUntilExit()
        while !reader.isFinished { usleep(1000) }
        switch watch.state {
        case .timedOut: throw CLIError("dot took longer than \(Int(Self.timeout)) s to draw a diagram, and was stopped")
        case .interrupted: throw ExitCode(Interruption.exitStatus(Interruption.signalName ?? "SIGINT"))
        case .running, .done: break
        }
        guard process.terminationStatus == 0 else {
            throw CLIError("dot failed: \(String(decoding: watch.errors, as: UTF8.self))")
        }
        if let sent { throw CLIError("cannot send a diagram to dot: \(sent)") }
        return String(decoding: data, as: UTF8.self)
    }
}
