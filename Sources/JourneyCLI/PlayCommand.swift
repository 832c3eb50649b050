import ArgumentParser
import Foundation
import JourneyCore
import JourneySuite

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `journey play`: a journey played by a person in the terminal, a screen at a time, with the
/// device's events at hand, undo, and what was played saved as a scenario with its golden.
struct PlayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play a journey in the terminal, a screen at a time, and save what was played as a scenario.",
        discussion: """
            Shows each screen as the user would see it (its title and text, the fields, the \
            actions and whether they are enabled, the attempts left) and asks for what the \
            step's handler takes: press an action by its number or id, or give the step's input \
            (a PIN, a code, a link, a biometric result). Input a step declares secret is read \
            without echo on a terminal and never shown; at a step whose one input is secret (a PIN \
            pad) the prompt itself reads without echo, actions and commands included. What each move records is printed as \
            `journey run` prints a transcript.

            At any prompt:
              :undo             back to the previous screen
              :restart          the app is killed and launched again; after an end,
                                opened again with what the device keeps (the
                                scenario saved plays it as its next session)
              :clock DURATION   time passes (:clock 5m)
              :offline, :online the network goes away or comes back
              :foreground       the app comes back, at a step that sends it to the
                                background
              :store            what the device keeps (secrets hidden)
              :hint             the inputs `journey explore` would try here
              :save FILE        save what was played as a scenario, and record its golden
              :quit             stop, saving to --save first when given (if that
                                writes nothing, play goes on: :save FILE or :quit again)
              :help             this list

            A step that takes several inputs takes them as name=value words on one line \
            (pin=2580 action=submit), or one at a time after an empty line. Without a \
            terminal, commands and input are read from standard input a line at a time, for \
            scripts and tests; colour is used only on a terminal, and never with NO_COLOR.

            Play starts on the device `journey explore` uses (Face ID enrolled, one round of \
            key derivation); with --device, on that device changed as a scenario's `device:` \
            sets one up; or, with --from, where a scenario starts (its device, params and network \
            stubs), after playing its script. Randomness is seeded per step and input, \
            so the same moves give the same screens, and the scenario saved replays them.

            A save writes new files only: a scenario or golden that exists is never replaced, \
            and a name that is the id of another scenario of the journey (which would make \
            both unrunnable) is refused; :save to another file.

            Examples:
              journey play examples.unlock
              journey play examples.unlock --device pins.pin=2580 --device biometry=touchID
              journey play journeys/examples/pin-model.journey.yaml \\
                --save journeys/examples/scenarios/played.scenario.yaml
              journey play --from \\
                journeys/diia/scenarios/d5-count-survives-restart.scenario.yaml
              printf '2580\\n2580\\n:quit\\n' | journey play examples.unlock
            """
    )

    @Argument(help: "The journey to play: its id, or its file (not needed with --from).")
    var journey: String?

    @Argument(help: "Journey files or folders to load (default: the project's journey folders, else journeys).")
    var paths: [String] = []

    @Option(
        name: .customLong("from"),
        help: ArgumentHelp(
            "Start where this scenario starts (its device, params and network stubs) and play its script first.",
            valueName: "scenario"))
    var from: String?

    @Option(
        name: .customLong("device"),
        help: ArgumentHelp(
            "Set up the device as a scenario's `device:` does (repeatable; biometry=touchID, enrolled=false, online=false, apps=[bankid], pins.pin=2580, store.onboarded=true, clock=2026-03-01T09:00:00Z, kdfRounds=1000).",
            valueName: "key=value"))
    var device: [String] = []

    @Option(help: "The locale screens are shown in (default: the scenario's, the project's, else the journey's).")
    var locale: String?

    @Option(
        help: ArgumentHelp(
            "Save what was played to this new scenario file when the play ends (checked before play starts; unsaved at the end: exit 1).",
            valueName: "file"))
    var save: String?

    func validate() throws {
        guard journey != nil || from != nil else {
            throw ValidationError("name the journey to play, or give --from SCENARIO")
        }
        if from != nil, !device.isEmpty {
            throw ValidationError("--device sets up a device; --from takes the scenario's: give one of them")
        }
        // Before anything is played: a file that cannot take the play would lose it at the end.
        if let save, let problem = PlaySession.unsavable(save) {
            throw ValidationError("--save \(PrintableText.escaped(save)): \(problem)")
        }
    }

    func run() async throws {
        let console = Console()
        let context = try ProjectContext.load(console: console)
        // A journey or a scenario named by its file is loaded with what it calls, not the
        // whole project.
        let files = [journey, from].compactMap { $0 }.filter(Workspace.namesFile)
        let given =
            paths.isEmpty && !files.isEmpty
            ? files : try context.paths(paths, usage: "journey play \(journey ?? "JOURNEY") path/to/journeys") + files
        let (project, diagnostics) = Workspace.load(
            paths: given, journeyFolders: context.searchFolders, toolkit: context.toolkit)
        console.print(diagnostics.shownWhenRunning)
        guard !diagnostics.hasErrors, let library = project.library else { throw ExitCode(ExitStatus.invalid) }
        let bounds = JourneyExplorer.Bounds(restarts: 1_000_000)

        var compiled: CompiledJourney
        var explorer = JourneyExplorer(library: library, device: JourneyExplorer.defaultDevice, bounds: bounds)
        var start: CompiledScenario?
        var startText: String?
        if let from {
            guard let scenario = project.scenarios.first(where: { $0.file == from }) else {
                throw Workspace.notAScenario(
                    from, option: "--from", in: project, forFolder: "give one of the scenarios in it")
            }
            // The scenario as written starts the one --save writes.
            do { startText = try String(contentsOfFile: from, encoding: .utf8) } catch {
                throw CLIError("cannot read \(from): \(error.localizedDescription)")
            }
            guard scenario.sessions.count == 1 else {
                throw CLIError(
                    "\(from) has \(scenario.sessions.count) sessions: journey play continues a scenario of one session")
            }
            if let missing = await context.toolkit.player(defaults: context.scenarioDefaults).missingService(scenario) {
                throw CLIError("\(from) needs \(missing), which does not answer: start it first")
            }
            explorer = try ExploreCommand.explorer(from: scenario, library, context, bounds, live: true)
            compiled = scenario.journey
            start = scenario
        } else {
            compiled = try Self.resolve(journey ?? "", in: project, library: library)
            if !device.isEmpty {
                let text: String
                let origins: [PlayedScenario.Origin]
                do { (text, origins) = try PlayedScenario.deviceScenario(device, journey: compiled) } catch {
                    throw CLIError(PrintableText.escaped(error.message))
                }
                let scenario = try Self.compile(text, in: library, context, console: console, origins: origins)
                explorer = try ExploreCommand.explorer(from: scenario, library, context, bounds)
                startText = text
            }
        }
        if let journey, from != nil, !Workspace.namesFile(journey), journey != compiled.id {
            throw CLIError("\(from ?? "") plays journey '\(compiled.id)', not '\(journey)'")
        }
        // Params with no default are given by a scenario: without one the run could only fail.
        let needed = ExplorationStarts.needed(compiled)
        if from == nil, !needed.isEmpty {
            // One it can continue: play continues a scenario of one session.
            let playing = project.scenarios.filter { $0.journey.id == compiled.id && $0.sessions.count == 1 }
                .map(\.file).sorted()
            throw CLIError(
                "journey '\(compiled.id)' needs \(ExplorationStarts.Unexplored.said(needed)): play it from a scenario that gives \(needed.count == 1 ? "it" : "them"), journey play --from SCENARIO"
                    + (playing.isEmpty ? "" : " (such as \(playing[0]))"))
        }
        try compiled.requireLocale(locale)
        if let save, let taken = PlaySession.idTaken(save, journey: compiled.id, context: context) {
            throw CLIError("--save \(PrintableText.escaped(save)): \(taken)")
        }
        explorer.locale = locale ?? start?.locale ?? context.scenarioDefaults.locale
        let session = PlaySession(
            played: PlayedJourney(explorer, journey: compiled), console: console, context: context,
            startText: startText, locale: locale, save: save)
        try await session.run(continuing: start)
        try console.requireOutputWritten()
    }

    /// `text` checked as a scenario against the library; its problems printed, exit 2. A
    /// problem in what `--device` wrote is said of the setting that wrote it (`origins`), the
    /// value of a PIN or of a secret stored key shown as `•••`.
    static func compile(
        _ text: String, in library: CompiledLibrary, _ context: ProjectContext, console: Console,
        origins: [PlayedScenario.Origin] = []
    ) throws -> CompiledScenario {
        let pipeline = Pipeline(handlers: context.toolkit.handlers, yaml: SafeYAML(limits: Workspace.limits))
        var diagnostics = DiagnosticList()
        let file = SourceFile(path: "--device", data: Data(text.utf8))
        if let compiled = pipeline.scenario(file, in: library, into: &diagnostics) { return compiled }
        for diagnostic in diagnostics.sorted {
            let at = diagnostic.location
            let origin = PlayedScenario.origin(at: at.line, column: at.column, in: origins)
            let flag =
                origin.map { "--device \(PrintableText.escaped($0.shown(secretStored: library.isSecretStored)))" }
                ?? "--device"
            console.err("\(diagnostic.severity.rawValue): \(flag): \(diagnostic.message) [\(diagnostic.id)]\n")
        }
        throw ExitCode(ExitStatus.invalid)
    }

    /// The journey `name` names: the one its file defines, or the one with that id.
    static func resolve(
        _ name: String, in project: Project, library: CompiledLibrary
    ) throws
        -> CompiledJourney
    {
        if Workspace.namesFile(name) {
            guard let found = project.journeys.first(where: { $0.file == name }), let journey = library[found.id.value]
            else { throw CLIError("\(name) defines no journey") }
            return journey
        }
        guard let journey = library[name] else {
            let ids = project.journeys.map(\.id.value)
            throw CLIError("no journey '\(name)'\(Suggestion.hint(for: name, in: ids))")
        }
        return journey
    }
}

