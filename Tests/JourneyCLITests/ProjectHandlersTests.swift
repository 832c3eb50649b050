import Foundation
import Testing

/// Handlers a project declares as programs (`handlers:` in `journeykit.yaml`): each misuse of
/// the declaration is reported where it is written and stops every command, and journeys are
/// held to a program's contract by `journey check` without the program ever being started.
@Suite("A project's own handlers, declared as programs", .timeLimit(.minutes(30)))
struct ProjectHandlersTests {
    /// A project whose one handler's command is a program that does not exist anywhere: a
    /// command that starts it would fail, so one that passes has not.
    static let project = """
        journeys: [journeys]
        handlers:
          acme.riskScore:
            command: [no-such-program-anywhere, --serve]
            summary: Scores the sign-in.
            timeout: 3s
            parameters:
              amount: {type: int, required: true, summary: what is paid}
              token: {type: string, secret: true}
              region: {type: string, default: eu}
            inputs:
              attestation: {type: string, classes: [valid, tampered]}
              code: {type: string, secret: true}
            outcomes:
              allow: {summary: the sign-in goes on}
              stepUp: {data: {score: int, reasons: list}}
              deny: {data: {score: int}}

        """

    static let journey = """
        journey: acme.pay
        version: 1
        title: Pay
        state:
          score: {type: int, default: 0}
        start: risk
        steps:
          risk:
            handler: acme.riskScore
            with: {amount: 120}
            on:
              allow: done
              stepUp:
                set: {state.score: "${outcome.score}"}
                to: done
              deny: refused
        ends:
          done: {kind: success}
          refused: {kind: failure}

        """

    static let scenario = """
        scenario: allowed
        journey: acme.pay
        script:
          - at: risk
            attestation: valid
        expect:
          end: done

        """

    /// Writes the project with `journey` and `scenario` in `directory`.
    static func write(
        in directory: URL, project: String = Self.project, journey: String = Self.journey,
        scenario: String = Self.scenario
    ) throws {
        try writeText(project, to: directory.appendingPathComponent("journeykit.yaml"))
        try writeText(journey, to: directory.appendingPathComponent("journeys/pay.journey.yaml"))
        try writeText(scenario, to: directory.appendingPathComponent("journeys/scenarios/allowed.scenario.yaml"))
    }

