import Foundation
import Testing

/// `journey bench --explore`: the explorer's rates on the PIN journey the reference peers
/// model, beside the peers run from their folder, and every shipped journey explored.
@Suite("journey bench --explore", .timeLimit(.minutes(30)))
struct ExploreBenchTests {
    /// A stand-in for the peers' BFS explorer: it prints one JSON line as theirs does, with
    /// the peers' counts for the default bounds (2 restarts) and other counts for any other bounds.
    static let peer = #"""
        import json, sys
        large = sys.argv[sys.argv.index("--restarts") + 1] != "2"
        print(json.dumps({"peer": "bfs-pure", "states": 99 if large else 45, "transitions": 999 if large else 140,
            "states_per_s_wall_median": 1000, "transitions_per_s_wall_median": 2000,
            "transitions_per_s_cpu_median": 2500, "ms_per_exploration_wall_median": 0.07}))
        """#

    @Test(
        "it reports rates on one thread, the peers beside them with the ratio, memory per state, and the shipped journeys"
    )
    func figures() async throws {
        try await withTemporaryDirectory { peers in
            try Self.peer.write(
                to: peers.appendingPathComponent("bench_explore_bfs.py"), atomically: true, encoding: .utf8)
            let bench = try await runJourney(
                ["bench", "--explore", "--explore-restarts", "10", "--peers", peers.path, "--json"], timeout: 240)
            #expect(bench.status == Exit.ok, "\(bench)")
            let json = try JSONSerialization.jsonObject(with: bench.stdoutData) as? [String: String] ?? [:]
            #expect(json["explore examples.pin-model, defaults (depth 50, 2 restarts)"] == "45 states, 140 transitions")
            let section = "explore examples.pin-model, depth 20, 10 restarts"
            let counted = try #require(json[section], "\(bench)")
            #expect(counted.wholeMatch(of: #/[0-9]+ states, [0-9]+ transitions/#) != nil, "\(counted)")
            // Each exploration's figures are keyed under it: none is lost to a later one's.
            let large = section + " › "
            // The peer is compared on the defaults, where its fake counts are the model's.
            let defaults = "explore examples.pin-model, defaults (depth 50, 2 restarts) › "
            #expect(!json.keys.contains { $0.hasPrefix(" ") }, "\(json.keys)")
            let rates =
                #/[0-9]+ states/s, [0-9]+ transitions/s \([0-9]+ per CPU second\), [0-9.]+ ms per exploration/#
            #expect(json[large + "JourneyKit, 1 thread"]?.wholeMatch(of: rates) != nil, "\(bench)")
            #expect(json[defaults + "JourneyKit, 1 thread"]?.wholeMatch(of: rates) != nil, "\(bench)")
            #expect(json[defaults + "peer bfs-pure (Python)"]?.wholeMatch(of: rates) != nil, "\(bench)")
            #expect(
                json[defaults + "JourneyKit / bfs-pure, transitions/s"]?.wholeMatch(
                    of: #/[0-9.]+× on 1 thread \(every move played: [0-9.]+×\)/#) != nil, "\(bench)")
            // The same exploration with every move played, and how many of its transitions
            // were taken over from a state equal but for its restarts (the last exploration's:
            // 10 restarts, where most are).
            #expect(json[large + "JourneyKit, 1 thread, every move played"]?.wholeMatch(of: rates) != nil, "\(bench)")
            let reused = try #require(json[large + "taken over, not played"], "\(bench)")
            let counts = try #require(
                reused.wholeMatch(
                    of:
                        #/([0-9]+) of ([0-9]+) transitions \(from a state equal but for its restarts; ([0-9]+) more taken over were played again, to see what the new state they reach asks\)/#
                ))
            let (notPlayed, all, again) = (Int(counts.1) ?? 0, Int(counts.2) ?? 0, Int(counts.3) ?? -1)
            #expect(notPlayed > 0 && notPlayed + again < all && again >= 0, "\(reused)")
            // The peer's counts for the larger bounds differ: its rates are not compared.
            #expect(bench.stdout.contains("skipped: it found 99 states and 999 transitions, not the same space"))
            #expect(
                json[large + "peer bfs-transitions-reuse"]
                    == "skipped: \(peers.path) holds no bench_explore_transitions.py",
                "\(bench)")
            let memory = try #require(json["memory per stored state"], "\(bench)")
            #expect(
                memory.wholeMatch(
                    of: #/[0-9]+ bytes \(peak memory growth over the [0-9]+-state exploration, 1 thread\)/#) != nil)
            let shipped = try #require(json["every shipped journey, default bounds"], "\(bench)")
            #expect(
                shipped.wholeMatch(
                    of:
                        #/[0-9]+ journeys from [0-9]+ starts, [0-9]+ states, [0-9]+ transitions: [0-9.]+ s to explore \([0-9.]+ s to load\), [0-9]+ threads?/#
                ) != nil, "\(shipped)")
        }
    }

    @Test("without a peers folder the peers are skipped, saying how to give one")
    func noPeers() async throws {
        let bench = try await runJourney(
            ["bench", "--explore", "--explore-restarts", "5"], environment: ["JOURNEY_PEERS": ""], timeout: 240)
        #expect(bench.status == Exit.ok, "\(bench)")
        #expect(bench.stdout.contains("peers: skipped: say where they are with --peers FOLDER (or JOURNEY_PEERS)"))
    }

    @Test("a peers folder that is not there, or is a file, is refused before anything is timed")
    func badPeersFolder() async throws {
        try await withTemporaryDirectory { directory in
            let missing = directory.appendingPathComponent("peers").path
            let bench = try await runJourney(["bench", "--explore", "--peers", missing])
            #expect(bench.status == Exit.invalid, "\(bench)")
            #expect(bench.stdout.isEmpty, "\(bench)")
            #expect(
                bench.stderr.contains(
                    "--peers \(missing): no such folder: give the folder of the reference peers' explorers"),
                "\(bench)")
            let file = directory.appendingPathComponent("peers.txt")
            try writeText("not a folder\n", to: file)
            let fromEnvironment = try await runJourney(
                ["bench", "--explore"], environment: ["JOURNEY_PEERS": file.path])
            #expect(fromEnvironment.status == Exit.invalid, "\(fromEnvironment)")
            #expect(
                fromEnvironment.stderr.contains("JOURNEY_PEERS (\(file.path)) is not a folder"), "\(fromEnvironment)")
        }
    }

    @Test("a count out of range, or an --executable that is no program, is refused before anything is timed")
    func badBounds() async throws {
        let plain = FileManager.default.temporaryDirectory.appendingPathComponent("bench-not-a-program-\(getpid())")
        try writeText("not a program\n", to: plain)
        defer { try? FileManager.default.removeItem(at: plain) }
        for (arguments, says) in [
            (["--explore", "--explore-restarts", "0"], "--explore-restarts must be from 1 to 100000"),
            (["--process-runs", "100000"], "--process-runs must be from 0 to 10000"),
            (["--external-steps", "9223372036854775807"], "--external-steps must be 0 or from 100 to 100000000"),
            (["--executable", "/nonexistent/journey"], "--executable /nonexistent/journey: no such file"),
            (["--executable", "/tmp"], "--executable /tmp: is a folder"),
            (["--executable", plain.path], "--executable \(plain.path) is not executable"),
        ] {
            let bench = try await runJourney(["bench"] + arguments, timeout: 20)
            #expect(bench.status == Exit.invalid && !bench.timedOut, "\(arguments): \(bench)")
            #expect(bench.stderr.contains(says) && bench.stdout.isEmpty, "\(arguments): \(bench)")
        }
    }
}
