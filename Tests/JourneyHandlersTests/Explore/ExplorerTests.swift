import Foundation
import JourneyTestSupport
import Synchronization
import Testing

@testable import JourneyCore
@testable import JourneyHandlers

/// `journey explore` through the real interpreter and handlers, measured against the reference
/// peers' model of the same PIN journey (explore_model.py): the same states, the same
/// transitions, and the same shortest counterexample for the planted bug.
@Suite("Exploring every path of a journey")
struct ExplorerTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The library of the given journey files (paths from the repository's root).
    static func library(_ paths: [String]) throws -> (CompiledLibrary, Project) {
        try library(
            paths.map { SourceFile(path: $0, data: try Data(contentsOf: root.appendingPathComponent($0))) })
    }

    /// The library of these sources, which must load without an error, with the built-in
    /// handlers and `handlers` of a test's own.
    static func library(
        _ sources: [SourceFile], adding handlers: [any StepHandler] = []
    ) throws -> (CompiledLibrary, Project) {
        let project = ProjectLoader(handlers: try BuiltinHandlers.registry.adding(handlers)).load(sources)
        let errors = project.diagnostics.items.filter { $0.severity == .error }
        try #require(errors.isEmpty, "\(errors)")
        return (try #require(project.library), project)
    }

    /// Explores journey `id`, written as `yaml`, with the built-in handlers and `handlers`.
    static func explore(
        yaml: String, id: String, adding handlers: [any StepHandler]
    ) async throws -> JourneyExplorer.Result {
        let (library, _) = try library([SourceFile(path: "j.yaml", data: Data(yaml.utf8))], adding: handlers)
        return await JourneyExplorer(library: library, device: JourneyExplorer.defaultDevice)
            .explore(try #require(library[id]))
    }

    static func explore(
        _ path: String, id: String, bounds: JourneyExplorer.Bounds = .init()
    ) async throws -> JourneyExplorer.Result {
        let (library, _) = try library([path])
        let journey = try #require(library[id])
        return await JourneyExplorer(library: library, device: JourneyExplorer.defaultDevice, bounds: bounds)
            .explore(journey)
    }

    @Test("the PIN model journey has the peers' 45 states and 140 transitions, and no violation")
    func peersCounts() async throws {
        let result = try await Self.explore("journeys/examples/pin-model.journey.yaml", id: "examples.pin-model")
        #expect(result.violations.isEmpty, "\(result.violations.map { "\($0.id): \($0.message) \($0.path)" })")
        #expect(result.leftOut.isEmpty, "\(result.leftOut)")
        #expect(
            (result.states, result.transitions, result.depth) == (45, 140, 8),
            "\(result.states) \(result.transitions) \(result.depth)")
        #expect(result.clockJumps == [300_000])
    }
}

extension ExplorerTests {
    @Test("with 1 000 restarts and depth 2 000: the peers' 15 015 states and 51 038 transitions")
    func peersLargeCounts() async throws {
        let result = try await Self.explore(
            "journeys/examples/pin-model.journey.yaml", id: "examples.pin-model",
            bounds: .init(depth: 2000, restarts: 1000))
        #expect(result.violations.isEmpty)
        #expect(
            (result.states, result.transitions, result.depth) == (15_015, 51_038, 1006),
            "\(result.states) \(result.transitions) \(result.depth)")
    }

    @Test("the planted bug: a restart resets the count, found in the peers' five moves")
    func plantedBug() async throws {
        let result = try await Self.explore(
            "Tests/Fixtures/explore/pin-model-bug.journey.yaml", id: "examples.pin-model-bug")
        let violation = try #require(
            result.violations.first { $0.invariant == .counterSurvives },
            "\(result.states) \(result.violations.map { "\($0.id) \($0.message)" })")
        #expect(
            violation.path.map(\.description) == [
                "create: strong", "repeat: match", "biometry: allow", "locked: wrong", "restart",
            ], "\(violation.path)")
        #expect(violation.message.contains("from 1 to 0"), "\(violation.message)")
    }
}

/// A handler that issues a code and gives it back as data its contract does not declare
/// secret: a journey that keeps it secret and shows it anyway leaks it.
struct IssuingHandler: StepHandler {
    let contract = HandlerContract(
        id: "test.issue", summary: "Issues a code.",
        outcomes: [OutcomeSpec(name: "issued", summary: "", data: [DataSpec(name: "code", type: TypeInfo(.string))])])

    nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        HandlerResult("issued", data: ["code": .string("271828")])
    }
}

/// A handler with a mistake: its contract declares no input, and it asks for some anyway.
struct MuteHandler: StepHandler {
    let contract = HandlerContract(
        id: "test.mute", summary: "Asks, though its contract says it takes nothing.",
        outcomes: [OutcomeSpec(name: "done", summary: "")])

    nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        _ = try await context.input(invocation.request())
        return HandlerResult("done")
    }
}