/// One play: the positions so far (the last is where it stands), the moves between them, and
/// the terminal it talks to.
final class PlaySession {
    let played: PlayedJourney
    let console: Console
    let context: ProjectContext
    let startText: String?
    /// The locale `--locale` chose, which a saved scenario keeps.
    let locale: String?
    let save: String?
    let input = PlayInput()
    private var positions: [PlayedJourney.Position] = []
    /// The moves between the positions, each with whether it typed into a secret input.
    private var moves: [(move: JourneyExplorer.Move, secret: Bool)] = []
    private let renderer = TranscriptTextRenderer()
    /// The files saved so far: `--save` is not written again at the end when `:save` wrote it.
    private var saved: Set<String> = []
    /// Whether the last save tried wrote nothing: play that was to be saved ends with exit 1.
    private var lastSaveFailed = false
    /// Whether the line being handled was read without echo: at a step whose one input is
    /// hidden (a PIN pad), where whatever is typed at the prompt may be the secret.
    private var lineWasHidden = false

    init(
        played: PlayedJourney, console: Console, context: ProjectContext, startText: String?, locale: String? = nil,
        save: String?
    ) {
        self.played = played
        self.console = console
        self.context = context
        self.startText = startText
        self.locale = locale
        self.save = save
    }

    var here: PlayedJourney.Position { positions[positions.count - 1] }

