import ArgumentParser
import Foundation
import JourneyCore
import JourneyDocs
import JourneySuite

struct NewCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new",
        abstract: "Start a project, a journey or a scenario from commented files that pass journey check.",
        discussion: """
            Every file written is commented for someone new to JourneyKit, starts with a line that \
            links it to its JSON Schema for editors (the project's schemas/ folder when it has \
            one, else the published schemas), and passes `journey check`. It prints each file it \
            wrote and the commands to run next.

            A file that exists is never written over: the command names it, writes nothing and \
            exits 2; --force replaces it. The files of one command are each staged in full beside \
            their place before any is put there, so a write that fails leaves none of them.

            Examples:
              journey new project my-app          # journeykit.yaml, a journey, a scenario
              journey new journey acme.sign-in    # journeys/acme/sign-in.journey.yaml
              journey new journey acme.sign-in --folder flows
              journey new scenario --journey acme.sign-in right-pin

            Exits 0 when the files are written, 2 for an invalid id or name, a file that exists, a \
            journey the project does not have, or a file that cannot be written.
            """,
        subcommands: [NewProjectCommand.self, NewJourneyCommand.self, NewScenarioCommand.self]
    )

    /// `journey new` on its own is a usage error: print the help and exit 2.
    func run() async throws {
        Console().err(JourneyCommand.helpMessage(for: Self.self))
        throw ExitCode(ExitStatus.invalid)
    }
}

struct NewProjectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "project",
        abstract: "Write journeykit.yaml, a first journey, a scenario of it and the scenario's golden transcript.",
        discussion: """
            Writes into FOLDER (made when missing):
              journeykit.yaml                    the project file: journeys: [journeys]
              journeys/app/unlock.journey.yaml   app.unlock: a PIN unlock, three strikes
              journeys/app/scenarios/wrong-then-right.scenario.yaml
                                                 a wrong PIN, then the right one
              journeys/app/transcripts/wrong-then-right.jsonl and .txt
                                                 its golden transcript

            The files are checked and the scenario is played before anything is written; its \
            golden transcript is what `journey test --update` records from that run. So \
            `journey check` and `journey test` pass in FOLDER at once, and two projects made \
            anywhere are byte for byte the same. A project made inside another is one of its \
            own, and a note says so: to add a journey to a project, use `journey new journey`.

            Examples:
              journey new project my-app
              journey new project                 # in the working folder
            """
    )

    @Argument(help: "The folder to make the project in (default: the working folder).")
    var folder: String?

    @Flag(help: "Replace files that exist.")
    var force = false

    func validate() throws {
        if folder == "" {
            throw ValidationError(
                "an empty path names no folder; leave it out to make the project in the working folder")
        }
    }

    func run() async throws {
        let console = Console()
        let root = folder ?? "."
        if Files.exists(root) && !Files.isFolder(root) {
            throw CLIError("\(PrintableText.escaped(root)) is not a folder")
        }
        let folder = Path.join(Path.join(root, "journeys"), "app")
        let journeyFile = Path.join(folder, "unlock.journey.yaml")
        let scenarioFile = Path.join(folder, "scenarios/\(NewTemplates.firstScenario).scenario.yaml")
        let goldenBase = Workspace.goldenBase(for: scenarioFile)
        var files = NewFiles()
        let journey = NewTemplates.journey(
            id: NewTemplates.firstJourney, title: "Unlock with a PIN",
            schema: NewTemplates.publishedSchemas + "journey.schema.json")
        files.add(journey, at: journeyFile)
        let scenario = NewTemplates.firstScenario(schema: NewTemplates.publishedSchemas + "scenario.schema.json")
        files.add(scenario, at: scenarioFile)
        // Every file it writes is looked for before anything runs: the golden pair and the
        // project file too, so that a refusal names all that would be replaced.
        var targets = files
        for path in [goldenBase + ".jsonl", goldenBase + ".txt", Path.join(root, ProjectSettings.fileName)] {
            targets.add("", at: path)
        }
        try targets.checkTargets(replacing: force)

        // Checked and played as `journey test --update` plays it, before anything is written.
        let (project, diagnostics) = Workspace.load(
            paths: [], toolkit: .current,
            adding: [
                SourceFile(path: journeyFile, data: Data(journey.utf8)),
                SourceFile(path: scenarioFile, data: Data(scenario.utf8)),
            ])
        guard diagnostics.items.isEmpty, let library = project.library, let compiled = project.scenarios.first else {
            console.print(diagnostics)
            throw CLIError("the project's first files do not pass journey check; nothing was written")
        }
        let goldens = RecordedGoldens()
        let outcomes = await SuiteRunner(options: SuiteOptions(update: true), player: Toolkit.current.player())
            .run([compiled], in: library, goldens: goldens) { _, _ in }
        guard let recorded = goldens.goldens(of: compiled.file) else {
            let problems = outcomes.flatMap(\.problems).map(\.message).joined(separator: "; ")
            throw CLIError("the project's first scenario does not pass (\(problems)); nothing was written")
        }
        try FileGoldenStore.requireInsideProject(Path.parent(goldenBase))
        files.add(recorded.jsonl, at: goldenBase + ".jsonl")
        files.add(recorded.text, at: goldenBase + ".txt")
        // Last: a project file is there only when what it points to is.
        files.add(
            NewTemplates.project(schema: NewTemplates.publishedSchemas + "project.schema.json"),
            at: Path.join(root, ProjectSettings.fileName))
        try files.write(replacing: force)
        // A project made inside another is one of its own: said, since a journey meant for the
        // outer project belongs there (`journey new journey`).
        let cwd = FileManager.default.currentDirectoryPath
        let above = Array(Path.absoluteComponents(root, cwd: cwd).dropLast())
        if let (_, levels) = ProjectContext.find(from: "/" + above.joined(separator: "/")) {
            let outer = "/" + (above.dropLast(levels) + [ProjectSettings.fileName]).joined(separator: "/")
            let shown = Workspace.display(outer)
            console.err(
                "note: \(PrintableText.escaped(root == "." ? "this folder" : root)) is inside the project of \(PrintableText.escaped(shown)) and is now a project of its own, whose journeys that project's commands run only if its `journeys:` lists them; to add a journey to that project instead, run `journey new journey ID` in it\n"
            )
        }
        let enter = root == "." ? "" : "cd \(PrintableText.escaped(Path.shellWord(root))) && "
        files.report(
            console,
            next: [
                "\(enter)journey test",
                "journey run --scenario journeys/app/scenarios/\(NewTemplates.firstScenario).scenario.yaml",
                "journey new journey acme.sign-in",
            ])
    }
}

