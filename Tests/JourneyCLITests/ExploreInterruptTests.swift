import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Ctrl-C (SIGINT) or SIGTERM during `journey explore`: the exploration under way stops and
/// says what it found until then, the journeys explored before it are said in full, and the
/// process answers the signal (130, 143).
@Suite("journey explore, interrupted", .timeLimit(.minutes(10)))
struct ExploreInterruptTests {
    /// Three counters with no end: an exploration of it goes on until it is stopped.
    static let endless = """
        journey: t.endless
        version: 1
        title: Three endless counters
        state:
          a: { type: int, default: 0 }
          b: { type: int, default: 0 }
          c: { type: int, default: 0 }
        start: count
        steps:
          count:
            handler: ui.screen
            screen:
              text: "${str(state.a) + ' ' + str(state.b) + ' ' + str(state.c)}"
              actions: { a: "a + 1", b: "b + 1", c: "c + 1", done: Done }
            on:
              a: { set: { state.a: "${state.a + 1}" }, to: count }
              b: { set: { state.b: "${state.b + 1}" }, to: count }
              c: { set: { state.c: "${state.c + 1}" }, to: count }
              done: finished
        ends:
          finished: { kind: success }

        """

    /// Starts `journey explore` on the planted-bug PIN journey, then the endless one, and sends
    /// `signal` once the first has been explored (its counterexample is written): the second
    /// is under way.
    static func interrupt(
        _ signal: Int32, json: Bool, in directory: URL
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        try writeText(endless, to: directory.appendingPathComponent("endless.journey.yaml"))
        let bug = FileManager.default.currentDirectoryPath + "/Tests/Fixtures/explore/pin-model-bug.journey.yaml"
        let (process, out, err) = try IsolationTests.start(
            [
                "explore", bug, "endless.journey.yaml", "--depth", "1000000", "--states", "100000000", "--jobs", "1",
                "--emit", "found",
            ] + (json ? ["--json"] : []), in: directory)
        let written = directory.appendingPathComponent("found/examples.pin-model-bug.counter-survives.scenario.yaml")
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, !FileManager.default.fileExists(atPath: written.path) {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(FileManager.default.fileExists(atPath: written.path), "the first journey was explored")
        try await Task.sleep(for: .milliseconds(300))
        kill(process.processIdentifier, signal)
        #expect(await IsolationTests.wait(process, seconds: 30), "it stops")
        return (
            process.terminationStatus, try String(contentsOf: out, encoding: .utf8),
            try String(contentsOf: err, encoding: .utf8)
        )
    }

    @Test("SIGINT: the journey under way says it was interrupted and what it found; exit 130")
    func interruptedByCtrlC() async throws {
        try await withProcessSlot {
            try await withTemporaryDirectory { directory in
                let (status, stdout, stderr) = try await Self.interrupt(SIGINT, json: false, in: directory)
                #expect(status == 130, "\(stdout)\(stderr)")
                // The journey explored before it, in full, with its violation.
                #expect(stdout.hasPrefix("examples.pin-model-bug: 45 states, 140 transitions"), "\(stdout)")
                #expect(stdout.contains("  explore.counter-survives: "), "\(stdout)")
                let endless = try #require(
                    stdout.split(separator: "\n").first { $0.hasPrefix("t.endless: ") }, "\(stdout)")
                #expect(endless.hasSuffix(": clean"), "\(stdout)")
                #expect(
                    stdout.contains(
                        #/bounds: depth 1000000, 100000000 states; interrupted; [0-9]+ states? found but not expanded\n/#
                    ),
                    "\(stdout)")
                #expect(
                    stderr.hasSuffix("explored 2 journeys: 1 clean, 1 with violations, interrupted by SIGINT\n"),
                    "\(stderr)")
            }
        }
    }

    @Test("SIGTERM with --json: the results so far, the one under way marked interrupted; exit 143")
    func terminatedWithJSON() async throws {
        try await withProcessSlot {
            try await withTemporaryDirectory { directory in
                let (status, stdout, stderr) = try await Self.interrupt(SIGTERM, json: true, in: directory)
                #expect(status == 143, "\(stdout)\(stderr)")
                let results = try #require(
                    try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [[String: Any]], "\(stdout)")
                #expect(results.map { $0["journey"] as? String } == ["examples.pin-model-bug", "t.endless"])
                #expect(results[0]["interrupted"] == nil)
                #expect(results[1]["interrupted"] as? Bool == true)
                #expect((results[1]["frontier"] as? Int ?? 0) > 0)
            }
        }
    }
}
