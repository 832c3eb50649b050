import ArgumentParser
import Foundation
import JourneyCore
import JourneyDocs
import JourneySuite

struct ExploreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explore",
        abstract: "Explore every path through journeys and check the rules auth teams care about.",
        discussion: """
            Plays each journey breadth first through the real interpreter and handlers: at \
            every step each class of input the step takes (each enabled action, a right and a \
            wrong PIN, each biometric result), and anywhere an app restart, jumps of the \
            virtual clock by the durations the journey writes (and to the times of day and \
            dates it reads: device.now % 86400, a date compared with; from a scenario whose \
            stubs issue tokens, by their lifetimes), and (from a scenario with stubs) the \
            network going away and coming back; after a failure or a cancel \
            end, the app opened again with what the device keeps, a new session. Equal \
            situations are one state.

            Every state and move is checked against the invariants, each with a stable id:
              explore.reaches-an-end      from every reachable state an end can be reached
                                          without killing the app
              explore.never-fails         no path makes the run fail
              explore.counter-survives    no restart (and no clock jump but a lockout's
                                          end) lowers an attempt counter
              explore.exceeded-target     no way round an attempt limit (a step that
                                          clears the count, before or after it is
                                          spent) lowers its counter
              explore.no-secret-leak      no secret reaches a transcript on any path
              explore.credential-before-success
                                          no path reaches a success end without passing a
                                          step that verifies a credential (in a journey
                                          that has one: `verifies: credential`, pin.verify,
                                          oidc.token)
              explore.explorable          the journey is explored: some start can run it
                                          (see below)
            A journey that breaks one on purpose says so under `exceptions:` with the reason. \
            The journey's own rules (`invariants:`) are checked too, each reported as \
            invariant.ID.

            For each broken invariant the shortest path is printed, with its transcript as \
            `journey run` prints it and how that replay ends, and with --emit written as \
            a scenario that stops where the rule breaks and expects what the rule demands, so \
            that `journey run --scenario` replays it to the same violation (the output says how, \
            with --journeys for a journey outside the project's journey folders; a trap's \
            scenario expects canEnd: true where it stops, and its replay explores from there). \
            --emit replaces \
            only the scenarios an earlier `journey explore` wrote; any other file is kept.

            When a journey's scenarios are among the files explored (or those of journeys that \
            call it), a coverage line lists the transitions the explored paths take that no \
            committed scenario (golden) takes: each branch of a transition with more than one \
            (`launch --next [if 2]-->`), and where each step's limit leads once spent \
            (`locked --limit pinEntry reached-->`).

            Examples:
              journey explore                    # every journey of the project
              journey explore journeys/examples --journey examples.pin-model
              journey explore --restarts 1000 --depth 2000 \\
                journeys/examples/pin-model.journey.yaml
              journey explore --emit counterexamples/
              journey explore --strict           # and fail one the bounds cut short
              journey explore --from \\
                journeys/diia/scenarios/d5-count-survives-restart.scenario.yaml
              journey explore --random --seed 7 --walks 10000 --depth 200 journeys/locker
              journey explore --jobs 1 journeys/examples/pin-model.journey.yaml

            With --random, the explorer plays --walks random walks instead, each at most --depth \
            moves from the start, each move drawn among those the state offers from --seed \
            alone: the same seed gives the same result. Every state and move is checked, but for \
            explore.reaches-an-end, which needs every way out of a state.

            A journey is explored from the default device with its default params, and from \
            where each of its scenarios among the files starts (its device, sealed PINs, \
            params and stubs), as journey test --explore does; its starts are said together. \
            One with a param that has no default does not start on the default device; when \
            no scenario can start it either, it is not explored, saying why (a harness around \
            a live server, out of the explorer's scope on purpose, declares \
            explore.explorable under `exceptions:` with the reason). --from adds a \
            scenario's start; given alone, it is the only one explored.

            On a terminal, a long exploration says how far it has got on standard error, on a \
            line taken away before its result is printed. Ctrl-C (SIGINT) or SIGTERM stops the \
            exploration under way, which says what it found until then (interrupted, with the \
            states not played counted and not judged), writes its counterexamples as any \
            other, and explores no journey after it; a second Ctrl-C ends the process at once.

            A verdict reached with states left unexpanded holds within the bounds only: the \
            last line names the journeys the bounds cut short, and with --strict they fail, \
            as does a journey not explored that does not declare explore.explorable (for a \
            check in CI that must cover every reachable state of every journey).

            Each level of the search is played on --jobs threads and merged in order, so the \
            states, transitions and counterexamples are the same on any number of cores \
            (--jobs 1: one core).

            Exits 0 when every journey explores clean, 1 when one breaks an invariant (with \
            --strict, also when the bounds cut one short or one is not explored without \
            declaring it), 2 when the files have errors, 130 \
            (SIGINT) or 143 (SIGTERM) when stopped.
            """
    )

    @Argument(
        help:
            "Journey files, or folders to search (default: the project's journey folders, else journeys)."
    )
    var paths: [String] = []

    @Option(name: .customLong("journey"), help: "Explore only this journey (repeatable).")
    var journeys: [String] = []

    // A number option takes the next word as its value even when it starts with a dash, so that
    // `-1` is refused by validate() with the range, not reported as a missing value.
    @Option(
        parsing: .unconditional,
        help:
            "The most moves from the start on one path (default: the project file's defaults.explore.depth, else \(JourneyExplorer.Bounds().depth))."
    )
    var depth: Int?

    @Option(
        parsing: .unconditional,
        help:
            "The most app restarts on one path, a launch after a failure or a cancel end included (default: the project file's defaults.explore.restarts, else \(JourneyExplorer.Bounds().restarts))."
    )
    var restarts: Int?

    @Option(
        parsing: .unconditional,
        help:
            "The most states to keep per start of a journey; past them its exploration stops and says so (default: the project file's defaults.explore.states, else \(JourneyExplorer.Bounds().states))."
    )
    var states: Int?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "How much memory the process may hold while exploring (512MiB, 4GiB); past it an exploration stops as at the state bound and says so (default: the project file's defaults.explore.memory, else three quarters of what the process may use, the machine's memory or its container's limit).",
            valueName: "size"))
    var memory: String?

    @Option(
        name: .customLong("clock-jump"), parsing: .unconditionalSingleValue,
        help:
            "A clock jump to play (a duration, repeatable; default: the durations each journey writes, and from a scenario whose stubs issue tokens their lifetimes (expires_in); given, they replace them). A journey that reads the clock with no duration to jump it by says that time passing is left out: give the waits that matter here."
    )
    var clockJumps: [String] = []

    @Option(
        name: .customLong("from"),
        help: ArgumentHelp(
            "Explore the scenario's journey from where the scenario starts: its device (store, PINs, clock), params and network stubs (repeatable).",
            valueName: "scenario"))
    var from: [String] = []

    @Flag(
        inversion: .prefixedNo,
        help: "Let the network go away and come back anywhere, when exploring from a scenario with stubs.")
    var offline = true

    @Flag(
        help:
            "Play random walks instead of every path: for spaces too large to exhaust (with --seed and --walks; --depth bounds each walk)."
    )
    var random = false

    @Option(
        name: .customLong("seed"), parsing: .unconditional,
        help: "With --random: the seed of the walks; the same seed plays the same walks (default: 1).")
    var givenSeed: UInt64?

    @Option(
        name: .customLong("walks"), parsing: .unconditional,
        help: "With --random: how many random walks to play (default: 1000).")
    var givenWalks: Int?

    var seed: UInt64 { givenSeed ?? 1 }
    var walks: Int { givenWalks ?? 1000 }

    @Option(
        parsing: .unconditional,
        help:
            "Threads that play the moves of each level side by side (default: the number of cores); the result is the same with any number."
    )
    var jobs: Int?

    @Option(name: .customLong("emit"), help: "Write each counterexample as a scenario into this folder.")
    var emit: String?

    @Flag(help: "Print the results as JSON, an entry for each start (described by schemas/explore-report.schema.json).")
    var json = false

    @Flag(
        help:
            "Fail (exit 1) when the bounds cut a journey's exploration short (its clean verdict then holds for the states explored only), or a journey is not explored and does not declare explore.explorable. Not with --random, which claims no state it did not see."
    )
    var strict = false

    func validate() throws {
        for (option, value, range) in [
            ("--depth", depth, NumberRange.exploreDepth), ("--restarts", restarts, NumberRange.exploreRestarts),
            ("--states", states, NumberRange.exploreStates), ("--jobs", jobs, NumberRange.jobs),
        ] {
            guard let value, !range.contains(value) else { continue }
            throw ValidationError("\(option) must be from \(range.lowerBound) to \(range.upperBound)")
        }
        guard (1...10_000_000).contains(walks) else { throw ValidationError("--walks must be from 1 to 10000000") }
        if !random, givenSeed != nil || givenWalks != nil {
            throw ValidationError("--seed and --walks go with --random, which plays random walks instead of every path")
        }
        if random, strict {
            throw ValidationError(
                "--strict asks that every reachable state be explored, which --random does not claim: it samples paths; drop one of them"
            )
        }
        if let memory, MemoryBound(memory) == nil {
            throw ValidationError("--memory takes \(MemorySize.rule), found '\(memory)'")
        }
        for jump in clockJumps {
            guard let ms = JourneyCore.Duration.parse(jump), ms >= 1 else {
                throw ValidationError("--clock-jump takes \(JourneyCore.Duration.rule), found '\(jump)'")
            }
        }
        // Said before anything is loaded; a folder that cannot be made, before anything is explored (run).
        if emit?.isEmpty == true { throw ValidationError("--emit takes a folder to write scenarios into") }
        var isFolder: ObjCBool = false
        if let emit, FileManager.default.fileExists(atPath: emit, isDirectory: &isFolder), !isFolder.boolValue {
            throw ValidationError("--emit takes a folder to write scenarios into; \(emit) is a file")
        }
    }

    func run() async throws {
        let console = Console()
        let context = try ProjectContext.load(console: console)
        let given =
            paths.isEmpty && !from.isEmpty
            ? from : try context.paths(paths, usage: "journey explore path/to/journeys") + from
        let (project, diagnostics) = Workspace.load(
            paths: given, journeyFolders: context.searchFolders, toolkit: context.toolkit,
            naming: { kind, id in
                switch kind {
                case .journey: "name that file, or journey explore --journey \(id)"
                case .scenario where from.contains(id): "--from takes its file"
                case .scenario: "give that file with --from to explore from where it starts"
                }
            })
        console.print(diagnostics.shownWhenRunning)
        guard !diagnostics.hasErrors, let library = project.library else { throw ExitCode(ExitStatus.invalid) }
        // The options given, else the project file's defaults, else the explorer's own.
        let bounds = context.settings.explore.bounds(
            depth: depth, restarts: restarts, states: states,
            clockJumps: clockJumps.isEmpty ? nil : clockJumps.compactMap { JourneyCore.Duration.parse($0) },
            offline: offline)
        let runs = try starts(in: project, library: library, context: context, bounds: bounds)

        // The folder counterexamples go to, made before anything is explored: one that cannot
        // be made is said at once.
        if let emit {
            do {
                try Files.makeFolders(emit)
            } catch {
                throw CLIError("cannot make the folder \(emit) for --emit: \(error.reason)")
            }
            // One that is there but takes no files (read-only, immutable) is said at once too.
            if access(emit, W_OK | X_OK) != 0 {
                throw CLIError("cannot write into the folder \(emit) for --emit: \(SystemError())")
            }
        }
        var found = Findings()
        // Ctrl-C (or SIGTERM) stops the exploration under way, which says what it found until
        // then; the journeys after it are not explored. A second one ends the process at once.
        Interruption.catchSignals()
        defer { Interruption.release() }
        let bound = MemoryBound.chosen(memory, context.settings.explore)
        for (index, run) in runs.enumerated() {
            if Interruption.isRequested { break }
            guard case .explore(let journey, var explorer, let start, let file) = run else {
                if case .notExplored(let journey, let why, let declared) = run {
                    found.entries.append(.notExplored(journey: journey, why: why, declared: declared))
                    if !json { console.out(Self.text(notExplored: journey, why: why, declared: declared)) }
                }
                continue
            }
            // A long exploration says how far it has got, on a terminal.
            let line =
                console.isInteractive && !json
                ? ProgressLine(console: console, name: start.map { "\(journey.id) from \($0)" } ?? journey.id) : nil
            if let line { explorer.progress = { line.show($0) } }
            explorer.stop = { Interruption.isRequested }
            explorer.memory = bound.check
            var result =
                random ? await explorer.walk(journey, seed: seed, walks: walks) : await explorer.explore(journey)
            line?.clear()
            bound.release()
            if let start { result.start = start }
            // A journey's starts are said together, once the last of them is explored.
            let last = runs.indices.contains(index + 1) ? runs[index + 1].journey != journey.id : true
            try await found.add(
                result, of: journey, from: start, file: file, last: last, project: project, context: context,
                command: self, console: console)
        }
        try finish(found, console: console)
    }

    /// Prints what the explorations found (the JSON report, or the last line), and ends with the
    /// exit status it calls for.
    private func finish(_ found: Findings, console: Console) throws {
        let entries = found.entries
        let interruption = Interruption.signalName
        if json {
            console.out(Self.json(entries, written: found.written, coverage: found.coverage))
        } else {
            // On standard output, as `journey test` says its count: `> report.txt` keeps the verdict.
            console.out(
                Self.summary(entries, strict: strict) + (interruption.map { ", interrupted by \($0)" } ?? "") + "\n")
        }
        try console.requireOutputWritten()
        if let interruption { throw ExitCode(Interruption.exitStatus(interruption)) }
        if found.unwritten > 0 {
            console.err("error: \(counted(found.unwritten, "counterexample")) not written to \(emit ?? "")\n")
            throw ExitCode(ExitStatus.invalid)
        }
        let broken = entries.contains { entry in
            guard case .explored(let result, let excepted) = entry else { return false }
            return !Self.reported(result, excepted).isEmpty
        }
        if broken { throw ExitCode(ExitStatus.failed) }
        // A clean verdict within the bounds only, or a journey not explored that does not say
        // why it need not be: with --strict, not enough.
        if strict, !Self.cutShort(entries).isEmpty || !Self.notExplored(entries).undeclared.isEmpty {
            throw ExitCode(ExitStatus.failed)
        }
    }

    /// What the explorations of one `journey explore` found so far: printed as each journey's
    /// starts are done, and at the end.
    struct Findings {
        /// What is printed, in order: each result, and each journey not explored.
        var entries: [Entry] = []
        /// The counterexamples written, and for each the command that replays it.
        var written: [String: String] = [:]
        var replays: [String: String] = [:]
        /// Counterexamples that could not be written: the command fails when done (exit 2).
        var unwritten = 0
        var coverage: [String: ScenarioCoverage] = [:]
        /// The goldens of every scenario among the files, read once for the coverage of all.
        var recorded: [ScenarioRecording]?
        var transcripts: [String: String] = [:]
        /// The starts of the journey being explored so far.
        var group: [(result: JourneyExplorer.Result, excepted: [RuleException])] = []

        /// Adds what the exploration of `journey` from `start` found: its counterexamples written
        /// with --emit, and (for the text) played as `journey run` plays them; once its `last`
        /// start is explored (or the exploration is stopped), its starts are printed together.
        mutating func add(
            _ result: JourneyExplorer.Result, of journey: CompiledJourney, from start: String?, file: String?,
            last: Bool, project: Project, context: ProjectContext, command: ExploreCommand, console: Console
        ) async throws {
            let excepted = journey.source.explorationExceptions
            if let emit = command.emit {
                unwritten += ExploreCommand.emit(
                    ExploreCommand.reported(result, excepted), of: result, journey: journey, from: start, file: file,
                    to: emit, searched: context.searchFolders, written: &written, replays: &replays, console: console)
            }
            if coverage[journey.id] == nil {
                let recorded = self.recorded ?? DocsCommand.recordings(project.scenarios).0
                self.recorded = recorded
                coverage[journey.id] = ScenarioCoverage(journey: journey.id, project.scenarios, recorded: recorded)
            }
            if !command.json, let library = project.library {
                // Each counterexample played as `journey run` plays the scenario written for it.
                let text = try file.map { try String(contentsOfFile: $0, encoding: .utf8) }
                for violation in ExploreCommand.reported(result, excepted) {
                    let scenario = Counterexample.scenario(violation, of: result, journey: journey, startingFrom: text)
                    transcripts["\(journey.id) \(start ?? "") \(violation.id)"] = await Counterexample.transcript(
                        of: scenario, in: library, context)
                }
            }
            entries.append(.explored(result, excepted))
            group.append((result, excepted))
            if !command.json, last || Interruption.isRequested {
                console.out(
                    ExploreCommand.text(
                        group: group, written: written, replays: replays, coverage: coverage[journey.id],
                        transcripts: transcripts))
                group = []
            }
        }
    }

    /// What the arguments ask to explore, in order: the journeys of the files given (or those
    /// `--journey` names), each from the default device and from where each of its scenarios
    /// starts, and the scenarios given with `--from`. Arguments that would explore nothing, or
    /// not what they seem to ask, are refused with the reason.
    private func starts(
        in project: Project, library: CompiledLibrary, context: ProjectContext, bounds: JourneyExplorer.Bounds
    ) throws -> [Start] {
        let roots = context.paths(paths)
        var chosen: [String] = []
        if from.isEmpty || !paths.isEmpty {
            // The journeys of the files given, not those found only to be called.
            let found = Set(
                project.journeys.filter { journey in
                    roots.contains { Workspace.path($0, covers: journey.file) }
                }.map(\.id.value))
            let unknown = journeys.filter { !found.contains($0) }
            guard unknown.isEmpty else {
                throw CLIError(
                    "no journey '\(unknown[0])' in \(roots.joined(separator: ", "))\(Suggestion.hint(for: unknown[0], in: found))"
                )
            }
            // Each journey once, however often it is named.
            for id in journeys.isEmpty ? found.sorted() : journeys where !chosen.contains(id) { chosen.append(id) }
        }
        // A scenario among the paths: its start is what --from explores.
        for path in paths where project.scenarios.contains(where: { $0.file == path }) {
            throw CLIError(
                "\(path) is a scenario, not a journey: to explore its journey from where it starts, give it with --from"
            )
        }
        // A folder of scenarios only: their journeys are elsewhere, and nothing would be explored.
        if chosen.isEmpty, from.isEmpty {
            let played = Set(
                project.scenarios.filter { scenario in roots.contains { Workspace.path($0, covers: scenario.file) } }
                    .map(\.journey.id)
            ).sorted()
            if !played.isEmpty {
                let shown = played.prefix(3).joined(separator: ", ") + (played.count > 3 ? ", …" : "")
                throw CLIError(
                    "no journey in \(roots.joined(separator: ", ")), only scenarios: to explore the journeys they play (\(shown)), give the journeys' files or folder, or each scenario with --from to explore from where it starts"
                )
            }
        }
        // A scenario named twice, however spelt (`a/s.yaml`, `./a/s.yaml`, its absolute path),
        // is read once as it was first named (the same absolute path, as the loader tells
        // files apart), and is one start.
        let cwd = FileManager.default.currentDirectoryPath
        var named: [CompiledScenario] = []
        for file in from {
            let absolute = Path.absolute(file, cwd: cwd)
            guard let scenario = project.scenarios.first(where: { Path.absolute($0.file, cwd: cwd) == absolute })
            else {
                throw Workspace.notAScenario(
                    file, option: "--from", in: project,
                    forFolder:
                        "to explore from where each of its scenarios starts, give the folder as a path (journey explore \(Path.shellWord(file)))"
                )
            }
            if !named.contains(where: { $0.file == scenario.file }) { named.append(scenario) }
        }
        if paths.isEmpty, !from.isEmpty, !journeys.isEmpty {
            // Only the scenarios given: --journey chooses among the journeys they play.
            let playing = Set(named.map(\.journey.id))
            if let other = journeys.first(where: { !playing.contains($0) }) {
                throw CLIError(
                    "--journey \(other): no scenario given with --from plays it (they play \(playing.sorted().joined(separator: ", ")))"
                )
            }
            named = named.filter { journeys.contains($0.journey.id) }
        } else if !journeys.isEmpty, let other = named.first(where: { !journeys.contains($0.journey.id) }) {
            // With paths too, --journey still says which journeys are explored: a scenario given
            // with --from that plays another is not explored in silence.
            throw CLIError(
                "--from \(other.file) plays \(other.journey.id), which --journey leaves out: name it with --journey too, or leave the scenario out"
            )
        }
        // Only the chosen journeys' scenarios are set up as starts, and those named.
        return try Self.starts(
            of: chosen.compactMap { library[$0] },
            scenarios: project.scenarios.filter { chosen.contains($0.journey.id) },
            named: named, library: library, player: context.toolkit.player(defaults: context.scenarioDefaults),
            bounds: bounds, jobs: jobs ?? ProcessInfo.processInfo.activeProcessorCount)
    }

    /// Writes each of `violations` of `result` (of `journey`, explored from scenario `start`
    /// when given, whose file is `file`) as a scenario into `folder`, noting each file written
    /// and the command that replays it; answers how many could not be written (each said).
    static func emit(
        _ violations: [JourneyExplorer.Violation], of result: JourneyExplorer.Result, journey: CompiledJourney,
        from start: String?, file: String?, to folder: String, searched: [String], written: inout [String: String],
        replays: inout [String: String], console: Console
    ) -> Int {
        var unwritten = 0
        for violation in violations {
            let path = Path.join(
                folder, "\(journey.id)\(start.map { ".from-\($0)" } ?? "").\(violation.name).scenario.yaml")
            // A file explore did not write is the user's: never replaced. A file that cannot be
            // written is said, and the exploration goes on.
            let kept =
                written.values.contains(path) ? "holds another counterexample of this run" : notReplaceable(path)
            if let taken = kept {
                console.err("error: \(path) \(taken): not written\n")
                unwritten += 1
                continue
            }
            do {
                let text = try file.map { try String(contentsOfFile: $0, encoding: .utf8) }
                try AtomicFile.write(
                    Counterexample.scenario(violation, of: result, journey: journey, startingFrom: text), to: path)
            } catch {
                console.err("error: \(error)\n")
                unwritten += 1
                continue
            }
            written["\(journey.id) \(start ?? "") \(violation.id)"] = path
            replays[path] = replay(path, journey: journey.source.file, searched: searched)
        }
        return unwritten
    }

    /// Why the file at `path` is not one `--emit` may replace, or nil when it may: none is
    /// there, or a counterexample an earlier `journey explore` wrote (its second line says so).
    /// Anything else (a scenario of the user's, a link, a folder) is kept as it is.
    static func notReplaceable(_ path: String) -> String? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return nil }
        guard attributes[.type] as? FileAttributeType == .typeRegular else { return "is not a regular file" }
        let head = FileHandle(forReadingAtPath: path).flatMap { try? $0.read(upToCount: 512) } ?? Data()
        let lines = String(decoding: head, as: UTF8.self).lines
        guard lines.count > 1, lines[1].hasPrefix(Counterexample.mark) else {
            return "exists and was not written by journey explore"
        }
        return nil
    }

    /// One exploration `journey explore` plays: a journey, its explorer, and the scenario it
    /// starts from (nil: the default device); or a journey it cannot start, and why.
    enum Start {
        case explore(CompiledJourney, JourneyExplorer, from: String?, file: String?)
        case notExplored(journey: String, why: String, declared: ExplorationStarts.Declared?)

        var journey: String {
            switch self {
            case .explore(let journey, _, _, _): journey.id
            case .notExplored(let journey, _, _): journey
            }
        }
    }

    /// Where `journey explore` explores each of `journeys` from, in their order
    /// (``ExplorationStarts``): the default device, with the journey's default params (unless
    /// it has a param with no default), and where each of its scenarios among `scenarios`
    /// starts; then the starts of the `named` scenarios (`--from`) of other journeys. A journey
    /// no start can run is not explored, and says why.
    static func starts(
        of journeys: [CompiledJourney], scenarios: [CompiledScenario], named: [CompiledScenario],
        library: CompiledLibrary, player: ScenarioRunner, bounds: JourneyExplorer.Bounds, jobs: Int
    ) throws -> [Start] {
        let found: ExplorationStarts
        do {
            found = try ExplorationStarts(
                journeys: journeys, scenarios: scenarios, named: named, library: library, player: player,
                bounds: bounds, jobs: jobs)
        } catch { throw CLIError(error.message) }
        func explore(_ start: ExplorationStarts.Start) -> Start {
            .explore(start.journey, start.explorer, from: start.scenario?.id, file: start.scenario?.file)
        }
        let given = Set(journeys.map(\.id))
        let own = journeys.flatMap { journey -> [Start] in
            if let unexplored = found.unexplored.first(where: { $0.journey == journey.id }) {
                let hint = unexplored.onlyLiveScenarios ? "" : " (give their folder, or start from one with --from)"
                return [
                    .notExplored(journey: journey.id, why: "\(unexplored)\(hint)", declared: unexplored.declared)
                ]
            }
            return found.starts.filter { $0.journey.id == journey.id }.map(explore)
        }
        return own + found.starts.filter { !given.contains($0.journey.id) }.map(explore)
    }

    /// The last line: the journeys explored (and from how many starts, when some journey was
    /// explored from more than one), how many are clean, and those not explored.
    static func summary(_ entries: [Entry], strict: Bool) -> String {
        var journeys: [String] = []
        var starts = 0
        var broken = Set<String>()
        for entry in entries {
            switch entry {
            case .explored(let result, let excepted):
                starts += 1
                if !journeys.contains(result.journey) { journeys.append(result.journey) }
                if !reported(result, excepted).isEmpty { broken.insert(result.journey) }
            case .notExplored: break
            }
        }
        let cutShort = Self.cutShort(entries)
        var line = "explored \(counted(journeys.count, "journey"))"
        if starts != journeys.count { line += " from \(starts) starts" }
        line += ": \(journeys.count - broken.count) clean, \(broken.count) with violations"
        // A verdict within the bounds: said, so that clean is not read as explored to the end.
        if !cutShort.isEmpty {
            line += "; \(cutShort.count) cut short by the bounds: \(cutShort.joined(separator: ", "))"
            if strict { line += " (--strict: \(cutShort.count == 1 ? "it fails" : "they fail"))" }
        }
        let (declared, undeclared) = Self.notExplored(entries)
        if !undeclared.isEmpty {
            line += "; \(undeclared.count) not explored: \(undeclared.joined(separator: ", "))"
            if strict { line += " (--strict: \(undeclared.count == 1 ? "it fails" : "they fail"))" }
        }
        if !declared.isEmpty {
            line +=
                "; \(declared.count) not explored, as \(declared.count == 1 ? "it declares" : "they declare"): \(declared.joined(separator: ", "))"
        }
        return line
    }

    /// The journeys not explored, in order: those that declare it (an exception to
    /// `explore.explorable`, with the reason), and the others, which --strict fails.
    static func notExplored(_ entries: [Entry]) -> (declared: [String], undeclared: [String]) {
        var declared: [String] = []
        var undeclared: [String] = []
        for case .notExplored(let journey, _, let said) in entries {
            if said == nil { undeclared.append(journey) } else { declared.append(journey) }
        }
        return (declared, undeclared)
    }

    /// What is said of a journey not explored: why, and the exception it declares for it.
    static func text(notExplored journey: String, why: String, declared: ExplorationStarts.Declared?) -> String {
        "\(journey): not explored: \(PrintableText.escaped(why))\n"
            + (declared.map { "  \(PrintableText.escaped($0.description))\n" } ?? "")
    }

    /// The journeys the bounds cut short, each once, in order: one of whose starts left states
    /// unexpanded at the depth bound or stopped at the state bound. (One stopped by a signal
    /// is said by the signal.)
    static func cutShort(_ entries: [Entry]) -> [String] {
        var journeys: [String] = []
        for case .explored(let result, _) in entries
        where result.cutShort && !result.interrupted && !journeys.contains(result.journey) {
            journeys.append(result.journey)
        }
        return journeys
    }

    /// An explorer that starts where `scenario` starts (``ScenarioRunner/explorer(from:in:bounds:jobs:live:)``),
    /// with the project's defaults; a scenario that cannot be set up is a usage error.
    static func explorer(
        from scenario: CompiledScenario, _ library: CompiledLibrary, _ context: ProjectContext,
        _ bounds: JourneyExplorer.Bounds, jobs: Int = 1, live: Bool = false
    ) throws -> JourneyExplorer {
        do {
            return try context.toolkit.player(defaults: context.scenarioDefaults).explorer(
                from: scenario, in: library, bounds: bounds, jobs: jobs, live: live)
        } catch { throw CLIError(error.message) }
    }

    /// The violations a journey does not declare as exceptions.
    static func reported(_ result: JourneyExplorer.Result, _ excepted: [RuleException]) -> [JourneyExplorer.Violation] {
        let ids = Set(excepted.map(\.rule.value))
        return result.violations.filter { !ids.contains($0.id) }
    }

    /// What a result counts: its states, transitions and depth; of random walks, how many were
    /// played (with `seed`, from which) and what they saw.
    static func counts(_ result: JourneyExplorer.Result, seed: Bool) -> String {
        guard let random = result.random else {
            return
                "\(counted(result.states, "state")), \(counted(result.transitions, "transition")), depth \(result.depth)"
        }
        return
            "\(counted(random.walks, "random walk"))\(seed ? " (seed \(random.seed))" : ""): \(counted(result.states, "state")) seen, \(counted(result.transitions, "move")), the longest \(result.depth)"
    }

    /// The states found but not expanded, and where they were left.
    static func notExpanded(_ result: JourneyExplorer.Result) -> String {
        "\(counted(result.frontier, "state")) \(result.truncated || result.interrupted ? "found but" : "at the depth bound") not expanded"
    }

    static func text(
        _ result: JourneyExplorer.Result, excepted: [RuleException], written: [String: String],
        replays: [String: String] = [:], coverage: ScenarioCoverage? = nil, transcripts: [String: String] = [:]
    ) -> String {
        let violations = reported(result, excepted)
        var lines: [String] = []
        let verdict = violations.isEmpty ? "clean" : counted(violations.count, "violation")
        let name = result.start.map { "\(result.journey) from \($0)" } ?? result.journey
        lines.append("\(name): \(counts(result, seed: true)): \(verdict)")
        lines.append(played(result))
        lines += violationLines(result, violations, written: written, replays: replays, transcripts: transcripts)
        lines += closingLines(
            result, excepted: excepted, broken: Set(result.violations.map(\.id)), coverage: coverage, starts: 1)
        return lines.joined(separator: "\n") + "\n"
    }

    /// What follows the violations: each exception the journey declares, and whether a path
    /// broke it (`broken`: the ids of the violations found); the transitions no path takes,
    /// when every state was expanded; the coverage; what was left out. `result` holds what
    /// the `starts` took and left out together.
    static func closingLines(
        _ result: JourneyExplorer.Result, excepted: [RuleException], broken: Set<String>,
        coverage: ScenarioCoverage?, starts: Int
    ) -> [String] {
        var lines: [String] = []
        for exception in excepted {
            let said =
                if broken.contains(exception.rule.value) {
                    "broken on purpose"
                } else if result.unchecked.contains(where: { $0.rawValue == exception.rule.value }) {
                    // Not looked for: that it was not found says nothing.
                    "declared as an exception, so not looked for"
                } else {
                    "declared as an exception but not broken"
                }
            lines.append("  \(exception.rule.value) \(said): \(PrintableText.escaped(exception.reason))")
        }
        // What a clean verdict leans on: a rule broken on a called journey's limit, which that
        // journey declares broken on purpose wherever it is called.
        for excused in result.excusedInCalls.sorted() {
            lines.append(
                "  \(excused.invariant.rawValue) broken on purpose in \(excused.journey), which declares it: \(PrintableText.escaped(excused.reason))"
            )
        }
        let unreached = result.unreached
        if !unreached.isEmpty, !result.cutShort {
            lines.append(
                "  transitions no \(result.random == nil ? "path" : "walk") takes\(starts > 1 ? " from any start" : "") (\(unreached.count) of \(result.declared.count)): "
                    + unreached.map(\.description).joined(separator: ", "))
        }
        if let coverage { lines.append(coverage.line(result)) }
        for item in result.leftOut { lines.append("  left out: \(PrintableText.escaped(item.description))") }
        return lines
    }

    /// What was played and within which bounds; with `stops`, where the bounds stopped it (said
    /// start by start when there are several).
    static func played(
        _ result: JourneyExplorer.Result, stops: Bool = true, network: String = "", jumps some: String = "",
        seed: Bool = false
    ) -> String {
        let jumps =
            result.clockJumps.isEmpty
            ? "no clock jumps"
            : "clock jumps of "
                + result.clockJumps.map { JourneyCore.Duration.format(milliseconds: $0) }.joined(separator: ", ")
                + some
        var bounds =
            "bounds: depth \(result.bounds.depth)\(result.random == nil ? "" : " per walk"), \(counted(result.bounds.states, "state"))"
        if stops, let memory = result.memoryFull {
            bounds += "; stopped at the memory bound (\(MemorySize.format(memory)))"
        } else if stops, result.truncated {
            bounds += " (reached: the exploration stopped there)"
        }
        if stops, result.interrupted { bounds += "; interrupted" }
        if stops, result.frontier > 0 { bounds += "; \(notExpanded(result))" }
        if result.random != nil { bounds += "; explore.reaches-an-end is not judged on random walks" }
        return
            "  played: every input class\(result.random.map { seed ? ", drawn at random from seed \($0.seed)" : ", drawn at random" } ?? ""),\(result.offline ? " the network going away and coming back\(network)," : "") up to \(counted(result.bounds.restarts, "restart")), \(jumps); \(bounds)"
    }

    /// The command that replays the scenario written to `path`: `journey run` finds the journey
    /// in the project's journey folders (`searched`); a journey outside them needs its folder
    /// named.
    static func replay(_ path: String, journey file: String, searched folders: [String]) -> String {
        let command = "journey run --scenario \(Path.shellWord(path))"
        let inside = folders.contains { Workspace.path($0, covers: file) }
        return inside ? command : command + " --journeys \(Path.shellWord(Path.parent(file)))"
    }

    /// What is said of each violation: its invariant (and, of one start among several, which),
    /// its message, its path, where its scenario was written, and its replay's transcript.
    static func violationLines(
        _ result: JourneyExplorer.Result, _ violations: [JourneyExplorer.Violation], labelled: Bool = false,
        written: [String: String], replays: [String: String] = [:], transcripts: [String: String]
    ) -> [String] {
        var lines: [String] = []
        let from = labelled ? " (from \(result.start ?? "the default device"))" : ""
        for violation in violations {
            lines.append("  \(violation.id)\(from): \(PrintableText.escaped(violation.message))")
            let moves = violation.path.map(\.description).joined(separator: " → ")
            lines.append(
                "    \(counted(violation.path.count, "move")): \(moves.isEmpty ? "at the start" : PrintableText.escaped(moves))"
            )
            if let path = written["\(result.journey) \(result.start ?? "") \(violation.id)"] {
                lines.append("    written to \(path)" + (replays[path].map { "; replay it with `\($0)`" } ?? ""))
            }
            if let transcript = transcripts["\(result.journey) \(result.start ?? "") \(violation.id)"] {
                lines.append("    transcript:")
                lines += shown(transcript.split(separator: "\n").map { "      " + $0 })
            }
        }
        return lines
    }

    /// Lines of a counterexample's transcript printed at most: a runaway loop's runs to its
    /// step budget, ten thousand steps.
    static let transcriptLines = 120

    /// A transcript's `lines` as printed: all of them, or when there are more than
    /// ``transcriptLines``, its start and its end with how many lines lie between (its
    /// scenario, replayed with `journey run`, prints them all).
    static func shown(_ lines: [String]) -> [String] {
        guard lines.count > transcriptLines else { return lines }
        let (head, tail) = (transcriptLines / 2, transcriptLines / 2 - 10)
        return Array(lines.prefix(head)) + ["      … \(lines.count - head - tail) lines more …"]
            + Array(lines.suffix(tail))
    }

    /// What is said of a journey explored from several starts (the default device and where
    /// its scenarios start): the verdict over them all, a line for each start with its counts
    /// (its own: a state found from two starts is counted in both), each violation with the
    /// start it was found from, and the transitions, coverage and what was left out over them
    /// all. One start is said as ``text(_:excepted:written:coverage:transcripts:)`` says it.
    static func text(
        group: [(result: JourneyExplorer.Result, excepted: [RuleException])], written: [String: String],
        replays: [String: String] = [:], coverage: ScenarioCoverage? = nil, transcripts: [String: String] = [:]
    ) -> String {
        guard let first = group.first else { return "" }
        let excepted = first.excepted
        guard group.count > 1 else {
            return text(
                first.result, excepted: excepted, written: written, replays: replays, coverage: coverage,
                transcripts: transcripts)
        }
        // The starts as one: the transitions they took and what they left out, together.
        var all = first.result
        all.start = nil
        all.violations = []
        for (result, _) in group.dropFirst() {
            all.frontier += result.frontier
            all.truncated = all.truncated || result.truncated
            all.interrupted = all.interrupted || result.interrupted
            all.offline = all.offline || result.offline
            all.taken.formUnion(result.taken)
            all.excusedInCalls.formUnion(result.excusedInCalls)
        }
        // The jumps of every start: a start's stubs (the tokens they issue) and its device's
        // clock (what it reads as a calendar) may give it jumps of its own.
        all.clockJumps = Set(group.flatMap(\.result.clockJumps)).sorted()
        let someJumps = group.contains { $0.result.clockJumps != all.clockJumps }
        all.leftOut = JourneyExplorer.leftOut(ofStarts: group.map(\.result))
        let broken = group.map { reported($0.result, excepted) }
        let count = broken.reduce(0) { $0 + $1.count }
        let verdict = count == 0 ? "clean" : counted(count, "violation")
        let scenarios = group.count { $0.result.start != nil }
        let starts =
            scenarios == group.count
            ? counted(scenarios, "scenario") : "the default device and \(counted(scenarios, "scenario"))"
        var lines = ["\(all.journey) from \(group.count) starts (\(starts)): \(verdict)"]
        // The same for every start but for the network, said when some start had one to lose.
        let offline = group.count { $0.result.offline }
        lines.append(
            played(
                all, stops: false, network: offline < group.count ? " (from the starts with stubs)" : "",
                jumps: someJumps ? " (from some starts)" : "", seed: true)
        )
        for (index, (result, _)) in group.enumerated() {
            var line = "  from \(result.start ?? "the default device"): \(counts(result, seed: false))"
            if let memory = result.memoryFull {
                line += ", stopped at the memory bound (\(MemorySize.format(memory)))"
            } else if result.truncated {
                line += ", stopped at the state bound"
            }
            if result.interrupted { line += ", interrupted" }
            if result.frontier > 0 { line += ", \(notExpanded(result))" }
            if !broken[index].isEmpty { line += ": \(counted(broken[index].count, "violation"))" }
            lines.append(line)
        }
        for (index, (result, _)) in group.enumerated() {
            lines += violationLines(
                result, broken[index], labelled: true, written: written, replays: replays, transcripts: transcripts)
        }
        lines += closingLines(
            all, excepted: excepted, broken: Set(group.flatMap { $0.result.violations.map(\.id) }),
            coverage: coverage, starts: group.count)
        return lines.joined(separator: "\n") + "\n"
    }

    /// An entry of the output: a journey explored from a start, with the invariants it
    /// excepts, or one not explored.
    enum Entry {
        case explored(JourneyExplorer.Result, [RuleException])
        case notExplored(journey: String, why: String, declared: ExplorationStarts.Declared?)
    }

    static func json(
        _ entries: [Entry], written: [String: String], coverage: [String: ScenarioCoverage] = [:]
    ) -> String {
        JSONTree.array(
            entries.map { entry in
                let (result, excepted): (JourneyExplorer.Result, [RuleException])
                switch entry {
                case .explored(let explored, let exceptions): (result, excepted) = (explored, exceptions)
                case .notExplored(let journey, let why, let declared):
                    return JSONTree.members([
                        ("journey", .string(journey)), ("notExplored", .string(why)),
                        ("exception", declared.map { JSONTree.string($0.reason) }),
                    ])
                }
                return JSONTree.members([
                    ("journey", .string(result.journey)), ("from", result.start.map(JSONTree.string)),
                    (
                        "random",
                        result.random.map {
                            JSONTree.members([("seed", .string(String($0.seed))), ("walks", .int($0.walks))])
                        }
                    ),
                    ("states", .int(result.states)),
                    ("transitions", .int(result.transitions)), ("depth", .int(result.depth)),
                    ("frontier", .int(result.frontier)), ("truncated", .bool(result.truncated)),
                    ("interrupted", result.interrupted ? .bool(true) : nil),
                    ("memoryFull", result.memoryFull.map { .int(Int(clamping: $0)) }),
                    ("restarts", .int(result.bounds.restarts)),
                    (
                        "clockJumps",
                        .strings(result.clockJumps.map { JourneyCore.Duration.format(milliseconds: $0) })
                    ),
                    (
                        "violations",
                        .array(
                            reported(result, excepted).map { violation in
                                JSONTree.members([
                                    ("invariant", .string(violation.id)),
                                    ("summary", violation.declared?.summary.map(JSONTree.string)),
                                    ("message", .string(violation.message)),
                                    ("path", .strings(violation.path.map(\.description))),
                                    (
                                        "scenario",
                                        written["\(result.journey) \(result.start ?? "") \(violation.id)"].map(
                                            JSONTree.string)
                                    ),
                                ])
                            })
                    ),
                    (
                        "exceptions",
                        .array(
                            excepted.map { exception in
                                JSONTree.members([
                                    ("invariant", .string(exception.rule.value)), ("reason", .string(exception.reason)),
                                    (
                                        "broken",
                                        .bool(
                                            result.violations.contains { $0.id == exception.rule.value }
                                        )
                                    ),
                                    (
                                        "checked",
                                        .bool(!result.unchecked.contains { $0.rawValue == exception.rule.value })
                                    ),
                                ])
                            })
                    ),
                    (
                        "calledExceptions",
                        .array(
                            result.excusedInCalls.sorted().map { excused in
                                JSONTree.members([
                                    ("journey", .string(excused.journey)),
                                    ("invariant", .string(excused.invariant.rawValue)),
                                    ("reason", .string(excused.reason)),
                                ])
                            })
                    ),
                    ("transitionsDeclared", .int(result.declared.count)),
                    ("transitionsTaken", .int(result.declared.filter { result.taken.contains($0) }.count)),
                    ("unreached", .strings(result.unreached.map(\.description))),
                    ("coverage", coverage[result.journey].map { $0.json(result) }),
                    ("leftOut", .array(result.leftOut.map(leftOutJSON))),
                ])
            }
        ).printed
    }
}