struct NewJourneyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "journey",
        abstract: "Write a commented journey with this id, to make your own.",
        discussion: """
            Writes FOLDER/NAME.journey.yaml, NAME being the id's last part: a PIN unlock with a \
            limit of three wrong PINs, commented step by step. FOLDER is --folder; else the \
            project's first journey folder, with a folder for each part of the id before its \
            last, as the shipped journeys are laid out (acme.sign-in → \
            journeys/acme/sign-in.journey.yaml); with no journeykit.yaml in the working folder or \
            above, the working folder. An id another journey of the project, or of a folder it \
            uses, has is refused, and so is `index` (journey docs writes the index under that \
            name).

            Examples:
              journey new journey acme.sign-in
              journey new journey acme.sign-in --folder flows/acme
              journey new journey unlock          # journeys/unlock.journey.yaml
            """
    )

    @Argument(help: "The journey's id: lowercase words joined by '.' or '-', like acme.sign-in.")
    var id: String

    @Option(help: "The folder to write it in (default: see above).")
    var folder: String?

    @Flag(help: "Replace the file if it exists.")
    var force = false

    func validate() throws {
        if folder == "" {
            throw ValidationError(
                "--folder '' names no folder; leave it out to write the journey where the project keeps it")
        }
        guard JourneyLoader.isJourneyId(id) else {
            // Written in capitals or with spaces or underscores, the id meant is most often plain to see.
            let meant = id.lowercased().split(whereSeparator: { $0 == " " || $0 == "_" }).joined(separator: "-")
            if id.count > JourneyLoader.longestJourneyId {
                throw ValidationError(
                    "'\(PrintableText.escaped(id))' \(JourneyLoader.journeyIdProblem(id, example: "acme.sign-in"))")
            }
            throw ValidationError(
                "'\(PrintableText.escaped(id))' is not a valid journey id; use lowercase words joined by '.' or '-', like "
                    + (JourneyLoader.isJourneyId(meant) ? "'\(meant)'" : "'acme.sign-in'"))
        }
        // `journey docs` names a journey's page by its id, and this one is the index's.
        guard id != DocsSite.indexName else {
            throw ValidationError(
                "'\(id)' cannot be a journey id: journey docs would write its page over the index of journeys; give it a longer id, like 'app.\(id)'"
            )
        }
    }

    func run() async throws {
        let console = Console()
        let context = try ProjectContext.load(console: console)
        let parts = id.split(separator: ".").map(String.init)
        let path = Path.join(folder ?? defaultFolder(context, parts: parts), "\(parts[parts.count - 1]).journey.yaml")
        var files = NewFiles()
        let text = NewTemplates.journey(
            id: id, title: NewTemplates.title(forJourney: id),
            schema: NewFiles.schema("journey.schema.json", for: path, projectFile: context.file))
        files.add(text, at: path)
        try files.checkTargets(replacing: force)

        // The project's journeys and those it uses: a call would find either by the id.
        let searched = (context.paths([]) + context.usedFolders).filter(Files.exists)
        if !searched.isEmpty {
            let (project, _) = Workspace.load(paths: searched, toolkit: context.toolkit)
            let resolved = Path.absoluteComponents(path, cwd: FileManager.default.currentDirectoryPath)
            if let other = project.journeys.first(where: {
                $0.id.value == id
                    && Path.absoluteComponents($0.file, cwd: FileManager.default.currentDirectoryPath)
                        != resolved
            }) {
                throw CLIError(
                    "journey id '\(id)' is already used by \(other.file):\(other.id.location.line); nothing was written"
                )
            }
        }
        let (_, diagnostics) = Workspace.load(
            paths: [], toolkit: context.toolkit, adding: [SourceFile(path: path, data: Data(text.utf8))])
        guard diagnostics.items.isEmpty else {
            console.print(diagnostics)
            throw CLIError("the journey does not pass journey check; nothing was written")
        }
        try files.write(replacing: force)
        // Outside the project's journey folders, commands find the journey by its file only.
        let cwd = FileManager.default.currentDirectoryPath
        let file = Path.absoluteComponents(path, cwd: cwd)
        let found = context.paths([]).contains { folder in
            let components = Path.absoluteComponents(folder, cwd: cwd)
            return file.count > components.count && Array(file.prefix(components.count)) == components
        }
        files.report(
            console,
            next: [
                "journey check \(Path.shellWord(path))",
                "journey new scenario --journey \(found ? id : Path.shellWord(path)) NAME",
            ])
        if !found {
            let folder = PrintableText.escaped(Path.parent(path))
            let folders = context.paths([]).joined(separator: ", ")
            if let file = context.file {
                console.out(
                    "\nnote: \(folder) is outside the project's journey folders (\(folders)): journey test and journey docs find the journey only when given its folder, or when the folder is added to \(Workspace.display(file))'s journeys\n"
                )
            } else {
                console.out(
                    "\nnote: with no journeykit.yaml, journey test and journey docs look in the folder \(folders), and \(folder) is outside it: they find the journey only when given its folder, or when a journeykit.yaml lists the folder under journeys\n"
                )
            }
        }
    }

    /// The project's first journey folder (else `journeys` beside the project file) and a folder
    /// for each part of the id before the last; with no project file, the working folder.
    func defaultFolder(_ context: ProjectContext, parts: [String]) -> String {
        guard let file = context.file else { return "." }
        let base = context.journeyFolders.first ?? Path.join(Path.parent(file), "journeys")
        return parts.dropLast().reduce(base) { Path.join($0, $1) }
    }
}