    func run(continuing scenario: CompiledScenario?) async throws {
        positions = [await played.start()]
        show(here.records)
        if let scenario {
            // The scenario's script first, so that play goes on where it ends.
            for entry in scenario.sessions[0].script {
                let move: JourneyExplorer.Move
                switch entry.kind {
                case .input(let step, let values):
                    guard here.step == step else {
                        throw CLIError(
                            "\(entry.location): the script gives input at '\(step)', but the journey waits \(here.step.map { "at '\($0)'" } ?? "no more")"
                        )
                    }
                    move = .input(step: step, label: "played", values: values)
                case .restart: move = .restart
                case .advance(let milliseconds): move = .clock(milliseconds: milliseconds)
                case .online(let online): move = .network(online: online)
                }
                await play(move)
            }
            console.out(paint("played the script of \(scenario.file)\n", .dim))
        }
        // A :quit whose save to --save failed stays, so that what was played can still be
        // saved elsewhere; a second :quit leaves.
        var leaving = false
        while true {
            describe()
            // A step that asks for one hidden input (a PIN pad) reads the line without echo:
            // what is typed there is most often the secret itself.
            let hiddenInput = here.request.map(Self.asked).flatMap { $0.count == 1 && $0[0].type.secret ? $0[0] : nil }
            lineWasHidden = hiddenInput != nil && input.isTerminal
            let line =
                if let hiddenInput, lineWasHidden {
                    input.hidden(
                        prompt: paint("› ", .bold) + "\(hiddenInput.name) (hidden; an action or a :command works too): "
                    )
                } else {
                    input.line(prompt: paint("› ", .bold))
                }
            guard let line else { break }
            if try await handle(line) { continue }
            guard let save, !saved.contains(save), !leaving, !(await write(to: save)) else { break }
            leaving = true
            console.out(
                "what was played is not saved: :save FILE saves it to another file; :quit again leaves without saving it\n"
            )
        }
        guard let save, !saved.contains(save) else { return }
        if !leaving { await write(to: save) }
        if lastSaveFailed {
            console.err("journey play: what was played was not saved to \(PrintableText.escaped(save))\n")
            throw ExitCode(ExitStatus.failed)
        }
    }