extension ExplorerTests {
    @Test("a way round an attempt limit is caught: 'Forgot PIN?' clears the count, so the lock is never reached")
    func dodgedLimit() async throws {
        let result = try await Self.explore("Tests/Fixtures/explore/dodge.journey.yaml", id: "explore.dodge")
        let violation = try #require(
            result.violations.first { $0.invariant == .exceededTarget },
            "\(result.violations.map { "\($0.id) \($0.message)" })")
        #expect(
            violation.path.map(\.description) == [
                "choosePin: strong", "enterPin: wrong", "enterPin: forgot",
            ], "\(violation.path)")
        #expect(violation.message.contains("limit 'pinEntry' from 1 to 0"), "\(violation.message)")
        #expect(violation.expected?.value == 1)
        // Counted wrong PINs and a right one lower it too, as the limit says: those are no way round.
        let unlock = try await Self.explore("journeys/examples/unlock.journey.yaml", id: "examples.unlock")
        #expect(!unlock.violations.contains { $0.invariant == .exceededTarget }, "\(unlock.violations)")
    }

    @Test(
        "a limit set back when spent that leads back to the same check buys round after round: the next try is caught, on the pad, after the app is opened again or killed; the PIN wiped first starts a fair round"
    )
    func roundAfterRound() async throws {
        let dodge = try String(contentsOfFile: "Tests/Fixtures/explore/dodge.journey.yaml", encoding: .utf8)
        // No "Forgot PIN?", and the limit, spent, sets the count back (no keep, no lockout).
        let plain = dodge.replacingOccurrences(
            of: "      actions: { forgot: Forgot PIN? }\n", with: ""
        ).replacingOccurrences(
            of: "      forgot:\n        set: { stored.failures: 0 }\n        to: enterPin\n", with: "")
        let kept = "    keep: true      # the lock stays: opening the app again buys no more tries\n"
        #expect(plain.contains(kept))
        func violations(_ yaml: String) async throws -> [JourneyExplorer.Violation] {
            try await Self.explore(yaml: yaml, id: "explore.dodge", adding: []).violations
        }
        // With 'keep: true' the count stays spent: the next launch locks again at once.
        #expect(try await violations(plain).isEmpty, "a limit that keeps its lock is no way round")
        let setBack = plain.replacingOccurrences(of: kept, with: "")
        // Spent, it leads to a failure end; the app opened again shows the pad with the count set back.
        let reopened = try #require(try await violations(setBack).first)
        #expect(reopened.id == "explore.exceeded-target")
        #expect(
            reopened.path.map(\.description).suffix(2) == ["relaunch after locked", "enterPin: wrong"],
            "\(reopened.path)")
        // Spent, it leads back to the pad at once.
        let back = try #require(
            try await violations(setBack.replacingOccurrences(of: "exceeded: locked", with: "exceeded: enterPin")).first
        )
        #expect(back.id == "explore.exceeded-target")
        #expect(
            back.path.map(\.description) == [
                "choosePin: strong", "enterPin: wrong", "enterPin: wrong", "enterPin: wrong", "enterPin: wrong",
            ], "\(back.path)")
        #expect(back.message.contains("tries limit 'pinEntry' again after the path spent it"), "\(back.message)")
        #expect(back.expected?.value == 3)
        // Spent, it asks for a new PIN; but the app killed there opens at the pad, the old PIN
        // still sealed, the count set back.
        let asked = setBack.replacingOccurrences(of: "exceeded: locked", with: "exceeded: choosePin")
        #expect(
            try await violations(asked).first?.path.map(\.description).suffix(2) == ["restart", "enterPin: wrong"])
        // The old PIN wiped first, the new one is a new secret: a fair round.
        let wiped = asked.replacingOccurrences(of: "exceeded: choosePin", with: "exceeded: wipe")
            .replacingOccurrences(
                of: "  choosePin:\n",
                with: "  wipe:\n    handler: session.clear\n    on: { cleared: choosePin }\n  choosePin:\n")
        #expect(try await violations(wiped).map(\.message).isEmpty)
        // Spent, it asks for the PUK, and the app opens there until the PUK is given: whoever
        // passes that check starts a fair round, even at the same PIN.
        let puk = setBack.replacingOccurrences(
            of: "exceeded: locked", with: "exceeded: { set: { stored.mustPUK: true }, to: puk }"
        ).replacingOccurrences(of: "start: enterPin", with: "start: launch").replacingOccurrences(
            of: "  failures: { type: int, default: 0 }\n",
            with: "  failures: { type: int, default: 0 }\n  mustPUK: { type: bool, default: false }\n"
                + "params:\n  puk: { type: string, secret: true, default: \"31415926\" }\n"
        ).replacingOccurrences(
            of: "  choosePin:\n",
            with: """
                  launch:
                    handler: flow.decide
                    on: { next: [{ if: stored.mustPUK, to: puk }, { else: enterPin }] }
                  puk:
                    handler: ui.pin
                    with: { length: 8, expected: "${params.puk}" }
                    verifies: { credential: [correct] }
                    on: { correct: { set: { stored.mustPUK: false }, to: enterPin }, wrong: puk }
                  choosePin:

                """)
        #expect(try await violations(puk).map(\.message).isEmpty)
    }

    @Test(
        "a way round the limit that changes something else on the way (a count of its own, a timed notice under a lockout) is caught"
    )
    func dodgesThatChangeSomethingElse() async throws {
        let dodge = try String(contentsOfFile: "Tests/Fixtures/explore/dodge.journey.yaml", encoding: .utf8)
        func explored(_ yaml: String) async throws -> [String] {
            try await Self.explore(yaml: yaml, id: "explore.dodge", adding: []).violations.map(\.id)
        }
        // "Forgot PIN?" also counts how often tips were shown: the PIN it guards is the same.
        let counting = dodge.replacingOccurrences(
            of: "set: { stored.failures: 0 }", with: "set: { stored.failures: 0, stored.tips: \"${stored.tips + 1}\" }"
        ).replacingOccurrences(
            of: "  failures: { type: int, default: 0 }\n",
            with: "  failures: { type: int, default: 0 }\n  tips: { type: int, default: 0 }\n")
        #expect(try await explored(counting).contains("explore.exceeded-target"))
        // Under a lockout, a notice that clears the count when it times out: waiting five
        // seconds buys the tries the lockout was to take away, though it never locked.
        let timed = dodge.replacingOccurrences(
            of: "      wrong: enterPin\n", with: "      wrong: notice\n"
        ).replacingOccurrences(
            of: "  choosePin:\n",
            with: """
                  notice:
                    handler: ui.screen
                    with: { timeout: 5s }
                    screen: { title: Wrong PIN, actions: { retry: Try again } }
                    on:
                      retry: enterPin
                      timeout: { set: { stored.failures: 0 }, to: enterPin }
                  choosePin:

                """
        ).replacingOccurrences(
            of: "    exceeded: locked\n",
            with: "    exceeded: locked\n    lockout: 15m\n    lockedUntil: stored.lockedUntil\n"
        ).replacingOccurrences(
            of: "  failures: { type: int, default: 0 }\n",
            with: "  failures: { type: int, default: 0 }\n  lockedUntil: { type: int, default: 0 }\n")
        #expect(try await explored(timed).contains("explore.counter-survives"))
    }

    @Test(
        "a count set back after another credential is passed (a PUK after 'Forgot PIN?') is no way round; after a wrong one it is"
    )
    func countSetBackAfterAnotherCredential() async throws {
        let dodge = try String(contentsOfFile: "Tests/Fixtures/explore/dodge.journey.yaml", encoding: .utf8)
        // The dodge journey whose "Forgot PIN?" asks for the PUK (a param) at these steps, the
        // PUK's named `puk`; the violations its exploration finds.
        func explored(pukSteps steps: String) async throws -> [String] {
            let yaml = dodge.replacingOccurrences(
                of: "      forgot:\n        set: { stored.failures: 0 }\n        to: enterPin\n",
                with: "      forgot: puk\n"
            ).replacingOccurrences(of: "  choosePin:\n", with: steps + "\n  choosePin:\n").replacingOccurrences(
                of: "  failures: { type: int, default: 0 }\n",
                with:
                    "  failures: { type: int, default: 0 }\nparams:\n  puk: { type: string, secret: true, default: \"31415926\" }\n"
            )
            return try await Self.explore(yaml: yaml, id: "explore.dodge", adding: []).violations.map(\.id)
        }
        func puk(_ on: String) -> String {
            """
              puk:
                handler: ui.pin
                with: { length: 8, expected: "${params.puk}" }
                verifies: { credential: [correct] }
                on: \(on)
            """
        }
        let setBack = "{ set: { stored.failures: 0 }, to: enterPin }"
        // Whoever knows the PUK could choose a new PIN anyway.
        #expect(
            try await !explored(pukSteps: puk("{ correct: \(setBack), wrong: enterPin }")).contains(
                "explore.exceeded-target"))
        #expect(
            try await explored(pukSteps: puk("{ correct: enterPin, wrong: \(setBack) }")).contains(
                "explore.exceeded-target"))
        // So could whoever is on the screen only the right PUK leads to, a move later.
        let afterPUK = try await explored(
            pukSteps: puk("{ correct: confirmed, wrong: enterPin }") + """

                  confirmed:
                    handler: ui.screen
                    screen: { title: PUK accepted, actions: { go: Continue } }
                    on: { go: \(setBack) }
                """)
        #expect(!afterPUK.contains("explore.exceeded-target"), "\(afterPUK)")
    }

    @Test(
        "a spent limit given back is caught: a 'Try again' that clears the count, an 'exceeded' that clears the lockout"
    )
    func spentLimitGivenBack() async throws {
        func explored(
            _ limit: String, tooMany: String, retry: String = "Try again"
        ) async throws -> [JourneyExplorer.Violation] {
            let yaml = """
                journey: t.spent
                version: 1
                title: Spent
                stored:
                  pin: { type: string, secret: true }
                  failures: { type: int, default: 0 }
                  lockedUntil: { type: int, default: 0 }
                limits:
                  pinEntry:
                    max: 3
                    counter: stored.failures
                \(limit)
                start: enterPin
                steps:
                  enterPin:
                    handler: pin.verify
                    with: { key: pin, length: 4 }
                    attempts: { limit: pinEntry, counts: [wrong], resets: [correct] }
                    on: { correct: unlocked, wrong: enterPin, missing: choosePin }
                  tooMany:
                    handler: ui.screen
                    screen: { title: Too many wrong PINs, actions: { retry: \(retry), signIn: Sign in } }
                    on:
                      signIn: out
                      retry: \(tooMany)
                  choosePin:
                    handler: pin.entry
                    with: { length: 4 }
                    on: { entered: { set: { state.newPin: "${outcome.pin}" }, to: savePin } }
                  savePin:
                    handler: pin.save
                    with: { key: pin, pin: "${state.newPin}" }
                    on: { saved: enterPin }
                state:
                  newPin: { type: string, secret: true }
                ends:
                  unlocked: { kind: success }
                  out: { kind: failure }
                """
            return try await Self.explore(yaml: yaml, id: "t.spent", adding: []).violations
        }
        let kept = "    exceeded: tooMany\n    keep: true"
        // Kept spent, "Try again" shows the screen it leads to again: nothing bought.
        #expect(try await explored(kept, tooMany: "tooMany").isEmpty)
        // "Try again" that clears the count: three more tries each round.
        let cleared = try await explored(kept, tooMany: "{ set: { stored.failures: 0 }, to: enterPin }")
        #expect(cleared.map(\.id) == ["explore.exceeded-target"], "\(cleared.map(\.message))")
        #expect(cleared.first?.message.contains("spent, from 3 to 0") == true, "\(cleared.map(\.message))")
        #expect(
            cleared.first?.path.map(\.description) == [
                "choosePin: strong", "enterPin: wrong", "enterPin: wrong", "enterPin: wrong", "tooMany: retry",
            ])
        // A 15-minute lockout, as the limit keeps it: clean; its end cleared when exceeded: caught.
        let lockout = "    lockout: 15m\n    lockedUntil: stored.lockedUntil\n    exceeded:"
        #expect(try await explored(lockout + " tooMany", tooMany: "enterPin").isEmpty)
        let unlocked = try await explored(
            lockout + "\n      set: { stored.lockedUntil: 0 }\n      to: tooMany", tooMany: "enterPin")
        #expect(unlocked.map(\.id) == ["explore.exceeded-target"], "\(unlocked.map(\.message))")
        #expect(unlocked.first?.message.contains("with no lockout running") == true, "\(unlocked.map(\.message))")
        // Kept at its maximum while the lockout runs: once it has ended, the pad entered again
        // (the app opened again after the wait included) starts the count afresh, as documented.
        #expect(try await explored(lockout + " tooMany\n    keep: true", tooMany: "enterPin").isEmpty)
        // "Try again" while the lockout runs: setting the count back buys nothing while the
        // lockout's end is kept (the pad, entered, leads to `exceeded` until it passes)...
        let keptLocked = lockout + " tooMany\n    keep: true"
        #expect(try await explored(keptLocked, tooMany: "{ set: { stored.failures: 0 }, to: enterPin }").isEmpty)
        // ...and clearing the end with the count left spent locks again at once; but clearing
        // both, or the end where `exceeded` set the count back, gives the tries back early.
        #expect(try await explored(keptLocked, tooMany: "{ set: { stored.lockedUntil: 0 }, to: enterPin }").isEmpty)
        let clearsBoth = "{ set: { stored.failures: 0, stored.lockedUntil: 0 }, to: enterPin }"
        for (limit, retry) in [
            (keptLocked, clearsBoth), (lockout + " tooMany", clearsBoth),
            (lockout + " tooMany", "{ set: { stored.lockedUntil: 0 }, to: enterPin }"),
        ] {
            let early = try await explored(limit, tooMany: retry)
            #expect(early.map(\.id) == ["explore.exceeded-target"], "\(limit) \(retry): \(early.map(\.message))")
            #expect(early.first?.message.contains("ends the lockout of") == true, "\(early.map(\.message))")
            #expect(early.first?.path.last?.description == "tooMany: retry", "\(early.map(\.path))")
            #expect(early.first?.expected?.variable.name == "lockedUntil", "\(early.map(\.expected))")
        }
        // A "Try again" shown only once the lockout has ended, setting the count back: clean.
        #expect(
            try await explored(
                lockout + " tooMany", tooMany: clearsBoth,
                retry: "{ label: Try again, enabled: \"${!limits.pinEntry.locked}\" }"
            ).isEmpty)
    }

    @Test("ages a guard computes from a duration (three resend periods) are told apart: the trap after them is found")
    func computedDurationHorizon() async throws {
        func explored(_ guardText: String) async throws -> [JourneyExplorer.Violation] {
            let yaml = """
                journey: t.periods
                version: 1
                title: A code screen that closes after three resend periods
                params: { wait: { type: duration, default: 5m } }
                state: { sentAt: { type: int, default: 0 } }
                start: send
                steps:
                  send:
                    handler: flow.decide
                    on: { next: [ { else: { set: { state.sentAt: "${device.now}" }, to: code } } ] }
                  code:
                    handler: ui.screen
                    screen:
                      title: Enter the code
                      actions: { ok: { label: OK, enabled: "${\(guardText)}" } }
                    on: { ok: done }
                ends: { done: { kind: success } }
                """
            return try await Self.explore(yaml: yaml, id: "t.periods", adding: []).violations
        }
        let threePeriods = ["clock +5m", "clock +5m", "clock +5m"]
        for (guardText, path) in [
            ("since(state.sentAt) < params.wait * 3", threePeriods), ("since(state.sentAt) < 5m * 3", threePeriods),
            // 900 s as an int beside the 5m the journey writes: a jump of its own, and ages up
            // to 15 minutes (before, they were held to 5m and the trap was missed).
            ("since(state.sentAt) < params.wait || device.now - state.sentAt < 900", ["clock +15m"]),
        ] {
            let found = try await explored(guardText)
            #expect(found.map(\.id) == ["explore.reaches-an-end"], "\(guardText): \(found.map(\.message))")
            #expect(found.first?.path.map(\.description) == path, "\(guardText)")
            // The button is off for good: the trap is said as such, not as a loop.
            #expect(
                found.first?.message.hasSuffix(
                    "nothing can be done here (no action enabled, no input taken), and waiting changes nothing")
                    == true,
                "\(found.map(\.message))")
        }
        #expect(try await explored("true").isEmpty)
    }

    @Test("a journey that reads the clock but writes no duration says that time passing is not played")
    func clockReadWithoutDuration() async throws {
        func explored(_ enabled: String, sent: String = "${device.now}") async throws -> JourneyExplorer.Result {
            let yaml = """
                journey: t.seconds
                version: 1
                title: A code screen that counts seconds as a number
                state: { sentAt: { type: int, default: 0 } }
                start: send
                steps:
                  send:
                    handler: flow.decide
                    on: { next: [ { else: { set: { state.sentAt: "\(sent)" }, to: code } } ] }
                  code:
                    handler: ui.screen
                    screen: { title: Enter the code, actions: { ok: { label: OK, enabled: "${\(enabled)}" } } }
                    on: { ok: done }
                ends: { done: { kind: success } }
                """
            return try await Self.explore(yaml: yaml, id: "t.seconds", adding: [])
        }
        let numbers = try await explored("device.now > state.sentAt")
        #expect(numbers.clockJumps.isEmpty)
        #expect(numbers.leftOut == [.clockUnjumped(journey: "t.seconds")], "\(numbers.leftOut)")
        // Seconds written as an int against the clock are a wait like a duration: jumped by,
        // and ages told apart up to it, so the screen closed after 900 s is found.
        for guardText in ["device.now - state.sentAt < 900", "state.sentAt + 900 > device.now"] {
            let seconds = try await explored(guardText)
            #expect(seconds.clockJumps == [900_000], "\(guardText)")
            #expect(seconds.leftOut.isEmpty, "\(guardText): \(seconds.leftOut)")
            #expect(seconds.violations.map(\.id) == ["explore.reaches-an-end"], "\(guardText)")
            #expect(seconds.violations.first?.path.map(\.description) == ["clock +15m"], "\(guardText)")
        }
        // A date is the calendar's, not a wait: no jump of decades.
        #expect(try await explored("device.now < 1767312000").clockJumps.allSatisfy { $0 < 31_536_000_000 })
        // A duration written gives the jumps; a journey that never reads the clock needs none.
        #expect(try await explored("since(state.sentAt) < 15m").leftOut.isEmpty)
        #expect(try await explored("state.sentAt > 0", sent: "${1}").leftOut.isEmpty)
    }

    @Test("a count started afresh past a credential verified in a called journey is no way round the limit")
    func limitAfterCalledSignIn() async throws {
        let password = """
            journey: t.password
            version: 1
            title: The account password asked again
            start: ask
            steps:
              ask:
                handler: ui.screen
                verifies: { credential: [accepted] }
                screen: { title: Your account password, actions: { accepted: Accepted, refused: Refused, back: Back } }
                on: { accepted: ok, refused: ask, back: back }
            ends:
              ok: { kind: success }
              back: { kind: cancel }
            """
        func explored(_ back: String) async throws -> [JourneyExplorer.Violation] {
            let app = """
                journey: t.app
                version: 1
                title: Forgot PIN asks for the password
                state:
                  newPin: { type: string, secret: true }
                stored:
                  pin: { type: string, secret: true }
                  failures: { type: int, default: 0 }
                limits:
                  pinEntry: { max: 3, counter: stored.failures, exceeded: out, keep: true }
                start: enterPin
                steps:
                  enterPin:
                    handler: pin.verify
                    with: { key: pin, length: 4 }
                    screen: { title: PIN, actions: { forgot: Forgot PIN? } }
                    attempts: { limit: pinEntry, counts: [wrong], resets: [correct] }
                    on: { correct: unlocked, wrong: enterPin, missing: choosePin, forgot: reauth }
                  reauth:
                    call: t.password
                    on:
                      ok: { set: { stored.failures: 0 }, to: enterPin }
                      back: \(back)
                  choosePin:
                    handler: pin.entry
                    with: { length: 4 }
                    on: { entered: { set: { state.newPin: "${outcome.pin}" }, to: savePin } }
                  savePin:
                    handler: pin.save
                    with: { key: pin, pin: "${state.newPin}" }
                    on: { saved: enterPin }
                ends:
                  unlocked: { kind: success }
                  out: { kind: failure }
                """
            let (library, _) = try Self.library([
                SourceFile(path: "app.yaml", data: Data(app.utf8)),
                SourceFile(path: "password.yaml", data: Data(password.utf8)),
            ])
            return await JourneyExplorer(library: library, device: JourneyExplorer.defaultDevice)
                .explore(try #require(library["t.app"])).violations
        }
        #expect(try await explored("enterPin").isEmpty)
        // Set back without the password: going round buys tries.
        let dodged = try await explored("{ set: { stored.failures: 0 }, to: enterPin }")
        #expect(dodged.map(\.id) == ["explore.exceeded-target"], "\(dodged.map(\.message))")
        #expect(dodged.first?.path.last?.description == "ask: back", "\(dodged.map(\.path))")
    }

    @Test("invariants broken at the same place are all reported: a journey's own never hides a built-in one")
    func everyInvariantBrokenThereIsReported() async throws {
        let skipped = try String(
            contentsOfFile: "Tests/Fixtures/explore/credential-skipped.journey.yaml", encoding: .utf8)
        let yaml = skipped.replacingOccurrences(
            of: "start: signIn\n",
            with:
                "invariants:\n  home-after-code:\n    only: end == 'success'\n    after: step == 'home'\nstart: signIn\n"
        ).replacingOccurrences(
            of: "    on: { done: done }",
            with: "    on: { done: done }\n  skip:\n    handler: flow.decide\n    on: { next: done }"
        ).replacingOccurrences(of: "later: home }", with: "later: home, skip: skip }").replacingOccurrences(
            of: "later: Later }", with: "later: Later, skip: Skip }")
        let result = try await Self.explore(yaml: yaml, id: "explore.credential-skipped", adding: [])
        // 'Skip' reaches the success end at once: both rules break there, on the one move.
        let broken = result.violations.filter { $0.path.map(\.description) == ["signIn: skip"] }.map(\.id)
        #expect(
            Set(broken) == ["invariant.home-after-code", "explore.credential-before-success"],
            "\(result.violations.map { "\($0.id) \($0.path)" })")
    }

    /// A help sheet whose way back works once: a trap once it has been used.
    static let helpSheet = """
        journey: t.help
        version: 1
        title: A help sheet whose way back works once
        stored:
          seen: { type: int, default: 0 }
        start: home
        steps:
          home:
            handler: ui.screen
            screen: { actions: { go: Go, help: Help } }
            on: { go: done, help: help }
          help:
            handler: ui.screen
            screen:
              title: Help
              actions: { more: More help, back: { label: Back, enabled: "${stored.seen < 1}" } }
            on:
              more: help
              back: { set: { stored.seen: "${stored.seen + 1}" }, to: home }
        ends:
          done: { kind: success }
        """

    @Test("a screen only killing the app leaves is a trap, found on the shortest path, not once the restarts run out")
    func trapLeftOnlyByARestart() async throws {
        let result = try await Self.explore(yaml: Self.helpSheet, id: "t.help", adding: [])
        let trap = try #require(result.violations.first { $0.invariant == .reachesAnEnd }, "\(result.violations)")
        #expect(trap.path.map(\.description) == ["home: help", "help: back", "home: help"], "\(trap.path)")
        #expect(trap.message.contains("but by killing the app"), "\(trap.message)")
        // "More help" keeps the user there: the message names where the way goes round.
        #expect(
            trap.message.hasSuffix("every way on loops back without finishing, among step 'help'"), "\(trap.message)")
    }

    @Test("a trap of several steps names the steps its ways go round")
    func trapNamesItsLoop() async throws {
        let yaml = """
            journey: t.loop
            version: 1
            title: Two screens that send the user to each other once a code has been asked for
            state: { asked: { type: bool, default: false } }
            start: intro
            steps:
              intro:
                handler: ui.screen
                screen: { title: Intro, actions: { done: Done, code: Code } }
                on:
                  done: [ { if: "!state.asked", to: fin }, { else: intro } ]
                  code: { set: { state.asked: true }, to: first }
              first:
                handler: ui.screen
                screen: { title: First, actions: { next: Next } }
                on: { next: second }
              second:
                handler: ui.screen
                screen: { title: Second, actions: { back: Back, home: Home } }
                on: { back: first, home: intro }
            ends:
              fin: { kind: success }
            """
        let result = try await Self.explore(yaml: yaml, id: "t.loop", adding: [])
        let trap = try #require(result.violations.first { $0.invariant == .reachesAnEnd }, "\(result.violations)")
        #expect(trap.path.map(\.description) == ["intro: code"], "\(trap.path)")
        #expect(
            trap.message.hasSuffix("every way on loops back without finishing, among steps 'first', 'intro', 'second'"),
            "\(trap.message)")
    }

    @Test("a secret that reaches the transcript on some path is caught, and named without being shown")
    func secretLeak() async throws {
        let journey = """
            journey: t.echo
            version: 1
            title: A code echoed back
            state:
              shown: { type: string, default: "" }
            start: code
            steps:
              code:
                handler: test.echo
                screen: { title: Your code }
                on:
                  done:
                    set: { state.shown: "${outcome.shown}" }
                    to: finished
            ends:
              finished: { kind: success }
            """
        let result = try await Self.explore(yaml: journey, id: "t.echo", adding: [EchoingHandler()])
        let violation = try #require(result.violations.first { $0.invariant == .noSecretLeak }, "\(result.violations)")
        #expect(violation.path.map(\.description) == ["code: any"])
        #expect(
            violation.message.contains("what was typed into 'code' at step 'code', a secret"), "\(violation.message)")
        #expect(!violation.message.contains("314159"))
        // Declared broken on purpose, it is not looked for.
        let excepted = journey.replacingOccurrences(
            of: "start: code", with: "exceptions:\n  explore.no-secret-leak: a demo on purpose\nstart: code")
        let quiet = try await Self.explore(yaml: excepted, id: "t.echo", adding: [EchoingHandler()])
        #expect(quiet.violations.isEmpty, "\(quiet.violations)")
    }

    @Test("a secret a move sets, shown by the same move, is caught though the state before kept none")
    func secretSetAndShown() async throws {
        let journey = """
            journey: t.issue
            version: 1
            title: A code issued, kept secret, and shown anyway
            state:
              code: { type: string, secret: true, default: "" }
              shown: { type: string, default: "" }
            start: welcome
            steps:
              welcome:
                handler: ui.screen
                screen:
                  title: Welcome
                  actions: { next: Next }
                on:
                  next: issue
              issue:
                handler: test.issue
                on:
                  issued:
                    set: { state.code: "${outcome.code}", state.shown: "${outcome.code}" }
                    to: show
              show:
                handler: ui.screen
                screen:
                  title: "Your code: ${state.shown}"
                  actions: { done: Done }
                on:
                  done: finished
            ends:
              finished: { kind: success }
            """
        let result = try await Self.explore(yaml: journey, id: "t.issue", adding: [IssuingHandler()])
        let violation = try #require(result.violations.first { $0.invariant == .noSecretLeak }, "\(result.violations)")
        #expect(violation.path.map(\.description) == ["welcome: next"], "\(violation.path)")
        #expect(violation.message.contains("state.code of t.issue, a secret"), "\(violation.message)")
        #expect(!violation.message.contains("271828"))
    }

    @Test("a handler that asks for input its contract does not declare fails its step, saying so")
    func undeclaredAsk() async throws {
        let journey = """
            journey: t.mute
            version: 1
            title: A step that asks though it says it takes nothing
            start: ask
            steps:
              ask:
                handler: test.mute
                on:
                  done: finished
            ends:
              finished: { kind: success }
            """
        let result = try await Self.explore(yaml: journey, id: "t.mute", adding: [MuteHandler()])
        let violation = try #require(result.violations.first { $0.invariant == .neverFails }, "\(result.violations)")
        #expect(violation.path.isEmpty, "\(violation.path)")
        #expect(
            violation.message.contains(
                "handler 'test.mute' failed: it asked for input, but its contract declares none"),
            "\(violation.message)")
    }

    @Test("time away at a step that waits in the background is told apart: coming back after five minutes locks")
    func timeAtStep() async throws {
        let result = try await Self.explore(
            "Tests/Fixtures/explore/away.journey.yaml", id: "t.away", bounds: .init(clockJumps: [300_000]))
        let violation = try #require(result.violations.first, "\(result.states)")
        #expect(violation.id == "invariant.never-locked")
        // The handler starts again at every move; the step's own entry time says how long it waited.
        #expect(violation.path.map(\.description) == ["clock +5m", "away: foreground"], "\(violation.path)")
    }

    @Test("a PIN that reads as a number the transcript shows (a clock jump of 2 580 ms) is not a leak")
    func secretLikeANumber() async throws {
        // The explorer's PIN is 2580, and the screen waits 2580 ms: the jump's record says 2580.
        let journey = """
            journey: t.clock
            version: 1
            title: A PIN kept while time passes
            params:
              note: { type: string, default: idle }
            state:
              pin: { type: string, secret: true, default: "" }
            start: choose
            steps:
              choose:
                handler: pin.entry
                with: { length: 4 }
                screen: { title: Choose a PIN }
                on:
                  entered:
                    set: { state.pin: "${outcome.pin}" }
                    to: wait
              wait:
                handler: ui.screen
                with: { timeout: 2580ms }
                screen:
                  title: Waiting
                  text: "Status: ${params.note}"
                  actions: { done: Done }
                on:
                  timeout: wait
                  done: finished
            ends:
              finished: { kind: success }
            """
        let result = try await Self.explore(yaml: journey, id: "t.clock", adding: [])
        #expect(result.clockJumps == [2580])
        #expect(result.violations.isEmpty, "\(result.violations.map(\.message))")
        // The same PIN in an event's text is found, and only there: not in its numbers, nor
        // inside a longer number.
        func shows(_ event: TranscriptEvent) -> Bool {
            var pin = "2580"
            return pin.withUTF8 { needle in
                event.containsText { text in
                    var text = text
                    return text.withUTF8 { JourneyExplorer.SecretSearch.occurs(needle, in: $0) }
                }
            }
        }
        #expect(shows(.clockAdvance(milliseconds: 2580, reason: "pin 2580")))
        #expect(!shows(.clockAdvance(milliseconds: 2580, reason: "later")))
        #expect(!shows(.clockAdvance(milliseconds: 12580, reason: "code 125801")))
        #expect(shows(.input(step: "s", values: [.init("note", .list([.string("x"), .string("2580")]))])))
        #expect(!shows(.input(step: "s", values: [.init("pin", .secret(.string("2580")))])))
        #expect(!shows(.attempt(step: "s", limit: "l", action: .charged, count: 2580, max: 2580)))
    }
}

