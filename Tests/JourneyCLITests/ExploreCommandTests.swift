import Foundation
import Testing

/// `journey explore` as a user runs it: the counts, the verdict, each invariant caught by a
/// journey that breaks it, counterexamples written as scenarios that replay to the same
/// violation, and JSON for tools.
@Suite("journey explore", .timeLimit(.minutes(10)))
struct ExploreCommandTests {
    static let fixtures = "Tests/Fixtures/explore"

    @Test("the PIN model journey explores clean with the peers' counts, and the exit status says so")
    func clean() async throws {
        let result = try await runJourney(["explore", "journeys/examples/pin-model.journey.yaml"])
        #expect(result.status == Exit.ok, "\(result)")
        #expect(
            result.stdoutLines.first == "examples.pin-model: 45 states, 140 transitions, depth 8: clean", "\(result)")
        #expect(result.stderr.contains("explored 1 journey: 1 clean, 0 with violations"), "\(result)")
    }

    @Test(
        "each invariant is caught by a journey that breaks it; its counterexample replays to the same violation",
        arguments: [
            (
                "pin-model-bug.journey.yaml", "examples.pin-model-bug", "explore.counter-survives",
                "create: strong → repeat: match → biometry: allow → locked: wrong → restart",
                "expected state.failures = 1, found 0"
            ),
            (
                "fails.journey.yaml", "explore.fails", "explore.never-fails", "checkout: pay → confirm: again",
                "step 'checkout' shows no enabled action"
            ),
            ("trap.journey.yaml", "explore.trap", "explore.reaches-an-end", "again: stay", nil),
        ] as [(String, String, String, String, String?)])
    func caught(
        _ file: String, _ journey: String, _ invariant: String, _ moves: String, _ replayed: String?
    )
        async throws
    {
        try await withTemporaryDirectory { directory in
            let out = directory.appendingPathComponent("counterexamples").path
            let result = try await runJourney(["explore", "\(Self.fixtures)/\(file)", "--emit", out])
            #expect(result.status == Exit.failed, "\(result)")
            #expect(result.stdout.contains("  \(invariant): "), "\(result)")
            #expect(result.stdout.contains(": \(moves)\n"), "\(result)")
            let scenario = "\(out)/\(journey).\(invariant.dropFirst("explore.".count)).scenario.yaml"
            #expect(result.stdout.contains("written to \(scenario)"), "\(result)")
            let replay = try await runJourney(["run", "--scenario", scenario, "--journeys", Self.fixtures])
            if let replayed {
                #expect(replay.status == Exit.failed, "\(replay)")
                #expect(replay.stderr.contains(replayed), "\(replay)")
            } else {
                // A trap is a place, not a failure: the replay reaches it, where no way on ends.
                #expect(replay.status == Exit.ok, "\(replay)")
            }
        }
    }

    @Test("an invariant a journey breaks on purpose is declared with the reason, and the journey is clean")
    func exception() async throws {
        try await withTemporaryDirectory { directory in
            let text = try String(
                contentsOf: Paths.root.appendingPathComponent("\(Self.fixtures)/trap.journey.yaml"), encoding: .utf8)
            let excepted = text.replacingOccurrences(
                of: "stored:\n",
                with: "exceptions:\n  explore.reaches-an-end: the kiosk never leaves this screen on purpose\nstored:\n")
            try writeText(excepted, to: directory.appendingPathComponent("journeys/trap.journey.yaml"))
            let result = try await runJourney(["explore", "journeys"], cwd: directory)
            #expect(result.status == Exit.ok, "\(result)")
            #expect(
                result.stdout.contains(
                    "explore.reaches-an-end broken on purpose: the kiosk never leaves this screen on purpose"),
                "\(result)")
            let check = try await runJourney(["check", "--strict", "journeys"], cwd: directory)
            #expect(check.status == Exit.ok, "an exception to an invariant is explore's to judge: \(check)")
        }
    }

    @Test("--json gives every figure, the same on every run")
    func json() async throws {
        let arguments = [
            "explore", "--json", "journeys/examples/pin-model.journey.yaml",
            "\(Self.fixtures)/pin-model-bug.journey.yaml",
        ]
        let first = try await runJourney(arguments)
        let second = try await runJourney(arguments)
        #expect(first.status == Exit.failed, "\(first)")
        #expect(first.stdout == second.stdout)
        let decoded = try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [[String: Any]]
        let results = try #require(decoded)
        #expect(results.map { $0["journey"] as? String } == ["examples.pin-model", "examples.pin-model-bug"])
        #expect(results[0]["states"] as? Int == 45 && results[0]["transitions"] as? Int == 140)
        let violations = results[1]["violations"] as? [[String: Any]] ?? []
        #expect(violations.map { $0["invariant"] as? String } == ["explore.counter-survives"], "\(violations)")
    }

    @Test("bounds are said and kept: depth, restarts, states, clock jumps")
    func bounds() async throws {
        let small = try await runJourney([
            "explore", "journeys/examples/pin-model.journey.yaml", "--restarts", "0", "--clock-jump", "1m",
            "--states", "10",
        ])
        #expect(small.stdout.contains("up to 0 restarts, clock jumps of 1m"), "\(small)")
        #expect(small.stdout.contains("10 states (reached: the exploration stopped there)"), "\(small)")
        let bad = try await runJourney(["explore", "--clock-jump", "soon"])
        #expect(bad.status != Exit.ok && bad.stderr.contains("--clock-jump takes"), "\(bad)")
        let unknown = try await runJourney(["explore", "journeys/examples", "--journey", "examples.pin-modl"])
        #expect(
            unknown.status == Exit.invalid && unknown.stderr.contains("did you mean 'examples.pin-model'"), "\(unknown)"
        )
    }

    @Test("--from starts where a scenario starts: its device with its PIN sealed, its params and stubs")
    func fromScenario() async throws {
        let d5 = "journeys/diia/scenarios/d5-count-survives-restart.scenario.yaml"
        let result = try await runJourney(["explore", "--from", d5])
        #expect(result.status == Exit.ok, "\(result)")
        let first = try #require(result.stdoutLines.first)
        #expect(first.hasPrefix("diia.pin-enter from d5-count-survives-restart: "), "\(result)")
        // From the empty device the journey ends at once; from the scenario's, a PIN is asked for.
        let alone = try await runJourney(["explore", "journeys/diia/pin-enter.journey.yaml"])
        #expect(alone.stdoutLines.first?.hasPrefix("diia.pin-enter: 1 states, 0 transitions") == true, "\(alone)")
        #expect(!first.contains(" 1 states"), "\(first)")
        // The scenario's PIN (4826) opens the seal it made: the right PIN is played too.
        let unreached = result.stdoutLines.first { $0.contains("transitions no path takes") } ?? ""
        #expect(
            !unreached.contains("enterPin --correct-->") && unreached.contains("enterPin --biometry-->"), "\(result)")
        #expect(try await runJourney(["explore", "--from", d5]).stdout == result.stdout, "the same on every run")

        // A path that asks the network for what the scenario has no stub for is out of scope:
        // here "Forgot PIN?" signs out through a logout call the d4 scenario never stubs.
        let d4 = "journeys/diia/scenarios/d4-killed-at-the-alert-keeps-server-session.scenario.yaml"
        let unstubbed = try await runJourney(["explore", "--from", d4])
        #expect(unstubbed.status == Exit.ok, "\(unstubbed)")
        #expect(!unstubbed.stdout.contains("no stub"), "\(unstubbed)")

        let live = try await runJourney([
            "explore", "--from", "journeys/eiam/scenarios/i1-sign-in-with-pkce.scenario.yaml",
        ])
        #expect(live.status == Exit.invalid && live.stderr.contains("never a live service"), "\(live)")
    }
}

extension ExploreCommandTests {
    @Test("--jobs plays each level on threads and prints the same as one job; out of range it is refused")
    func jobs() async throws {
        let one = try await runJourney(["explore", "--jobs", "1", "journeys", "--json"], timeout: 120)
        let many = try await runJourney(["explore", "--jobs", "3", "journeys", "--json"], timeout: 120)
        #expect(one.status == many.status, "\(one)\n\(many)")
        #expect(!one.stdout.isEmpty)
        #expect(one.stdout == many.stdout)
        let large = [
            "explore", "Tests/Fixtures/explore/pin-model-bug.journey.yaml", "--restarts", "50", "--depth", "100",
        ]
        let bugOne = try await runJourney(large + ["--jobs", "1"], timeout: 120)
        let bugMany = try await runJourney(large + ["--jobs", "4"], timeout: 120)
        #expect(bugOne.status == Exit.failed, "\(bugOne)")
        #expect(bugOne.stdout == bugMany.stdout)
        let zero = try await runJourney(["explore", "--jobs", "0", "journeys/examples/pin-model.journey.yaml"])
        #expect(zero.status == Exit.invalid && zero.stderr.contains("--jobs must be from 1 to 1024"), "\(zero)")
    }
}