    // MARK: Showing

    func paint(_ text: String, _ style: Console.Style) -> String { console.paint(text, style) }

    func show(_ records: [TranscriptRecord]) {
        let text = records.map(renderer.render).joined()
        if !text.isEmpty { console.out(paint(text, .dim)) }
    }

    /// The screen the run waits at, or how it ended.
    func describe() {
        if let result = here.result {
            if let end = result.end {
                console.out(
                    paint("■ the journey ended at '\(end)' (\(result.kind?.rawValue ?? "end"))", .green)
                        + ": :restart opens the app again; :save FILE, :undo or :quit\n")
            } else {
                console.out(
                    paint("✗ the run failed: \(PrintableText.escaped(result.failure ?? "without a message"))", .red)
                        + ": :undo or :quit\n")
            }
            return
        }
        if let blocked = here.blocked { console.out(paint("⚠ \(PrintableText.escaped(blocked))\n", .yellow)) }
        guard let request = here.request else { return }
        var lines = ["", paint("── \(request.journey) › \(request.step) ──", .bold)]
        if let screen = request.screen {
            if let title = screen.title { lines.append(paint(PrintableText.escaped(title), .bold)) }
            if let text = screen.text { lines.append(PrintableText.escaped(text)) }
            for field in screen.fields {
                lines.append(
                    "  [\(field.name)] \(PrintableText.escaped(field.label ?? field.name))\(field.secret ? " (hidden)" : "")\(field.required ? "" : " (optional)")"
                )
            }
            for (index, action) in screen.actions.enumerated() {
                let label = "  \(index + 1). \(action.id) \"\(PrintableText.escaped(action.label))\""
                lines.append(action.enabled ? label : paint(label + " (disabled)", .dim))
            }
        }
        for (limit, left) in played.attemptsLeft(at: here) {
            lines.append(paint("  attempts left (\(limit)): \(left)", .dim))
        }
        let asked = Self.asked(request)
        if !asked.isEmpty {
            let described = asked.map { input in
                var text = "\(input.name) (\(input.type.type)\(input.type.secret ? ", hidden" : "")"
                if !input.classes.isEmpty { text += ": " + input.classes.joined(separator: ", ") }
                return text + ")"
            }
            lines.append(paint("  takes \(described.joined(separator: "; "))", .dim))
        }
        console.out(lines.joined(separator: "\n") + "\n")
    }

    /// The inputs a person gives at a request: all but pressing an action and the network.
    static func asked(_ request: InputRequest) -> [InputSpec] {
        request.inputs.filter { $0.name != "action" && $0.name != "network" }
    }

    // MARK: Commands and input

