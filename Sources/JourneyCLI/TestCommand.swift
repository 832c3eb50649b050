import ArgumentParser
import Foundation
import JourneyCore
import JourneySuite

struct TestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run every scenario and compare its transcript with the committed golden transcript.",
        discussion: """
            Finds every scenario under the paths, runs it, and compares its transcript with the \
            golden files beside its folder: scenarios/NAME.scenario.yaml has \
            transcripts/NAME.jsonl, the transcript itself, compared event by event, and \
            transcripts/NAME.txt, its text rendering for review. A difference names the first \
            step that changed and prints a unified diff of the text (of the JSON lines where the \
            text does not show it). The .txt must be exactly the rendering of the .jsonl: one \
            edited by hand fails, naming its first differing line. A .jsonl that does not read \
            as a transcript fails with its path:line:column. A run that breaks one of its \
            journey's invariants (`invariants:`, explore.credential-before-success) fails \
            there, naming it.

            Examples:
              journey test                       # everything under journeys/
              journey test journeys/diia --tag D5
              journey test --update              # re-record goldens after a wanted change
              journey test --junit out/junit.xml --json out/results.json
              journey test --shard 2/3           # one machine of a 3-way CI matrix
              journey test --repeat 5            # fail if any run's transcript differs
              journey test --explore             # and explore every journey's paths
              journey test --explore --strict    # ...and fail one the bounds cut short
              journey test --watch journeys/app  # re-run what each saved change touches

            Each scenario runs in a worker process with a wall-clock limit (--timeout): a \
            scenario that crashes its process or runs too long fails, and the others still run. \
            A file with errors is reported as `path:line:column: error: …`; the scenarios it \
            stops print as ERROR lines and every other scenario still runs.

            Only --update writes goldens, and only for scenarios that pass their own expectations; \
            it writes both from the same run, and only where they change: a scenario whose goldens \
            are already what it plays says (unchanged), its files untouched, and the line before \
            the summary counts the golden pairs recorded. A scenario's two goldens change together: if --update is killed between them, a \
            plain `journey test` fails that scenario as half-updated and the next --update \
            finishes the change (and deletes what the killed run left). Goldens are written only \
            inside the project: a transcripts folder that is a link out of the folder holding \
            scenarios/ fails the scenario and nothing is written. A golden that shows a secret \
            the scenario gives in clear (JourneyKit writes ••• for it) fails the scenario with \
            no diff, naming the line, never the secret. Results print in the same \
            order whatever --jobs is.

            --junit and --json are written before the first scenario runs, marked as running \
            (a report that cannot be written then stops the run before it starts, exit 2, \
            and neither report is put in place: an earlier one is kept), \
            and again at the end; SIGINT or SIGTERM stops the run and writes what finished, \
            marked interrupted. Errors in the files are listed in them too.

            With --explore, each journey is then explored with the default bounds of `journey \
            explore` (the project file's defaults.explore, where it sets them): from the default \
            device when it needs no params, and from where each of its scenarios starts \
            (scenarios that start alike are explored once). A journey passes as \
            `journey › explore` when no path breaks an invariant it does not declare under \
            `exceptions:`; a broken one fails it with the shortest path. A start that explores \
            20 000 states or more, the bounds cutting a start short (a pass within the bounds \
            only), a program declared deterministic that answered a step two ways, and what the \
            exploration left out (each kind with its steps; `journey explore` says why) are named \
            in a note under the result; with --strict, a journey the bounds cut short fails. \
            A journey no start can run (a param with no default, and no scenario that plays \
            against stubs) is skipped, saying why; with --strict it fails, unless it declares \
            explore.explorable under `exceptions:` with the reason. With --filter, --tag or \
            --shard, only the journeys of the scenarios chosen are explored.

            With --watch, the suite runs once, then the folders it is read from are watched \
            (with the platform's file events: inotify, FSEvents) until Ctrl-C. Each change (saves \
            within 100 ms make one) runs again only the scenarios it touches: a changed scenario; \
            the scenario of a changed golden; every scenario whose journey is a changed journey \
            or calls it, directly or through others. Their PASS and FAIL lines, the diff of each \
            failure and the `N passed, N failed` line print as in a run of their own. A file that \
            no longer reads is reported as `path:line:column: error: …` and the watch goes on. \
            Other files (a README) run nothing. journeykit.yaml is read once, when the watch \
            starts. --watch cannot be used with --update, --junit, --json, --shard or \
            --explore. Ctrl-C ends the watch with exit 130 (SIGTERM: 143), as it ends any run.

            Exits 0 when every scenario passes (or is skipped because a service it `needs` does \
            not answer), 1 when any fails, 2 for errors in the files, invalid options or nothing to \
            run (no scenario found where it looked, and no journey to explore with --explore), 130 or \
            143 when stopped by SIGINT or SIGTERM. Once scenarios run, the last line is always \
            `N passed, N failed`, with `, N skipped`, `, N errors` and `, interrupted by SIGINT` \
            when so.
            """
    )

    @Argument(
        help: "Folders or files holding journeys and scenarios (default: the project's journey folders, else journeys)."
    )
    var paths: [String] = []

    @Flag(help: "Re-record the golden transcripts from this run.")
    var update = false

    @Option(help: "Run only scenarios whose 'journey › scenario' name contains this text.")
    var filter: String?

    @Option(name: .customLong("tag"), help: "Run only scenarios with this tag (repeat for any of several).")
    var tags: [String] = []

    @Option(help: "Run one part of the suite, as I/N (1-based), for a CI matrix of N machines.")
    var shard: String?

    // A number option takes the next word as its value even when it starts with a dash, so that
    // `-1` is refused by validate() with the range, not reported as a missing value.
    @Option(
        parsing: .unconditional,
        help:
            "Scenarios to run at the same time, and threads each exploration plays on with --explore (default: the project's jobs, else the number of cores)."
    )
    var jobs: Int?

    @Option(
        name: .customLong("repeat"), parsing: .unconditional,
        help: "Run each scenario this many times; differing transcripts fail it.")
    var repeats: Int = 1

    @Option(help: "Write a JUnit XML report to this file.")
    var junit: String?

    @Option(help: "Write a JSON report to this file (described by schemas/test-report.schema.json).")
    var json: String?

    // The next word is the value even when it starts with a dash: `-5m` is refused with the rule.
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "How long each scenario may run, as a duration (like 30s or 2m); one that runs longer is stopped and fails.",
            valueName: "duration"))
    var timeout: String = "60s"

    @Flag(help: "Also explore every path of each journey and check its invariants (see journey explore).")
    var explore = false

    @Flag(
        help:
            "With --explore: a journey whose exploration the bounds cut short fails, instead of passing with a note, as does one not explored that does not declare explore.explorable."
    )
    var strict = false

    @Flag(help: "After the run, watch the files and run again the scenarios each change touches, until Ctrl-C.")
    var watch = false

    /// Runs the scenarios listed on standard input and reports on standard output: the
    /// process `journey test` starts to run scenarios in, so that none can take it down.
    @Flag(help: .hidden)
    var worker = false

    func validate() throws {
        guard NumberRange.jobs.contains(jobs ?? 1) else { throw ValidationError("--jobs must be from 1 to 1024") }
        guard (1...1000).contains(repeats) else { throw ValidationError("--repeat must be from 1 to 1000") }
        if let shard { _ = try Self.parseShard(shard) }
        _ = try timeoutSeconds()
        if watch, let conflict = watchConflict { throw ValidationError(conflict) }
        if strict, !explore {
            throw ValidationError(
                "--strict goes with --explore: it fails a journey whose exploration the bounds cut short, or that is not explored without declaring why"
            )
        }
    }

    func timeoutSeconds() throws -> Double {
        guard let ms = JourneyCore.Duration.parse(timeout), ms >= 1 else {
            throw ValidationError("--timeout takes \(JourneyCore.Duration.rule), found '\(timeout)'")
        }
        return Double(ms) / 1000
    }

    static func parseShard(_ text: String) throws -> (index: Int, count: Int) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count >= 1,
            (1...count).contains(index)
        else { throw ValidationError("--shard takes I/N with 1 ≤ I ≤ N, like 2/3; found '\(text)'") }
        return (index, count)
    }

    func run() async throws {
        let console = Console()
        let context = try ProjectContext.load(console: console)
        let paths = try context.paths(self.paths, usage: "journey test path/to/journeys")
        let (project, diagnostics) = Workspace.load(
            paths: paths, journeyFolders: context.searchFolders, toolkit: context.toolkit,
            naming: {
                $0 == .journey
                    ? "journey test --filter \($1) runs the scenarios that play it" : "name that file instead"
            })
        if worker { return await runAsWorker(project, defaults: context.scenarioDefaults, toolkit: context.toolkit) }
        if watch {
            return try runWatching(
                paths: paths, context: context, loaded: (project, diagnostics), console: console)
        }
        console.print(diagnostics.shownWhenRunning)
        console.print(Workspace.orphanGoldens(of: project))
        try requireReportsApart(
            from: Workspace.inputs(of: project, projectFile: context.file, handlers: context.settings.handlers))
        let options = SuiteOptions(
            filter: filter, tags: tags, shard: try shard.map(Self.parseShard),
            jobs: jobs ?? context.settings.jobs ?? ProcessInfo.processInfo.activeProcessorCount, repeats: repeats,
            update: update)
        let runner = SuiteRunner(options: options, player: context.toolkit.player(defaults: context.scenarioDefaults))
        let selected = runner.select(project.scenarios)
        let unrunnable = runner.select(project.unrunnable).map(ScenarioOutcome.init(unrunnable:))
        try refuseEmptyChoice(project, options: options, selected: selected, unrunnable: unrunnable, context: context)
        if selected.isEmpty, unrunnable.isEmpty, options.shard == nil, diagnostics.errorCount == 0 {
            try refuseNothingToRun(project, paths: paths, console: console)
        }
        // A shard may be empty (more machines than scenarios), but not without a word.
        if let (index, count) = options.shard, selected.isEmpty, unrunnable.isEmpty {
            var unsharded = options
            unsharded.shard = nil
            let chooser = SuiteRunner(options: unsharded, player: runner.player)
            let among = chooser.select(project.scenarios).count + chooser.select(project.unrunnable).count
            console.err("note: shard \(index)/\(count) holds none of the \(counted(among, "scenario")) chosen\n")
        }
        let errors = diagnostics.errors.items
        let total = selected.count + unrunnable.count
        // Before anything runs, the reports say so: a run killed now leaves no old report that
        // looks like its result. A report that cannot be written stops the run here.
        guard
            let held = writeRunningReports(
                SuiteReport(outcomes: [], errors: errors, state: .running, selected: total), console: console)
        else {
            console.err("note: no scenario was run: give --junit and --json paths where a file can be written\n")
            throw ExitCode(ExitStatus.invalid)
        }
        // A report on standard output comes alone there: what the run says goes to standard error.
        if held.values.contains(where: \.isStandardOutput) { StandardStreams.shared.sendOutputToError() }
        var unwritable: Set<String> = []
        for outcome in unrunnable { console.out(render(outcome, console: console)) }

        let played = try play(selected, paths: paths, jobs: options.jobs, console: console)
        var results = played.results
        var interruption = played.interruption
        if explore, interruption == nil, let library = project.library {
            let explored = try await exploreJourneys(
                project, library: library, selected: selected, paths: paths, context: context, console: console)
            results += explored.outcomes
            interruption = explored.interruption
        }
        let outcomes = (results + unrunnable).sorted {
            ($0.journey, $0.scenario, $0.file) < ($1.journey, $1.scenario, $1.file)
        }
        let report = SuiteReport(
            outcomes: outcomes, errors: errors, state: interruption == nil ? .finished : .interrupted,
            selected: total, interruption: interruption)
        let reportsWritten = writeReports(report, console: console, failed: &unwritable, held: held)
        let summary = SuiteSummary(outcomes)
        // What an update wrote, for the review of its diff; the summary stays the last line.
        if update { console.out(summary.updateLine + "\n") }
        console.out(summary.line + (interruption.map { ", interrupted by \($0)" } ?? "") + "\n")
        if let interruption { throw ExitCode(Interruption.exitStatus(interruption)) }
        // A golden --update could not write is an output not written, like a report.
        let goldensWritten = !outcomes.contains { outcome in
            outcome.problems.contains { $0.kind == .golden && $0.message.hasPrefix(SuiteRunner.cannotRecord) }
        }
        if !reportsWritten || !goldensWritten || !errors.isEmpty || summary.errors > 0 {
            throw ExitCode(ExitStatus.invalid)
        }
        if summary.failed > 0 { throw ExitCode(ExitStatus.failed) }
    }

    /// A run with nothing to run is a mistake (a wrong path, scenarios left out of a commit), not
    /// a suite that passed: CI would go green on it. With `--explore`, the journeys found are
    /// something to run. A journey's file runs nothing by itself: its scenarios are elsewhere,
    /// and the error says how to run them.
    func refuseNothingToRun(_ project: Project, paths: [String], console: Console) throws {
        if explore, !project.journeys.isEmpty { return }
        // Each journey's file named says how its scenarios run; the last stops the command.
        let named = project.journeys.filter { paths.contains($0.file) }.map { journey in
            "\(journey.file) is journey \(journey.id.value), and journey test runs scenarios: journey test --filter \(journey.id.value) runs those that play it (or name their files or folder)"
        }
        for said in named.dropLast() { console.err("error: \(said)\n") }
        if let last = named.last { throw CLIError(last) }
        let shown = paths.count <= 3 ? paths.joined(separator: ", ") : "the \(paths.count) paths given"
        throw CLIError(
            "no scenario to run in \(shown): journey test runs the scenarios it finds there (files with a `scenario:` line); `journey new scenario --journey ID NAME` writes one"
                + (project.journeys.isEmpty
                    ? ""
                    : "; --explore explores the \(project.journeys.count == 1 ? "journey" : "\(project.journeys.count) journeys") found there")
        )
    }

    /// A filter that chooses nothing is a mistake (a misspelt name or tag), not a suite that
    /// passed; a shard may be empty.
    func refuseEmptyChoice(
        _ project: Project, options: SuiteOptions, selected: [CompiledScenario], unrunnable: [ScenarioOutcome],
        context: ProjectContext
    ) throws {
        let among = project.scenarios.count + project.unrunnable.count
        var unsharded = options
        unsharded.shard = nil
        let chooser = SuiteRunner(
            options: unsharded, player: context.toolkit.player(defaults: context.scenarioDefaults))
        guard filter != nil || !tags.isEmpty, selected.isEmpty, unrunnable.isEmpty, among > 0,
            chooser.select(project.scenarios).isEmpty, chooser.select(project.unrunnable).isEmpty
        else { return }
        let chosen = [filter.map { "--filter '\($0)'" }] + tags.map { "--tag '\($0)'" }
        // A tag no scenario has, or a filter no name holds, is most often misspelt.
        let found =
            project.scenarios.map { (tags: $0.tags, name: "\($0.journey.id) › \($0.id)", ids: [$0.journey.id, $0.id]) }
            + project.unrunnable.map {
                (tags: $0.tags, name: "\($0.journey) › \($0.scenario)", ids: [$0.journey, $0.scenario])
            }
        let allTags = Set(found.flatMap(\.tags)).sorted()
        var meant = tags.filter { !allTags.contains($0) }.compactMap { tag in
            Suggestion.closest(to: tag, in: allTags).map { "--tag '\($0)'" }
        }
        if let filter, !found.contains(where: { $0.name.contains(filter) }),
            let closest = Suggestion.closest(to: filter, in: Set(found.flatMap(\.ids)).sorted())
        {
            meant.insert("--filter '\(closest)'", at: 0)
        }
        throw CLIError(
            "\(chosen.compactMap { $0 }.joined(separator: " and ")) \(chosen.compactMap { $0 }.count == 1 ? "chooses" : "choose") none of the \(counted(among, "scenario")) found"
                + (meant.isEmpty ? "" : "; did you mean \(meant.joined(separator: " and "))?")
        )
    }

    /// `--explore`: explores each journey of the paths (of the scenarios chosen, when a filter,
    /// tag or shard chooses), from its default start and the chosen scenarios' starts, and
    /// prints each journey's result as it is found.
    func exploreJourneys(
        _ project: Project, library: CompiledLibrary, selected: [CompiledScenario], paths: [String],
        context: ProjectContext, console: Console
    ) async throws -> (outcomes: [ScenarioOutcome], interruption: String?) {
        let filtered = filter != nil || !tags.isEmpty || shard != nil
        let chosen = Set(selected.map(\.journey.id))
        let journeys = project.journeys.filter { journey in
            paths.contains { Workspace.path($0, covers: journey.file) }
                && (!filtered || chosen.contains(journey.id.value))
        }.compactMap { library[$0.id.value] }
        let starts: ExplorationStarts
        do {
            starts = try ExplorationStarts(
                journeys: journeys, scenarios: selected, library: library,
                player: context.toolkit.player(defaults: context.scenarioDefaults),
                bounds: context.settings.explore.bounds(),
                jobs: jobs ?? context.settings.jobs ?? ProcessInfo.processInfo.activeProcessorCount)
        } catch { throw CLIError(error.message) }
        let files = Dictionary(project.journeys.map { ($0.id.value, $0.file) }, uniquingKeysWith: { a, _ in a })
        let explored = await Self.explore(
            starts, files: files, console: console, progress: console.isInteractive, strict: strict,
            lister: (["journey", "explore"] + self.paths.map(Path.shellWord)).joined(separator: " "),
            memory: MemoryBound.chosen(nil, context.settings.explore))
        for outcome in explored.outcomes { console.out(render(outcome, console: console)) }
        return explored
    }

    /// Refuses, before anything runs, a report that would replace a file the suite reads (a
    /// journey, a scenario, a golden, the project file, a file a handler program is started
    /// with) or the other report.
    func requireReportsApart(from inputs: [String: String]) throws {
        for (option, path) in [("--junit", junit), ("--json", json)] {
            guard let path, let input = Workspace.replaced(by: path, among: inputs) else { continue }
            throw CLIError("\(option) \(path) is \(input), which the suite reads: give another path")
        }
        if let junit, let json, Workspace.resolved(junit) == Workspace.resolved(json) {
            throw CLIError("--junit and --json name the same file, \(json): give each its own")
        }
    }

    /// Plays `selected` in worker processes (see ``SuiteSupervisor``), printing each outcome
    /// in order as soon as it is known. Returns the outcomes of the scenarios that finished,
    /// and the signal that stopped the run, if one did.
    func play(
        _ selected: [CompiledScenario], paths: [String], jobs: Int, console: Console
    ) throws -> (results: [ScenarioOutcome], interruption: String?) {
        guard !selected.isEmpty else { return ([], nil) }
        guard let executable = SuiteSupervisor.currentExecutable() else {
            throw CLIError("cannot find the journey executable to run the scenarios in")
        }
        let progress = console.isInteractive && selected.count > 1
        let arguments = ["test", "--worker", "--repeat", String(repeats)] + (update ? ["--update"] : [])
        let supervisor = SuiteSupervisor(
            executable: executable, arguments: arguments, paths: paths, jobs: jobs, timeout: try timeoutSeconds())
        let list = selected.enumerated().map {
            SuiteSupervisor.Job(
                index: $0.offset, file: $0.element.file, scenario: $0.element.id,
                name: "\($0.element.journey.id) › \($0.element.id)")
        }
        let finished = supervisor.run(list) { index, outcome in
            if progress { console.err("\r\u{1B}[2K") }
            console.out(render(outcome, console: console, updating: update))
            if progress && index + 1 < selected.count {
                console.err("[\(index + 1)/\(selected.count)] running…")
            }
        }
        if progress { console.err("\r\u{1B}[2K") }
        return (finished.keys.sorted().map { finished[$0]! }, supervisor.interruption)
    }

    /// The worker's side of ``SuiteSupervisor``: reads `INDEX<TAB>FILE<TAB>SCENARIO` lines,
    /// runs those scenarios and writes a ``WorkerMessage`` line when each starts and ends.
    func runAsWorker(_ project: Project, defaults: ScenarioRunner.Defaults, toolkit: Toolkit) async {
        var chosen: [(index: Int, scenario: CompiledScenario)] = []
        let output = WorkerOutput()
        HandlerProcess.live.observe { group, started in
            output.send(started ? WorkerMessage(group: group) : WorkerMessage(groupEnded: group))
        }
        for line in WorkerLifetime.readJobs() {
            let parts = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3, let index = Int(parts[0]) else { continue }
            guard let scenario = project.scenarios.first(where: { $0.file == parts[1] && $0.id == parts[2] }) else {
                // The files changed between the suite's reading and this process's.
                let outcome = ScenarioOutcome(
                    journey: "", scenario: parts[2], file: parts[1], tags: [], status: .error, milliseconds: 0,
                    steps: 0,
                    problems: [.init(kind: .invalid, message: "cannot run: \(parts[1]) changed while the suite ran")])
                output.send(WorkerMessage(done: index, outcome: outcome))
                continue
            }
            chosen.append((index, scenario))
        }
        let runner = SuiteRunner(
            options: SuiteOptions(jobs: jobs ?? 1, repeats: repeats, update: update),
            player: toolkit.player(defaults: defaults))
        let indices = chosen.map(\.index)
        _ = await runner.run(
            chosen.map(\.scenario), in: project.compiled, goldens: FileGoldenStore(), ordered: false,
            started: { output.send(WorkerMessage(start: indices[$0])) },
            report: { output.send(WorkerMessage(done: indices[$0], outcome: $1)) })
    }

    /// - Parameter updating: the scenario ran under `--update`: one that passed kept its goldens,
    ///   as they were.
    func render(_ outcome: ScenarioOutcome, console: Console, updating: Bool = false) -> String {
        let time = console.paint(String(format: "(%.0f ms)", outcome.milliseconds), .dim)
        switch outcome.status {
        case .passed:
            return "\(console.paint("PASS", .green)) \(outcome.name) \(time)\(updating ? " (unchanged)" : "")\n"
                + noted(outcome, console)
        case .recorded: return "\(console.paint("PASS", .green)) \(outcome.name) \(time) (recorded)\n"
        case .skipped:
            return "\(console.paint("SKIP", .yellow)) \(outcome.name): \(outcome.problems.first?.message ?? "")\n"
        case .error:
            return "\(console.paint("ERROR", .red)) \(outcome.name): \(outcome.problems.first?.message ?? "")\n"
        case .failed:
            var text = "\(console.paint("FAIL", .red)) \(outcome.name) \(time)\n"
            for problem in outcome.problems {
                text += "    \(PrintableText.escaped(problem.message))\n"
                guard let diff = problem.diff else { continue }
                for line in diff.split(separator: "\n") {
                    let painted: String
                    if line.hasPrefix("+") && !line.hasPrefix("+++") {
                        painted = console.paint(String(line), .green)
                    } else if line.hasPrefix("-") && !line.hasPrefix("---") {
                        painted = console.paint(String(line), .red)
                    } else {
                        painted = String(line)
                    }
                    text += "    " + painted + "\n"
                }
            }
            return text + noted(outcome, console)
        }
    }

    /// The outcome's note as a line under it, if it has one.
    func noted(_ outcome: ScenarioOutcome, _ console: Console) -> String {
        outcome.note.map { "    " + console.paint("note: " + PrintableText.escaped($0), .dim) + "\n" } ?? ""
    }
}

extension TestCommand: DescribesStandardOutput {
    static let standardOutput = "the results"
}