extension ExplorerTests {
    @Test("a count the journey keeps but never reads makes no new states; one it shows does")
    func unreadState() async throws {
        let journey = """
            journey: t.count
            version: 1
            title: Links counted
            state:
              links: { type: int, default: 0 }
            start: home
            steps:
              home:
                handler: ui.screen
                screen: { title: Home, text: "TEXT", actions: { link: Open a link, close: Close } }
                on:
                  link:
                    set: { state.links: "${state.links + 1}" }
                    to: home
                  close: done
            ends:
              done: { kind: success }
            """
        let unread = try await InvariantTests.explore(
            journey.replacingOccurrences(of: "TEXT", with: "Welcome"), id: "t.count")
        // Home and the end, with 0, 1 or 2 restarts used.
        #expect((unread.states, unread.frontier) == (6, 0), "\(unread.states) \(unread.frontier)")
        let shown = try await InvariantTests.explore(
            journey.replacingOccurrences(of: "TEXT", with: "${str(state.links)} links"), id: "t.count")
        #expect(shown.frontier > 0 && shown.states > 30, "\(shown.states) \(shown.frontier)")
    }
}

/// Exploring on several threads: each level's moves are played side by side and merged in
/// order, so any number of jobs finds the same states, transitions and counterexamples.
extension ExplorerTests {
    /// What a result says, as text to compare: counts, verdicts with their paths, what was
    /// left out, and the transitions taken.
    static func summary(_ result: JourneyExplorer.Result) -> [String] {
        [
            "\(result.states) states, \(result.transitions) transitions, depth \(result.depth), frontier \(result.frontier), truncated \(result.truncated)"
        ]
            + result.violations.map {
                "\($0.id) at \($0.step ?? "-"): \($0.message) [\($0.path.map(\.description).joined(separator: " → "))] \($0.expected.map { "\($0.variable) = \($0.value)" } ?? "")"
            }
            + result.leftOut.map(\.description) + result.taken.sorted().map(\.description)
    }