    /// Acts on one line; false when the play ends.
    func handle(_ raw: String) async throws -> Bool {
        let line = raw.trimmingCharacters(in: .whitespaces)
        if line.hasPrefix(":") {
            let words = line.dropFirst().split(separator: " ", maxSplits: 1).map(String.init)
            let argument = words.count > 1 ? words[1].trimmingCharacters(in: .whitespaces) : nil
            switch words.first ?? "" {
            case "quit", "q", "exit": return false
            case "help", "h", "?": console.out(PlayCommand.configuration.discussion + "\n")
            case "undo", "u":
                if positions.count > 1 {
                    positions.removeLast()
                    moves.removeLast()
                    console.out(paint("↶ back one move\n", .dim))
                } else {
                    console.out("nothing to undo: this is where the play started\n")
                }
            case "restart":
                // After an end the app is opened again, as a scenario's next session opens it.
                if here.request == nil, let end = here.result?.end {
                    await play(.relaunch(after: end))
                } else {
                    await playIfWaiting(.restart)
                }
            case "offline": await playIfWaiting(.network(online: false))
            case "online": await playIfWaiting(.network(online: true))
            case "clock", "advance":
                guard let argument, let ms = JourneyCore.Duration.parse(argument), ms >= 1 else {
                    console.out("give how long: :clock \(JourneyCore.Duration.rule)\n")
                    return true
                }
                await playIfWaiting(.clock(milliseconds: ms))
            case "foreground":
                // The input class a step in the background (app.background) takes to come back.
                let back = played.suggestions(at: here).first { move in
                    if case .input(_, "foreground", _) = move { true } else { false }
                }
                guard let back else {
                    console.out("the app is not in the background here: a journey sends it there with app.background\n")
                    return true
                }
                await play(back)
            case "store": showStore()
            case "hint": showHints()
            case "save":
                guard let path = argument ?? save else {
                    console.out("give the file: :save journeys/…/scenarios/NAME.scenario.yaml\n")
                    return true
                }
                await write(to: path)
            default: console.out("unknown command '\(PrintableText.escaped(line))': :help lists them\n")
            }
            return true
        }
        guard let request = here.request else {
            console.out("the run has ended: :restart opens the app again; :save FILE, :undo or :quit\n")
            return true
        }
        if let values = try values(from: line, for: request) {
            let secret = Self.asked(request).contains { $0.type.secret && values[$0.name] != nil }
            let label = values["action"].map { "\($0.revealed)" } ?? "played"
            await play(.input(step: request.step, label: label, values: values), secret: secret)
        }
        return true
    }

    func playIfWaiting(_ move: JourneyExplorer.Move) async {
        guard here.request != nil else {
            console.out("the run has ended: :undo to go back to a screen\n")
            return
        }
        await play(move)
    }

    func play(_ move: JourneyExplorer.Move, secret: Bool = false) async {
        let next = await played.play(move, from: here)
        positions.append(next)
        moves.append((move, secret))
        show(next.records)
    }

