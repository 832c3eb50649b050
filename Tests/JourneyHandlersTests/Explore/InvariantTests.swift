import Foundation
import JourneyCore
import JourneySuite
import Testing

@testable import JourneyHandlers

/// A journey's own invariants (`invariants:`) and explore.credential-before-success: misuse
/// refused by `journey check` at its place, each form caught by the explorer on the shortest
/// path and by a run that breaks it, and quiet where the journey keeps it.
@Suite("Invariants a journey states, and the credential before success")
struct InvariantTests {
    static let fixtures = "Tests/Fixtures/explore"

    /// The errors of a journey as `id line:column`, and their messages.
    static func errors(_ journey: String) -> [(at: String, message: String)] {
        let project = ProjectLoader(handlers: BuiltinHandlers.registry).load([
            SourceFile(path: "j.yaml", data: Data(journey.utf8))
        ])
        return project.diagnostics.items.filter { $0.severity == .error }.map {
            ("\($0.id) \($0.location.line):\($0.location.column)", $0.message)
        }
    }

    /// A journey with `invariants` (lines 7 on) and one screen `a` whose action `go` ends it.
    static func journey(_ invariants: String, step: String = "") -> String {
        """
        journey: t.inv
        version: 1
        title: Invariants
        stored:
          pinSet: { type: bool, default: false }
        invariants:
        \(invariants)
        start: a
        steps:
          a:
            handler: ui.screen
        \(step)    screen: { title: A, actions: { go: Go } }
            on: { go: done }
        ends:
          done: { kind: success }
        """
    }

    static func explore(
        _ text: String, id: String, bounds: JourneyExplorer.Bounds = .init()
    ) async throws -> JourneyExplorer.Result {
        let project = ProjectLoader(handlers: BuiltinHandlers.registry).load([
            SourceFile(path: "j.yaml", data: Data(text.utf8))
        ])
        let errors = project.diagnostics.items.filter { $0.severity == .error }
        try #require(errors.isEmpty, "\(errors)")
        let library = try #require(project.library)
        return await JourneyExplorer(library: library, device: JourneyExplorer.defaultDevice, bounds: bounds)
            .explore(try #require(library[id]))
    }

    static func fixture(_ name: String) throws -> String {
        try String(
            contentsOf: ExplorerTests.root.appendingPathComponent("\(fixtures)/\(name).journey.yaml"), encoding: .utf8)
    }

    @Test("every form, well written, checks clean")
    func wellWritten() {
        let found = Self.errors(
            Self.journey(
                """
                  home-needs-pin:
                    summary: Home needs a PIN
                    never: step == 'a' && !stored.pinSet
                  pin-kept:
                    always: stored.pinSet || step in ['a', 'done']
                  ends-after-a:
                    never: end == 'failure'
                    after: step == 'a'
                  done-after-a:
                    only: end == 'success'
                    after: step == 'a'
                """))
        #expect(found.isEmpty, "\(found)")
    }

    @Test(
        "misuse is refused at its place",
        arguments: [
            ("  x:\n    never: step ==", "expr.syntax 8:19"),
            ("  x:\n    never: stored.pinSat", "expr.undefined 8:12"),
            ("  x:\n    after: step == 'a'", "invariant.form 8:5"),
            ("  x:\n    never: step == 'a'\n    always: stored.pinSet", "invariant.form 9:5"),
            ("  x:\n    only: step == 'a'", "invariant.form 8:5"),
            ("  x:\n    never: step == 'b'", "step.unknown 8:20"),
            ("  x:\n    never: step in ['a', 'hme']", "step.unknown 8:20"),
            ("  x:\n    never: end == 'succes'", "step.unknown 8:19"),
            ("  x:\n    always: stored.pinSet == 1", "expr.type 8:27"),
            ("  x:\n    always: 3", "value.type 8:13"),
            ("  Pin_Home:\n    never: step == 'a'", "id.invalid 7:3"),
            ("  never-fails:\n    never: step == 'a'", "id.invalid 7:3"),
            ("  x:\n    never: step == 'a'\n    when: true", "key.unknown 9:5"),
        ])
    func misuse(_ invariants: String, _ expected: String) {
        let found = Self.errors(Self.journey(invariants))
        #expect(found.map(\.at) == [expected], "\(found)")
    }

    @Test("the messages say what to do")
    func messages() {
        let unknown = Self.errors(Self.journey("  x:\n    never: step == 'b'"))
        #expect(
            unknown.first?.message == "'b' is not a step or end of this journey; did you mean 'a'?", "\(unknown)")
        let typo = Self.errors(Self.journey("  x:\n    never: end == 'succes'"))
        #expect(typo.first?.message.contains("did you mean 'success'") == true, "\(typo)")
        let bare = Self.errors(Self.journey("  x:\n    after: step == 'a'"))
        #expect(bare.first?.message.contains("neither 'never', 'always' nor 'only'") == true, "\(bare)")
        let builtin = Self.errors(Self.journey("  never-fails:\n    never: step == 'a'"))
        #expect(builtin.first?.message.contains("explore.never-fails") == true, "\(builtin)")
    }

