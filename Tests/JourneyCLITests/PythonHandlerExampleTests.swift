import Foundation
import Testing

/// examples/python-handler: a handler written in Python's standard library, declared in the
/// example's project file, with a journey, scenarios and goldens. Checked and tested the way a
/// user would, from the example's folder (a copy, so that nothing is written into the
/// repository).
@Suite("examples/python-handler checks and passes its goldens", .timeLimit(.minutes(30)))
struct PythonHandlerExampleTests {
    static let example = Paths.root.appendingPathComponent("examples/python-handler")

    @Test("journey explore judges a program's steps only when journeykit.yaml declares it deterministic")
    func exploreNeedsDeterminism() async throws {
        try await withTemporaryDirectory { directory in
            let copy = directory.appendingPathComponent("python-handler")
            try FileManager.default.copyItem(at: Self.example, to: copy)
            let undeclared = try await runJourney(["explore", "journeys"], cwd: copy, timeout: 60)
            #expect(undeclared.status == Exit.ok, "\(undeclared)")
            #expect(
                undeclared.stdout.contains(
                    "acme.directoryLogin is not declared deterministic (for a program, 'deterministic: true' in journeykit.yaml), so where its step leads is not judged"
                ), "\(undeclared)")

            let project = copy.appendingPathComponent("journeykit.yaml")
            let text = try String(contentsOf: project, encoding: .utf8)
            try writeText(
                text.replacingOccurrences(of: "    timeout: 5s\n", with: "    timeout: 5s\n    deterministic: true\n"),
                to: project)
            let declared = try await runJourney(["explore", "journeys"], cwd: copy, timeout: 60)
            #expect(!declared.stdout.contains("not declared deterministic"), "\(declared)")
            #expect(declared.stdout.contains("acme.directoryLogin cannot say what to give for"), "\(declared)")
            #expect(!declared.stdout.contains("ended otherwise"), "\(declared)")

            // Declared deterministic, the program is held to it: each of its steps runs twice, and
            // one that answers otherwise the second time is said, and what follows not judged.
            let handler = copy.appendingPathComponent("handlers/directory_login.py")
            let source = try String(contentsOf: handler, encoding: .utf8)
            try writeText(
                source.replacingOccurrences(
                    of: "def run(step):\n",
                    with:
                        "CALLS = [0]\n\n\ndef run(step):\n    CALLS[0] += 1\n    if CALLS[0] % 2 == 0:\n        return \"wrong\", {}\n"
                ), to: handler)
            let unsteady = try await runJourney(["explore", "journeys"], cwd: copy, timeout: 60)
            #expect(unsteady.status == Exit.ok, "\(unsteady)")
            #expect(
                unsteady.stdout.contains(
                    "acme.directoryLogin is declared deterministic (journeykit.yaml), but the same step run twice from the same state ended otherwise (asked for username, password, action, then outcome wrong), so where its step leads is not judged"
                ), "\(unsteady)")
            // journey test --explore says it under the journey's result.
            let suite = try await runJourney(["test", "--explore"], cwd: copy, timeout: 60)
            let explored = try #require(
                suite.stdout.components(separatedBy: "PASS acme.directory-sign-in › explore").last, "\(suite)")
            #expect(
                explored.contains(
                    "\n    note: acme.directory-sign-in.login: acme.directoryLogin is declared deterministic (journeykit.yaml), but the same step run twice from the same state ended otherwise"
                ), "\(suite)")
            try writeText(source, to: handler)

            try writeText(
                text.replacingOccurrences(of: "    timeout: 5s\n", with: "    timeout: 5s\n    deterministic: maybe\n"),
                to: project)
            let wrong = try await runJourney(["check"], cwd: copy)
            #expect(wrong.status == Exit.invalid && wrong.stderr.contains("journeykit.yaml:"), "\(wrong)")
        }
    }

    @Test("journey check --strict and journey test pass, with the handler started by the test workers")
    func checksAndPasses() async throws {
        try await withTemporaryDirectory { directory in
            let copy = directory.appendingPathComponent("python-handler")
            try FileManager.default.copyItem(at: Self.example, to: copy)

            let check = try await runJourney(["check", "--strict"], cwd: copy)
            #expect(check.status == Exit.ok, "\(check)")
            #expect(check.stderr.contains("checked 1 journey and 4 scenarios: 0 errors, 0 warnings"), "\(check)")

            let test = try await runJourney(["test", "--jobs", "2"], cwd: copy, timeout: 60)
            #expect(test.status == Exit.ok, "\(test)")
            #expect(test.stdoutLines.last == "4 passed, 0 failed", "\(test)")
            // The password the scenarios type never shows, and nothing of the program is left.
            #expect(!test.output.contains("correct horse battery staple"), "\(test)")
            #expect(processes(runningIn: copy.path).isEmpty, "\(processes(runningIn: copy.path))")
        }
    }

    @Test("a changed handler is a readable golden diff: the session token stays secret")
    func changedBehaviourFails() async throws {
        try await withTemporaryDirectory { directory in
            let copy = directory.appendingPathComponent("python-handler")
            try FileManager.default.copyItem(at: Self.example, to: copy)
            let handler = copy.appendingPathComponent("handlers/directory_login.py")
            let source = try String(contentsOf: handler, encoding: .utf8)
            // The directory starts returning the display name in capitals.
            try writeText(
                source.replacingOccurrences(
                    of: #"{"displayName": record["displayName"],"#,
                    with: #"{"displayName": record["displayName"].upper(),"#), to: handler)
            let test = try await runJourney(
                ["test", "journeys/directory/scenarios/wrong-then-right.scenario.yaml"], cwd: copy)
            #expect(test.status == Exit.failed, "\(test)")
            #expect(test.stdout.contains("ALICE LIDDELL"), "\(test)")
            #expect(!test.stdout.contains("session: \""), "\(test)")
        }
    }

    @Test(
        "a report or a transcript is not written over the program a handler is started with: refused, the program kept")
    func outputOverTheHandlerProgram() async throws {
        try await withTemporaryDirectory { directory in
            let copy = directory.appendingPathComponent("python-handler")
            try FileManager.default.copyItem(at: Self.example, to: copy)
            let program = "handlers/directory_login.py"
            let before = try Data(contentsOf: copy.appendingPathComponent(program))
            let scenario = "journeys/directory/scenarios/wrong-then-right.scenario.yaml"
            for (arguments, message) in [
                (
                    ["test", "--json", program],
                    "--json \(program) is a file handler acme.directoryLogin is started with, which the suite reads: give another path"
                ),
                (
                    ["test", "--junit", "./" + program],
                    "--junit ./\(program) is a file handler acme.directoryLogin is started with, which the suite reads: give another path"
                ),
                (
                    ["run", "--scenario", scenario, "--transcript", program],
                    "--transcript \(program) is a file handler acme.directoryLogin is started with, which the run reads: give another path"
                ),
            ] {
                let result = try await runJourney(arguments, cwd: copy, timeout: 60)
                #expect(result.status == Exit.invalid, "\(arguments): \(result)")
                #expect(result.stderr.contains("error: \(message)"), "\(arguments): \(result)")
                #expect(try Data(contentsOf: copy.appendingPathComponent(program)) == before, "\(arguments)")
            }
            // From a folder below the project's, the program is found all the same.
            let below = try await runJourney(
                ["test", "--json", "../../handlers/directory_login.py"],
                cwd: copy.appendingPathComponent("journeys/directory"),
                timeout: 60)
            #expect(below.status == Exit.invalid, "\(below)")
            #expect(try Data(contentsOf: copy.appendingPathComponent(program)) == before)
        }
    }
}

/// The running processes (Linux's /proc) whose working folder is `folder` or below it, or
/// whose command line mentions it, as `PID: command line`; none where there is no /proc.
func processes(runningIn folder: String) -> [String] {
    guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
    let own = String(ProcessInfo.processInfo.processIdentifier)
    let resolved = URL(fileURLWithPath: folder).resolvingSymlinksInPath().path
    return entries.filter { $0.allSatisfy(\.isNumber) && $0 != own }.compactMap { pid in
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"), !data.isEmpty else { return nil }
        let line = String(decoding: data.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
        let cwd = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/cwd")) ?? ""
        let inside = [folder, resolved].contains { cwd == $0 || cwd.hasPrefix($0 + "/") || line.contains($0) }
        return inside ? "\(pid): \(line)" : nil
    }
}