/// A thing an exploration left out, for `--json`: its kind, the journey, step and handler it
/// is said of, the input or key it names, and the sentence the text output says. (Each entry
/// is one start: a request sent with no network is in the entries of the starts without stubs.)
private func leftOutJSON(_ note: JourneyExplorer.LeftOut) -> JSONTree {
    JSONTree.members([
        ("kind", .string(note.kind)), ("journey", .string(note.journey)), ("step", note.step.map(JSONTree.string)),
        ("handler", note.handler.map(JSONTree.string)), ("input", note.input.map(JSONTree.string)),
        ("key", note.key.map(JSONTree.string)), ("message", .string(note.description)),
    ])
}

/// What the committed scenarios cover of a journey, from their golden transcripts: the steps
/// and outcomes they take, set against those the exploration found reachable. The scenarios of
/// journeys that call it count too, as `journey docs` counts them: a called journey's
/// transitions are taken in its callers' runs.
struct ScenarioCoverage {
    /// The journey's scenarios with a golden transcript.
    var scenarios: Int
    /// Its scenarios without one (not counted).
    var withoutGolden: Int
    /// Scenarios of other journeys whose goldens take a transition of this one (they call it).
    var callerScenarios: Int
    var taken: Set<JourneyExplorer.Edge>

    /// - Parameter recorded: the goldens of every scenario among the files, read once.
    init(journey: String, _ all: [CompiledScenario], recorded: [ScenarioRecording]) {
        let own = recorded.filter { $0.journey == journey }
        scenarios = own.count
        withoutGolden = all.filter { $0.journey.id == journey }.count - own.count
        taken = DocsBuilder.edgesTaken(own, journey: journey)
        callerScenarios = 0
        for recording in recorded where recording.journey != journey {
            let edges = DocsBuilder.edgesTaken([recording], journey: journey)
            guard !edges.isEmpty else { continue }
            callerScenarios += 1
            taken.formUnion(edges)
        }
    }