    @Test("journey check holds a journey to the program's contract, and never starts the program")
    func checkedWithoutStarting() async throws {
        try await withTemporaryDirectory { directory in
            try Self.write(in: directory)
            let good = try await runJourney(["check"], cwd: directory)
            #expect(good.status == Exit.ok, "\(good)")
            #expect(good.stderr.contains("checked 1 journey and 1 scenario: 0 errors"), "\(good)")

            let journey = Self.journey
                .replacingOccurrences(of: "with: {amount: 120}", with: "with: {amout: 120, token: \"${state.score}\"}")
                .replacingOccurrences(of: "      deny: refused\n", with: "      denied: refused\n")
            try Self.write(in: directory, journey: journey)
            let bad = try await runJourney(["check"], cwd: directory)
            #expect(bad.status == Exit.invalid, "\(bad)")
            let found = Set(bad.diagnostics.map { "\($0.path):\($0.position) \($0.id)" })
            for expected in [
                "journeys/pay.journey.yaml:10:12 param.unknown",  // amout
                "journeys/pay.journey.yaml:9:5 param.missing",  // amount
                "journeys/pay.journey.yaml:10:31 value.type",  // an int where the secret text goes
                "journeys/pay.journey.yaml:16:7 outcome.undeclared",  // denied
                "journeys/pay.journey.yaml:8:3 outcome.unhandled",  // deny
            ] {
                #expect(found.contains(expected), "\(expected) not in \(found.sorted())")
            }

            let scenario = Self.scenario.replacingOccurrences(of: "attestation: valid", with: "attestaton: valid")
            try Self.write(in: directory, scenario: scenario)
            let input = try await runJourney(["check"], cwd: directory)
            #expect(input.status == Exit.invalid, "\(input)")
            #expect(
                input.diagnostics.map { "\($0.path):\($0.position) \($0.id)" }
                    == ["journeys/scenarios/allowed.scenario.yaml:5:5 scenario.input"], "\(input)")
            #expect(!(bad.output + input.output).contains("no-such-program"), "\(bad)")
        }
    }

    @Test("journey handlers lists the program's contract as external, with its secrets")
    func listed() async throws {
        try await withTemporaryDirectory { directory in
            try Self.write(in: directory)
            let table = try await runJourney(["handlers"], cwd: directory)
            #expect(table.status == Exit.ok, "\(table)")
            #expect(
                table.stdoutLines.contains { $0.hasPrefix("acme.riskScore") && $0.contains("external") }, "\(table)")

            let json = try await runJourney(["handlers", "acme.riskScore", "--json"], cwd: directory)
            #expect(json.status == Exit.ok, "\(json)")
            let decoded = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
            let handler = try #require((decoded?["handlers"] as? [[String: Any]])?.first)
            #expect(handler["id"] as? String == "acme.riskScore")
            #expect(handler["source"] as? String == "external")
            let parameters = handler["parameters"] as? [[String: Any]] ?? []
            #expect(parameters.map { $0["name"] as? String } == ["amount", "token", "region"], "\(parameters)")
            let inputs = handler["inputs"] as? [[String: Any]] ?? []
            #expect(inputs.map { $0["name"] as? String } == ["attestation", "code"], "\(inputs)")
            #expect(parameters.map { $0["secret"] as? Bool } == [false, true, false], "\(parameters)")
            #expect(inputs.map { $0["secret"] as? Bool } == [false, true], "\(inputs)")
        }
    }

    @Test(
        "each misuse of a handler's declaration is reported at its place and stops every command",
        arguments: [
            // (what is changed in the project file, the diagnostic's place and id)
            ("  acme.riskScore:\n", "  riskScore:\n", "journeykit.yaml:3:3 project.handler"),
            ("  acme.riskScore:\n", "  ui.screen:\n", "journeykit.yaml:3:3 project.handler"),
            (
                "command: [no-such-program-anywhere, --serve]", "command: no-such-program-anywhere --serve",
                "journeykit.yaml:4:14 value.type"
            ),
            ("command: [no-such-program-anywhere, --serve]", "command: []", "journeykit.yaml:4:14 value.type"),
            ("command: [no-such-program-anywhere, --serve]", "comand: [x]", "journeykit.yaml:4:5 key.unknown"),
            ("timeout: 3s", "timeout: 3 seconds", "journeykit.yaml:6:14 value.type"),
            ("timeout: 3s", "timeout: 11m", "journeykit.yaml:6:14 value.range"),
            (
                "amount: {type: int, required: true", "amount: {type: float, required: true",
                "journeykit.yaml:8:22 value.type"
            ),
            ("{type: string, default: eu}", "{type: int, default: eu}", "journeykit.yaml:10:36 value.type"),
            (
                "token: {type: string, secret: true}", "token: {type: string, secret: true, default: abc}",
                "journeykit.yaml:9:52 project.contract"
            ),
            ("summary: what is paid}", "summary: what is paid, default: 3}", "journeykit.yaml:8:75 project.contract"),
            ("attestation: {type: string,", "attestation: {kind: string,", "journeykit.yaml:12:21 key.unknown"),
            (
                "stepUp: {data: {score: int, reasons: list}}", "stepUp: {data: {score: number}}",
                "journeykit.yaml:16:30 value.type"
            ),
            (
                "      allow: {summary: the sign-in goes on}\n      stepUp: {data: {score: int, reasons: list}}\n      deny: {data: {score: int}}\n",
                "      {}\n", "journeykit.yaml:3:3 project.contract"
            ),
        ])
    func misuse(_ change: (String, String, String)) async throws {
        try await withTemporaryDirectory { directory in
            let project = Self.project.replacingOccurrences(of: change.0, with: change.1)
            #expect(project != Self.project, "the change \(change.0) does not apply")
            try Self.write(in: directory, project: project)
            for command in [
                ["check"], ["run", "--scenario", "journeys/scenarios/allowed.scenario.yaml"], ["test"], ["handlers"],
            ] {
                let result = try await runJourney(command, cwd: directory)
                expectNoCrash(result)
                #expect(result.status == Exit.invalid, "\(command): \(result)")
                let found = result.diagnostics.map { "\($0.path):\($0.position) \($0.id)" }
                #expect(found.contains(change.2), "\(command): \(change.2) not in \(found)\n\(result.stderr)")
            }
        }
    }
}