    static func explore(
        _ path: String, id: String, bounds: JourneyExplorer.Bounds = .init(), jobs: Int
    ) async throws -> JourneyExplorer.Result {
        let (library, _) = try library([path])
        let journey = try #require(library[id])
        return await JourneyExplorer(
            library: library, device: JourneyExplorer.defaultDevice, bounds: bounds, jobs: jobs
        ).explore(journey)
    }

    @Test(
        "one job and several find the same states, transitions and counterexamples",
        arguments: [
            ("journeys/examples/pin-model.journey.yaml", "examples.pin-model", 2000, 1000, 200_000),
            ("journeys/examples/pin-model.journey.yaml", "examples.pin-model", 2000, 1000, 9_000),
            ("Tests/Fixtures/explore/pin-model-bug.journey.yaml", "examples.pin-model-bug", 300, 100, 200_000),
            ("Tests/Fixtures/explore/fails.journey.yaml", "explore.fails", 30, 2, 200_000),
            ("Tests/Fixtures/explore/trap.journey.yaml", "explore.trap", 30, 2, 200_000),
        ])
    func sameOnAnyNumberOfJobs(
        _ path: String, _ id: String, _ depth: Int, _ restarts: Int, _ states: Int
    )
        async throws
    {
        let bounds = JourneyExplorer.Bounds(depth: depth, restarts: restarts, states: states)
        let one = try await Self.explore(path, id: id, bounds: bounds, jobs: 1)
        #expect(one.states > 1)
        for jobs in [2, 3, 8] {
            let many = try await Self.explore(path, id: id, bounds: bounds, jobs: jobs)
            #expect(Self.summary(many) == Self.summary(one), "\(jobs) jobs")
        }
    }

