import ArgumentParser
import Foundation
import JourneyCore
import JourneySuite

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a journey headlessly with a scenario and print its transcript.",
        discussion: """
            The scenario's scripted driver plays the user: it gives the inputs for each step, \
            restarts the app and moves the virtual clock where the script says. The transcript \
            (what was shown, entered, decided and changed) goes to standard output, or to a file \
            with --transcript; a one-line verdict goes to standard error.

            Sub-journeys are found in the project's journey folders and the nearest enclosing \
            folder named `journeys` (otherwise the scenario's folder, or the one above a \
            `scenarios` folder); add more places with --journeys. Only the scenario's journey and \
            those it calls are loaded (the others' files are only read, for the stored keys they \
            declare secret, which is remembered by their content in $XDG_CACHE_HOME/journeykit, else \
            ~/.cache/journeykit), so a journey with errors elsewhere does not stop the run. A \
            scenario whose `needs` service does not answer is skipped, with exit 1. A \
            counterexample `journey explore` wrote passes where the journey no longer takes its \
            path (an action it presses disabled, input for a step the journey is not at), the \
            verdict saying where the journey left it.

            Examples:
              journey run --scenario journeys/eduid/scenarios/happy-path.scenario.yaml
              journey run journeys/eduid/onboarding.journey.yaml \\
                  --scenario journeys/eduid/scenarios/pin-mismatch.scenario.yaml \\
                  --transcript out/pin-mismatch.jsonl --format jsonl
              journey run eduid.onboarding \\
                  --scenario journeys/eduid/scenarios/pin-mismatch.scenario.yaml

            --transcript writes to what the path is: a file (or a new one, its missing folders \
            made) is replaced \
            atomically, so a failed run never leaves half a transcript; a symbolic link is written \
            through (the link stays, its target gets the transcript); a device such as /dev/null, a \
            FIFO or a socket is written directly (a FIFO waits for its reader); a folder is \
            refused before the run.

            The journey's own invariants (`invariants:`) are checked at every step it enters \
            and at its end, and so is explore.credential-before-success in a journey with a \
            step that verifies a credential: a run that breaks one fails there, naming it.

            A secret the scenario gives (a secret param, a PIN, what it types into a secret \
            input) that something writes where nothing is declared secret (a handler's outcome \
            not marked secret) is written ••• all the same, and the run fails, saying which.

            Exits 0 when the run reached the expected end and every assertion held, 1 when it \
            did not, 2 for invalid files or options, or an output that cannot be written.
            """
    )

    @Argument(help: "The journey to run: its id, or its file (optional: the scenario names its journey).")
    var journey: String?

    @Option(name: .shortAndLong, help: "The scenario file to play.")
    var scenario: String

    @Option(help: "Write the transcript to this file (atomically), or device, FIFO or socket, not standard output.")
    var transcript: String?

    @Option(help: "Transcript format: text (for people) or jsonl (JSON Lines, one event per line).")
    var format: TranscriptWriter.Format?

    @Option(
        help:
            "Render texts in this locale, one of the journey's, instead of the scenario's, the project's or the journey's default."
    )
    var locale: String?

    @Option(
        name: .customLong("journeys"), help: "More folders to search for sub-journeys (the project's are searched too)."
    )
    var journeyFolders: [String] = []

    // A number option takes the next word as its value even when it starts with a dash, so that
    // `-1` is refused by validate() with the range, not reported as a missing value.
    @Option(parsing: .unconditional, help: "Stop the run after this many steps (catches loops): 1 to 10 000 000.")
    var stepBudget: Int = 10_000

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Stop the run when it takes longer than this, as a duration (like 30s or 2m); it then fails.",
            valueName: "duration"))
    var timeout: String = "60s"

    func validate() throws {
        guard (1...10_000_000).contains(stepBudget) else {
            throw ValidationError("--step-budget must be from 1 to 10000000")
        }
        for folder in journeyFolders where !Files.isFolder(folder) {
            let what = Files.exists(folder) ? "is not a folder" : "does not exist"
            throw ValidationError(
                "--journeys \(PrintableText.escaped(folder)) \(what): it names a folder to search for sub-journeys")
        }
        guard let ms = JourneyCore.Duration.parse(timeout), ms >= 1 else {
            throw ValidationError("--timeout takes \(JourneyCore.Duration.rule), found '\(timeout)'")
        }
    }

    func run() async throws {
        let console = Console()
        let context = try ProjectContext.load(console: console)
        // A journey named by its id (as journey play takes it) is the scenario's or a mistake;
        // one named by its file is loaded with the scenario, wherever it is.
        let journeyID = journey.flatMap { Workspace.namesFile($0) ? nil : $0 }
        let named = [scenario] + [journey].compactMap { $0 }.filter(Workspace.namesFile)
        // A folder is refused before anything is read from it (which would warn of its files).
        let forFolder = "journey test \(Path.shellWord(scenario)) runs every scenario in it"
        if let folder = Workspace.folderGiven(scenario, option: "--scenario", forFolder: forFolder) { throw folder }
        let (project, diagnostics) = Workspace.load(
            paths: named, journeyFolders: journeyFolders + context.searchFolders, toolkit: context.toolkit,
            naming: { kind, _ in kind == .scenario ? "--scenario takes its file" : "name that file instead" })
        console.print(diagnostics.shownWhenRunning)
        guard !diagnostics.hasErrors, let library = project.library else { throw ExitCode(ExitStatus.invalid) }
        guard let compiled = project.scenarios.first(where: { $0.file == scenario }) else {
            throw Workspace.notAScenario(scenario, option: "--scenario", in: project, forFolder: forFolder)
        }
        if let journeyID, journeyID != compiled.journey.id {
            throw CLIError("the scenario plays journey '\(compiled.journey.id)', not '\(journeyID)'")
        }
        if let journey, let chosen = project.journeys.first(where: { $0.file == journey }),
            chosen.id.value != compiled.journey.id
        {
            throw CLIError(
                "the scenario plays journey '\(compiled.journey.id)', not '\(chosen.id.value)' from \(journey)")
        }
        // A scenario given where the journey goes would be dropped without a word.
        if let journey, project.scenarios.contains(where: { $0.file == journey }) {
            throw CLIError(
                "\(journey) is a scenario, not a journey: run one scenario at a time (journey run --scenario \(journey)), or several with journey test"
            )
        }

        // Refused rather than written into the transcript's header over texts in another.
        try compiled.journey.requireLocale(locale)
        let format = format ?? (transcript?.hasSuffix(".jsonl") == true ? .jsonl : .text)
        if let transcript,
            let input = Workspace.replaced(
                by: transcript,
                among: Workspace.inputs(of: project, projectFile: context.file, handlers: context.settings.handlers))
        {
            throw CLIError("--transcript \(transcript) is \(input), which the run reads: give another path")
        }
        let file = try transcript.map { try OutputFile(path: $0, content: "the transcript", makingFolders: true) }
        // A secret the scenario gives that something writes where nothing is declared secret is
        // written ••• all the same, and fails the run, as journey test fails it.
        let secrets = ClearSecrets(compiled, jsonl: format == .jsonl)
        let writer = TranscriptWriter(format: format) { text in
            let shown = secrets.redacting(text)
            if let file { file.write(shown) } else { console.out(shown) }
        }
        let configuration = JourneyMachine.Configuration(locale: locale, stepBudget: stepBudget)
        let name = "\(compiled.journey.id) › \(compiled.id)"
        // A handler that never returns cannot be interrupted from inside the run: past the
        // limit the process stops, removing the transcript it had not finished.
        let watchdog = Watchdog(
            seconds: Double(JourneyCore.Duration.parse(timeout) ?? 60_000) / 1000,
            message: "FAIL \(name): did not finish within \(timeout) (--timeout); stopped\n",
            temporaryFile: file?.temporaryPath)
        var report = await context.toolkit.player(configuration, defaults: context.scenarioDefaults).run(
            compiled, in: library, transcript: writer)
        watchdog.cancel()
        if let file {
            do { try file.commit() } catch {
                console.err("error: \(error)\n")
                throw ExitCode(ExitStatus.invalid)
            }
        }
        try console.requireOutputWritten()
        if let reason = report.skipped {
            console.err("\(console.paint("SKIP", .yellow, stderr: true)) \(name): \(reason)\n")
            throw ExitCode(ExitStatus.failed)
        }
        if let problem = secrets.problem { report.problems.append(problem) }
        if report.passed {
            let end = report.result.end.map { "\($0) (\(report.result.kind?.rawValue ?? ""))" } ?? "no end"
            let reached = report.result.waiting.map { "waits at step '\($0)'" } ?? "reached \(end)"
            console.err(
                "\(console.paint("PASS", .green, stderr: true)) \(name): "
                    + (report.note.map(PrintableText.escaped)
                        ?? "\(reached) after \(counted(report.result.steps, "step"))") + "\n"
            )
        } else {
            console.err("\(console.paint("FAIL", .red, stderr: true)) \(name)\n")
            for problem in report.problems { console.err("  \(PrintableText.escaped(problem))\n") }
            throw ExitCode(ExitStatus.failed)
        }
    }
}

/// Ends the process when a run takes longer than its limit: prints the message, removes the
/// unfinished temporary file, stops every handler program with what it started (no exit hook
/// runs after `_exit`), exits 1.
final class Watchdog: @unchecked Sendable {
    private let timer: DispatchSourceTimer

    init(seconds: Double, message: String, temporaryFile: String?) {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global())
        timer.schedule(deadline: .now() + seconds)
        timer.setEventHandler {
            if let temporaryFile { unlink(temporaryFile) }
            HandlerProcess.killAllBeforeExit()
            var bytes = Array(message.utf8)
            _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
            _exit(ExitStatus.failed)
        }
        timer.resume()
    }

    func cancel() { timer.cancel() }
}

extension RunCommand: DescribesStandardOutput {
    static let standardOutput = "the transcript"
}

extension TranscriptWriter.Format: ExpressibleByArgument {}