    /// The values `line` gives at `request`; nil (having said why) when it gives none.
    func values(from line: String, for request: InputRequest) throws -> [String: Value]? {
        let asked = Self.asked(request)
        let actions = request.screen?.actions ?? []
        let actionIDs =
            request.inputs.first { $0.name == "action" }.map(\.classes) ?? actions.map(\.id)
        if line.isEmpty {
            // One input at a time; a hidden one without echo.
            guard !asked.isEmpty else {
                console.out("press an action: its number or id\n")
                return nil
            }
            var values: [String: Value] = [:]
            for spec in asked {
                let prompt = "  \(spec.name)\(spec.type.secret ? " (hidden)" : ""): "
                guard let text = spec.type.secret ? input.hidden(prompt: prompt) : input.line(prompt: prompt) else {
                    return nil
                }
                guard !text.isEmpty else { continue }
                guard let value = typed(text, spec) else { return nil }
                values[spec.name] = value
            }
            return values
        }
        if let number = Int(line), actions.indices.contains(number - 1) {
            return ["action": .string(actions[number - 1].id)]
        }
        if actionIDs.contains(line) { return ["action": .string(line)] }
        if line.contains("=") {
            var values: [String: Value] = [:]
            for word in Self.words(line) {
                guard let equals = word.firstIndex(of: "=") else {
                    guard actionIDs.contains(word) else {
                        console.out("'\(PrintableText.escaped(word))' is no action of this screen\n")
                        return nil
                    }
                    values["action"] = .string(word)
                    continue
                }
                let name = String(word[..<equals])
                let text = String(word[word.index(after: equals)...])
                if name == "action" {
                    // Pressed by name as by its id: only an action the screen has, asked again
                    // otherwise (the run would stop at input its step does not take).
                    guard actionIDs.contains(text) else {
                        console.out(
                            actionIDs.isEmpty
                                ? "step '\(request.step)' has no actions to press\n"
                                : "'\(PrintableText.escaped(text))' is no action of this screen\(Suggestion.hint(for: text, in: actionIDs))\n"
                        )
                        return nil
                    }
                    values["action"] = .string(text)
                    continue
                }
                guard let spec = asked.first(where: { $0.name == name }) else {
                    console.out(
                        "step '\(request.step)' takes no '\(PrintableText.escaped(name))'\(Suggestion.hint(for: name, in: asked.map(\.name)))\n"
                    )
                    return nil
                }
                guard let value = typed(text, spec) else { return nil }
                values[name] = value
            }
            return values
        }
        guard asked.count == 1 else {
            console.out(
                asked.isEmpty
                    ? "'\(PrintableText.escaped(line))' is no action of this screen: press one by its number or id\n"
                    : "this step takes \(asked.map(\.name).joined(separator: ", ")): give name=value words, or press Enter to be asked for each\n"
            )
            return nil
        }
        if asked[0].type.secret && input.isTerminal && !lineWasHidden {
            // Typed at the prompt it showed on the screen: ask again, hidden.
            console.out("\(asked[0].name) is hidden input: press Enter to type it without echo\n")
            return nil
        }
        return typed(line, asked[0]).map { [asked[0].name: $0] }
    }