struct NewScenarioCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scenario",
        abstract: "Write a scenario that plays a journey of the project from its start to an end.",
        discussion: """
            Finds the journey by its id in the project's journey folders (as `journey check` and \
            `journey test` do), or by its file, and writes NAME.scenario.yaml in the scenarios folder beside it, as the \
            shipped scenarios are laid out. Its device has Face ID enrolled and, when the journey \
            asks for a PIN with pin.verify, that PIN sealed on it; its script is the shortest \
            way from the start to an end that exploring the journey from that device finds (a \
            success end when one can be reached), and it expects that end. Where no end can be \
            reached that way, the script is left empty for you to fill in and the scenario \
            expects the journey's first success end; the command says so.

            The scenario is checked, and played to its end, before it is written. Its golden \
            transcript is not recorded: look at the run, then record it with `journey test \
            --update FILE`.

            Examples:
              journey new scenario --journey app.unlock right-pin
              journey new scenario --journey acme.sign-in happy-path --force
              journey new scenario --journey flows/acme/log-in.journey.yaml happy-path
            """
    )

    @Option(
        name: .customLong("journey"),
        help: "The journey it plays: its id, or its file (a journey outside the project's journey folders).")
    var journey: String

    @Argument(
        help:
            "The scenario's name: its id and its file's name (letters, digits, '_' and '-', starting with a letter)."
    )
    var name: String

    @Flag(help: "Replace the file if it exists.")
    var force = false

    func validate() throws {
        guard JourneyLoader.isIdentifier(name) else {
            throw ValidationError(
                "'\(PrintableText.escaped(name))' is not a valid scenario name; use letters, digits, '_' and '-', starting with a letter, at most 64 (it names the file scenarios/NAME.scenario.yaml)"
            )
        }
    }

    /// The most states explored to find a way to an end.
    static let bounds = JourneyExplorer.Bounds(depth: 30, restarts: 0, states: 20_000, offline: false)

    func run() async throws {
        let console = Console()
        let context = try ProjectContext.load(console: console)
        let source = try journey(in: context)
        let journey = source.id.value
        let path = Path.join(Path.join(Path.parent(source.file), "scenarios"), "\(name).scenario.yaml")
        var files = NewFiles()
        files.add("", at: path)
        try files.checkTargets(replacing: force)
        guard let expected = source.ends.first(where: { $0.kind == .success }) ?? source.ends.first else {
            throw CLIError("'\(journey)' has no end to expect; nothing was written")
        }
        let found = try await search(source, expecting: expected, at: path, context: context, console)
        let (text, summary, hint) = try found.written(journey: journey, expected: expected)
        files = NewFiles()
        files.add(text, at: path)
        try files.write(replacing: force)
        files.report(
            console,
            next: [
                "journey run --scenario \(path)",
                "journey test --update \(path)",
            ])
        console.err("note: \(summary)\n")
        if let hint { console.err("note: \(hint)\n") }
    }

    /// The journey the scenario plays: one named by its file is loaded with what it calls; one
    /// named by its id is looked for in the project's journey folders.
    func journey(in context: ProjectContext) throws -> Journey {
        let byFile = Workspace.namesFile(self.journey)
        let paths = byFile ? [self.journey] : context.paths([])
        let (project, _) = Workspace.load(
            paths: paths.filter(Files.exists), journeyFolders: context.searchFolders, toolkit: context.toolkit)
        let given = self.journey
        guard let source = project.journeys.first(where: { byFile ? $0.file == given : $0.id.value == given }) else {
            if byFile {
                guard Files.exists(given) else {
                    throw CLIError(
                        "\(PrintableText.escaped(given)): no such file; --journey takes a journey's file or id")
                }
                throw CLIError("\(PrintableText.escaped(given)) defines no journey")
            }
            throw CLIError(
                "no journey '\(PrintableText.escaped(given))' in \(paths.joined(separator: ", "))\(Suggestion.hint(for: given, in: project.journeys.map(\.id.value)))"
            )
        }
        return source
    }

    /// What the search for a way through the journey found.
    struct Found {
        /// The scenario that plays a way to an end, and what it plays.
        var chosen: (text: String, summary: String, success: Bool)?
        /// A scenario that passes journey check with an empty script, when no way is found.
        var fallback: String?
        /// A rule the exploration found broken: what stops the ways to an end.
        var broken: JourneyExplorer.Violation?
        /// A step whose request went as if offline, for want of stubs: what may stop the ways.
        var offline: String?

        /// The scenario to write, what it does, and a hint when it plays no way to an end.
        func written(journey: String, expected: End) throws -> (text: String, summary: String, hint: String?) {
            if let chosen { return (chosen.text, chosen.summary, nil) }
            guard let fallback else {
                throw CLIError("cannot write a scenario of '\(journey)' that passes journey check; nothing was written")
            }
            let why =
                broken.map {
                    "no way from the start to an end was found to play without breaking \($0.id) (\($0.message); journey explore shows where)"
                } ?? "no way from the start to an end was found to play"
            // Without stubs every request goes as if offline: often what keeps the ends away.
            let hint = offline.map {
                "step \($0) sends a request, which went as if offline with no stub to answer it: add the server's answers under the scenario's `stubs:` (docs/journey-format.md), then journey run shows how far it gets"
            }
            let summary =
                "\(why): its script is empty, and it expects \(expected.id.value) (\(expected.kind.rawValue)); add what the user does at each step (journey run shows where it stops)"
            return (fallback, summary, hint)
        }
    }

    /// Explores the journey from a draft scenario's start (with the PINs it seals, then
    /// without) and keeps the first draft that plays a way to an end and passes, a success end
    /// first, then the shortest way; a draft that finds none expects `expected`.
    func search(
        _ source: Journey, expecting expected: End, at path: String, context: ProjectContext, _ console: Console
    ) async throws -> Found {
        let journey = source.id.value
        let schema = NewFiles.schema("scenario.schema.json", for: path, projectFile: context.file)
        var found = Found()
        for pins in Self.pins(of: source).map({ [$0, [:]] }) ?? [[:]] {
            let draft = Draft(name: name, journey: source, schema: schema, pins: pins)
            let text = draft.text(script: ["script: []"], end: expected, found: false)
            let (loaded, diagnostics) = Workspace.load(
                paths: [source.file], journeyFolders: context.searchFolders, toolkit: context.toolkit,
                adding: [SourceFile(path: path, data: Data(text.utf8))])
            guard !diagnostics.hasErrors, let library = loaded.library,
                let scenario = loaded.scenarios.first(where: { $0.file == path })
            else {
                if pins.isEmpty && found.fallback == nil {
                    console.print(diagnostics.errors)
                    throw CLIError(
                        "cannot write a scenario of '\(journey)' that passes journey check; nothing was written")
                }
                continue
            }
            if found.fallback == nil { found.fallback = text }
            let explorer = try ExploreCommand.explorer(from: scenario, library, context, Self.bounds)
            let result = await explorer.explore(scenario.journey)
            found.broken = found.broken ?? result.violations.first
            found.offline = found.offline ?? result.sentWithoutNetwork.first
            // Success ends first, then the shortest way, then the journey's order of its ends.
            let ends = source.ends.enumerated().compactMap { order, end in
                result.endPaths[end.id.value].map { (end: end, rank: (end.kind == .success ? 0 : 1, $0.count, order)) }
            }.sorted { $0.rank < $1.rank }
            for (end, _) in ends where found.chosen == nil || end.kind == .success {
                let moves = result.endPaths[end.id.value] ?? []
                let text = draft.text(script: Counterexample.script(moves), end: end, found: true)
                guard await Self.passes(text, at: path, journey: source, context: context) else { continue }
                found.chosen = (
                    text,
                    "it plays \(journey) from its start to \(end.id.value) (\(end.kind.rawValue)) in \(counted(moves.count, "move"))",
                    end.kind == .success
                )
                break
            }
            if found.chosen?.success == true { break }
        }
        return found
    }

    /// Whether the scenario `text` passes journey check and plays to what it expects.
    static func passes(_ text: String, at path: String, journey: Journey, context: ProjectContext) async -> Bool {
        let (loaded, diagnostics) = Workspace.load(
            paths: [journey.file], journeyFolders: context.searchFolders, toolkit: context.toolkit,
            adding: [SourceFile(path: path, data: Data(text.utf8))])
        guard !diagnostics.hasErrors, let library = loaded.library,
            let scenario = loaded.scenarios.first(where: { $0.file == path })
        else { return false }
        let goldens = RecordedGoldens()
        _ = await SuiteRunner(
            options: SuiteOptions(update: true), player: context.toolkit.player(defaults: context.scenarioDefaults)
        ).run([scenario], in: library, goldens: goldens) { _, _ in }
        return goldens.goldens(of: path) != nil
    }

    /// The PINs to seal on the device: one for each stored key a pin.verify step of the journey
    /// opens, as long as the step's `length` (written, or its param's default; else 4); nil when
    /// no step verifies a PIN.
    static func pins(of journey: Journey) -> [String: String]? {
        var pins: [String: String] = [:]
        for step in journey.steps {
            guard case .handler(let handler) = step.kind, handler.value == "pin.verify",
                let key = literal(step.with.first { $0.name.value == "key" }?.value)
            else { continue }
            var length = 4
            if let written = literal(step.with.first { $0.name.value == "length" }?.value) {
                let param =
                    written.hasPrefix("${params.") && written.hasSuffix("}")
                    ? String(written.dropFirst(9).dropLast()) : nil
                let value =
                    param.flatMap { name in
                        literal(journey.params.first { $0.name.value == name }?.defaultValue)
                    } ?? written
                length = Int(value).map { min(max($0, 1), 12) } ?? length
            }
            pins[key] = String("258036914703".prefix(length))
        }
        return pins.isEmpty ? nil : pins
    }

    static func literal(_ value: RawValue?) -> String? {
        guard case .scalar(let text, _, _)? = value else { return nil }
        return text
    }

    /// What a scenario of the journey says before its script: its comments, ids, device and
    /// the params the journey needs.
    struct Draft {
        var name: String
        var journey: Journey
        var schema: String
        var pins: [String: String]

        /// The scenario with this script, expecting `end`; `found`: the script is the way to
        /// it that exploring found.
        func text(script: [String], end: End, found: Bool) -> String {
            let about =
                found
                ? [
                    "Written by `journey new scenario`: the shortest way from the journey's start to its end",
                    "`\(end.id.value)` (\(end.kind.rawValue)) that exploring it from this device finds. Change it to",
                    "play the run you mean to test.",
                ]
                : [
                    "Written by `journey new scenario`, which found no way from the start to an end to play:",
                    "fill in what the user does at each step (`journey run` shows where it stops).",
                ]
            var device = [
                "device:", "  biometry: faceID     # Face ID, enrolled: biometric steps can succeed",
                "  enrolled: true",
            ]
            if !pins.isEmpty {
                let sealed = pins.sorted { $0.key < $1.key }.map { "\($0.key): \(Counterexample.quoted($0.value))" }
                device.append(
                    "  pins: { \(sealed.joined(separator: ", ")) }   # sealed on the device before the run, as pin.save seals a PIN"
                )
            }
            device.append("  kdfRounds: 1000      # fast key derivation for tests; the transcript header says so")
            var params: [String] = []
            for param in journey.params where param.defaultValue == nil {
                if params.isEmpty {
                    params.append("params:                # examples of what the journey needs: set your own")
                }
                params.append("  \(param.name.value): \(Self.example(param.type.type))")
            }
            return NewTemplates.scenario(
                name: name, journey: journey.id.value, title: "From the start to \(end.id.value)", schema: schema,
                about: about, device: device, params: params, script: script,
                expect: ["expect:", "  end: \(end.id.value)"])
        }

        /// A value of the type, for a param the journey needs.
        static func example(_ type: ValueType) -> String {
            switch type {
            case .string, .any: "\"example\""
            case .int: "1"
            case .bool: "false"
            case .list: "[]"
            case .duration: "1m"
            }
        }
    }
}
