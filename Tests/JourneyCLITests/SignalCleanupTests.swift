import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Ctrl-C (SIGINT), SIGTERM or SIGHUP while `journey` writes files: the command dies of the
/// signal as before, but leaves none of its temporaries (`.NAME.journey-PID.tmp`) nor a journal
/// behind, and every file the user had is as it was.
@Suite("signals while writing: no temporaries left, nothing lost", .timeLimit(.minutes(30)))
struct SignalCleanupTests {
    /// A journey that decides a billion times before it ends: its transcript grows for as long
    /// as the run is let go on.
    static let spin = """
        journey: t.spin
        version: 1
        title: Automatic loop
        stored: { n: { type: int, default: 0 } }
        start: a
        steps:
          a:
            handler: flow.decide
            on:
              next:
                - if: stored.n < 1000000000
                  set: { stored.n: "${stored.n + 1}" }
                  to: a
                - else: done
        ends: { done: { kind: success } }
        """

    /// The hidden files journey writes on the way (temporaries and journals) under `directory`.
    static func leftovers(under directory: URL) -> [String] {
        let walker = FileManager.default.enumerator(atPath: directory.path)
        var found: [String] = []
        while let path = walker?.nextObject() as? String {
            let name = (path as NSString).lastPathComponent
            if name.hasPrefix("."), name.contains(".journey-") { found.append(path) }
        }
        return found.sorted()
    }

    @Test(
        "a run stopped by SIGINT, SIGTERM or SIGHUP while its transcript is written dies of it, leaving the old transcript and no temporary",
        arguments: [SIGINT, SIGTERM, SIGHUP])
    func runStoppedWhileWriting(_ signal: Int32) async throws {
        try await withProcessSlot {
            try await withTemporaryDirectory { directory in
                try writeText(Self.spin, to: directory.appendingPathComponent("spin.journey.yaml"))
                try writeText(
                    "scenario: spin\njourney: t.spin\nscript: []\nexpect: { end: done }\n",
                    to: directory.appendingPathComponent("scenarios/spin.scenario.yaml"))
                let transcript = directory.appendingPathComponent("transcript.txt")
                try writeText("the transcript of an earlier run\n", to: transcript)
                let (process, _, _) = try IsolationTests.start(
                    [
                        "run", "--scenario", "scenarios/spin.scenario.yaml", "--journeys", ".", "--step-budget",
                        "10000000", "--transcript", "transcript.txt",
                    ], in: directory)
                // Signalled once the new transcript is being written beside the old one.
                let deadline = Date().addingTimeInterval(60)
                while Date() < deadline, Self.leftovers(under: directory).isEmpty, process.isRunning {
                    try await Task.sleep(for: .milliseconds(10))
                }
                try #require(!Self.leftovers(under: directory).isEmpty, "the transcript is being written")
                kill(process.processIdentifier, signal)
                try await ExploreInterruptTests.requireStopped(process)
                #expect(process.terminationReason == .uncaughtSignal, "it dies of the signal")
                #expect(process.terminationStatus == signal)
                #expect(Self.leftovers(under: directory) == [])
                #expect(try String(contentsOf: transcript, encoding: .utf8) == "the transcript of an earlier run\n")
            }
        }
    }

    /// The golden transcripts under `journeys`, by path, with what each holds.
    static func goldens(under journeys: URL) throws -> [String: String] {
        let walker = FileManager.default.enumerator(atPath: journeys.path)
        var found: [String: String] = [:]
        while let path = walker?.nextObject() as? String {
            // Hidden files (a temporary left) are not goldens: ``leftovers(under:)`` names them.
            guard (path as NSString).deletingLastPathComponent.hasSuffix("transcripts"),
                !(path as NSString).lastPathComponent.hasPrefix(".")
            else { continue }
            found[path] = try String(contentsOf: journeys.appendingPathComponent(path), encoding: .utf8)
        }
        return found
    }

    @Test(
        "journey test --update stopped by SIGINT at any moment leaves no temporary and no journal, and every scenario's goldens whole: all as they were or all updated"
    )
    func updateStopped() async throws {
        try await withProcessSlot {
            try await withTemporaryDirectory { directory in
                let journeys = try copyShippedJourneys(into: directory)
                let shipped = try Self.goldens(under: journeys)
                try #require(shipped.count > 100)
                let stale = "a line no run writes\n"
                func makeStale() throws {
                    // Every golden out of date, so that --update writes them all.
                    for (path, text) in shipped {
                        try writeText(text + stale, to: journeys.appendingPathComponent(path))
                    }
                }
                // How long a whole update takes on this machine: the runs below are stopped at
                // fractions of it, so that some stop lands while goldens are written however
                // fast or loaded the machine is.
                try makeStale()
                let clock = ContinuousClock()
                let began = clock.now
                let whole = try await runJourney(["test", "journeys", "--update"], cwd: directory)
                let length = clock.now - began
                #expect(whole.status == Exit.ok, "\(whole)")
                var stopped = 0
                var stoppedMidway = 0
                // Stopped ever later: before, during and after the golden transcripts are written.
                for fraction in stride(from: 0.05, through: 1.2, by: 0.075) {
                    let delay = length * fraction
                    try makeStale()
                    let (process, _, _) = try IsolationTests.start(["test", "journeys", "--update"], in: directory)
                    try await Task.sleep(for: delay)
                    kill(process.processIdentifier, SIGINT)
                    try await ExploreInterruptTests.requireStopped(process)
                    #expect(Self.leftovers(under: journeys) == [], "stopped after \(delay)")
                    // Each golden is whole, and a scenario's goldens (its .txt and .jsonl) were
                    // written together or not at all.
                    var updated: [String: Bool] = [:]
                    for (path, text) in try Self.goldens(under: journeys) {
                        let original = try #require(shipped[path])
                        #expect(text == original || text == original + stale, "\(path), stopped after \(delay)")
                        let scenario = (path as NSString).deletingPathExtension
                        let written = text == original
                        #expect(updated[scenario].map { $0 == written } ?? true, "\(scenario) half written")
                        updated[scenario] = written
                    }
                    if process.terminationStatus == 130 {
                        stopped += 1
                        let written = updated.values.filter { $0 }.count
                        if written > 0 && written < updated.count { stoppedMidway += 1 }
                    }
                }
                #expect(stopped > 0, "some run was stopped while it played")
                #expect(stoppedMidway > 0, "some run was stopped with some goldens written and others not")
                // What the stopped runs left, an --update finishes; the suite then passes.
                let update = try await runJourney(["test", "journeys", "--update"], cwd: directory)
                #expect(update.status == Exit.ok, "\(update)")
                let check = try await runJourney(["test", "journeys"], cwd: directory)
                #expect(check.status == Exit.ok, "\(check)")
            }
        }
    }
}