    @Test("a level's nodes are shared among any number of threads in contiguous runs that cover them all, in order")
    func nodesSharedAmongThreads() {
        for count in 4...600 {
            // As `expand` asks: never more threads than a quarter of the nodes.
            for threads in 2...max(2, min(64, count / 4)) {
                let parts = JourneyExplorer.parts(of: count, threads: threads)
                #expect(parts.count == threads, "\(count) nodes, \(threads) threads")
                #expect(parts.first?.lowerBound == 0 && parts.last?.upperBound == count, "\(count), \(threads)")
                #expect(
                    zip(parts, parts.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound }, "\(count), \(threads)")
                #expect(parts.allSatisfy { !$0.isEmpty }, "\(count), \(threads)")
                let sizes = parts.map(\.count)
                #expect(sizes.max()! - sizes.min()! <= 1, "\(count), \(threads): \(sizes)")
            }
        }
    }

    @Test(
        "a state equal to one expanded before but for its restarts takes over its expansion: the same result as playing every move",
        arguments: [
            ("journeys/examples/pin-model.journey.yaml", "examples.pin-model", 2000, 1000, 200_000, true),
            ("journeys/examples/pin-model.journey.yaml", "examples.pin-model", 2000, 1000, 9_000, true),
            ("journeys/examples/pin-model.journey.yaml", "examples.pin-model", 30, 2, 200_000, true),
            ("Tests/Fixtures/explore/pin-model-bug.journey.yaml", "examples.pin-model-bug", 300, 100, 200_000, true),
            ("Tests/Fixtures/explore/fails.journey.yaml", "explore.fails", 30, 2, 200_000, false),
            ("Tests/Fixtures/explore/trap.journey.yaml", "explore.trap", 30, 2, 200_000, false),
        ])
    func reuseFindsTheSame(
        _ path: String, _ id: String, _ depth: Int, _ restarts: Int, _ states: Int, _ reuses: Bool
    ) async throws {
        let (library, _) = try Self.library([path])
        let journey = try #require(library[id])
        let bounds = JourneyExplorer.Bounds(depth: depth, restarts: restarts, states: states)
        var played = JourneyExplorer(library: library, device: JourneyExplorer.defaultDevice, bounds: bounds)
        played.reusesExpansions = false
        let every = await played.explore(journey)
        #expect(every.reused == 0 && every.playedAgain == 0)
        // Levels played in chunks of one or two states also reuse expansions kept in the chunk
        // before, where a move that stopped at a state then known leads to one new on this path;
        // and expansions let go every few chunks, all at once, are kept again.
        let runs = [
            (1, JourneyExplorer.chunk, JourneyExplorer.Reuse.capacity), (3, JourneyExplorer.chunk, 4), (1, 1, 2),
            (2, 1, 4096), (1, 2, 3),
        ]
        for (jobs, chunk, capacity) in runs {
            var explorer = JourneyExplorer(
                library: library, device: JourneyExplorer.defaultDevice, bounds: bounds, jobs: jobs)
            explorer.chunkSize = chunk
            explorer.reuseCapacity = capacity
            let reusing = await explorer.explore(journey)
            let run = "\(jobs) jobs, chunks of \(chunk), at most \(capacity) kept"
            // A small journey may have no two states equal but for their restarts in different
            // chunks; the PIN model has many.
            if reuses { #expect(reusing.reused > 0, "\(run)") }
            // A move taken over that stopped where a state then known waited is played again
            // once, and the state it reaches kept with the expansion: not once for every state
            // that takes it over (several moves in a hundred of the PIN model's, played that way).
            if reuses, restarts >= 100, chunk == JourneyExplorer.chunk, capacity == JourneyExplorer.Reuse.capacity {
                #expect(reusing.playedAgain * 100 < reusing.transitions, "\(run): \(reusing.playedAgain) played again")
            }
            #expect(reusing.playedAgain <= reusing.reused, "\(run)")
            #expect(Self.summary(reusing) == Self.summary(every), "\(run)")
            #expect(reusing.endPaths == every.endPaths, "\(run)")
        }
    }

    @Test("every shipped journey explores to the same result whether equal states take over expansions or not")
    func reuseFindsTheSameInEveryShippedJourney() async throws {
        let folder = Self.root.appendingPathComponent("journeys")
        let paths = try #require(FileManager.default.enumerator(atPath: folder.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".journey.yaml") }.sorted().map { "journeys/" + $0 }
        let (library, project) = try Self.library(paths)
        #expect(project.journeys.count >= 20)
        var reused = 0
        for id in project.journeys.map(\.id.value).sorted() {
            let journey = try #require(library[id])
            var played = JourneyExplorer(library: library, device: JourneyExplorer.defaultDevice)
            played.reusesExpansions = false
            let every = await played.explore(journey)
            let reusing = await JourneyExplorer(library: library, device: JourneyExplorer.defaultDevice)
                .explore(journey)
            reused += reusing.reused
            #expect(Self.summary(reusing) == Self.summary(every), "\(id)")
            #expect(reusing.endPaths == every.endPaths, "\(id)")
        }
        #expect(reused > 0)
    }

    /// The explorer reads a journey's expressions, durations and `state.` names out of its
    /// texts, field by field (``Journey/forEachText(_:)``), where it read every text reflection
    /// finds. A text with an expression in it that the walk misses would make the explorer take
    /// a read value for unread, or leave a duration unjumped: every such text reflection finds
    /// in a shipped journey or fixture, the walk finds too.
    @Test("the journey's texts read field by field hold every text reflection finds that an expression can be in")
    func textsFieldByField() throws {
        func reflected(_ value: Any, _ body: (String) -> Void) {
            if let text = value as? String {
                body(text)
                return
            }
            for child in Mirror(reflecting: value).children { reflected(child.value, body) }
        }
        /// A text the explorer reads something out of: a template, a `state.` name, a number.
        func matters(_ text: String) -> Bool {
            text.contains("${") || text.contains("state.")
                || (text.contains(where: \.isNumber) && (try? Expression.parse(text).get()) != nil)
        }
        var journeys = 0
        var texts = 0
        for folder in ["journeys", "Tests/Fixtures/explore", "Tests/Fixtures/explore-calls", "Tests/Fixtures/timers"] {
            let root = Self.root.appendingPathComponent(folder)
            let paths = try #require(FileManager.default.enumerator(atPath: root.path)).compactMap { $0 as? String }
                .filter { $0.hasSuffix(".journey.yaml") }.sorted().map { folder + "/" + $0 }
            let (_, project) = try Self.library(paths)
            for journey in project.journeys {
                journeys += 1
                var walked = Set<String>()
                journey.forEachText { walked.insert($0) }
                var stepsWalked = Set<String>()
                for step in journey.steps { step.forEachText { stepsWalked.insert($0) } }
                for invariant in journey.invariants { invariant.forEachText { stepsWalked.insert($0) } }
                // Reflection also finds the names and literals inside parsed expressions, which
                // their sources spell: such a text is part of one walked.
                reflected(journey) { text in
                    guard matters(text) else { return }
                    texts += 1
                    #expect(
                        walked.contains(text) || walked.contains { $0.contains(text) },
                        "\(journey.id.value): '\(text)' is not walked")
                }
                reflected([journey.steps, journey.invariants] as [Any]) { text in
                    guard matters(text) else { return }
                    #expect(
                        stepsWalked.contains(text) || stepsWalked.contains { $0.contains(text) },
                        "\(journey.id.value): '\(text)' of its steps is not walked")
                }
            }
        }
        #expect(journeys >= 40 && texts > 100, "\(journeys) journeys, \(texts) texts")
    }

    @Test("the states bound stops the exploration at the same state on any number of jobs")
    func truncatedAlike() async throws {
        let bounds = JourneyExplorer.Bounds(depth: 2000, restarts: 1000, states: 9_000)
        let result = try await Self.explore(
            "journeys/examples/pin-model.journey.yaml", id: "examples.pin-model", bounds: bounds, jobs: 4)
        #expect(result.truncated)
        #expect(result.states == 9_000, "\(result.states)")
    }
}