    /// The transitions the exploration takes that no scenario does, in the journey's order.
    func untested(_ result: JourneyExplorer.Result) -> [JourneyExplorer.Edge] {
        result.declared.filter { result.taken.contains($0) && !taken.contains($0) }
    }

    func line(_ result: JourneyExplorer.Result) -> String {
        guard scenarios + withoutGolden + callerScenarios > 0 else {
            return
                "  coverage: no scenario of the journey is among the files explored (write one with journey new scenario, or give the folder that holds them)"
        }
        let reachable = result.declared.filter { result.taken.contains($0) }.count
        let tested = result.declared.filter { taken.contains($0) }.count
        let untested = self.untested(result)
        var parts: [String] = []
        if scenarios + withoutGolden > 0 {
            parts.append(
                "\(counted(scenarios, "scenario")) with goldens"
                    + (withoutGolden > 0 ? ", \(withoutGolden) without" : ""))
        }
        if callerScenarios > 0 { parts.append("\(counted(callerScenarios, "scenario")) of journeys that call it") }
        let counted = parts.joined(separator: "; ")
        var line =
            "  coverage: the explored paths take \(reachable) of \(result.declared.count) transitions, the scenarios \(tested) (\(counted))"
        if !untested.isEmpty {
            line +=
                "; reachable but no scenario takes them (\(untested.count)): "
                + untested.map(\.description).joined(separator: ", ")
        }
        return line
    }

