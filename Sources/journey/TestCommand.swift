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
              journey test                       # everything under journeys/
              journey test journeys/eduid
              journey test --update              # re-record the goldens after an intended change

            Only --update writes goldens, and only for scenarios that pass their own expectations. Exits 0 when every scenario passes, 1 when any fails, \
            2 for invalid files or options. The last line is always `N passed, N failed`.
            """
    )

    @Argument(help: "Folders or files holding journeys and scenarios.")
    var paths: [String] = ["journeys"]

    @Flag(help: "Re-record the golden transcripts from this run.")
    var update = false

    @Option(help: "Run only scenarios whose 'journey › scenario' name contains this text.")
    var filter: String?

    func run() async throws {
        let console = Console()
        let (project, readDiagnostics) = Workspace.load(paths: paths)
        var diagnostics = readDiagnostics
        diagnostics.append(contentsOf: project.diagnostics.items)
        console.print(DiagnosticListFilter.relevant(diagnostics))
        guard !diagnostics.hasErrors, let library = project.library else {
            console.out("0 passed, 0 failed\n")
            throw ExitCode(ExitStatus.invalid)
        }
        let scenarios = project.scenarios.filter { scenario in
            filter.map { "\(scenario.journey.id) › \(scenario.id)".contains($0) } ?? true
        }
        var passed = 0, failed = 0
        for scenario in scenarios {
            let name = "\(scenario.journey.id) › \(scenario.id)"
            let started = DispatchTime.now()
            let transcript = DualTranscript()
            let report = await ScenarioRunner().run(scenario, in: library, transcript: transcript)
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1_000_000
            let time = console.paint(String(format: "(%.0f ms)", elapsed), .dim)
            var problems = report.problems
            let base = Workspace.goldenBase(for: scenario.file)
            if update && problems.isEmpty {
                do {
                    try FileManager.default.createDirectory(
                        atPath: Path.parent(base), withIntermediateDirectories: true)
                    try AtomicFile.write(transcript.text, to: base + ".txt")
                    try AtomicFile.write(transcript.jsonl, to: base + ".jsonl")
                } catch {
                    problems.append("cannot record the golden transcript: \(error)")
                }
            } else if !update {
                problems += compare(transcript.text, golden: base + ".txt", console: console)
                if problems.isEmpty {
                    let golden = try? String(contentsOfFile: base + ".jsonl", encoding: .utf8)
                    if golden == nil {
                        problems.append(
                            "no golden transcript at \(Workspace.display(base)).jsonl; run `journey test --update` to record it"
                        )
                    } else if golden != transcript.jsonl {
                        problems.append(
                            "\(Workspace.display(base)).jsonl differs from this run while the text transcript matches; run `journey test --update`"
                        )
                    }
                }
            }
            if problems.isEmpty {
                passed += 1
                console.out("\(console.paint("PASS", .green)) \(name) \(time)\(update ? " (recorded)" : "")\n")
            } else {
                failed += 1
                console.out("\(console.paint("FAIL", .red)) \(name) \(time)\n")
                for problem in problems { console.out(indent(problem) + "\n") }
            }
        }
        console.out("\(passed) passed, \(failed) failed\n")
        if failed > 0 { throw ExitCode(ExitStatus.failed) }
    }

    func compare(_ text: String, golden path: String, console: Console) -> [String] {
        guard let golden = try? String(contentsOfFile: path, encoding: .utf8) else {
            return ["no golden transcript at \(Workspace.display(path)); run `journey test --update` to record it"]
        }
        let diff = TranscriptDiff(expected: golden, actual: text)
        guard !diff.isEmpty else { return [] }
        let step = diff.firstDifferingStep.map { "at step '\($0)'" } ?? "in the header"
        let line = diff.firstDifferenceLine.map { " (line \($0))" } ?? ""
        var body = ""
        for line in diff.unified(expectedName: Workspace.display(path), actualName: "this run").split(
            separator: "\n", omittingEmptySubsequences: false)
        {
            if line.hasPrefix("+") && !line.hasPrefix("+++") {
                body += console.paint(String(line), .green) + "\n"
            } else if line.hasPrefix("-") && !line.hasPrefix("---") {
                body += console.paint(String(line), .red) + "\n"
            } else {
                body += line + "\n"
            }
        }
        return ["transcript differs from the golden \(step)\(line):\n" + body.trimmingCharacters(in: .newlines)]
    }

    func indent(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }.joined(separator: "\n")
    }
}