extension ExplorerTests {
    /// The help sheet's journey (a trap past its start), an explorer that plays it a state a
    /// chunk, and what it finds played whole.
    static func helpSheetByState() async throws -> (JourneyExplorer, CompiledJourney, JourneyExplorer.Result) {
        let (library, _) = try Self.library([SourceFile(path: "j.yaml", data: Data(Self.helpSheet.utf8))])
        let journey = try #require(library["t.help"])
        var explorer = JourneyExplorer(library: library, device: JourneyExplorer.defaultDevice)
        explorer.chunkSize = 1
        return (explorer, journey, await explorer.explore(journey))
    }

    @Test("stopped when asked, an exploration keeps what it found and judges no state it did not expand")
    func stoppedWhenAsked() async throws {
        let (played, journey, full) = try await Self.helpSheetByState()
        var explorer = played
        #expect(!full.interrupted && full.reports(ExplorationInvariant.reachesAnEnd.rawValue))
        // Asked after each chunk of one state: it stops after the second.
        let asked = Mutex(0)
        explorer.stop = {
            asked.withLock {
                $0 += 1
                return $0 == 2
            }
        }
        let stopped = await explorer.explore(journey)
        #expect(stopped.interrupted && stopped.cutShort)
        #expect(asked.withLock { $0 } == 2)
        #expect(stopped.states < full.states && stopped.frontier > 0, "\(stopped.states) of \(full.states)")
        // The trap lies past the states it expanded: nothing is said of it.
        #expect(stopped.violations.isEmpty, "\(stopped.violations.map(\.message))")

        // Random walks stop after the walk during which it is asked.
        asked.withLock { $0 = 0 }
        let walked = await explorer.walk(journey, seed: 1, walks: 100)
        #expect(walked.interrupted && walked.random?.walks == 2, "\(String(describing: walked.random))")
    }
}