    func json(_ result: JourneyExplorer.Result) -> JSONTree {
        JSONTree.members([
            ("scenarios", .int(scenarios)), ("withoutGolden", .int(withoutGolden)),
            ("callerScenarios", .int(callerScenarios)),
            ("explored", .int(result.declared.filter { result.taken.contains($0) }.count)),
            ("tested", .int(result.declared.filter { taken.contains($0) }.count)),
            ("reachableUntested", .strings(untested(result).map(\.description))),
        ])
    }
}

extension Counterexample {
    /// The transcript of `scenario` (a counterexample's text) as `journey run` prints it, with
    /// any secret the scenario gives as •••, and how the run ended; nil when the text does not
    /// check against the library.
    static func transcript(of scenario: String, in library: CompiledLibrary, _ context: ProjectContext) async -> String?
    {
        let pipeline = Pipeline(handlers: context.toolkit.handlers, yaml: SafeYAML(limits: Workspace.limits))
        var diagnostics = DiagnosticList()
        let file = SourceFile(path: "counterexample.scenario.yaml", data: Data(scenario.utf8))
        guard let compiled = pipeline.scenario(file, in: library, into: &diagnostics) else { return nil }
        var text = ""
        let writer = TranscriptWriter(format: .text) { text += $0 }
        let report = await context.toolkit.player(defaults: context.scenarioDefaults).run(
            compiled, in: library, transcript: writer)
        let verdict =
            report.passed
            ? (report.result.end == nil ? "the replay waits there" : "the replay ends there")
            : "the replay fails: " + report.problems.joined(separator: "; ")
        // Where a secret the path types shows in clear (the leak explore.no-secret-leak found),
        // the transcript printed shows ••• there: the violation says whose secret and where.
        return SecretText.redacting(compiled.givenSecrets.map(\.text), in: text + PrintableText.escaped(verdict) + "\n")
    }
}
