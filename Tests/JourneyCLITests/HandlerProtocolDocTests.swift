import Foundation
import Testing

/// docs/handler-protocol.md shows a whole exchange between JourneyKit and a handler's program.
/// It is replayed against JourneyKit: a program that expects every line the page says
/// JourneyKit sends, byte for byte, and answers with the lines the page says the program sent,
/// must carry the scenario to its end. So the page cannot drift from what JourneyKit speaks.
@Suite("The handler protocol's page is what JourneyKit speaks", .timeLimit(.minutes(30)))
struct HandlerProtocolDocTests {
    static let page = Paths.root.appendingPathComponent("docs/handler-protocol.md")
    static let marker = "<!-- exchange: "

    /// The exchange's project folder and scenario (from the marker), and its lines.
    static func exchange() throws -> (project: String, scenario: String, lines: [String]) {
        let text = try String(contentsOf: page, encoding: .utf8)
        let lines = RunResult.lines(text)
        let start = try #require(lines.firstIndex { $0.hasPrefix(marker) }, "no exchange marker in the page")
        let named = lines[start].dropFirst(marker.count).replacingOccurrences(of: " -->", with: "").split(
            separator: " ")
        try #require(named.count == 2, "the marker names a project folder and a scenario")
        #expect(lines[start + 1] == "```text")
        let end = try #require(lines[(start + 2)...].firstIndex(of: "```"))
        return (String(named[0]), String(named[1]), Array(lines[(start + 2)..<end]))
    }

    /// Replays `exchange.jsonl` (lines `→ …` it must read, `← …` it writes); on a difference,
    /// says so on standard error and exits 3. Writes `replayed` when every line was played.
    static let replayer = """
        import sys
        lines = open("exchange.txt", encoding="utf-8").read().splitlines()
        for number, line in enumerate(lines, 1):
            direction, message = line[:1], line[2:]
            if direction == "\\u2192":
                got = sys.stdin.readline().rstrip("\\n")
                if got != message:
                    print("line %d: the page says JourneyKit sends %s but it sent %s" % (number, message, got), file=sys.stderr)
                    sys.exit(3)
            else:
                sys.stdout.write(message + "\\n")
                sys.stdout.flush()
        open("replayed", "w").write("yes")

        """

    @Test("the page's exchange, replayed, carries its scenario to the end it expects")
    func replayed() async throws {
        let exchange = try Self.exchange()
        #expect(exchange.lines.count >= 8, "\(exchange.lines)")
        #expect(exchange.lines.allSatisfy { $0.hasPrefix("→ {") || $0.hasPrefix("← {") }, "\(exchange.lines)")
        #expect(exchange.lines.first?.contains("\"method\":\"initialize\"") == true)
        #expect(exchange.lines.last == "→ {\"jsonrpc\":\"2.0\",\"method\":\"exit\"}")
        try await withTemporaryDirectory { directory in
            let project = directory.appendingPathComponent("project")
            try FileManager.default.copyItem(at: Paths.root.appendingPathComponent(exchange.project), to: project)
            let file = project.appendingPathComponent("journeykit.yaml")
            let original = try String(contentsOf: file, encoding: .utf8)
            let replaced = original.replacingOccurrences(
                of: #"command: \[[^\]]*\]"#, with: "command: [python3, replay.py]", options: .regularExpression)
            #expect(replaced != original)
            try writeText(replaced, to: file)
            try writeText(Self.replayer, to: project.appendingPathComponent("replay.py"))
            try writeText(
                exchange.lines.joined(separator: "\n") + "\n", to: project.appendingPathComponent("exchange.txt"))

            let run = try await runJourney(["run", "--scenario", exchange.scenario], cwd: project)
            #expect(run.status == Exit.ok, "\(run)")
            #expect(run.stderr.contains("PASS "), "\(run)")
            #expect(
                FileManager.default.fileExists(atPath: project.appendingPathComponent("replayed").path),
                "the program did not get every line the page shows: \(run)")
        }
    }
}