extension ExplorerTests {
    @Test("at the memory bound an exploration stops as at the state bound, saying which bound; unread, it never stops")
    func stoppedAtTheMemoryBound() async throws {
        let (played, journey, full) = try await Self.helpSheetByState()
        var explorer = played
        explorer.memoryCheckInterval = 1
        // The process holds more after each chunk of one state: past the bound after the second.
        let held = Mutex<UInt64>(0)
        explorer.memory = JourneyExplorer.MemoryCheck(bytes: 2_000) {
            held.withLock {
                $0 += 1_000
                return $0
            }
        }
        let stopped = await explorer.explore(journey)
        #expect(stopped.memoryFull == 2_000 && stopped.truncated && stopped.cutShort && !stopped.interrupted)
        #expect(stopped.states < full.states && stopped.frontier > 0, "\(stopped.states) of \(full.states)")
        // The trap lies past the states it expanded: nothing is said of it.
        #expect(stopped.violations.isEmpty, "\(stopped.violations.map(\.message))")

        // Random walks stop after the walk during which the bound is reached.
        held.withLock { $0 = 0 }
        let walked = await explorer.walk(journey, seed: 1, walks: 100)
        #expect(walked.memoryFull == 2_000 && walked.random?.walks == 2, "\(String(describing: walked.random))")

        // Where the memory held cannot be read, the bound never stops it.
        explorer.memory = JourneyExplorer.MemoryCheck(bytes: 1) { nil }
        let unread = await explorer.explore(journey)
        #expect(unread.memoryFull == nil && unread.states == full.states)
    }

    @Test(
        "states that hold large values have the memory read after a few of them, not after thousands of transitions: the bound stops the exploration in time"
    )
    func memoryReadAsLargeStatesAreFound() async throws {
        // Three actions, each keeping a text of 48 KiB that tells the state apart (and one that
        // ends): about 6 500 states and 13 000 transitions within depth 8, every key about 48 KiB.
        let wide = """
            journey: t.wide
            version: 1
            title: Wide
            params:
              big: { type: string, default: "\(String(repeating: "y", count: 16_384))" }
            state:
              n: { type: int, default: 0 }
              kept: { type: string, default: "" }
            start: s
            steps:
              s:
                handler: ui.screen
                screen: { title: Wide, actions: { a: A, b: B, c: C, stop: Stop } }
                on:
                  stop: done
                  a: { set: { state.n: "${state.n * 3 + 1}", state.kept: "${str(state.n) + params.big + params.big + params.big}" }, to: s }
                  b: { set: { state.n: "${state.n * 3 + 2}", state.kept: "${str(state.n) + params.big + params.big + params.big}" }, to: s }
                  c: { set: { state.n: "${state.n * 3 + 3}", state.kept: "${str(state.n) + params.big + params.big + params.big}" }, to: s }
            ends:
              done: { kind: success }
            """
        let (library, _) = try Self.library([SourceFile(path: "j.yaml", data: Data(wide.utf8))], adding: [])
        var explorer = JourneyExplorer(
            library: library, device: JourneyExplorer.defaultDevice,
            bounds: JourneyExplorer.Bounds(depth: 8, restarts: 0))
        // The process is at its bound from the first read on.
        let reads = Mutex(0)
        explorer.memory = JourneyExplorer.MemoryCheck(bytes: 64 << 20) {
            reads.withLock { $0 += 1 }
            return 64 << 20
        }
        let stopped = await explorer.explore(try #require(library["t.wide"]))
        #expect(stopped.memoryFull == 64 << 20, "\(stopped.states) states, \(stopped.transitions) transitions")
        // Read once the states played take 4 MiB (a thirty-second of the bound, at least 4 MiB):
        // a few hundred states, not the 16 384 transitions between reads of a narrow space.
        #expect(stopped.states < 400 && reads.withLock { $0 } == 1, "\(stopped.states) states")
    }

    @Test("the shortest path to each end it reaches: on a device with no PIN, unlock chooses one and is in")
    func shortestPathToEachEnd() async throws {
        let result = try await Self.explore("journeys/examples/unlock.journey.yaml", id: "examples.unlock")
        // With no PIN sealed, the start goes straight to choosing one; three wrong PINs, or
        // "Forgot PIN?", need a PIN to be asked for first, which only a restart after sealing
        // one gives, and by then the journey has ended.
        #expect(Set(result.endPaths.keys) == ["unlocked"], "\(result.endPaths)")
        #expect(
            result.endPaths["unlocked"]?.map(\.description) == ["choosePin: strong", "repeatPin: match"],
            "\(result.endPaths)")
    }