    /// `text` as a value of the input's type; nil (having said why) when it is not one.
    func typed(_ text: String, _ spec: InputSpec) -> Value? {
        // What a terminal's arrow and function keys type: no scenario can hold it.
        if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            console.out("\(spec.name): a control character was typed (an arrow key?); type the value again\n")
            return nil
        }
        // As a scenario's script reads a value written plain; a list as its items, by commas.
        if spec.type.type == .list {
            return .list(text.split(separator: ",").map { .string($0.trimmingCharacters(in: .whitespaces)) })
        }
        if let value = LiteralParser.value(text, plain: true, as: spec.type.type) { return value }
        // The text of a hidden input is not repeated.
        console.out(
            "\(spec.name) takes a\(spec.type.type == .int ? "n" : "") \(spec.type.type)\(spec.type.secret ? "" : ", not '\(PrintableText.escaped(text))'")\n"
        )
        return nil
    }

    /// Words separated by spaces; a word may hold spaces in double quotes (`name="A B"`).
    static func words(_ line: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quoted = false
        for character in line {
            if character == "\"" {
                quoted.toggle()
            } else if character == " " && !quoted {
                if !current.isEmpty { words.append(current) }
                current = ""
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    func showStore() {
        let store = here.device.store.sorted { $0.key < $1.key }
        guard !store.isEmpty else {
            console.out("the device keeps nothing\n")
            return
        }
        for (key, value) in store {
            console.out(
                "  stored.\(key) = \(value.isSecret ? "•••" : PrintableText.escaped(Counterexample.yaml(value)))\n")
        }
    }

    /// The input classes `journey explore` plays here, with the values it would give; those of
    /// hidden inputs as •••.
    func showHints() {
        let hidden = Set((here.request.map(Self.asked) ?? []).filter(\.type.secret).map(\.name))
        let suggestions = played.suggestions(at: here).compactMap { move -> String? in
            guard case .input(_, let label, let values) = move else { return nil }
            let shown = values.sorted { $0.key < $1.key }.map { name, value in
                "\(name)=\(hidden.contains(name) ? "•••" : PrintableText.escaped(Counterexample.yaml(value)))"
            }
            return "  \(label): \(shown.joined(separator: " "))"
        }
        console.out(suggestions.isEmpty ? "no input to suggest here\n" : suggestions.joined(separator: "\n") + "\n")
    }

    // MARK: Saving

    /// Why a scenario cannot be saved to `path` (its name, an existing file, where its goldens
    /// would go), or nil; said before a play starts for `--save`, and at each save.
    static func unsavable(_ path: String) -> String? {
        let name = Path.removingSuffix(Path.lastComponent(path), [".scenario.yaml"])
        guard name != Path.lastComponent(path) else {
            return "a scenario file's name ends in .scenario.yaml: \(PrintableText.escaped(path))"
        }
        guard JourneyLoader.isIdentifier(name) else {
            return
                "'\(PrintableText.escaped(name))' cannot be a scenario's id: use letters, digits, '_' and '-', starting with a letter, at most 64"
        }
        let base = Workspace.goldenBase(for: path)
        // The scenario and its goldens are new files: play never replaces one.
        let existing = [path, base + ".jsonl", base + ".txt"].filter(Files.exists)
        if !existing.isEmpty {
            let names = existing.map { PrintableText.escaped(Workspace.display($0)) }.joined(separator: ", ")
            return "\(names) already exist\(existing.count == 1 ? "s" : ""): save to another file"
        }
        do { try FileGoldenStore.requireInsideProject(Path.parent(base)) } catch {
            return (error as? CLIError)?.message ?? "\(error)"
        }
        return nil
    }

    /// Why a scenario of `journey` saved to `path` would clash with one the project has: its
    /// id (the file's name) is another scenario's of the same journey, among the project's
    /// journey folders and the folder it goes in. Two such make both scenarios unrunnable for
    /// `journey test`; nil when there is none.
    static func idTaken(_ path: String, journey: String, context: ProjectContext) -> String? {
        let id = Path.removingSuffix(Path.lastComponent(path), [".scenario.yaml"])
        let folders = (context.paths([]) + [Path.parent(path)]).filter(Files.isFolder)
        var ignored = DiagnosticList()
        let target = Path.absoluteComponents(path, cwd: FileManager.default.currentDirectoryPath)
        for file in Files.yamlFiles(in: folders, diagnostics: &ignored)
        where Path.absoluteComponents(file, cwd: FileManager.default.currentDirectoryPath) != target {
            guard let data = try? Files.read(file, limit: Workspace.limits.maxBytes),
                ProjectLoader.declaredKey("scenario", in: data) == id,
                ProjectLoader.declaredKey("journey", in: data) == journey
            else { continue }
            return
                "scenario '\(id)' of '\(journey)' is already defined at \(PrintableText.escaped(Workspace.display(file))): save to a file of another name"
        }
        return nil
    }

    /// Writes what was played as a scenario to `path`, then records its golden transcript as
    /// `journey test --update` does. False when nothing was written.
    @discardableResult
    func write(to path: String) async -> Bool {
        let written = await tryWrite(to: path)
        lastSaveFailed = !written
        return written
    }

    private func tryWrite(to path: String) async -> Bool {
        if let problem = Self.unsavable(path) ?? Self.idTaken(path, journey: played.journey.id, context: context) {
            console.out(problem + "\n")
            return false
        }
        let name = Path.removingSuffix(Path.lastComponent(path), [".scenario.yaml"])
        if here.result != nil && here.result?.end == nil {
            console.out("the run failed, and a scenario expects an end or a step: :undo first\n")
            return false
        }
        let text = PlayedScenario.text(
            id: name, journey: played.journey, moves: moves.map(\.move), startingFrom: startText, locale: locale,
            end: here.result?.end, waitingAt: here.step)
        var files = NewFiles()
        files.replacedBy = nil
        files.add(text, at: path)
        // Every step a hidden input was typed at, once each, in the order played.
        var hidden: [String] = []
        for (move, secret) in moves where secret {
            if case .input(let step, _, _) = move, !hidden.contains(step) { hidden.append(step) }
        }
        if !hidden.isEmpty {
            let steps = hidden.map { "'\($0)'" }
            let at =
                steps.count == 1
                ? "at \(steps[0])" : "at \(steps.dropLast().joined(separator: ", ")) and \(steps[steps.count - 1])"
            guard
                let answer = input.line(
                    prompt:
                        "what was typed into a hidden input \(at) would be written into the scenario in clear; save it? [y/N] "
                ), ["y", "yes"].contains(answer.lowercased())
            else {
                console.out("not saved\n")
                return false
            }
        }
        // Checked and played as `journey test --update` plays it, before anything is written:
        // the scenario and its goldens are written together, or nothing is.
        var diagnostics = DiagnosticList()
        let pipeline = Pipeline(handlers: context.toolkit.handlers, yaml: SafeYAML(limits: Workspace.limits))
        let library = played.explorer.library
        guard
            let compiled = pipeline.scenario(
                SourceFile(path: path, data: Data(text.utf8)), in: library, into: &diagnostics)
        else {
            console.print(diagnostics)
            console.out("not saved: what was played does not check as a scenario\n")
            return false
        }
        let goldens = RecordedGoldens()
        let outcomes = await SuiteRunner(
            options: SuiteOptions(update: true), player: context.toolkit.player(defaults: context.scenarioDefaults)
        ).run([compiled], in: library, goldens: goldens) { _, _ in }
        guard let recorded = goldens.goldens(of: compiled.file) else {
            let problems = outcomes.flatMap(\.problems).map(\.message).joined(separator: "; ")
            console.out("not saved: replayed, the scenario does not pass (\(PrintableText.escaped(problems)))\n")
            return false
        }
        let base = Workspace.goldenBase(for: path)
        files.add(recorded.jsonl, at: base + ".jsonl")
        files.add(recorded.text, at: base + ".txt")
        do {
            try FileGoldenStore.requireInsideProject(Path.parent(base))
            try files.write(replacing: false)
        } catch {
            console.out("\((error as? CLIError)?.message ?? "\(error)")\n")
            return false
        }
        saved.insert(path)
        files.report(console, next: ["journey test \(path)"])
        return true
    }
}

/// Where play reads its lines: the terminal, with hidden input read without echo, or
/// standard input piped in. A piped line is not repeated (it may be a PIN given at the prompt):
/// what it did shows in the transcript that follows, with secrets as •••.
final class PlayInput {
    let isTerminal = isatty(STDIN_FILENO) == 1

    func line(prompt: String) -> String? {
        read(prompt: prompt, hidden: false)
    }

    func hidden(prompt: String) -> String? {
        read(prompt: prompt, hidden: true)
    }

    private func read(prompt: String, hidden: Bool) -> String? {
        StandardStreams.shared.write(prompt, to: .output)
        guard isTerminal else {
            let line = Self.boundedLine()
            StandardStreams.shared.write("\n", to: .output)
            return line
        }
        guard hidden else { return Self.boundedLine() }
        tcgetattr(STDIN_FILENO, &echoing)
        var silent = echoing
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        // Ctrl-C at a hidden prompt ends play as anywhere, with the terminal echoing again.
        let interrupt = signal(SIGINT) { received in
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &echoing)
            signal(received, SIG_DFL)
            raise(received)
        }
        defer {
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &echoing)
            signal(SIGINT, interrupt)
            StandardStreams.shared.write("\n", to: .output)
        }
        return Self.boundedLine()
    }

    /// The longest line play reads, in bytes: far past any command or input, short of what
    /// would let an endless line (`< /dev/zero`) fill the memory.
    static let longestLine = 64 << 10

    /// The next line of standard input without its line break (`\n` or `\r\n`), or nil at
    /// its end. A line longer than ``longestLine`` is read to its end and dropped, with a word,
    /// and the next line is read instead.
    static func boundedLine() -> String? {
        while true {
            var bytes: [UInt8] = []
            var tooLong = false
            var ended = true
            while case let c = getchar(), c != EOF {
                ended = false
                if c == 0x0A { break }
                if bytes.count < longestLine { bytes.append(UInt8(c)) } else { tooLong = true }
            }
            if ended && bytes.isEmpty { return nil }
            if tooLong {
                StandardStreams.shared.write(
                    "a line longer than \(longestLine) bytes was ignored\n", to: .output)
                continue
            }
            if bytes.last == 0x0D { bytes.removeLast() }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}

/// The terminal's settings before a hidden prompt turned its echo off: put back after it,
/// also by a Ctrl-C that ends play during it.
nonisolated(unsafe) private var echoing = termios()
