import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small project of Tests/Fixtures/bad-projects: its files, and what its `expect.txt` says
/// a command does with them.
struct BadProject: Sendable, CustomTestStringConvertible {
    var name: String
    var command: [String]
    var exit: Int32
    var id: String?
    /// `path:line:column`, or just a path.
    var at: String?
    var says: String?

    static let folder = Paths.root.appendingPathComponent("Tests/Fixtures/bad-projects")
    var url: URL { Self.folder.appendingPathComponent(name) }
    var testDescription: String { name }

    static let all: [BadProject] = entries(of: folder).filter { !$0.hasPrefix(".") }.compactMap { name in
        guard
            let text = try? String(
                contentsOf: folder.appendingPathComponent(name).appendingPathComponent("expect.txt"), encoding: .utf8)
        else { return nil }
        var fields: [String: String] = [:]
        for line in RunResult.lines(text) where !line.hasPrefix("#") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        guard let command = fields["command"], let exit = fields["exit"].flatMap(Int32.init) else { return nil }
        return BadProject(
            name: name, command: command.split(separator: " ").map(String.init), exit: exit,
            id: fields["id"].flatMap { $0.isEmpty ? nil : $0 }, at: fields["at"].flatMap { $0.isEmpty ? nil : $0 },
            says: fields["says"].flatMap { $0.isEmpty ? nil : $0 })
    }.sorted { $0.name < $1.name }
}

/// Hostile projects, not single files: out-of-range numbers in scenarios, tampered records,
/// broken sub-journeys, CRLF, bidi, and (made by the tests) thousands of nested calls and
/// special files among the inputs. Each gets a located diagnostic or the right result, never
/// a crash or a hang.
@Suite("Bad projects: every problem located, nothing crashes or hangs", .timeLimit(.minutes(30)))
struct BadProjectTests {
    @Test("the corpus is there")
    func corpus() {
        #expect(BadProject.all.count >= 10)
    }

    @Test("each project: the exit code, the diagnostic at its place, the message, no crash", arguments: BadProject.all)
    func project(_ project: BadProject) async throws {
        try await withTemporaryDirectory { directory in
            let copy = directory.appendingPathComponent(project.name)
            try FileManager.default.copyItem(at: project.url, to: copy)
            let result = try await runJourney(project.command, cwd: copy, timeout: 60)
            expectNoCrash(result)
            #expect(result.status == project.exit, "\(result)")
            if let id = project.id {
                let found = result.diagnostics.filter { $0.id == id && $0.severity == "error" }
                #expect(!found.isEmpty, "no [\(id)] in:\n\(result.stderr)")
                if let at = project.at {
                    #expect(
                        found.contains { "\($0.path):\($0.position)" == at || $0.path == at }, "\(at) not in \(found)")
                }
            }
            if let says = project.says {
                #expect(result.output.contains(says), "'\(says)' not in:\n\(result.output)")
            }
            // One line per message: nothing the files hold can break a line or hide text.
            for line in result.stderrLines {
                #expect(!line.unicodeScalars.contains { [0x202E, 0x2066, 0x200B].contains($0.value) }, "\(line)")
            }
        }
    }

    @Test("3 000 journeys calling each other: a located depth error, in bounded time")
    func deepChain() async throws {
        try await withTemporaryDirectory { directory in
            let count = 3000
            for i in 0..<count {
                let step =
                    i + 1 < count
                    ? "    call: deep.j\(i + 1)\n    on: { done: done }"
                    : "    handler: ui.screen\n    screen: { actions: { ok: OK } }\n    on: { ok: done }"
                try writeText(
                    "journey: deep.j\(i)\nversion: 1\ntitle: J\nstart: s\nsteps:\n  s:\n\(step)\nends:\n  done: { kind: success }\n",
                    to: directory.appendingPathComponent("j\(i).journey.yaml"))
            }
            let result = try await runJourney(["check", "."], cwd: directory, timeout: 60)
            expectNoCrash(result)
            #expect(result.status == Exit.invalid)
            let depth = result.errors("call.depth")
            #expect(depth.count == 1, "\(result.stderr.prefix(2000))")
            #expect(depth.first?.path == "j\(count - 18).journey.yaml")
            #expect(result.stderrLines.last == "checked \(count) journeys and 0 scenarios: 1 error, 0 warnings")
        }
    }

    @Test("a folder where a golden goes is said to be there, not that no golden was recorded")
    func aFolderWhereAGoldenGoes() async throws {
        try await withTemporaryDirectory { directory in
            try copyShippedJourneys(into: directory)
            let golden = "journeys/examples/transcripts/correct-pin.txt"
            try FileManager.default.removeItem(at: directory.appendingPathComponent(golden))
            try FileManager.default.createDirectory(
                at: directory.appendingPathComponent(golden), withIntermediateDirectories: false)
            let result = try await runJourney(["test", "journeys/examples", "--filter", "correct-pin"], cwd: directory)
            #expect(result.status == Exit.failed, "\(result)")
            #expect(
                result.stdout.contains(
                    "no golden transcript at \(golden): a folder is there, where journey test --update writes the golden; move it away, then record the golden"
                ), "\(result)")
        }
    }

    @Test("a FIFO, a device or a socket among the inputs is refused or skipped, never read (which would hang)")
    func specialFiles() async throws {
        try await withTemporaryDirectory { directory in
            let journey = try String(
                contentsOf: Paths.journeys.appendingPathComponent("examples/unlock.journey.yaml"), encoding: .utf8)
            try writeText(journey, to: directory.appendingPathComponent("unlock.journey.yaml"))
            #expect(mkfifo(directory.appendingPathComponent("pipe.yaml").path, 0o644) == 0)
            // Named: an error at the path. Searched (a folder, or a neighbour of a named file): skipped.
            let named = try await runJourney(["check", "pipe.yaml"], cwd: directory, timeout: 20)
            expectNoCrash(named)
            #expect(!named.timedOut)
            #expect(named.status == Exit.invalid)
            #expect(named.errors("file.special").first?.path == "pipe.yaml", "\(named)")
            let folder = try await runJourney(["check", "."], cwd: directory, timeout: 20)
            #expect(!folder.timedOut)
            #expect(folder.status == Exit.ok, "\(folder)")
            let neighbour = try await runJourney(["check", "unlock.journey.yaml"], cwd: directory, timeout: 20)
            #expect(!neighbour.timedOut)
            #expect(neighbour.status == Exit.ok, "\(neighbour)")
            let device = try await runJourney(["check", "/dev/zero"], cwd: directory, timeout: 20)
            #expect(device.status == Exit.invalid)
            #expect(device.errors("file.special").first?.path == "/dev/zero", "\(device)")
            // A run skips it too, and says so as check does: a scenario file that is a FIFO is
            // not left out in silence.
            try writeText(
                try String(
                    contentsOf: Paths.journeys.appendingPathComponent("examples/scenarios/correct-pin.scenario.yaml"),
                    encoding: .utf8), to: directory.appendingPathComponent("scenarios/correct-pin.scenario.yaml"))
            let test = try await runJourney(["test", "."], cwd: directory, timeout: 60)
            #expect(!test.timedOut)
            #expect(
                test.stderrLines.contains("pipe.yaml:1:1: warning: a FIFO, not a regular file; skipped [file.special]"),
                "\(test)")
        }
    }
}