    @Test("the PIN model's only end is reached from the start, choosing a PIN first")
    func shortestPathToTheOnlyEnd() async throws {
        let result = try await Self.explore("journeys/examples/pin-model.journey.yaml", id: "examples.pin-model")
        let path = try #require(result.endPaths["done"], "\(result.endPaths)")
        #expect(Array(result.endPaths.keys) == ["done"])
        #expect(path.first?.description == "create: strong", "\(path)")
        #expect(path.count <= result.depth, "\(path) \(result.depth)")
    }
}

extension ExplorerTests {
    static let twoFields = """
        journey: t.two-fields
        version: 1
        title: Two fields
        start: details
        steps:
          details:
            handler: ui.form
            screen:
              title: Your details
              fields:
                name: { label: Name, kind: text, required: true, minLength: 2 }
                email: { label: Email, kind: text, required: true, minLength: 3 }
              actions: { submit: Continue, cancel: Cancel }
            on:
              submit: done
              invalid: details
              cancel: cancelled
        ends:
          done: { kind: success }
          cancelled: { kind: cancel }
        """

    /// A tap counts one more and goes through two decisions back to the screen: three steps a
    /// move, 4 000 moves to the end. `loops` makes the first decision's way out one no count
    /// reaches, so that a tap spins between the two decisions for ever.
    static func longPath(loops: Bool) -> String {
        """
        journey: t.long-path
        version: 1
        title: A long path
        start: tap
        state:
          n: { type: int, default: 0 }
        steps:
          tap:
            handler: ui.screen
            screen:
              title: "Tapped ${state.n} times"
              actions: { more: More, stop: Stop }
            on:
              more:
                set: { state.n: "${state.n + 1}" }
                to: count
              stop: done
          count:
            handler: flow.decide
            on:
              next:
                - if: \(loops ? "state.n < 0" : "state.n >= 4000")
                  to: done
                - else: again
          again:
            handler: flow.decide
            on:
              next: \(loops ? "count" : "tap")
        ends:
          done: { kind: success }
        """
    }

    @Test(
        "a path longer than the step budget is no runaway loop: each move's steps are counted afresh; a busy loop still is one"
    )
    func stepBudgetPerMove() async throws {
        // 12 000 steps on the longest path, more than the budget of 10 000 a run has.
        let long = try await InvariantTests.explore(
            Self.longPath(loops: false), id: "t.long-path", bounds: .init(depth: 5000, restarts: 0))
        #expect(long.violations.isEmpty, "\(long.violations.map { "\($0.id): \($0.message)" })")
        #expect((long.states, long.depth) == (8001, 4000), "\(long.states) \(long.depth)")
        let busy = try await InvariantTests.explore(Self.longPath(loops: true), id: "t.long-path")
        #expect(busy.violations.map(\.id) == ["explore.never-fails"], "\(busy.violations.map(\.message))")
        #expect(busy.violations.first?.message.contains("step budget of 10000 exhausted") == true)
        #expect(busy.violations.first?.path.map(\.description) == ["tap: more"])
    }

    @Test("a form field whose pattern wants another length than the usual is filled to pass it: the form is not a trap")
    func formFieldPattern() async throws {
        let code = Self.twoFields.replacingOccurrences(
            of: "                email: { label: Email, kind: text, required: true, minLength: 3 }\n",
            with: "                code: { label: Code, kind: digits, required: true, pattern: '^[0-9]{6}$' }\n")
        let result = try await InvariantTests.explore(code, id: "t.two-fields")
        #expect(result.violations.isEmpty, "\(result.violations.map { "\($0.id): \($0.message) \($0.path)" })")
        #expect(result.endPaths["done"]?.map(\.description) == ["details: valid"], "\(result.endPaths)")
    }

    @Test("a form's moves are its choices, each with every field and its submit: never one field alone")
    func formMovesAreItsChoices() async throws {
        let result = try await InvariantTests.explore(Self.twoFields, id: "t.two-fields")
        #expect(result.violations.isEmpty, "\(result.violations.map { "\($0.id): \($0.message) \($0.path)" })")
        let moves = result.endPaths.values.compactMap(\.first).map(\.description)
        #expect(Set(moves) == ["details: valid", "details: cancel"], "\(result.endPaths)")
        // The form with 0, 1 or 2 restarts, and each end after each: 9 states. At the form:
        // valid, invalid (back to the form), cancel, and a restart while one is left: 11
        // moves; and the app opened again after the cancel while a restart is left: 2 more.
        // A move per field ("name: valid" with no submit) would fail the handler.
        #expect(result.states == 9 && result.transitions == 13, "\(result.states) states, \(result.transitions)")
    }

}

extension ExplorerTests {
    @Test("a handler that fails at a step is a failed run of its own, never the step still waiting")
    func aFailureIsItsOwnState() async throws {
        // The form presses `send`, which its screen does not show (a param's value, which
        // `journey check` cannot see): the handler fails without changing anything else, and
        // the failure must be found, not merged into the form.
        let text = Self.twoFields.replacingOccurrences(
            of: "    handler: ui.form\n", with: "    handler: ui.form\n    with: { submit: \"${params.button}\" }\n"
        ).replacingOccurrences(
            of: "start: details\n", with: "start: details\nparams:\n  button: { type: string, default: send }\n")
        let result = try await InvariantTests.explore(text, id: "t.two-fields")
        let violation = try #require(result.violations.first, "\(result.states) states")
        #expect(result.violations.count == 1)
        #expect(violation.invariant == .neverFails)
        #expect(violation.message.contains("has no action 'send'"), "\(violation.message)")
        #expect(violation.path.map(\.description) == ["details: valid"])
    }
}

extension ExplorerTests {
    /// What a progress line is told: how far the exploration has got, in order, ending with
    /// what the result says.
    final class Told: @unchecked Sendable {
        private let lock = NSLock()
        private var all: [JourneyExplorer.Progress] = []
        func add(_ progress: JourneyExplorer.Progress) { lock.withLock { all.append(progress) } }
        var progress: [JourneyExplorer.Progress] { lock.withLock { all } }
    }

    @Test("an exploration tells how far it has got, level after level, ending where the result ends")
    func progress() async throws {
        let (library, _) = try Self.library(["journeys/examples/pin-model.journey.yaml"])
        let journey = try #require(library["examples.pin-model"])
        for jobs in [1, 2] {
            let told = Told()
            var explorer = JourneyExplorer(
                library: library, device: JourneyExplorer.defaultDevice, bounds: .init(depth: 2000, restarts: 100),
                jobs: jobs)
            explorer.progress = { told.add($0) }
            let result = await explorer.explore(journey)
            let progress = told.progress
            #expect(progress.count >= result.depth, "\(progress.count) for depth \(result.depth)")
            #expect(zip(progress, progress.dropFirst()).allSatisfy { $0.depth <= $1.depth && $0.states <= $1.states })
            #expect(
                progress.last == .init(depth: result.depth, states: result.states, transitions: result.transitions),
                "\(String(describing: progress.last)) \(result.states) \(result.transitions) \(result.depth)")
        }
        let told = Told()
        var walker = JourneyExplorer(library: library, device: JourneyExplorer.defaultDevice)
        walker.progress = { told.add($0) }
        let walked = await walker.walk(journey, seed: 3, walks: 50)
        #expect(told.progress.map(\.walks) == (1...50).map { $0 })
        #expect(
            told.progress.last
                == .init(depth: walked.depth, states: walked.states, transitions: walked.transitions, walks: 50))
    }
}