    @Test("'step' and 'end' are read only by invariants")
    func stepOutsideInvariants() {
        let text = Self.journey("  x:\n    never: step == 'a'").replacingOccurrences(
            of: "title: A,", with: "title: \"${step}\",")
        let found = Self.errors(text)
        #expect(found.map(\.at) == ["expr.undefined 13:25"], "\(found)")
        #expect(found.first?.message.contains("only where invariants are checked") == true, "\(found)")
    }

    @Test(
        "a step's 'verifies' mark: misuse refused",
        arguments: [
            ("    verifies: password\n", "value.type 13:15"),
            ("    verifies: credential\n", "verifies.outcomes 13:15"),
            ("    verifies: { credential: [went] }\n", "outcome.undeclared 13:30"),
            ("    verifies: { credential: [] }\n", "value.type 13:29"),
        ])
    func verifiesMisuse(_ mark: String, _ expected: String) {
        let found = Self.errors(Self.journey("  x:\n    never: step == 'a'", step: mark))
        #expect(found.map(\.at) == [expected], "\(found)")
    }

    @Test("a 'verifies' mark naming an outcome where nothing was verified is refused: it would fail open")
    func verifiesFailingOpen() {
        func errors(_ step: String) -> [String] {
            Self.errors(
                """
                journey: t.open
                version: 1
                title: Open
                stored:
                  pin: { type: string, secret: true }
                start: check
                steps:
                \(step)
                ends:
                  done: { kind: success }
                  out: { kind: failure }
                """
            ).map(\.at)
        }
        // Blocking the server signs in.
        #expect(
            errors(
                """
                  check:
                    handler: http.request
                    with: { method: POST, url: "https://api.example.org/verify" }
                    verifies: { credential: [ok, offline] }
                    on: { ok: done, failed: out, offline: done }
                """) == ["verifies.outcomes 11:34"])
        // A wrong PIN counted as verified.
        #expect(
            errors(
                """
                  check:
                    handler: pin.verify
                    with: { key: pin }
                    verifies: { credential: [correct, wrong] }
                    on: { correct: done, wrong: done, missing: out }
                """) == ["verifies.outcomes 11:39"])
        #expect(
            errors(
                """
                  check:
                    handler: http.request
                    with: { method: POST, url: "https://api.example.org/verify" }
                    verifies: { credential: [ok] }
                    on: { ok: done, failed: out, offline: out }
                """
            ).isEmpty)
    }

    @Test(
        "each form is caught on the shortest path, with the journey's summary",
        arguments: [
            (
                "invariant-never", "explore.home-before-pin", "invariant.pin-before-home", ["welcome: skip"],
                "home"
            ),
            (
                "invariant-always", "explore.retries-unbounded", "invariant.retries-bounded",
                ["code: retry", "code: retry", "code: retry"], "code"
            ),
            (
                "invariant-never-after", "explore.code-after-lock", "invariant.no-code-after-lock",
                ["otp: wrong", "locked: retry"], "otp"
            ),
            (
                "invariant-only-after", "explore.home-without-verify", "invariant.home-after-verify",
                ["welcome: guest"], "home"
            ),
        ] as [(String, String, String, [String], String)])
    func caught(_ file: String, _ id: String, _ invariant: String, _ path: [String], _ step: String) async throws {
        let result = try await Self.explore(try Self.fixture(file), id: id)
        #expect(result.violations.map(\.id) == [invariant], "\(result.violations.map(\.message))")
        let violation = try #require(result.violations.first)
        #expect(violation.invariant == nil && violation.declared?.id == invariant)
        #expect(violation.path.map(\.description) == path, "\(violation.path)")
        #expect(violation.step == step)
        #expect(violation.message.hasPrefix("is broken at step '\(step)': "), "\(violation.message)")
        #expect(violation.rule == violation.declared?.summary && violation.rule.count > 10)
    }

    @Test("a path remembers what held: a state after the lock is another state than before it")
    func bitIsPartOfTheState() async throws {
        // Success is reachable only through otp, whose state after the lock equals the first
        // one but for the bit: merged with it, the path would never be found.
        let text = try Self.fixture("invariant-never-after").replacingOccurrences(
            of: "    never: step == 'otp'\n", with: "    never: end == 'success'\n")
        let result = try await Self.explore(text, id: "explore.code-after-lock")
        let violation = try #require(result.violations.first, "\(result.states) states")
        #expect(violation.path.map(\.description) == ["otp: wrong", "locked: retry", "otp: right"])
        #expect(violation.message.contains("at end 'done'"), "\(violation.message)")
        // With an 'after' that never holds, the bit never differs, and the states are fewer.
        let plain = try await Self.explore(
            text.replacingOccurrences(of: "    after: step == 'locked'\n", with: "    after: false\n"),
            id: "explore.code-after-lock")
        #expect(plain.violations.isEmpty)
        #expect(result.states > plain.states, "\(result.states) \(plain.states)")
    }

    @Test("every form holds on every path of a journey that keeps them, restarts included")
    func holds() async throws {
        let result = try await Self.explore(try Self.fixture("invariants-hold"), id: "explore.invariants-hold")
        #expect(result.violations.isEmpty, "\(result.violations.map(\.message))")
        #expect(result.leftOut.isEmpty && !result.truncated && result.frontier == 0)
        #expect(result.unreached.isEmpty, "\(result.unreached)")
    }

    @Test("a success end reached without the credential step's verifying outcome")
    func credentialSkipped() async throws {
        let result = try await Self.explore(try Self.fixture("credential-skipped"), id: "explore.credential-skipped")
        let violation = try #require(result.violations.first)
        #expect(result.violations.count == 1)
        #expect(violation.invariant == .credentialBeforeSuccess)
        #expect(violation.path.map(\.description) == ["signIn: later", "home: done"], "\(violation.path)")
        #expect(
            violation.message
                == "success end 'done' is reached without passing a step that verifies a credential (signIn: accepted)",
            "\(violation.message)")
        // Declared as an exception, the rule is not watched.
        let excepted = try Self.fixture("credential-skipped").replacingOccurrences(
            of: "start: signIn\n",
            with: "exceptions:\n  explore.credential-before-success: the demo app has a guest mode\nstart: signIn\n")
        #expect(try await Self.explore(excepted, id: "explore.credential-skipped").violations.isEmpty)
    }

    @Test("the credential's message names the steps of called journeys that verify one too, with their journey")
    func credentialStepsOfCalledJourneys() async throws {
        let root = try Self.fixture("credential-skipped").replacingOccurrences(
            of: "refused: signIn, later: home }",
            with:
                "refused: recheck, later: home }\n  recheck:\n    call: explore.code-check\n    on: { ok: home, no: signIn }"
        )
        let callee = """
            journey: explore.code-check
            version: 1
            title: The code asked again
            start: code
            steps:
              code:
                handler: ui.screen
                verifies: { credential: [right] }
                screen: { title: Enter the code again, actions: { right: Right code, wrong: Wrong code } }
                on: { right: ok, wrong: no }
            ends:
              ok: { kind: success }
              no: { kind: failure }

            """
        let project = ProjectLoader(handlers: BuiltinHandlers.registry).load([
            SourceFile(path: "root.yaml", data: Data(root.utf8)),
            SourceFile(path: "callee.yaml", data: Data(callee.utf8)),
        ])
        let errors = project.diagnostics.items.filter { $0.severity == .error }
        try #require(errors.isEmpty, "\(errors)")
        let library = try #require(project.library)
        let result = await JourneyExplorer(library: library, device: JourneyExplorer.defaultDevice, bounds: .init())
            .explore(try #require(library["explore.credential-skipped"]))
        let violation = try #require(result.violations.first)
        #expect(violation.path.map(\.description) == ["signIn: later", "home: done"], "\(violation.path)")
        #expect(
            violation.message
                == "success end 'done' is reached without passing a step that verifies a credential (signIn: accepted; explore.code-check.code: right)",
            "\(violation.message)")
    }

    @Test(
        "a state found only when the app is opened again after a failure or a cancel is explored: a new PIN chosen at the next launch is caught, and written as sessions"
    )
    func nextLaunch() async throws {
        let project = ProjectLoader(handlers: BuiltinHandlers.registry).load([
            SourceFile(path: "j.yaml", data: Data(try Self.fixture("next-launch").utf8))
        ])
        let library = try #require(project.library)
        let journey = try #require(library["explore.next-launch"])
        var device = JourneyExplorer.defaultDevice
        device.store["pin"] = .secret(.string(try PinVault.seal(pin: "0420", rounds: 1)))
        let result = await JourneyExplorer(library: library, device: device).explore(journey)
        let violation = try #require(result.violations.first, "\(result.violations.map(\.message))")
        #expect(violation.invariant == .credentialBeforeSuccess)
        #expect(
            violation.path.map(\.description) == [
                "enterPin: forgot", "relaunch after resetLater", "choosePin: strong", "repeatPin: match",
            ], "\(violation.path)")
        let scenario = Counterexample.scenario(violation, of: result, journey: journey)
        #expect(scenario.contains("sessions:\n  - script:\n      - at: enterPin\n"), "\(scenario)")
        #expect(
            scenario.contains("    expect: { end: resetLater }\n  - script:\n      - at: choosePin\n"), "\(scenario)")
        // Opened again no more than the restarts allow: with none, the state is never found.
        let none = await JourneyExplorer(library: library, device: device, bounds: .init(restarts: 0)).explore(journey)
        #expect(none.violations.isEmpty, "\(none.violations.map(\.message))")
    }

    @Test(
        "pin.verify verifies a credential by its contract; where the steps alone keep success behind it, runs watch nothing"
    )
    func credentialFromTheContract() throws {
        let (library, _) = try ExplorerTests.library(["journeys/examples/pin-model.journey.yaml"])
        let journey = try #require(library["examples.pin-model"])
        #expect(journey.credentialSteps == ["locked": ["correct"]])
        #expect(InvariantMonitor(journey, library: library) == nil)
        let (skipping, _) = try ExplorerTests.library(["\(Self.fixtures)/credential-skipped.journey.yaml"])
        let skipped = try #require(skipping["explore.credential-skipped"])
        #expect(skipped.credentialSteps == ["signIn": ["accepted"]])
        #expect(InvariantMonitor(skipped, library: skipping)?.bits == [false])
    }

    @Test("a run that breaks an invariant fails, naming it; one that keeps them does not")
    func runtime() async throws {
        let (library, _) = try ExplorerTests.library(["\(Self.fixtures)/invariant-never.journey.yaml"])
        let journey = try #require(library["explore.home-before-pin"])
        func run(_ action: String) async -> RunResult {
            await JourneyRunner(configuration: .init(random: .seeded(0))).run(
                journey, in: library, device: JourneyExplorer.defaultDevice,
                driver: Script([["action": .string(action)], ["action": .string("done")]]), transcript: Drop()
            ).result
        }
        let broken = await run("skip")
        #expect(broken.end == nil)
        #expect(
            broken.failure
                == "invariant 'pin-before-home' is broken at step 'home': Home is never shown before a PIN is set (never: step == 'home' && !stored.pinSet)",
            "\(broken)")
        let kept = await run("setPin")
        #expect(kept.end == "done" && kept.failure == nil, "\(kept)")
    }

    /// A sign-in whose credential is checked in a sub-journey: the call step verifies, and a
    /// guard only the run can judge keeps the success end behind it.
    static let calledCredential = [
        SourceFile(
            path: "caller.yaml",
            data: Data(
                """
                journey: t.caller
                version: 1
                title: Caller
                state:
                  verified: { type: bool, default: false }
                start: decide
                steps:
                  decide:
                    handler: flow.decide
                    on:
                      next:
                        - if: state.verified
                          to: done
                        - else: check
                  check:
                    call: t.callee
                    verifies: { credential: [fine] }
                    on:
                      fine: { set: { state.verified: true }, to: decide }
                      refused: check
                ends:
                  done: { kind: success }
                """.utf8)),
        SourceFile(
            path: "callee.yaml",
            data: Data(
                """
                journey: t.callee
                version: 1
                title: Callee
                start: code
                steps:
                  code:
                    handler: ui.screen
                    screen: { title: Code, actions: { ok: OK, wrong: Wrong } }
                    on: { ok: fine, wrong: refused }
                ends:
                  fine: { kind: success }
                  refused: { kind: failure }
                """.utf8)),
    ]

    @Test(
        "a call step completes with the end its sub-journey returns: its transitions are taken, and one that verifies a credential counts"
    )
    func callStepCompletes() async throws {
        let (library, _) = try ExplorerTests.library(Self.calledCredential)
        let journey = try #require(library["t.caller"])
        // The static rule cannot see the guard: the run watches for the credential.
        #expect(InvariantMonitor(journey, library: library)?.bits == [false])
        let result = await JourneyExplorer(library: library, device: JourneyExplorer.defaultDevice).explore(journey)
        #expect(result.violations.isEmpty, "\(result.violations.map(\.message))")
        #expect(result.unreached.isEmpty, "\(result.unreached)")
        #expect(result.taken.contains(JourneyExplorer.Edge(step: "check", outcome: "fine")))
        #expect(result.taken.contains(JourneyExplorer.Edge(step: "check", outcome: "refused")))
        let run = await JourneyRunner(configuration: .init(random: .seeded(0))).run(
            journey, in: library, device: JourneyExplorer.defaultDevice,
            driver: Script([["action": .string("wrong")], ["action": .string("ok")]]), transcript: Drop()
        ).result
        #expect(run.end == "done" && run.failure == nil, "\(run)")
    }

    @Test("what 'after' saw outlives an app restart: the code asked again after one breaks the rule")
    func restartKeepsTheBit() async throws {
        let (library, _) = try ExplorerTests.library(["\(Self.fixtures)/invariant-never-after.journey.yaml"])
        let journey = try #require(library["explore.code-after-lock"])
        let result = await JourneyRunner(configuration: .init(random: .seeded(0))).run(
            journey, in: library, device: JourneyExplorer.defaultDevice,
            driver: Script(replies: [.input(["action": .string("wrong")]), .restart]), transcript: Drop()
        ).result
        #expect(
            result.failure?.hasPrefix("invariant 'no-code-after-lock' is broken at step 'otp'") == true, "\(result)")
        // Without the lock first, the same restart is no one's business.
        let fresh = await JourneyRunner(configuration: .init(random: .seeded(0))).run(
            journey, in: library, device: JourneyExplorer.defaultDevice, driver: Script(replies: [.restart]),
            transcript: Drop()
        ).result
        #expect(fresh.failure == nil && fresh.waiting == "otp", "\(fresh)")
    }
}

/// Gives the replies in order, then leaves the run waiting.
private final class Script: InputDriver {
    private var replies: [DriverReply]
    init(_ inputs: [[String: Value]]) { self.replies = inputs.map { .input($0) } }
    init(replies: [DriverReply]) { self.replies = replies }
    nonisolated(nonsending) func next(for request: InputRequest) async throws -> DriverReply {
        guard !replies.isEmpty else { throw RunInterruption.waiting }
        return replies.removeFirst()
    }
}

private final class Drop: TranscriptSink, @unchecked Sendable {
    func record(_ record: TranscriptRecord) {}
}
