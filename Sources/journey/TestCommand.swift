import ArgumentParser
import Foundation
import JourneyCore
import JourneyHandlers

struct TestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run every scenario and compare its transcript with the committed golden transcript.",
        discussion: """
            Finds every scenario under the paths, runs it, and compares its transcript with the \
            golden files beside its folder: scenarios/NAME.scenario.yaml is compared with \
            transcripts/NAME.txt (the text rendering, for review) and transcripts/NAME.jsonl. A \
            difference prints a unified diff naming the first step that changed.

            Examples:
              journey test                                 # everything under journeys/
              journey test journeys/diia --tag D5
              journey test --update                        # re-record goldens after an intended change
              journey test --junit out/junit.xml --json out/results.json
              journey test --shard 2/3                     # one machine of a 3-way CI matrix
              journey test --repeat 5                      # fail if any run's transcript differs

            Only --update writes goldens, and only for scenarios that pass their own expectations. \
            A scenario's two goldens change together: if --update is killed between them, a \
            plain `journey test` fails that scenario as half-updated and the next --update \
            finishes the change (and deletes what the killed run left). Goldens are written only \
            inside the project: a transcripts folder that is a link out of the folder holding \
            scenarios/ fails the scenario and nothing is written. Results print in the same order whatever --jobs is. Exits 0 when every scenario \
            passes (or is skipped because a service it `needs` does not answer), 1 when any \
            fails, 2 for invalid files or options; the last line is always `N passed, N failed`, \
            with `, N skipped` when some were. When the files are invalid, --junit and --json \
            still write their reports, listing each error (as a JUnit `error`), so CI never \
            shows an earlier run's report.
            """
    )

    @Argument(help: "Folders or files holding journeys and scenarios.")
    var paths: [String] = ["journeys"]

    @Flag(help: "Re-record the golden transcripts from this run.")
    var update = false

    @Option(help: "Run only scenarios whose 'journey › scenario' name contains this text.")
    var filter: String?

    @Option(name: .customLong("tag"), help: "Run only scenarios with this tag (repeat for any of several).")
    var tags: [String] = []

    @Option(help: "Run one part of the suite, as I/N (1-based), for a CI matrix of N machines.")
    var shard: String?

    @Option(help: "Scenarios to run at the same time (default: the number of cores).")
    var jobs: Int?

    @Option(name: .customLong("repeat"), help: "Run each scenario this many times; differing transcripts fail it.")
    var repeats: Int = 1

    @Option(help: "Write a JUnit XML report to this file.")
    var junit: String?

    @Option(help: "Write a JSON report to this file.")
    var json: String?

    func validate() throws {
        guard (jobs ?? 1) >= 1 else { throw ValidationError("--jobs must be at least 1") }
        guard repeats >= 1 else { throw ValidationError("--repeat must be at least 1") }
        if let shard { _ = try Self.parseShard(shard) }
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
        let (project, diagnostics) = Workspace.load(paths: paths)
        console.print(diagnostics.errors)
        guard !diagnostics.hasErrors, let library = project.library else {
            // Reports say the input is invalid, so CI never reads an old report as this run's.
            let items = diagnostics.errors.items
            _ = writeReports(
                junit: JUnitReport.render(invalid: items), json: JSONReport.render(invalid: items), console: console)
            console.out("0 passed, 0 failed\n")
            throw ExitCode(ExitStatus.invalid)
        }
        let options = SuiteOptions(
            filter: filter, tags: tags, shard: try shard.map(Self.parseShard),
            jobs: jobs ?? ProcessInfo.processInfo.activeProcessorCount, repeats: repeats,
            update: update)
        let runner = SuiteRunner(options: options)
        let selected = runner.select(project.scenarios)
        let progress = console.isInteractive && selected.count > 1
        let outcomes = await runner.run(selected, in: library, goldens: FileGoldenStore()) { index, outcome in
            if progress { console.err("\r\u{1B}[2K") }
            console.out(render(outcome, console: console))
            if progress && index + 1 < selected.count {
                console.err("[\(index + 1)/\(selected.count)] running…")
            }
        }
        let reportsWritten = writeReports(
            junit: JUnitReport.render(outcomes), json: JSONReport.render(outcomes), console: console)
        let summary = SuiteSummary(outcomes)
        console.out(summary.line + "\n")
        if !reportsWritten { throw ExitCode(ExitStatus.invalid) }
        if summary.failed > 0 { throw ExitCode(ExitStatus.failed) }
    }

    func render(_ outcome: ScenarioOutcome, console: Console) -> String {
        let time = console.paint(String(format: "(%.0f ms)", outcome.milliseconds), .dim)
        switch outcome.status {
        case .passed: return "\(console.paint("PASS", .green)) \(outcome.name) \(time)\n"
        case .recorded: return "\(console.paint("PASS", .green)) \(outcome.name) \(time) (recorded)\n"
        case .skipped:
            return "\(console.paint("SKIP", .yellow)) \(outcome.name): \(outcome.problems.first?.message ?? "")\n"
        case .failed:
            var text = "\(console.paint("FAIL", .red)) \(outcome.name) \(time)\n"
            for problem in outcome.problems {
                text += "    \(problem.message)\n"
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
            return text
        }
    }
}

extension TestCommand: DescribesStandardOutput {
    static let standardOutput = "the results"
}
