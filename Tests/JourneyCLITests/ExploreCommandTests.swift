import Foundation
import JourneyTestSupport
import Testing

@testable import JourneyCLI
@testable import JourneyCore
@testable import JourneySuite

/// `journey explore` as a user runs it: the counts, the verdict, each invariant caught by a
/// journey that breaks it, counterexamples written as scenarios that replay to the same
/// violation, and JSON for tools.
@Suite("journey explore", .timeLimit(.minutes(30)))
struct ExploreCommandTests {
    static let fixtures = "Tests/Fixtures/explore"

    @Test(
        "a limit in a called journey is checked too: a restart or a way round that lowers it is caught; its journey's exception holds"
    )
    func limitsOfCalledJourneys() async throws {
        let folder = "Tests/Fixtures/explore-calls"
        let result = try await runJourney(["explore", "--jobs", "1", folder])
        #expect(result.status == Exit.failed, "\(result)")
        #expect(
            result.stdout.contains(
                "explore.counter-survives: an app restart takes limit 'pinEntry' of t.state-check from 1 to 0 attempts (state.failures)"
            ), "\(result)")
        #expect(result.stdout.contains("3 moves: choosePin: strong → enterPin: wrong → restart"), "\(result)")
        #expect(
            result.stdout.contains(
                "explore.exceeded-target: tryAgain --retry--> takes limit 'pinEntry' of t.pin-check from 1 to 0 attempts (stored.failures)"
            ), "\(result)")
        #expect(result.stdout.contains("explored 4 journeys: 2 clean, 2 with violations"), "\(result)")
        // The called journey says a restart starts its count over on purpose: its callers are
        // held to what it declares.
        try await withTemporaryDirectory { directory in
            let copy = directory.appendingPathComponent("calls")
            try FileManager.default.copyItem(at: Paths.root.appendingPathComponent(folder), to: copy)
            let file = copy.appendingPathComponent("state-check.journey.yaml")
            try writeText(
                try String(contentsOf: file, encoding: .utf8).replacingOccurrences(
                    of: "exceptions:\n",
                    with:
                        "exceptions:\n  explore.counter-survives: \"a restart starts the check over, as the app does\"\n"
                ),
                to: file)
            let excepted = try await runJourney(["explore", "--jobs", "1", "calls"], cwd: directory)
            #expect(!excepted.stdout.contains("of t.state-check"), "\(excepted)")
            #expect(
                excepted.stdout.contains("t.restart-resets: 53 states, 105 transitions, depth 8: clean"), "\(excepted)")
            // ...and the caller's clean verdict says what it leans on.
            #expect(
                excepted.stdout.contains(
                    "t.restart-resets: 53 states, 105 transitions, depth 8: clean\n  played: every input class, up to 2 restarts, no clock jumps; bounds: depth 50, 200000 states\n  explore.counter-survives broken on purpose in t.state-check, which declares it: a restart starts the check over, as the app does\n"
                ), "\(excepted)")
            let json = try await runJourney(
                ["explore", "--jobs", "1", "--json", "--journey", "t.restart-resets", "calls"], cwd: directory)
            let decoded = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
            let called = try #require(decoded?.first?["calledExceptions"] as? [[String: String]])
            #expect(
                called == [
                    [
                        "journey": "t.state-check", "invariant": "explore.counter-survives",
                        "reason": "a restart starts the check over, as the app does",
                    ]
                ], "\(json)")
        }
    }

    /// A PIN pad whose "Forgot PIN?" calls `m.reset`; `savePin` seals the PIN chosen first.
    static let forgotPINUnlock = """
        journey: m.unlock
        version: 1
        title: Unlock
        exceptions:
          explore.credential-before-success: "a PIN just chosen unlocks at once"
          auth.pin-reset-unverified: "the reset journey here asks nothing, to keep the example small"
        state:
          newPin: { type: string, secret: true }
        stored:
          pin: { type: string, secret: true }
          pinFailures: { type: int, default: 0 }
        limits:
          pinEntry: { max: 5, counter: stored.pinFailures, exceeded: locked, keep: true }
        start: enterPin
        steps:
          enterPin:
            handler: pin.verify
            with: { key: pin, length: 6 }
            screen: { title: Enter your PIN, actions: { forgot: Forgot PIN? } }
            attempts: { limit: pinEntry, counts: [wrong], resets: [correct] }
            on: { correct: unlocked, wrong: enterPin, missing: choosePin, forgot: reset }
          reset:
            call: m.reset
            on: { done: unlocked }
          choosePin:
            handler: pin.entry
            with: { length: 6, warnWeak: true }
            on: { entered: { set: { state.newPin: "${outcome.pin}" }, to: repeatPin }, weak: choosePin }
          repeatPin:
            handler: pin.repeat
            with: { length: 6, first: "${state.newPin}" }
            on: { match: savePin, mismatch: choosePin }
          savePin:
            handler: pin.save
            with: { key: pin, pin: "${state.newPin}" }
            on: { saved: welcome }
          welcome:
            handler: ui.screen
            screen: { title: Your PIN is set, actions: { next: Continue } }
            on: { next: unlocked }
        ends:
          unlocked: { kind: success }
          locked: { kind: failure }

        """

    @Test(
        "a counterexample whose last move ends the journey expects that end and what the rule demands there: the replay fails on the counter alone, and passes once the journey is put right"
    )
    func counterexampleEndingTheJourney() async throws {
        try await withTemporaryDirectory { directory in
            try writeText(Self.forgotPINUnlock, to: directory.appendingPathComponent("unlock.journey.yaml"))
            let reset = """
                journey: m.reset
                version: 1
                title: Start again
                stored:
                  pinFailures: { type: int, default: 0 }
                start: confirm
                steps:
                  confirm:
                    handler: ui.screen
                    screen: { title: Start again?, actions: { ok: OK } }
                    on: { ok: { set: { stored.pinFailures: 0 }, to: done } }
                ends:
                  done: { kind: success }

                """
            try writeText(reset, to: directory.appendingPathComponent("reset.journey.yaml"))
            let result = try await runJourney(
                ["explore", "--journey", "m.unlock", ".", "--emit", "out"], cwd: directory)
            #expect(result.status == Exit.failed, "\(result)")
            #expect(
                result.stdout.contains("explore.exceeded-target: reset --done--> takes limit 'pinEntry'"), "\(result)")
            #expect(result.stdout.contains("the replay fails: expected stored.pinFailures = 1, found 0\n"), "\(result)")
            let scenario = "out/m.unlock.exceeded-target.scenario.yaml"
            let text = try String(contentsOf: directory.appendingPathComponent(scenario), encoding: .utf8)
            #expect(
                text.hasSuffix(
                    "  - at: confirm\n    action: \"ok\"\nexpect:\n  end: unlocked\n  limits: { pinEntry: 1 }\n"),
                "\(text)")
            // Put right (the count kept), the journey explores clean and the counterexample passes.
            try writeText(
                reset.replacingOccurrences(of: "{ set: { stored.pinFailures: 0 }, to: done }", with: "done"),
                to: directory.appendingPathComponent("reset.journey.yaml"))
            let replay = try await runJourney(["run", "--scenario", scenario, "--journeys", "."], cwd: directory)
            #expect(replay.status == Exit.ok, "\(replay)")
            #expect(replay.stderr.contains("PASS m.unlock › m-unlock-exceeded-target: reached unlocked"), "\(replay)")
        }
    }

    @Test(
        "a PIN sealed again on the way that sets the count back replaces what the limit guards, though the explorer's seeded salt makes the same bytes (a step of the same name in another journey)"
    )
    func resealedPINIsReplaced() async throws {
        try await withTemporaryDirectory { directory in
            try writeText(Self.forgotPINUnlock, to: directory.appendingPathComponent("unlock.journey.yaml"))
            let reset = """
                journey: m.reset
                version: 1
                title: New PIN
                state:
                  newPin: { type: string, secret: true }
                stored:
                  pin: { type: string, secret: true }
                  pinFailures: { type: int, default: 0 }
                start: choosePin
                steps:
                  choosePin:
                    handler: pin.entry
                    with: { length: 6, warnWeak: true }
                    on: { entered: { set: { state.newPin: "${outcome.pin}" }, to: repeatPin }, weak: choosePin }
                  repeatPin:
                    handler: pin.repeat
                    with: { length: 6, first: "${state.newPin}" }
                    on: { match: savePin, mismatch: choosePin }
                  savePin:
                    handler: pin.save
                    with: { key: pin, pin: "${state.newPin}" }
                    on: { saved: { set: { stored.pinFailures: 0 }, to: done } }
                ends:
                  done: { kind: success }

                """
            try writeText(reset, to: directory.appendingPathComponent("reset.journey.yaml"))
            let result = try await runJourney(["explore", "--journey", "m.unlock", "."], cwd: directory)
            #expect(result.status == Exit.ok, "\(result)")
            #expect(result.stdout.hasPrefix("m.unlock: 62 states, 140 transitions, depth 11: clean\n"), "\(result)")
            // Not sealed again (the step sets the count back and nothing more): caught.
            try writeText(
                reset.replacingOccurrences(
                    of: "handler: pin.save\n    with: { key: pin, pin: \"${state.newPin}\" }",
                    with: "handler: ui.screen\n    screen: { title: Saved, actions: { saved: OK } }"),
                to: directory.appendingPathComponent("reset.journey.yaml"))
            let dodged = try await runJourney(["explore", "--journey", "m.unlock", "."], cwd: directory)
            #expect(dodged.status == Exit.failed, "\(dodged)")
            #expect(
                dodged.stdout.contains("explore.exceeded-target: reset --done--> takes limit 'pinEntry'"), "\(dodged)")
        }
    }

    @Test(
        "a journey whose PIN check is a journey it calls is held to the credential before success as if the check were its own: a way out of the check that signs in is caught by explore and fails the run that takes it"
    )
    func credentialCheckedInACalledJourney() async throws {
        try await withTemporaryDirectory { directory in
            let check = """
                journey: t.pin-check
                version: 1
                title: PIN check
                stored:
                  pin: { type: string, secret: true }
                  pinFailures: { type: int, default: 0 }
                limits:
                  pinEntry: { max: 5, counter: stored.pinFailures, exceeded: locked, keep: true }
                start: enterPin
                steps:
                  enterPin:
                    handler: pin.verify
                    with: { key: pin, length: 6 }
                    screen: { title: Enter your PIN, actions: { forgot: Forgot PIN? } }
                    attempts: { limit: pinEntry, counts: [wrong], resets: [correct] }
                    on: { correct: ok, wrong: enterPin, missing: locked, forgot: forgot }
                ends:
                  ok: { kind: success }
                  locked: { kind: failure }
                  forgot: { kind: cancel }

                """
            let root = """
                journey: t.root
                version: 1
                title: Root
                start: menu
                steps:
                  menu:
                    handler: ui.screen
                    screen: { title: Welcome back, actions: { unlock: Unlock } }
                    on: { unlock: pin }
                  pin:
                    call: t.pin-check
                    on: { ok: signedIn, locked: failed, forgot: signedIn }
                ends:
                  signedIn: { kind: success }
                  failed: { kind: failure }

                """
            try writeText(check, to: directory.appendingPathComponent("t/pin-check.journey.yaml"))
            try writeText(root, to: directory.appendingPathComponent("t/root.journey.yaml"))
            let scenario = { (name: String, input: String) in
                """
                scenario: \(name)
                journey: t.root
                device: { pins: { pin: "493817" } }
                script:
                  - at: menu
                    action: unlock
                  - at: enterPin
                    \(input)
                expect: { end: signedIn }

                """
            }
            try writeText(
                scenario("forgot", "action: forgot"),
                to: directory.appendingPathComponent("t/scenarios/forgot.scenario.yaml"))
            try writeText(
                scenario("right", "pin: \"493817\""),
                to: directory.appendingPathComponent("t/scenarios/right.scenario.yaml"))
            let explored = try await runJourney(["explore", "--journey", "t.root", "t"], cwd: directory)
            #expect(explored.status == Exit.failed, "\(explored)")
            #expect(
                explored.stdout.contains(
                    "explore.credential-before-success (from right): success end 'signedIn' is reached without passing a step that verifies a credential (t.pin-check.enterPin: correct)\n    2 moves: menu: unlock → enterPin: forgot\n"
                ), "\(explored)")
            let right = try await runJourney(
                ["run", "--scenario", "t/scenarios/right.scenario.yaml", "--journeys", "t"], cwd: directory)
            #expect(right.status == Exit.ok, "\(right)")
            let forgot = try await runJourney(
                ["run", "--scenario", "t/scenarios/forgot.scenario.yaml", "--journeys", "t"], cwd: directory)
            #expect(forgot.status == Exit.failed, "\(forgot)")
            #expect(
                forgot.stderr.contains(
                    "explore.credential-before-success is broken: success end 'signedIn' is reached without passing a step that verifies a credential (t.pin-check.enterPin: correct)"
                ), "\(forgot)")
            // Put right: "Forgot PIN?" leads back to the menu.
            try writeText(
                root.replacingOccurrences(of: "forgot: signedIn", with: "forgot: menu"),
                to: directory.appendingPathComponent("t/root.journey.yaml"))
            let fixed = try await runJourney(["explore", "--journey", "t.root", "t"], cwd: directory)
            #expect(fixed.status == Exit.ok, "\(fixed)")
        }
    }

    @Test(
        "a counter kept in a called journey's state is expected in that journey where the replay waits, and the replay fails as the exploration did"
    )
    func calledStateCounterReplays() async throws {
        try await withTemporaryDirectory { directory in
            try FileManager.default.copyItem(
                at: Paths.root.appendingPathComponent("Tests/Fixtures/explore-calls"),
                to: directory.appendingPathComponent("calls"))
            let result = try await runJourney(
                ["explore", "--jobs", "1", "--journey", "t.restart-resets", "calls", "--emit", "out"], cwd: directory)
            #expect(result.status == Exit.failed, "\(result)")
            #expect(result.stdout.contains("the replay fails: expected state.failures = 1, found 0"), "\(result)")
            let scenario = "out/t.restart-resets.counter-survives.scenario.yaml"
            let written = try String(contentsOf: directory.appendingPathComponent(scenario), encoding: .utf8)
            // The count is expected by its limit, wherever the journey keeps it.
            #expect(
                written.hasSuffix("expect:\n  at: enterPin\n  in: t.state-check\n  limits: { pinEntry: 1 }\n"),
                "\(written)")
            let text = written.replacingOccurrences(of: "limits: { pinEntry: 1 }", with: "state: { failures: 1 }")
            let replay = try await runJourney(["run", "--scenario", scenario, "--journeys", "calls"], cwd: directory)
            #expect(replay.status == Exit.failed, "\(replay)")
            #expect(replay.stderr.contains("expected state.failures = 1, found 0"), "\(replay)")
            // Read in the wrong journey, or where the run waits elsewhere, it says so.
            let wrong = [
                (
                    "in: t.state-chek",
                    "calls no journey 't.state-chek', so the run never waits in it; did you mean 't.state-check'?"
                ),
                (
                    "in: t.state-check\n  state: { failurs: 1 }",
                    "journey 't.state-check' has no state 'failurs'; did you mean 'failures'?"
                ),
                (
                    "in: t.state-check\n  limits: { pinEntri: 1 }",
                    "no journey this scenario plays has a limit 'pinEntri'; did you mean 'pinEntry'?"
                ),
                (
                    "limits: { pinEntry: 1 }",
                    "limit 'pinEntry' of t.state-check counts in its state ('state.failures'), which the run does not wait in here; expect it with 'in: t.state-check'"
                ),
            ]
            for (written, said) in wrong {
                try writeText(
                    text.replacingOccurrences(of: "in: t.state-check\n  state: { failures: 1 }", with: written),
                    to: directory.appendingPathComponent("wrong.scenario.yaml"))
                let checked = try await runJourney(
                    ["run", "--scenario", "wrong.scenario.yaml", "--journeys", "calls"], cwd: directory)
                #expect(checked.status != Exit.ok, "\(checked)")
                #expect(checked.stderr.contains(said) && checked.stderr.contains("[scenario.expect]"), "\(checked)")
            }
            try writeText(
                text.replacingOccurrences(of: "  - restart\n", with: "").replacingOccurrences(
                    of: "state: { failures: 1 }", with: "state: { failures: 0 }"
                ).replacingOccurrences(of: "  - at: enterPin\n    pin: \"1397\"\n", with: ""),
                to: directory.appendingPathComponent("early.scenario.yaml"))
            let early = try await runJourney(
                ["run", "--scenario", "early.scenario.yaml", "--journeys", "calls"], cwd: directory)
            #expect(early.status == Exit.ok, "\(early)")
            try writeText(
                text.replacingOccurrences(of: "  - restart\n", with: "").replacingOccurrences(
                    of: "  - at: enterPin\n    pin: \"1397\"\n", with: ""
                ).replacingOccurrences(of: "at: enterPin\n  in:", with: "at: savePin\n  in:"),
                to: directory.appendingPathComponent("elsewhere.scenario.yaml"))
            let elsewhere = try await runJourney(
                ["run", "--scenario", "elsewhere.scenario.yaml", "--journeys", "calls"], cwd: directory)
            #expect(elsewhere.stderr.contains("journey 't.state-check' has no step 'savePin'"), "\(elsewhere)")
            // With no PIN sealed yet, the run waits at the root journey's own step instead.
            try writeText(
                "scenario: waits-elsewhere\njourney: t.restart-resets\nscript: []\n"
                    + "expect: { at: enterPin, in: t.state-check, state: { failures: 0 } }\n",
                to: directory.appendingPathComponent("waits-elsewhere.scenario.yaml"))
            let waits = try await runJourney(
                ["run", "--scenario", "waits-elsewhere.scenario.yaml", "--journeys", "calls"], cwd: directory)
            #expect(waits.status == Exit.failed, "\(waits)")
            #expect(
                waits.stderr.contains(
                    "expected the journey to wait at step 'enterPin' of t.state-check when the script ran out; it waits at step 'choosePin' of t.restart-resets"
                ), "\(waits)")
        }
    }

    @Test(
        "a counterexample through the app opened again after an end is written as sessions, and replays to the same violation"
    )
    func nextLaunchReplays() async throws {
        try await withTemporaryDirectory { directory in
            try writeText(
                try String(contentsOfFile: "\(Self.fixtures)/next-launch.journey.yaml", encoding: .utf8),
                to: directory.appendingPathComponent("journeys/next-launch.journey.yaml"))
            try writeText(
                """
                scenario: sealed
                journey: explore.next-launch
                device: { pins: { pin: "0420" }, kdfRounds: 1 }
                script:
                  - at: enterPin
                    pin: "0420"
                expect: { end: unlocked }

                """, to: directory.appendingPathComponent("journeys/scenarios/sealed.scenario.yaml"))
            let result = try await runJourney(["explore", "journeys", "--emit", "out"], cwd: directory)
            #expect(result.status == Exit.failed, "\(result)")
            #expect(
                result.stdout.contains(
                    "4 moves: enterPin: forgot → relaunch after resetLater → choosePin: strong → repeatPin: match"),
                "\(result)")
            let scenario = "out/explore.next-launch.from-sealed.credential-before-success.scenario.yaml"
            let text = try String(contentsOf: directory.appendingPathComponent(scenario), encoding: .utf8)
            #expect(text.contains("sessions:\n"), "\(text)")
            let replay = try await runJourney(
                ["run", "--scenario", scenario, "--journeys", "journeys"], cwd: directory)
            #expect(replay.status == Exit.failed, "\(replay)")
            #expect(
                replay.stdout.contains("session 2: explore.credential-before-success is broken")
                    || replay.stderr.contains("session 2: explore.credential-before-success is broken"), "\(replay)")
        }
    }

    @Test(
        "an outcome a limit counts whose transition sets the counter back is caught: the limit can never be spent",
        arguments: ["wrong: { set: { stored.failures: 0 }, to: enterPin }", "wrong: again"])
    func countedOutcomeTakenBack(wrong: String) async throws {
        try await withTemporaryDirectory { directory in
            try writeText(
                """
                journey: t.never-spent
                version: 1
                title: A wrong PIN counted, then the count set back
                stored:
                  pin: { type: string, secret: true }
                  failures: { type: int, default: 0 }
                limits:
                  pinEntry: { max: 3, counter: stored.failures, exceeded: locked }
                state:
                  newPin: { type: string, secret: true }
                start: enterPin
                steps:
                  enterPin:
                    handler: pin.verify
                    with: { key: pin, length: 4 }
                    screen: { title: Enter your PIN }
                    attempts: { limit: pinEntry, counts: [wrong], resets: [correct] }
                    on:
                      correct: unlocked
                      \(wrong)
                      missing: choosePin
                  again:
                    handler: flow.decide
                    on:
                      next: { set: { stored.failures: 0 }, to: enterPin }
                  choosePin:
                    handler: pin.entry
                    with: { length: 4, warnWeak: true }
                    screen: { title: Choose a PIN }
                    on:
                      entered: { set: { state.newPin: "${outcome.pin}" }, to: savePin }
                      weak: choosePin
                  savePin:
                    handler: pin.save
                    with: { key: pin, pin: "${state.newPin}" }
                    on: { saved: enterPin }
                ends:
                  unlocked: { kind: success }
                  locked: { kind: failure }

                """, to: directory.appendingPathComponent("never-spent.journey.yaml"))
            let result = try await runJourney(["explore", "--jobs", "1", "never-spent.journey.yaml"], cwd: directory)
            #expect(result.status == Exit.failed, "\(result)")
            #expect(
                result.stdout.contains(
                    "is counted against limit 'pinEntry', yet leaves it at 0 attempts, not 1 (stored.failures): the count never reaches 3"
                ), "\(result)")
        }
    }

    @Test(
        "from a scenario whose stubs issue tokens, the clock jumps by their lifetimes, so a token kept as device.now + outcome.expiresIn expires"
    )
    func tokenLifetimesAreJumps() async throws {
        let scenario = "journeys/eiam/scenarios/i11-backend-401-then-fresh-token-works.scenario.yaml"
        let from = try await runJourney(["explore", "--jobs", "2", "--journey", "eiam.app", "--from", scenario])
        #expect(from.status == Exit.ok, "\(from)")
        // Its token endpoint's stub says `expires_in: 300`.
        #expect(
            from.stdout.contains("up to 2 restarts, clock jumps of 5m; bounds: depth 50, 200000 states\n"), "\(from)")
        #expect(!from.stdout.contains("reads the clock but writes no duration"), "\(from)")
        // With the jumps replaced, none of them plays.
        let none = try await runJourney([
            "explore", "--jobs", "2", "--journey", "eiam.app", "--from", scenario, "--clock-jump", "1h",
        ])
        #expect(none.stdout.contains("clock jumps of 1h;"), "\(none)")
        // Among several starts, the default device's issues no token: the line says so.
        let all = try await runJourney(["explore", "--jobs", "2", "--journey", "eiam.app", "journeys"])
        #expect(all.status == Exit.ok, "\(all)")
        #expect(all.stdout.contains(", clock jumps of 5m (from some starts); bounds:"), "\(all)")
    }

    @Test("a journey that reads the time of day is explored at the hours it tells apart")
    func timeOfDay() async throws {
        try await withTemporaryDirectory { directory in
            try writeText(
                """
                journey: t.night
                version: 1
                title: Closed at night
                start: launch
                steps:
                  launch:
                    handler: flow.decide
                    on:
                      next:
                        - if: device.now % 86400 >= 82800
                          to: closed
                        - else: open
                  open:
                    handler: ui.screen
                    screen: { title: Welcome, actions: { go: Go } }
                    on: { go: done }
                  closed:
                    handler: ui.screen
                    screen: { title: Closed for the night, actions: { retry: Try again } }
                    on: { retry: launch }
                ends:
                  done: { kind: success }

                """, to: directory.appendingPathComponent("night.journey.yaml"))
            let result = try await runJourney(["explore", "--jobs", "1", "night.journey.yaml"], cwd: directory)
            #expect(result.status == Exit.ok, "\(result)")
            // 23:00, told in the guard, is reached from midnight; the hour is part of the state,
            // so the welcome screen at 23:00 is not the one at midnight, and the app opened again
            // then is closed (and opens at 22:00 the next day).
            #expect(result.stdout.contains("clock jumps of 23h;"), "\(result)")
            #expect(!result.stdout.contains("transitions no path takes"), "\(result)")
        }
    }

    @Test("a duration written in an expression (a guard, an action's enabled:) is a clock jump the explorer plays")
    func durationsInExpressionsAreJumps() async throws {
        try await withTemporaryDirectory { directory in
            try writeText(
                """
                journey: t.expiry
                version: 1
                title: A code that expires after five minutes
                state:
                  sentAt: { type: int, default: 0 }
                  shownAt: { type: int, default: 0 }
                invariants:
                  code-never-expires:
                    summary: the code never expires
                    never: step == 'expired'
                start: send
                steps:
                  send:
                    handler: flow.decide
                    on:
                      next: { set: { state.sentAt: "${device.now}" }, to: code }
                  code:
                    handler: ui.screen
                    screen: { title: Enter the code, actions: { submit: Submit } }
                    on:
                      submit:
                        - if: since(state.sentAt) >= 5m
                          to: expired
                        - else: done
                  expired:
                    handler: ui.screen
                    screen:
                      title: "Expired ${since(state.sentAt) > 90s ? 'long ago' : ''}"
                      actions: { ok: OK }
                    on: { ok: gone }
                ends:
                  done: { kind: success }
                  gone: { kind: failure }

                """, to: directory.appendingPathComponent("expiry.journey.yaml"))
            let result = try await runJourney(["explore", "--jobs", "1", "expiry.journey.yaml"], cwd: directory)
            #expect(result.status == Exit.failed, "\(result)")
            #expect(result.stdout.contains("clock jumps of 90s, 5m;"), "\(result)")
            #expect(result.stdout.contains("invariant.code-never-expires"), "\(result)")
            #expect(result.stdout.contains("clock +5m → code: submit"), "\(result)")
        }
    }

    @Test(
        "a folder named '.', './', '../x' or by its absolute path explores the journeys in it, in explore and in test --explore",
        arguments: [".", "./", "../explore", "ABSOLUTE"])
    func folderWrittenAnyWayIsExplored(path: String) async throws {
        let folder = URL(fileURLWithPath: Self.fixtures)
        let given = path == "ABSOLUTE" ? folder.path : path
        let explored = try await runJourney(["explore", "--jobs", "1", given], cwd: folder)
        #expect(explored.status == Exit.failed, "\(explored)")
        #expect(!explored.stdout.contains("explored 0 journeys"), "\(explored)")
        #expect(explored.stdout.contains("examples.pin-model-bug"), "\(explored)")
        let tested = try await runJourney(["test", "--explore", given], cwd: folder, timeout: 120)
        #expect(tested.stdout.contains("examples.pin-model-bug › explore"), "\(tested)")
    }

    @Test("--journey without paths chooses among the project's journeys, as with its folders given")
    func journeyWithoutPaths() async throws {
        let bare = try await runJourney(["explore", "--journey", "examples.pin-model"])
        let given = try await runJourney(["explore", "--journey", "examples.pin-model", "journeys"])
        #expect(bare.status == Exit.ok, "\(bare)")
        #expect(bare.stdout == given.stdout, "\(bare)\n\(given)")
        #expect(bare.stdoutLines.first?.hasPrefix("examples.pin-model from ") == true, "\(bare)")
        let unknown = try await runJourney(["explore", "--journey", "examples.pin-modle"])
        #expect(unknown.status == Exit.invalid, "\(unknown)")
        #expect(unknown.stderr.contains("did you mean 'examples.pin-model'"), "\(unknown)")
    }

    @Test("the PIN model journey explores clean with the peers' counts, and the exit status says so")
    func clean() async throws {
        let result = try await runJourney(["explore", "journeys/examples/pin-model.journey.yaml"])
        #expect(result.status == Exit.ok, "\(result)")
        #expect(
            result.stdoutLines.first == "examples.pin-model: 45 states, 140 transitions, depth 8: clean", "\(result)")
        #expect(result.stdout.contains("explored 1 journey: 1 clean, 0 with violations"), "\(result)")
    }

    @Test(
        "a screen's timeout is reached by clock jumps shorter than it, as a run reaches it by several advances",
        arguments: [["--clock-jump", "3m"], ["--clock-jump", "4m", "--clock-jump", "1m"], ["--clock-jump", "150s"]])
    func timeoutAcrossJumps(jumps: [String]) async throws {
        let result = try await runJourney(["explore", "journeys/examples/pin-model.journey.yaml"] + jumps)
        #expect(result.status == Exit.ok, "\(result)")
        #expect(
            result.stdout.contains(
                "transitions no path takes (2 of 21): biometry --unavailable-->, locked --missing-->"),
            "\(result)")
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
            // A trap's replay explores from where its script stops: no end can be reached there.
            (
                "trap.journey.yaml", "explore.trap", "explore.reaches-an-end", "again: stay",
                "no end can be reached from step 'again', where the script leaves the run, but by killing the app"
            ),
            (
                "cutoff.journey.yaml", "explore.cutoff", "explore.reaches-an-end", "clock +1d → restart",
                "where the script leaves the run, but by killing the app: every way on loops back"
            ),
            (
                "signed-in-forever.journey.yaml", "explore.signed-in-forever", "explore.credential-before-success",
                "login: correct → home: signOut → relaunch after signedOut → home: close",
                "session 2: explore.credential-before-success is broken"
            ),
            (
                "invariant-never.journey.yaml", "explore.home-before-pin", "invariant.pin-before-home", "welcome: skip",
                "invariant 'pin-before-home' is broken at step 'home': Home is never shown before a PIN is set"
            ),
            (
                "invariant-always.journey.yaml", "explore.retries-unbounded", "invariant.retries-bounded",
                "code: retry → code: retry → code: retry", "invariant 'retries-bounded' is broken at step 'code'"
            ),
            (
                "invariant-never-after.journey.yaml", "explore.code-after-lock", "invariant.no-code-after-lock",
                "otp: wrong → locked: retry", "invariant 'no-code-after-lock' is broken at step 'otp'"
            ),
            (
                "invariant-only-after.journey.yaml", "explore.home-without-verify", "invariant.home-after-verify",
                "welcome: guest", "invariant 'home-after-verify' is broken at step 'home'"
            ),
            (
                "rounds.journey.yaml", "explore.rounds", "explore.exceeded-target",
                "choosePin: strong → enterPin: wrong → enterPin: wrong → enterPin: wrong → enterPin: wrong",
                "expected stored.failures = 3, found 1"
            ),
            (
                "credential-skipped.journey.yaml", "explore.credential-skipped", "explore.credential-before-success",
                "signIn: later → home: done",
                "success end 'done' is reached without passing a step that verifies a credential"
            ),
        ] as [(String, String, String, String, String)])
    func caught(
        _ file: String, _ journey: String, _ invariant: String, _ moves: String, _ replayed: String
    )
        async throws
    {
        try await withTemporaryDirectory { directory in
            let out = directory.appendingPathComponent("counterexamples").path
            let result = try await runJourney(["explore", "\(Self.fixtures)/\(file)", "--emit", out])
            #expect(result.status == Exit.failed, "\(result)")
            #expect(result.stdout.contains("  \(invariant): "), "\(result)")
            #expect(result.stdout.contains(": \(moves)\n"), "\(result)")
            let name = invariant.drop { $0 != "." }.dropFirst()
            let scenario = "\(out)/\(journey).\(name).scenario.yaml"
            // The output says how to replay it: the fixtures are outside the project's folders.
            #expect(
                result.stdout.contains(
                    "written to \(scenario); replay it with `journey run --scenario \(scenario) --journeys \(Self.fixtures)`"
                ),
                "\(result)")
            let replay = try await runJourney(["run", "--scenario", scenario, "--journeys", Self.fixtures])
            #expect(replay.status == Exit.failed, "\(replay)")
            #expect(replay.stderr.contains(replayed), "\(replay)")
        }
    }

    @Test(
        "a counter kept in memory: its counterexample expects the limit's count, and passes once the journey keeps the count on the device"
    )
    func counterexampleOutlivesTheFix() async throws {
        try await withTemporaryDirectory { directory in
            let result = try await runJourney(
                ["explore", "\(Paths.root.path)/\(Self.fixtures)/pin-model-bug.journey.yaml", "--emit", "out"],
                cwd: directory)
            #expect(result.status == Exit.failed, "\(result)")
            let scenario = "out/examples.pin-model-bug.counter-survives.scenario.yaml"
            let text = try String(contentsOf: directory.appendingPathComponent(scenario), encoding: .utf8)
            #expect(text.hasSuffix("expect:\n  at: locked\n  limits: { pinEntry: 1 }\n"), "\(text)")
            // Fixed as the peers' model keeps it: the count in `stored`, which a restart keeps.
            var journey = try String(
                contentsOf: Paths.root.appendingPathComponent("\(Self.fixtures)/pin-model-bug.journey.yaml"),
                encoding: .utf8)
            let declared =
                "  failures: { type: int, default: 0, description: \"wrong PINs in a row, until the app restarts: the bug\" }\n"
            #expect(journey.contains(declared))
            journey = journey.replacingOccurrences(of: declared, with: "").replacingOccurrences(
                of: "stored:\n", with: "stored:\n  failures: { type: int, default: 0 }\n"
            ).replacingOccurrences(of: "state.failures", with: "stored.failures")
            try writeText(journey, to: directory.appendingPathComponent("fixed/pin-model-bug.journey.yaml"))
            let replay = try await runJourney(["run", "--scenario", scenario, "--journeys", "fixed"], cwd: directory)
            #expect(replay.status == Exit.ok, "\(replay)")
            #expect(replay.stderr.contains("PASS examples.pin-model-bug › "), "\(replay)")
        }
    }

    @Test(
        "a counterexample whose path a fix closes (an action disabled, a step put before, another end) passes, saying where the journey left it"
    )
    func counterexampleWhosePathIsGone() async throws {
        try await withTemporaryDirectory { directory in
            let original = try String(
                contentsOf: Paths.root.appendingPathComponent("\(Self.fixtures)/dodge.journey.yaml"), encoding: .utf8)
            let explored = try await runJourney(
                ["explore", "\(Paths.root.path)/\(Self.fixtures)/dodge.journey.yaml", "--emit", "out"], cwd: directory)
            #expect(explored.status == Exit.failed, "\(explored)")
            let scenario = "out/explore.dodge.exceeded-target.scenario.yaml"
            let text = try String(contentsOf: directory.appendingPathComponent(scenario), encoding: .utf8)
            #expect(
                text.hasSuffix(
                    "  - at: enterPin\n    action: \"forgot\"\nexpect:\n  at: enterPin\n  limits: { pinEntry: 1 }\n"),
                "\(text)")
            // The entry's line: the `- at: enterPin` before the action.
            let forgotLine = text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex {
                $0.contains("\"forgot\"")
            }!
            func replay(_ journey: String, file: String = scenario) async throws -> RunResult {
                try writeText(journey, to: directory.appendingPathComponent("fixed/dodge.journey.yaml"))
                return try await runJourney(["run", "--scenario", file, "--journeys", "fixed"], cwd: directory)
            }
            let gone = "PASS explore.dodge › explore-dodge-exceeded-target: the journey no longer takes its path"
            // As found: the replay fails with the violation.
            let broken = try await replay(original)
            #expect(
                broken.status == Exit.failed && broken.stderr.contains("expected stored.failures = 1, found 0"),
                "\(broken)")
            // "Forgot PIN?" disabled once a PIN was wrong.
            let disabled = original.replacingOccurrences(
                of: "actions: { forgot: Forgot PIN? }",
                with: #"actions: { forgot: { label: Forgot PIN?, enabled: "${stored.failures == 0}" } }"#)
            #expect(disabled != original)
            let refused = try await replay(disabled)
            #expect(refused.status == Exit.ok, "\(refused)")
            #expect(
                refused.stderr.contains(
                    "\(gone) (line \(forgotLine): action 'forgot' is disabled on step 'enterPin'; it cannot be pressed): what it caught cannot happen along it (journey explore checks every path)"
                ), "\(refused)")
            // "Forgot PIN?" leads to a help screen, the count kept.
            let helped = try await replay(
                original.replacingOccurrences(
                    of: "      forgot:\n        set: { stored.failures: 0 }\n        to: enterPin\n",
                    with:
                        "      forgot: help\n  help:\n    handler: ui.screen\n    screen: { title: Help, actions: { back: Back } }\n    on: { back: enterPin }\n"
                ))
            #expect(helped.status == Exit.ok, "\(helped)")
            #expect(
                helped.stderr.contains(
                    "\(gone) (the journey waits at step 'help' where the script ends, not step 'enterPin')"),
                "\(helped)")
            // "Forgot PIN?" ends the journey.
            let ended = try await replay(
                original.replacingOccurrences(
                    of: "      forgot:\n        set: { stored.failures: 0 }\n        to: enterPin\n",
                    with: "      forgot: locked\n"))
            #expect(ended.status == Exit.ok, "\(ended)")
            #expect(
                ended.stderr.contains(
                    "\(gone) (the journey reached end 'locked' where the script ends, not step 'enterPin')"),
                "\(ended)")
            // A step put before the PIN pad: the script's input for the pad is for another step.
            let confirmed = try await replay(
                original.replacingOccurrences(
                    of: "      saved: enterPin\n",
                    with:
                        "      saved: ready\n  ready:\n    handler: ui.screen\n    screen: { title: Ready, actions: { go: Go } }\n    on: { go: enterPin }\n"
                ))
            #expect(confirmed.status == Exit.ok, "\(confirmed)")
            #expect(confirmed.stderr.contains("\(gone) (line "), "\(confirmed)")
            #expect(
                confirmed.stderr.contains("gives input for step 'enterPin', the journey is at step 'ready')"),
                "\(confirmed)")
            // The same script, not a counterexample, fails where the journey refuses it.
            let plain = "out/plain.scenario.yaml"
            try writeText(
                text.replacingOccurrences(of: "tags: [explore, counterexample]\n", with: ""),
                to: directory.appendingPathComponent(plain))
            let refusedPlain = try await replay(disabled, file: plain)
            #expect(refusedPlain.status == Exit.failed, "\(refusedPlain)")
            #expect(refusedPlain.stderr.contains("action 'forgot' is disabled on step 'enterPin'"), "\(refusedPlain)")
            // journey test says it under the PASS line, once its golden is recorded.
            try FileManager.default.removeItem(at: directory.appendingPathComponent(plain))
            let recorded = try await runJourney(["test", "fixed", "out", "--update"], cwd: directory)
            #expect(recorded.status == Exit.ok, "\(recorded)")
            let tested = try await runJourney(["test", "fixed", "out"], cwd: directory)
            #expect(tested.status == Exit.ok, "\(tested)")
            #expect(tested.stdout.contains("    note: the journey no longer takes its path (line "), "\(tested)")
        }
    }

    @Test("canEnd: a trap's counterexample passes once the journey is put right; a place meant to be final is pinned")
    func canEnd() async throws {
        try await withTemporaryDirectory { directory in
            let journeys = directory.appendingPathComponent("journeys")
            let trap = try String(
                contentsOf: Paths.root.appendingPathComponent("\(Self.fixtures)/trap.journey.yaml"), encoding: .utf8)
            try writeText(trap, to: journeys.appendingPathComponent("trap.journey.yaml"))
            let scenario = journeys.appendingPathComponent("scenarios/stay.scenario.yaml")
            func replay(expecting expect: String) async throws -> RunResult {
                try writeText(
                    "scenario: stay\njourney: explore.trap\nscript:\n  - { at: again, action: stay }\nexpect: \(expect)\n",
                    to: scenario)
                return try await runJourney(["run", "--scenario", scenario.path], cwd: directory)
            }
            let trapped = try await replay(expecting: "{ at: again, canEnd: true }")
            #expect(trapped.status == Exit.failed, "\(trapped)")
            #expect(trapped.stderr.contains("no end can be reached from step 'again'"), "\(trapped)")
            // Pinned as final, the same place passes; without canEnd the stop alone is checked.
            #expect(try await replay(expecting: "{ at: again, canEnd: false }").status == Exit.ok)
            #expect(try await replay(expecting: "{ at: again }").status == Exit.ok)
            // The way out kept enabled: an end can be reached, and the counterexample passes.
            try writeText(
                trap.replacingOccurrences(of: #"enabled: "${stored.seen == 0}""#, with: "enabled: true"),
                to: journeys.appendingPathComponent("trap.journey.yaml"))
            #expect(try await replay(expecting: "{ at: again, canEnd: true }").status == Exit.ok)
            let final = try await replay(expecting: "{ at: again, canEnd: false }")
            #expect(final.status == Exit.failed, "\(final)")
            #expect(
                final.stderr.contains(
                    "an end can still be reached from step 'again', though the scenario expects none"),
                "\(final)")
            // canEnd speaks of where the run waits: with an end expected it is an error.
            let misplaced = try await replay(expecting: "{ end: done, canEnd: true }")
            #expect(misplaced.status == Exit.invalid, "\(misplaced)")
            #expect(misplaced.stderr.contains("[value.type]") && misplaced.stderr.contains("'canEnd'"), "\(misplaced)")
        }
    }

    @Test("a runaway loop's transcript is printed by its start and its end, with how many lines lie between")
    func runawayTranscriptIsCut() async throws {
        try await withTemporaryDirectory { directory in
            try writeText(
                """
                journey: q.bounce
                version: 1
                title: Bounce
                stored: { stale: { type: bool, default: false } }
                start: home
                steps:
                  home:
                    handler: ui.screen
                    screen: { title: Home, actions: { expire: Expire, done: Done } }
                    on: { expire: { set: { stored.stale: true }, to: check }, done: finished }
                  check:
                    handler: flow.decide
                    on: { next: [{ if: stored.stale, to: refresh }, { else: home }] }
                  refresh: { handler: flow.decide, on: { next: check } }
                ends: { finished: { kind: success } }
                """, to: directory.appendingPathComponent("bounce.journey.yaml"))
            let result = try await runJourney(["explore", "bounce.journey.yaml"], cwd: directory)
            #expect(result.status == Exit.failed, "\(result)")
            #expect(result.stdout.contains("explore.never-fails: the run fails: step budget of 10000 exhausted"))
            let transcript = result.stdoutLines.filter { $0.hasPrefix("      ") }
            #expect(transcript.count == 111, "\(transcript.count) lines")
            #expect(
                transcript[60].hasPrefix("      … ") && transcript[60].hasSuffix(" lines more …"), "\(transcript[60])")
            #expect(transcript.last?.contains("step budget of 10000 exhausted") == true, "\(transcript.suffix(3))")
        }
    }

    @Test("a trap in a called journey whose step shares a name with the caller's: its counterexample says in: which")
    func trapInACalledJourney() async throws {
        try await withTemporaryDirectory { directory in
            try writeText(
                """
                journey: q.root
                version: 1
                title: Root
                start: intro
                steps:
                  intro: { handler: ui.screen, screen: { title: Intro, actions: { go: Go } }, on: { go: sub } }
                  sub: { call: q.sub, on: { finished: done } }
                ends: { done: { kind: success } }
                """, to: directory.appendingPathComponent("journeys/root.journey.yaml"))
            try writeText(
                """
                journey: q.sub
                version: 1
                title: Sub
                stored: { n: { type: int, default: 0 } }
                start: intro
                steps:
                  intro:
                    handler: ui.screen
                    screen: { title: One, actions: { fin: { label: Finish, enabled: "${stored.n == 0}" }, bump: Bump } }
                    on: { fin: finished, bump: { set: { stored.n: 1 }, to: intro } }
                ends: { finished: { kind: success } }
                """, to: directory.appendingPathComponent("journeys/sub.journey.yaml"))
            let explored = try await runJourney(
                ["explore", "journeys", "--journey", "q.root", "--emit", "out"], cwd: directory)
            #expect(explored.status == Exit.failed, "\(explored)")
            let path = directory.appendingPathComponent("out/q.root.reaches-an-end.scenario.yaml")
            let text = try String(contentsOf: path, encoding: .utf8)
            #expect(text.hasSuffix("expect:\n  at: intro\n  in: q.sub\n  canEnd: true\n"), "\(text)")
            let replay = try await runJourney(
                ["run", "--scenario", path.path, "--journeys", "journeys"], cwd: directory)
            #expect(replay.status == Exit.failed, "\(replay)")
            #expect(replay.stderr.contains("no end can be reached from step 'intro' of q.sub"), "\(replay)")
        }
    }

    @Test(
        "canEnd says when it cannot tell: the bounds cut the exploration short, requests go unanswered; a failure is no end"
    )
    func canEndUntold() async throws {
        try await withTemporaryDirectory { directory in
            /// Plays `steps` (step `s` first) to `s` pressing `stay`, expecting canEnd `expected`.
            func replay(_ steps: String, extra: String = "", expected: Bool) async throws -> RunResult {
                try writeText(
                    "journey: t.until\nversion: 1\ntitle: Until\n\(extra)start: s\nsteps:\n\(steps)\nends:\n  done: { kind: success }\n",
                    to: directory.appendingPathComponent("journeys/until.journey.yaml"))
                let scenario = directory.appendingPathComponent("journeys/scenarios/stay.scenario.yaml")
                try writeText(
                    "scenario: stay\njourney: t.until\nscript:\n  - { at: s, action: stay }\nexpect: { at: s, canEnd: \(expected) }\n",
                    to: scenario)
                return try await runJourney(["run", "--scenario", scenario.path], cwd: directory)
            }
            // The way out opens after 60 presses, past the default depth of 50: neither verdict.
            let far = """
                  s:
                    handler: ui.screen
                    screen: { title: S, actions: { stay: Stay, out: { label: Out, enabled: "${state.n >= 60}" } } }
                    on: { stay: { set: { state.n: "${state.n + 1}" }, to: s }, out: done }
                """
            for expected in [true, false] {
                let result = try await replay(
                    far, extra: "state:\n  n: { type: int, default: 0 }\n", expected: expected)
                #expect(result.status == Exit.failed, "\(result)")
                #expect(
                    result.stderr.contains(
                        "whether an end can be reached from step 's' could not be told: the bounds of journey explore (depth 50, 200000 states) cut the exploration short"
                    ), "\(result)")
            }
            // Every way on fails (an int past its largest value): no end can be reached.
            let failing = """
                  s:
                    handler: ui.screen
                    screen: { title: S, actions: { stay: Stay, go: Go } }
                    on: { stay: s, go: { set: { state.n: "${params.big + 1}" }, to: done } }
                """
            let extra =
                "params:\n  big: { type: int, default: 9223372036854775807 }\nstate:\n  n: { type: int, default: 0 }\n"
            let fails = try await replay(failing, extra: extra, expected: true)
            #expect(fails.status == Exit.failed, "\(fails)")
            #expect(fails.stderr.contains("every way on from there fails (explore.reaches-an-end)"), "\(fails)")
            #expect(try await replay(failing, extra: extra, expected: false).status == Exit.ok)
            // A request with no stub to answer it: where it leads is not known.
            let asks = """
                  s:
                    handler: ui.screen
                    screen: { title: S, actions: { stay: Stay, go: Go } }
                    on: { stay: s, go: ask }
                  ask:
                    handler: http.request
                    with: { method: GET, url: "https://api.example.org/ok" }
                    on: { ok: done, failed: s, offline: s }
                """
            let unanswered = try await replay(asks, expected: true)
            #expect(
                unanswered.stderr.contains("the journey sends requests the scenario's stubs do not answer"),
                "\(unanswered)")
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

    @Test("what explore cannot do as asked is a usage error, said before anything is explored")
    func usageErrors() async throws {
        let scenario = "journeys/examples/scenarios/correct-pin.scenario.yaml"
        let cases: [([String], String)] = [
            (["--emit", "", "journeys/examples"], "--emit takes a folder to write scenarios into"),
            (["--seed", "7", "journeys/examples"], "--seed and --walks go with --random"),
            (["--walks", "10", "journeys/examples"], "--seed and --walks go with --random"),
            (["--random", "--strict", "journeys/examples"], "--strict asks that every reachable state be explored"),
            (
                [scenario],
                "\(scenario) is a scenario, not a journey: to explore its journey from where it starts, give it with --from"
            ),
            (
                ["--from", scenario, "--journey", "diia.login"],
                "--journey diia.login: no scenario given with --from plays it (they play examples.unlock)"
            ),
            // With paths too, --journey says what is explored: a --from start of another journey is refused.
            (
                ["--from", scenario, "--journey", "examples.pin-model", "journeys/examples"],
                "--from \(scenario) plays examples.unlock, which --journey leaves out: name it with --journey too, or leave the scenario out"
            ),
            // A folder that cannot be made is said before anything is explored.
            (
                ["--emit", "README.md/counterexamples", "journeys/examples"],
                "cannot make the folder README.md/counterexamples for --emit: README.md is a file, not a folder"
            ),
            // --from takes one scenario: a folder, or a journey, is said as such.
            (
                ["--from", "journeys/examples/scenarios"],
                "journeys/examples/scenarios is a folder, and --from takes one scenario file: to explore from where each of its scenarios starts, give the folder as a path (journey explore journeys/examples/scenarios)"
            ),
            (
                ["--from", "journeys/examples/unlock.journey.yaml"],
                "journeys/examples/unlock.journey.yaml is a journey (examples.unlock), not a scenario: --from takes a scenario file (journey new scenario writes one)"
            ),
            // A folder of scenarios only explores nothing: said, not passed as clean.
            (
                ["journeys/examples/scenarios"],
                "no journey in journeys/examples/scenarios, only scenarios: to explore the journeys they play (examples.mfa-enrolment, examples.pin-model, examples.tree-login, …), give the journeys' files or folder, or each scenario with --from to explore from where it starts"
            ),
        ]
        for (arguments, message) in cases {
            let result = try await runJourney(["explore"] + arguments, cwd: Paths.root)
            #expect(result.status == Exit.invalid, "\(arguments): \(result)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(arguments): \(result)")
        }
        // Named with the scenario it is played from, the journey is explored from there.
        let chosen = try await runJourney(
            ["explore", "--from", scenario, "--journey", "examples.unlock"], cwd: Paths.root)
        #expect(chosen.status == Exit.ok && chosen.stdout.hasPrefix("examples.unlock"), "\(chosen)")
    }

    @Test(
        "counterexamples written into the folder explored are no starts of the next exploration, which finds and writes what the first did"
    )
    func emittedCounterexamplesAreNoStarts() async throws {
        try await withTemporaryDirectory { directory in
            try FileManager.default.copyItem(
                at: Paths.root.appendingPathComponent("\(Self.fixtures)/pin-model-bug.journey.yaml"),
                to: directory.appendingPathComponent("pin-model-bug.journey.yaml"))
            let twenty = try String(
                contentsOf: Paths.journeys.appendingPathComponent(
                    "examples/scenarios/pin-model-twenty-events.scenario.yaml"), encoding: .utf8)
            try writeText(
                twenty.replacingOccurrences(
                    of: "journey: examples.pin-model\n", with: "journey: examples.pin-model-bug\n"),
                to: directory.appendingPathComponent("scenarios/twenty.scenario.yaml"))
            let first = try await runJourney(["explore", ".", "--emit", "found"], cwd: directory)
            #expect(first.status == Exit.failed, "\(first)")
            #expect(
                first.stdout.hasPrefix(
                    "examples.pin-model-bug from 2 starts (the default device and 1 scenario): 2 violations\n"),
                "\(first)")
            let written = entries(of: directory.appendingPathComponent("found"))
            #expect(written.count == 2, "\(written)")
            // The same starts and violations (the coverage line counts them among the scenarios).
            let second = try await runJourney(["explore", ".", "--emit", "found"], cwd: directory)
            #expect(second.stdoutLines.first == first.stdoutLines.first, "\(second)")
            #expect(second.stdoutLines.last == first.stdoutLines.last, "\(second)")
            #expect(entries(of: directory.appendingPathComponent("found")) == written)
            // journey test still plays them, as the violations they replay.
            let test = try await runJourney(["test", "found", "pin-model-bug.journey.yaml"], cwd: directory)
            #expect(test.stdoutLines.last == "0 passed, 2 failed", "\(test)")
            // Named with --from, one is a start as any scenario is.
            let named = try await runJourney(["explore", "--from", "found/\(written[0])", "."], cwd: directory)
            #expect(
                named.stdoutLines.first
                    == "examples.pin-model-bug from 3 starts (the default device and 2 scenarios): 3 violations",
                "\(named)")
        }
    }

    @Test(
        "--emit replaces only what an earlier exploration wrote: a file of the user's, or a folder, of the same name is kept, said, and the run goes on to exit 2"
    )
    func emitKeepsTheUsersFiles() async throws {
        try await withTemporaryDirectory { directory in
            let out = directory.appendingPathComponent("out")
            let bug = "\(Self.fixtures)/pin-model-bug.journey.yaml"
            let first = try await runJourney(["explore", bug, "--emit", out.path])
            #expect(first.status == Exit.failed, "\(first)")
            let name = "examples.pin-model-bug.counter-survives.scenario.yaml"
            let emitted = out.appendingPathComponent(name)
            let written = try String(contentsOf: emitted, encoding: .utf8)
            // Its own file, written again: the same bytes.
            let again = try await runJourney(["explore", bug, "--emit", out.path])
            #expect(again.status == Exit.failed, "\(again)")
            #expect(try String(contentsOf: emitted, encoding: .utf8) == written)
            // Its own file checked out with CRLF line endings (git's core.autocrlf): still its own.
            try written.replacingOccurrences(of: "\n", with: "\r\n").write(
                to: emitted, atomically: true, encoding: .utf8)
            let converted = try await runJourney(["explore", bug, "--emit", out.path])
            #expect(converted.status == Exit.failed, "\(converted)")
            #expect(try String(contentsOf: emitted, encoding: .utf8) == written)
            // The user's own scenario of that name stays as it was.
            try "scenario: mine\n# kept\n".write(to: emitted, atomically: true, encoding: .utf8)
            let kept = try await runJourney(["explore", bug, "--emit", out.path])
            #expect(kept.status == Exit.invalid, "\(kept)")
            #expect(try String(contentsOf: emitted, encoding: .utf8) == "scenario: mine\n# kept\n")
            #expect(
                kept.stderr.contains("\(emitted.path) exists and was not written by journey explore: not written"),
                "\(kept)")
            // The exploration is still printed whole, with its summary.
            #expect(kept.stdout.contains("explore.counter-survives: an app restart takes limit"), "\(kept)")
            #expect(kept.stdout.contains("explored 1 journey: 0 clean, 1 with violations"), "\(kept)")
            #expect(kept.stderr.hasSuffix("error: 1 counterexample not written to \(out.path)\n"), "\(kept)")
            // A folder in its place: kept too.
            try FileManager.default.removeItem(at: emitted)
            try FileManager.default.createDirectory(at: emitted, withIntermediateDirectories: false)
            let folder = try await runJourney(["explore", bug, "--emit", out.path])
            #expect(folder.status == Exit.invalid, "\(folder)")
            #expect(folder.stderr.contains("\(emitted.path) is not a regular file: not written"), "\(folder)")
            #expect(folder.stdout.contains("explore.counter-survives"), "\(folder)")
        }
    }

    @Test(
        "a rule broken while a sub-journey waits: the counterexample stops at the sub-journey's step and replays to the violation",
        arguments: ["step == 'sub'", "end == 'success'"])
    func brokenInsideASubJourney(never: String) async throws {
        try await withTemporaryDirectory { directory in
            try writeText(
                """
                journey: t.callee
                version: 1
                title: Callee
                start: inner
                steps:
                  inner:
                    handler: ui.screen
                    screen: { title: Inner, actions: { ok: OK } }
                    on: { ok: fine }
                ends:
                  fine: { kind: success }

                """, to: directory.appendingPathComponent("journeys/callee.journey.yaml"))
            try writeText(
                """
                journey: t.caller
                version: 1
                title: Caller
                invariants:
                  caller-rule:
                    summary: a rule the path breaks
                    never: "\(never)"
                start: sub
                steps:
                  sub:
                    call: t.callee
                    on: { fine: done }
                ends:
                  done: { kind: success }

                """, to: directory.appendingPathComponent("journeys/caller.journey.yaml"))
            let result = try await runJourney(["explore", "journeys", "--emit", "out"], cwd: directory)
            #expect(result.status == Exit.failed, "\(result)")
            #expect(
                result.stdout.contains(
                    "written to out/t.caller.caller-rule.scenario.yaml; replay it with `journey run --scenario out/t.caller.caller-rule.scenario.yaml --journeys journeys`"
                ), "\(result)")
            #expect(result.stdout.contains("the replay fails: invariant 'caller-rule' is broken"), "\(result)")
            let replay = try await runJourney(
                ["run", "--scenario", "out/t.caller.caller-rule.scenario.yaml", "--journeys", "journeys"],
                cwd: directory)
            #expect(replay.status == Exit.failed, "\(replay)")
            #expect(replay.stderr.contains("invariant 'caller-rule' is broken"), "\(replay)")
        }
    }

    @Test(
        "an excepted invariant the explorer does not look for is said not looked for, never 'not broken'; one looked for and not found is said not broken"
    )
    func exceptionNotLookedFor() async throws {
        // examples.unlock excepts explore.credential-before-success, and without the exception breaks it.
        let journey = "journeys/examples/unlock.journey.yaml"
        let result = try await runJourney(["explore", journey])
        #expect(result.status == Exit.ok, "\(result)")
        #expect(
            result.stdout.contains(
                "explore.credential-before-success declared as an exception, so not looked for: a PIN just chosen"),
            "\(result)")
        #expect(!result.stdout.contains("not broken"), "\(result)")
        let json = try await runJourney(["explore", "--json", journey])
        let decoded = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        let exception = try #require(decoded?.first?["exceptions"] as? [[String: Any]]).first
        #expect(exception?["checked"] as? Bool == false && exception?["broken"] as? Bool == false, "\(json)")
        try await withTemporaryDirectory { directory in
            let text = try String(contentsOf: Paths.root.appendingPathComponent(journey), encoding: .utf8)
            try writeText(
                text.replacingOccurrences(of: "explore.credential-before-success:", with: "explore.never-fails:"),
                to: directory.appendingPathComponent("journeys/unlock.journey.yaml"))
            let withoutIt = try await runJourney(["explore", "journeys"], cwd: directory)
            #expect(withoutIt.status == Exit.failed, "\(withoutIt)")
            #expect(
                withoutIt.stdout.contains("explore.credential-before-success: success end 'unlocked' is reached"),
                "\(withoutIt)")
            #expect(
                withoutIt.stdout.contains(
                    "explore.never-fails declared as an exception but not broken: a PIN just chosen"), "\(withoutIt)")
            let json = try await runJourney(["explore", "--json", "journeys"], cwd: directory)
            let decoded = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
            let exception = try #require(decoded?.first?["exceptions"] as? [[String: Any]]).first
            #expect(exception?["checked"] as? Bool == true && exception?["broken"] as? Bool == false, "\(json)")
        }
    }

    @Test("a journey that keeps the invariants it states explores clean; one that misuses them does not check")
    func invariants() async throws {
        let clean = try await runJourney(["explore", "\(Self.fixtures)/invariants-hold.journey.yaml"])
        #expect(clean.status == Exit.ok, "\(clean)")
        #expect(clean.stdoutLines.first?.hasSuffix(": clean") == true, "\(clean)")
        let json = try await runJourney(["explore", "--json", "\(Self.fixtures)/invariant-never.journey.yaml"])
        let decoded = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        let violation = try #require(decoded?.first?["violations"] as? [[String: Any]]).first
        #expect(violation?["invariant"] as? String == "invariant.pin-before-home", "\(json)")
        #expect(violation?["summary"] as? String == "Home is never shown before a PIN is set", "\(json)")
        #expect(violation?["path"] as? [String] == ["welcome: skip"], "\(json)")
        try await withTemporaryDirectory { directory in
            let text = try String(
                contentsOf: Paths.root.appendingPathComponent("\(Self.fixtures)/invariant-never.journey.yaml"),
                encoding: .utf8)
            try writeText(
                text.replacingOccurrences(of: "step == 'home'", with: "step == 'hom'"),
                to: directory.appendingPathComponent("journeys/j.journey.yaml"))
            for command in ["check", "explore"] {
                let result = try await runJourney([command, "journeys"], cwd: directory)
                #expect(result.status == Exit.invalid, "\(result)")
                #expect(
                    result.stderr.contains(
                        "journeys/j.journey.yaml:13:20: error: 'hom' is not a step or end of this journey; did you mean 'home'? [step.unknown]"
                    ), "\(result)")
            }
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
        // The state bound is kept from the start, and what was found but not expanded is said as such.
        for bound in [1, 2, 10] {
            let bounded = try await runJourney([
                "explore", "journeys/examples/pin-model.journey.yaml", "--states", "\(bound)", "--json",
            ])
            let entry = try #require(
                (try JSONSerialization.jsonObject(with: Data(bounded.stdout.utf8)) as? [[String: Any]])?.first,
                "\(bounded)")
            #expect(entry["states"] as? Int == bound && entry["truncated"] as? Bool == true, "\(bounded)")
            #expect((entry["frontier"] as? Int ?? 0) >= 1, "\(bounded)")
        }
        let one = try await runJourney(["explore", "journeys/examples/pin-model.journey.yaml", "--states", "1"])
        #expect(one.stdoutLines.first == "examples.pin-model: 1 state, 0 transitions, depth 0: clean", "\(one)")
        #expect(
            one.stdout.contains("1 state (reached: the exploration stopped there); 1 state found but not expanded"),
            "\(one)")
        let deep = try await runJourney(["explore", "journeys/examples/pin-model.journey.yaml", "--depth", "3"])
        #expect(deep.stdout.contains("states at the depth bound not expanded"), "\(deep)")
        let file = try await runJourney(["explore", "--emit", "README.md", "journeys/examples/pin-model.journey.yaml"])
        #expect(file.status == Exit.invalid && file.stderr.contains("README.md is a file"), "\(file)")
        let bad = try await runJourney(["explore", "--clock-jump", "soon"])
        #expect(bad.status != Exit.ok && bad.stderr.contains("--clock-jump takes"), "\(bad)")
        // A size given twice, however written, is one jump: the same space as given once.
        let once = try await runJourney(["explore", "journeys/examples/pin-model.journey.yaml", "--clock-jump", "5m"])
        let twice = try await runJourney([
            "explore", "journeys/examples/pin-model.journey.yaml", "--clock-jump", "5m", "--clock-jump", "300s",
        ])
        #expect(once.stdout == twice.stdout, "\(once)\n\(twice)")
        #expect(twice.stdout.hasPrefix("examples.pin-model: 45 states, 140 transitions"), "\(twice)")
        // So is a scenario given twice with --from, however its path is spelt.
        let scenario = "journeys/examples/scenarios/correct-pin.scenario.yaml"
        let from = try await runJourney(["explore", "--from", scenario])
        let fromTwice = try await runJourney(["explore", "--from", scenario, "--from", "./" + scenario])
        #expect(fromTwice.status == from.status && fromTwice.stdout == from.stdout, "\(from)\n\(fromTwice)")
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
        // From the empty device the journey ends at once, and again each time the app is opened
        // again; from the scenario's, a PIN is asked for.
        let alone = try await runJourney(["explore", "journeys/diia/pin-enter.journey.yaml"])
        #expect(alone.stdoutLines.first?.hasPrefix("diia.pin-enter: 3 states, 2 transitions") == true, "\(alone)")
        // ...and says why: no PIN to check, and none the journey seals.
        #expect(
            alone.stdout.contains(
                "left out: diia.pin-enter.enterPin: the device keeps no PIN under 'authorizationPincode' and no step seals one"
            ), "\(alone)")
        #expect(!result.stdout.contains("keeps no PIN"), "\(result)")
        #expect(!first.contains(": 1 state,"), "\(first)")
        // The scenario's PIN (4826) opens the seal it made: the right PIN is played too.
        let unreached = result.stdoutLines.first { $0.contains("transitions no path takes") } ?? ""
        #expect(
            !unreached.contains("enterPin --correct-->") && unreached.contains("enterPin --biometry-->"), "\(result)")
        #expect(try await runJourney(["explore", "--from", d5]).stdout == result.stdout, "the same on every run")

        // A path that asks the network for what the scenario has no stub for is out of scope,
        // and said to be: here "Forgot PIN?" signs out through a logout call the d4 scenario
        // never stubs.
        let d4 = "journeys/diia/scenarios/d4-killed-at-the-alert-keeps-server-session.scenario.yaml"
        let unstubbed = try await runJourney(["explore", "--from", d4])
        #expect(unstubbed.status == Exit.ok, "\(unstubbed)")
        #expect(
            unstubbed.stdoutLines.filter { $0.hasPrefix("  left out:") } == [
                "  left out: diia.logout.tellServer: sends a request that no stub answers, so where its step leads is not judged (add the server's answer to the network: of the scenario it is explored from)"
            ], "\(unstubbed)")

        let live = try await runJourney([
            "explore", "--from", "journeys/eiam/scenarios/i1-sign-in-with-pkce.scenario.yaml",
        ])
        #expect(live.status == Exit.invalid && live.stderr.contains("never a live service"), "\(live)")
    }
}

extension ExploreCommandTests {
    /// A journey with a param that has no default cannot start on the default device: explored
    /// from there, its start failed and was reported as `explore.never-fails`, the journey's
    /// fault. It is explored from where its scenarios start, as `journey test --explore` does,
    /// or not explored, saying why.
    @Test("a journey that needs params is explored from its scenarios' starts, or not at all, saying why")
    func journeyThatNeedsParams() async throws {
        let folder = try await runJourney(["explore", "journeys/examples"], timeout: 120)
        #expect(folder.status == Exit.ok, "\(folder)")
        #expect(!folder.stdout.contains("explore.never-fails"), "\(folder)")
        // Said together: the counts over its starts, then a line for each.
        let lines = folder.stdoutLines
        let tree = try #require(lines.firstIndex { $0.hasPrefix("examples.tree-login") }, "\(folder)")
        #expect(lines[tree] == "examples.tree-login from 7 starts (7 scenarios): clean", "\(lines[tree])")
        let starts = lines[(tree + 2)...].prefix { $0.hasPrefix("  from ") }
        #expect(starts.first?.hasPrefix("  from tree-code-expired: ") == true, "\(starts)")
        #expect(starts.count == 7 && !starts.contains { $0.contains("the default device") }, "\(starts)")
        #expect(
            folder.stdout.contains(
                "explored 4 journeys from 31 starts: 4 clean, 0 with violations"), "\(folder)")

        let alone = try await runJourney(["explore", "journeys/examples/tree-login.journey.yaml"])
        #expect(alone.status == Exit.ok, "\(alone)")
        #expect(
            alone.stdout
                == "examples.tree-login: not explored: it needs param 'hotpSecret', which has no default, and none of its scenarios is among those given (give their folder, or start from one with --from)\n"
                + "explored 0 journeys: 0 clean, 0 with violations; 1 not explored: examples.tree-login\n",
            "\(alone)")
        #expect(
            alone.stdout.contains(
                "explored 0 journeys: 0 clean, 0 with violations; 1 not explored: examples.tree-login"),
            "\(alone)")

        // Each scenario of the provider checks needs the live provider: none is a start.
        let live = try await runJourney(["explore", "--json", "journeys/eiam", "--journey", "eiam.provider-checks"])
        #expect(live.status == Exit.ok, "\(live)")
        let entries = try #require(
            try JSONSerialization.jsonObject(with: Data(live.stdout.utf8)) as? [[String: Any]], "\(live)")
        #expect(entries.count == 1 && entries[0]["journey"] as? String == "eiam.provider-checks", "\(entries)")
        let why = try #require(entries[0]["notExplored"] as? String, "\(entries)")
        #expect(
            why.hasSuffix(
                "each of its scenarios needs a live service, which exploring does not play against (it plays against a scenario's stubs)"
            ), "\(why)")
    }

    /// With no network but a scenario's stubs, a request goes as if the device were offline:
    /// what the server would answer is not played, and the output says so at the step.
    @Test("a step that sends a request with no network to send it to is said to be left out; from stubs it is played")
    func requestWithoutNetwork() async throws {
        let alone = try await runJourney(["explore", "journeys/examples/mfa-enrolment.journey.yaml"])
        #expect(alone.status == Exit.ok, "\(alone)")
        #expect(
            alone.stdoutLines.contains(
                "  left out: examples.mfa-enrolment.status: sends a request with no network to send it to: it goes as if offline (a server's answers are played from where a scenario that stubs them starts: give its folder, or --from it)"
            ), "\(alone)")
        let stubbed = try await runJourney([
            "explore", "--from", "journeys/examples/scenarios/mfa-app-enrolment.scenario.yaml",
        ])
        #expect(stubbed.status == Exit.ok, "\(stubbed)")
        #expect(!stubbed.stdout.contains("no network"), "\(stubbed)")
        // From both, left out only from the start without stubs.
        let both = try await runJourney([
            "explore", "journeys/examples/mfa-enrolment.journey.yaml", "--from",
            "journeys/examples/scenarios/mfa-app-enrolment.scenario.yaml",
        ])
        #expect(
            both.stdoutLines.contains(
                "  left out: examples.mfa-enrolment.status: sends a request with no network to send it to: it goes as if offline from the starts without stubs (those with stubs play the server's answers)"
            ), "\(both)")
        // Said the same whatever the number of threads.
        let one = try await runJourney(["explore", "--jobs", "1", "journeys/eduid"], timeout: 120)
        let two = try await runJourney(["explore", "--jobs", "2", "journeys/eduid"], timeout: 120)
        #expect(one.stdout.contains("  left out: eduid.app.me: sends a request"), "\(one)")
        #expect(one.stdout == two.stdout)
    }

    /// `--json` says what is left out as objects a script can select by kind, with the journey
    /// and step apart (a journey's id holds dots: `journey.step` cannot be split back).
    @Test("--json gives each thing left out its kind, journey, step and what the text says of it")
    func leftOutAsJSON() async throws {
        func leftOut(_ arguments: [String]) async throws -> [[String: Any]] {
            let run = try await runJourney(["explore", "--json"] + arguments)
            #expect(run.status == Exit.ok, "\(run)")
            let entries = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]]
            return (entries ?? []).flatMap { $0["leftOut"] as? [[String: Any]] ?? [] }
        }
        let alone = try await leftOut(["journeys/examples/mfa-enrolment.journey.yaml"])
        #expect(alone.count == 1, "\(alone)")
        #expect(alone.first?["kind"] as? String == "no-network", "\(alone)")
        #expect(alone.first?["journey"] as? String == "examples.mfa-enrolment", "\(alone)")
        #expect(alone.first?["step"] as? String == "status", "\(alone)")
        #expect(
            alone.first?["message"] as? String
                == "examples.mfa-enrolment.status: sends a request with no network to send it to: it goes as if offline (a server's answers are played from where a scenario that stubs them starts: give its folder, or --from it)",
            "\(alone)")
        #expect(alone.first?["handler"] == nil && alone.first?["input"] == nil, "\(alone)")
        // Each entry is one start: from a scenario that stubs the server, its request is not
        // sent without a network; one its stubs do not answer is said apart.
        let stubbed = try await leftOut(["--from", "journeys/examples/scenarios/mfa-app-enrolment.scenario.yaml"])
        #expect(
            stubbed.map { "\($0["kind"] ?? "") \($0["journey"] ?? "").\($0["step"] ?? "")" }
                == ["no-stub examples.mfa-enrolment.associateSms"], "\(stubbed)")
        // A PIN no step seals is said of the step and the store key.
        let diia = try await leftOut(["journeys/diia"])
        let unsealed = diia.filter { $0["kind"] as? String == "no-pin-sealed" }
        #expect(
            unsealed.map { "\($0["journey"] ?? "") \($0["step"] ?? "") \($0["key"] ?? "")" }.sorted().first
                == "diia.pin-enter enterPin authorizationPincode", "\(unsealed)")
    }

    /// The browser of an OIDC sign-in hands back the redirects that are not the provider's
    /// answer (another state, another URI), made from the authorization request: the callback's
    /// refusals are explored without a live provider. The provider's answer is not made (its
    /// state is drawn at random when the journey runs: a scenario written from it would not
    /// replay), and signing in, a request the start's stubs do not answer, is said to be left
    /// out, not passed over in silence.
    @Test("an OIDC browser's forged and foreign redirects are explored from stubs; unstubbed requests left out")
    func browserRedirects() async throws {
        let scenario = "journeys/eiam/scenarios/forged-state-refused-against-stubs.scenario.yaml"
        let run = try await runJourney(["explore", "--json", "--from", scenario])
        #expect(run.status == Exit.ok, "\(run)")
        let entries = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]]
        let entry = try #require(entries?.first)
        let unreached = entry["unreached"] as? [String] ?? []
        for outcome in ["stateMismatch", "foreign"] {
            #expect(!unreached.contains("callback --\(outcome)-->"), "\(outcome): \(unreached)")
        }
        #expect(unreached.contains("callback --code-->"), "\(unreached)")
        let leftOut = entry["leftOut"] as? [[String: Any]] ?? []
        #expect(
            leftOut.contains { $0["kind"] as? String == "no-stub" && $0["step"] as? String == "browser" },
            "\(leftOut)")
        let text = try await runJourney(["explore", "--from", scenario])
        #expect(
            text.stdoutLines.contains(
                "  left out: eiam.login.browser: sends a request that no stub answers, so where its step leads is not judged (add the server's answer to the network: of the scenario it is explored from)"
            ), "\(text)")
    }

    @Test("from a scenario, the server answers in turn along each path: the second code is taken")
    func serverAnswersInTurn() async throws {
        let result = try await runJourney([
            "explore", "--from", "\(Self.fixtures)/scenarios/server-answers-in-turn.scenario.yaml",
        ])
        #expect(result.status == Exit.ok, "\(result)")
        // Each path uses up the refusal the stubs give once; the next code reaches `done`. A
        // server made afresh for every move would refuse every code, and no end would be reached.
        let unreached = result.stdoutLines.first { $0.contains("transitions no path takes") } ?? ""
        #expect(!unreached.contains("check --ok-->") && !unreached.contains("check --failed-->"), "\(result)")
    }

    @Test("a counterexample found from a scenario starts where it starts: its device and stubs are kept")
    func counterexampleKeepsTheStart() async throws {
        try await withTemporaryDirectory { directory in
            let out = directory.appendingPathComponent("counterexamples").path
            let result = try await runJourney([
                "explore", "--from", "\(Self.fixtures)/scenarios/server-refuses-all.scenario.yaml", "--emit", out,
            ])
            #expect(result.status == Exit.failed, "\(result)")
            #expect(result.stdout.contains("  explore.reaches-an-end: "), "\(result)")
            let path = "\(out)/explore.server.from-server-refuses-all.reaches-an-end.scenario.yaml"
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(text.contains("scenario: server-refuses-all-reaches-an-end\n"), "\(text)")
            #expect(text.contains("device: { clock: 2026-03-01T08:00:00Z }\n"), "\(text)")
            #expect(
                text.contains(
                    "network:\n  - request: POST https://api.example.org/check\n    response: { status: 403, json: { error: wrong_code } }\n"
                ), "\(text)")
            #expect(
                !text.contains("biometry: faceID"), "the default device is not written over the scenario's: \(text)")
            // Replayed where it starts, it stops in the trap, and fails while the trap is there.
            let replay = try await runJourney(["run", "--scenario", path, "--journeys", Self.fixtures])
            #expect(replay.status == Exit.failed, "\(replay)")
            #expect(replay.stderr.contains("where the script leaves the run, but by killing the app"), "\(replay)")
            #expect(replay.stdout.contains("clock 2026-03-01T08:00:00Z"), "\(replay)")
        }
    }
}

/// `journey test --explore`: every journey explored as part of the suite, from the default
/// device and from where its scenarios start, each a `journey › explore` result.
@Suite("journey test --explore", .timeLimit(.minutes(30)))
struct TestExploreTests {
    @Test("a journey that breaks an invariant fails the suite with the shortest path; declared, it passes")
    func trapFailsTheSuite() async throws {
        try await withTemporaryDirectory { directory in
            let trap = try String(
                contentsOf: Paths.root.appendingPathComponent("\(ExploreCommandTests.fixtures)/trap.journey.yaml"),
                encoding: .utf8)
            try writeText(trap, to: directory.appendingPathComponent("journeys/trap.journey.yaml"))
            let unlock = try String(
                contentsOf: Paths.root.appendingPathComponent("journeys/examples/unlock.journey.yaml"), encoding: .utf8)
            try writeText(unlock, to: directory.appendingPathComponent("journeys/unlock.journey.yaml"))
            let failing = try await runJourney(["test", "journeys", "--explore"], cwd: directory)
            #expect(failing.status == Exit.failed, "\(failing)")
            #expect(failing.stdout.contains("FAIL explore.trap › explore"), "\(failing)")
            #expect(failing.stdout.contains("explore.reaches-an-end: from here no end can be reached"), "\(failing)")
            #expect(failing.stdout.contains("1 move: again: stay"), "\(failing)")
            // The command it suggests writes the counterexample, wherever the journey is.
            let suggested = "(journey explore journeys/trap.journey.yaml --emit DIR writes it as a scenario)"
            #expect(failing.stdout.contains(suggested), "\(failing)")
            let emitted = try await runJourney(
                ["explore", "journeys/trap.journey.yaml", "--emit", "out"], cwd: directory)
            #expect(emitted.status == Exit.failed, "\(emitted)")
            #expect(
                FileManager.default.fileExists(
                    atPath: directory.appendingPathComponent("out/explore.trap.reaches-an-end.scenario.yaml").path),
                "\(emitted)")
            #expect(failing.stdout.contains("PASS examples.unlock › explore"), "\(failing)")
            #expect(failing.stdoutLines.last == "1 passed, 1 failed", "\(failing)")
            // Without --explore only scenarios run: there are none, and that is no pass.
            let plain = try await runJourney(["test", "journeys"], cwd: directory)
            #expect(plain.status == Exit.invalid && plain.stdout.isEmpty, "\(plain)")
            #expect(
                plain.stderrLines.last?.hasSuffix("; --explore explores the 2 journeys found there") == true,
                "\(plain)")

            let excepted = trap.replacingOccurrences(
                of: "stored:\n",
                with: "exceptions:\n  explore.reaches-an-end: the kiosk never leaves this screen on purpose\nstored:\n")
            try writeText(excepted, to: directory.appendingPathComponent("journeys/trap.journey.yaml"))
            let passing = try await runJourney(["test", "journeys", "--explore"], cwd: directory)
            #expect(passing.status == Exit.ok, "\(passing)")
            #expect(passing.stdoutLines.last == "2 passed, 0 failed", "\(passing)")
        }
    }

    @Test("each scenario's start is explored, alike starts once; a journey no start can run is skipped and says why")
    func scenarioStarts() async throws {
        try await withTemporaryDirectory { directory in
            let fixtures = Paths.root.appendingPathComponent(ExploreCommandTests.fixtures)
            func copy(_ name: String, to target: String, _ edit: (String) -> String = { $0 }) throws {
                let text = try String(contentsOf: fixtures.appendingPathComponent(name), encoding: .utf8)
                try writeText(edit(text), to: directory.appendingPathComponent("journeys/\(target)"))
            }
            try copy("server.journey.yaml", to: "server.journey.yaml")
            try copy("scenarios/server-answers-in-turn.scenario.yaml", to: "scenarios/in-turn.scenario.yaml")
            try copy("scenarios/server-refuses-all.scenario.yaml", to: "scenarios/refuses.scenario.yaml")
            // Starts as in-turn does (same stubs, the same codes typed in another order): explored once.
            try copy("scenarios/server-answers-in-turn.scenario.yaml", to: "scenarios/alike.scenario.yaml") {
                $0.replacingOccurrences(of: "scenario: server-answers-in-turn", with: "scenario: alike")
                    .replacingOccurrences(of: "\"111111\"", with: "\"333333\"")
                    .replacingOccurrences(of: "\"222222\"", with: "\"111111\"")
                    .replacingOccurrences(of: "\"333333\"", with: "\"222222\"")
            }
            let recorded = try await runJourney(["test", "journeys", "--update"], cwd: directory)
            #expect(recorded.status == Exit.ok, "\(recorded)")

            let result = try await runJourney(
                ["test", "journeys", "--explore", "--json", "report.json"], cwd: directory, timeout: 60)
            // server-refuses-all has no way to an end: the journey fails from that start only.
            #expect(result.status == Exit.failed, "\(result)")
            #expect(
                result.stdout.contains(
                    "explore.reaches-an-end from where scenario server-refuses-all starts: from here no end can be reached"
                ), "\(result)")
            #expect(!result.stdout.contains("from where scenario server-answers-in-turn starts"), "\(result)")
            #expect(result.stdout.contains("explored 3 starts (the default device, 3 scenarios)"), "\(result)")
            let report = try String(contentsOf: directory.appendingPathComponent("report.json"), encoding: .utf8)
            // The exploration is a result of its own, failed with the broken invariant as its problem.
            #expect(report.contains(#""scenario": "explore""#), "\(report)")
            #expect(
                report.contains(
                    #""kind": "invariant", "message": "explore.reaches-an-end from where scenario server-refuses-all starts"#
                ), "\(report)")
        }

        try await withTemporaryDirectory { directory in
            let skipped = try await runJourney(
                [
                    "test", Paths.root.appendingPathComponent("journeys/eiam").path, "--explore", "--filter",
                    "provider-checks", "--json", "report.json",
                ], cwd: directory, timeout: 120)
            #expect(
                skipped.stdout.contains(
                    "SKIP eiam.provider-checks › explore: not explored: it needs params 'check', 'issuer'"),
                "\(skipped)")
            // Its problem is said as a journey not explored, not as an invariant broken.
            let report = try String(contentsOf: directory.appendingPathComponent("report.json"), encoding: .utf8)
            #expect(
                report.contains(#""kind": "unexplored", "message": "not explored: it needs params 'check', 'issuer'"#),
                "\(report)")
            #expect(!report.contains(#""kind": "invariant""#), "\(report)")
        }
    }
}

extension ExploreCommandTests {
    @Test(
        "scenarios that press other actions start alike; one on the default device, with nothing typed, is that start")
    func actionsAreNoStart() async throws {
        try await withTemporaryDirectory { directory in
            try writeText(
                """
                journey: t.actions
                version: 1
                title: Actions
                start: welcome
                steps:
                  welcome: { handler: ui.screen, screen: { title: Welcome, actions: { go: Go } }, on: { go: home } }
                  home:
                    handler: ui.screen
                    screen: { title: Home, actions: { done: Done, out: Sign out } }
                    on: { done: done, out: bye }
                ends: { done: { kind: success }, bye: { kind: cancel } }
                """, to: directory.appendingPathComponent("journeys/actions.journey.yaml"))
            for (name, device, last, end) in [
                ("a", "", "done", "done"), ("b", "", "out", "bye"),
                ("c", "device: { biometry: faceID, enrolled: true, kdfRounds: 1 }\n", "done", "done"),
            ] {
                try writeText(
                    """
                    scenario: \(name)
                    journey: t.actions
                    \(device)script:
                      - { at: welcome, action: go }
                      - { at: home, action: \(last) }
                    expect: { end: \(end) }
                    """, to: directory.appendingPathComponent("journeys/scenarios/\(name).scenario.yaml"))
            }
            let explored = try await runJourney(["explore", "journeys"], cwd: directory)
            #expect(explored.status == Exit.ok, "\(explored)")
            // a and b differ only in the actions they press: one start; c is the default device's.
            #expect(
                explored.stdoutLines.first == "t.actions from 2 starts (the default device and 1 scenario): clean",
                "\(explored)")
            #expect(
                explored.stdoutLines.filter { $0.hasPrefix("  from ") }.map { $0.prefix { $0 != ":" } } == [
                    "  from the default device", "  from a",
                ], "\(explored)")
            let tested = try await runJourney(["test", "journeys", "--update", "--explore"], cwd: directory)
            #expect(tested.status == Exit.ok && tested.stdout.contains("PASS t.actions › explore"), "\(tested)")
        }
    }

    /// `journey test PATH --explore --json REPORT`, and the report it wrote.
    func testExplored(_ path: String) async throws -> (result: RunResult, json: String) {
        try await withTemporaryDirectory { directory in
            let report = directory.appendingPathComponent("report.json")
            let result = try await runJourney(["test", path, "--explore", "--json", report.path], timeout: 120)
            #expect(result.status == Exit.ok, "\(result)")
            return (result, try String(contentsOf: report, encoding: .utf8))
        }
    }

    /// That `journey test --explore` passed `journey` with `note` under its result, and the
    /// report gave it as its `note`.
    func expectNote(
        _ note: String, of journey: String, in tested: (result: RunResult, json: String),
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        let (result, json) = tested
        let passed = "PASS \(journey) › explore ("
        #expect(result.stdout.contains(passed), "\(result)", sourceLocation: sourceLocation)
        #expect(result.stdout.contains(")\n    note: " + note + "\n"), "\(result)", sourceLocation: sourceLocation)
        #expect(json.contains(#""note": "# + "\"\(note)"), "\(json)", sourceLocation: sourceLocation)
    }

    @Test("journey test --explore says which start explored 20 000 states or more, under the result and in --json")
    func aHeavyStartIsSaid() async throws {
        expectNote(
            "from the default device: 24576 states of the 24576 explored (`journey explore Tests/Fixtures/heavy/counters.journey.yaml` shows what it plays)",
            of: "t.counters", in: try await testExplored("Tests/Fixtures/heavy"))
    }

    @Test(
        "journey test --explore notes what a journey's exploration left out, by kind and step, and the command that says why"
    )
    func leftOutIsNoted() async throws {
        let (result, json) = try await testExplored("journeys/examples")
        // The MFA enrolment sends requests with no network from the default device, and some
        // that its scenarios' stubs do not answer: each kind once, its steps in order.
        expectNote(
            "left out (5): no-network at status; no-stub at associateApp, associateSms, challenge, checkSms (`journey explore journeys/examples --journey examples.mfa-enrolment` says why)",
            of: "examples.mfa-enrolment", in: (result, json))
        // Below 20 000 states a start's count is not noted.
        #expect(!result.stdout.contains(" explored (`journey explore"), "\(result)")
        // A journey explored whole, with nothing left out, has no note.
        let pinModel = result.stdout.split(separator: "\n").drop { !$0.hasPrefix("PASS examples.pin-model › explore") }
        #expect(pinModel.dropFirst().first?.hasPrefix("    note:") == false, "\(result)")
        // What the note names is what `journey explore` lists, one line each.
        let listed = try await runJourney(["explore", "journeys/examples", "--journey", "examples.mfa-enrolment"])
        let lines = listed.stdout.split(separator: "\n").filter { $0.hasPrefix("  left out: ") }
        #expect(lines.count == 5, "\(listed)")
        #expect(
            lines.first?.hasPrefix(
                "  left out: examples.mfa-enrolment.associateApp: sends a request that no stub answers") == true,
            "\(listed)")
        // Another journey's step is named with its journey; a journey-wide one by its kind alone.
        let notes = TestCommand.leftOut(
            [
                .clockUnjumped(journey: "a"), .sentWithoutNetwork(journey: "b", step: "send"),
                .sentWithoutNetwork(journey: "a", step: "ask"),
                .unsteady(journey: "a", step: "p", handler: "h", how: "x"),
            ], of: "a", lister: "journey explore --journey a")
        #expect(
            notes == "left out (3): no-clock-jump; no-network at ask, b.send (`journey explore --journey a` says why)")
        #expect(
            TestCommand.leftOut([.unsteady(journey: "a", step: "p", handler: "h", how: "x")], of: "a", lister: "")
                == nil)
    }

    @Test(
        "--memory stops an exploration as the state bound does, and says it was the memory bound; text, --strict, --json"
    )
    func memoryBound() async throws {
        // A journey with no end to its states, a state bound it never reaches: only the memory stops it.
        let arguments = ["explore", "Tests/Fixtures/deep", "--states", "100000000", "--depth", "1000000"]
        let stopped = try await runJourney(arguments + ["--memory", "96MiB"], timeout: 120)
        #expect(stopped.status == Exit.ok, "\(stopped)")
        #expect(
            stopped.stdout.contains(
                "bounds: depth 1000000, 100000000 states; stopped at the memory bound (96.0 MiB); "),
            "\(stopped)")
        #expect(stopped.stdout.hasSuffix("; 1 cut short by the bounds: t.steps\n"), "\(stopped)")
        let strict = try await runJourney(arguments + ["--memory", "96MiB", "--strict"], timeout: 120)
        #expect(strict.status == Exit.failed, "\(strict)")
        let json = try await runJourney(arguments + ["--memory", "96MiB", "--json"], timeout: 120)
        #expect(json.status == Exit.ok, "\(json)")
        #expect(json.stdout.contains(#""truncated": true"#), "\(json)")
        #expect(json.stdout.contains(#""memoryFull": 100663296"#), "\(json)")
        // Within its bound an exploration says nothing of it.
        let within = try await runJourney(["explore", "journeys/examples/pin-model.journey.yaml", "--memory", "16GiB"])
        #expect(within.status == Exit.ok && !within.stdout.contains("memory"), "\(within)")
        let jsonWithin = try await runJourney(["explore", "journeys/examples/pin-model.journey.yaml", "--json"])
        #expect(!jsonWithin.stdout.contains("memoryFull"), "\(jsonWithin)")

        for size in ["5x", "1024", "512KiB", "0GiB", "-1G", "20TiB", "nanG", "1e3M"] {
            let refused = try await runJourney(["explore", "--memory", size, "Tests/Fixtures/deep"])
            #expect(refused.status == Exit.invalid, "\(size): \(refused)")
            #expect(
                refused.stderr.contains(
                    "--memory takes a size from 1MiB to 16TiB with its unit, like 512MiB, 4GiB or 1.5G, found '\(size)'"
                ),
                "\(size): \(refused)")
        }
    }

    @Test("journey test --explore notes a start the memory bound stopped, with the state bound that stops it there")
    func memoryBoundNoted() async throws {
        let folder = Paths.root.appendingPathComponent("Tests/Fixtures/deep").path
        let (project, diagnostics) = Workspace.load(paths: [folder])
        #expect(!diagnostics.hasErrors)
        let journey = try #require(project.library?["t.steps"])
        var explorer = JourneyExplorer(
            library: try #require(project.library), device: JourneyExplorer.defaultDevice,
            bounds: JourneyExplorer.Bounds(depth: 1_000_000, states: 100_000_000))
        explorer.memoryCheckInterval = 1_000
        explorer.memory = JourneyExplorer.MemoryCheck(bytes: 96 << 20) { 100 << 20 }
        let result = await explorer.explore(journey)
        #expect(result.memoryFull == 96 << 20 && result.cutShort, "\(result.states)")
        let start = ExplorationStarts.Start(journey: journey, explorer: explorer)
        let said = TestCommand.cutShort(result, from: start, of: journey, starts: 1)
        #expect(
            said
                == "cut short by the bounds: from the default device, stopped at the memory bound (96.0 MiB) after \(result.states) states; `journey explore \(Path.shellWord(journey.source.file)) --states \(result.states)` stops at the state bound there instead, and a larger --memory (the project file's defaults.explore.memory) explores further where the machine has the memory",
            "\(said)")
    }

    @Test("a counterexample's transcript shows a secret its path types as •••, where the journey leaks it")
    func counterexampleTranscriptHidesTheLeak() async throws {
        var context = ProjectContext.none
        context.toolkit = try Toolkit.builtin.adding([EchoingHandler()])
        let journey = EchoingHandler.journey
        let project = ProjectLoader(handlers: context.toolkit.handlers).load([
            SourceFile(path: "e.journey.yaml", data: Data(journey.utf8))
        ])
        let library = try #require(project.library, "\(project.diagnostics.sorted)")
        let scenario =
            "scenario: leak\njourney: t.echo\nscript:\n  - { at: s, code: \"739164\" }\nexpect: { end: done }\n"
        let transcript = try #require(await Counterexample.transcript(of: scenario, in: library, context))
        #expect(!transcript.contains("739164"), "\(transcript)")
        #expect(transcript.contains("•••"), "\(transcript)")
    }

    @Test("--emit into a folder that takes no files is refused before anything is explored")
    func emitIntoAFolderThatTakesNoFiles() async throws {
        let chattr = URL(fileURLWithPath: "/usr/bin/chattr")
        guard FileManager.default.isExecutableFile(atPath: chattr.path) else { return }
        try await withTemporaryDirectory { directory in
            let folder = directory.appendingPathComponent("found")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
            // Where the file system can mark a folder immutable: nothing can be written in it.
            guard try await runProcess(chattr, ["+i", folder.path]).status == 0 else { return }
            defer { _ = try? Process.run(chattr, arguments: ["-i", folder.path]).waitUntilExit() }
            let bug = Paths.root.appendingPathComponent("Tests/Fixtures/explore/pin-model-bug.journey.yaml").path
            let result = try await runJourney(["explore", bug, "--emit", "found"], cwd: directory)
            _ = try await runProcess(chattr, ["-i", folder.path])
            #expect(result.status == Exit.invalid, "\(result)")
            #expect(result.stderr.contains("error: cannot write into the folder found for --emit: "), "\(result)")
            #expect(result.stdout.isEmpty, "nothing was explored: \(result)")
        }
    }

    @Test("a memory size reads with its binary unit, and shows in the largest unit it reaches")
    func memorySizes() {
        let read: [(String, UInt64)] = [
            ("512MiB", 512 << 20), ("4GiB", 4 << 30), ("1.5G", 3 << 29), ("800M", 800 << 20), ("2T", 2 << 40),
            ("1MiB", 1 << 20), ("2048KB", 2 << 20), ("16TiB", 16 << 40),
        ]
        for (text, bytes) in read { #expect(MemoryBound(text)?.bytes == bytes, "\(text)") }
        // What the project schema's pattern refuses is refused here too, though `Double` reads it.
        #expect(MemoryBound(".5G")?.bytes == 1 << 29)
        for text in ["1e3M", "+2G", "0x10M", "5.G", "1.2.3G", " 5G", "5 G", "G", "５G"] {
            #expect(MemoryBound(text) == nil, "\(text)")
        }
        #expect(MemoryBound(bytes: 3 << 29).description == "1.5 GiB")
        #expect(MemoryBound(bytes: 96 << 20).description == "96.0 MiB")
        #expect(MemoryBound(bytes: 2 << 40).description == "2.0 TiB")
        // The standard bound is three quarters of what the process may use, and some of it.
        #expect(MemoryBound.standard.bytes == MemoryBound.available / 4 * 3 && MemoryBound.standard.bytes > 0)
        let held = MemoryBound.resident() ?? 0
        #expect(held > 1 << 20 && held < MemoryBound.available, "\(held)")
    }

    @Test("a verdict the bounds cut short says so: explore's last line, and a note under journey test's result")
    func cutShortByTheBounds() async throws {
        // Each press counts one more step: no end to the states, so the depth bound stops it.
        let explored = try await runJourney(["explore", "Tests/Fixtures/deep", "Tests/Fixtures/heavy"])
        #expect(explored.status == Exit.ok, "\(explored)")
        #expect(
            explored.stdout.contains(
                "explored 2 journeys: 2 clean, 0 with violations; 1 cut short by the bounds: t.steps\n"), "\(explored)")
        #expect(explored.stdout.contains("6 states at the depth bound not expanded"), "\(explored)")
        // Explored to the end, the last line says nothing of the bounds.
        let exhausted = try await runJourney(["explore", "journeys/examples/pin-model.journey.yaml"])
        #expect(exhausted.stdout.contains("explored 1 journey: 1 clean, 0 with violations\n"), "\(exhausted)")
        // The state bound cuts it short too.
        let few = try await runJourney(["explore", "journeys/examples/pin-model.journey.yaml", "--states", "10"])
        #expect(few.stdout.contains("; 1 cut short by the bounds: examples.pin-model\n"), "\(few)")

        try await withTemporaryDirectory { directory in
            let report = directory.appendingPathComponent("report.json")
            let result = try await runJourney(
                ["test", "Tests/Fixtures/deep", "--explore", "--json", report.path], timeout: 120)
            #expect(result.status == Exit.ok, "\(result)")
            let note =
                "note: cut short by the bounds: from the default device, 6 states at the depth bound (50) not expanded; `journey explore Tests/Fixtures/deep/steps.journey.yaml --depth 100` goes further"
            #expect(result.stdout.hasPrefix("PASS t.steps › explore"), "\(result)")
            #expect(result.stdout.contains(")\n    " + note + "\n"), "\(result)")
            let json = try String(contentsOf: report, encoding: .utf8)
            #expect(json.contains(#""note": "cut short by the bounds: from the default device, 6 states"#), "\(json)")
        }
    }

    @Test("a project file's defaults.explore bounds journey explore where no option does, and journey test --explore")
    func projectExploreDefaults() async throws {
        try await withTemporaryDirectory { directory in
            let steps = try String(
                contentsOf: Paths.root.appendingPathComponent("Tests/Fixtures/deep/steps.journey.yaml"), encoding: .utf8
            )
            try writeText(steps, to: directory.appendingPathComponent("journeys/steps.journey.yaml"))
            let project = directory.appendingPathComponent("journeykit.yaml")
            try writeText("defaults:\n  explore: { depth: 7, restarts: 0, states: 5000 }\n", to: project)
            let explored = try await runJourney(["explore"], cwd: directory)
            #expect(explored.status == Exit.ok, "\(explored)")
            #expect(explored.stdout.contains("up to 0 restarts"), "\(explored)")
            #expect(explored.stdout.contains("bounds: depth 7, 5000 states;"), "\(explored)")
            // An option given wins over the project's default; the others still hold.
            let deeper = try await runJourney(["explore", "--depth", "9"], cwd: directory)
            #expect(deeper.stdout.contains("bounds: depth 9, 5000 states;"), "\(deeper)")
            // journey test --explore, which has no bound options, keeps to them too.
            let tested = try await runJourney(["test", "--explore"], cwd: directory, timeout: 120)
            #expect(tested.status == Exit.ok, "\(tested)")
            #expect(
                tested.stdout.contains(
                    "at the depth bound (7) not expanded; `journey explore journeys/steps.journey.yaml --depth 14` goes further"
                ), "\(tested)")
            // The state bound, reached first, stops it there.
            try writeText("defaults:\n  explore:\n    depth: 1000\n    states: 40\n", to: project)
            let few = try await runJourney(["explore"], cwd: directory)
            #expect(few.stdout.contains("bounds: depth 1000, 40 states (reached"), "\(few)")
            // The memory bound: the project's where no option says otherwise.
            try writeText(
                "defaults:\n  explore:\n    depth: 1000000\n    states: 100000000\n    memory: 96MiB\n", to: project)
            let full = try await runJourney(["explore"], cwd: directory, timeout: 120)
            #expect(full.stdout.contains("; stopped at the memory bound (96.0 MiB); "), "\(full)")
            let more = try await runJourney(["explore", "--memory", "112MiB"], cwd: directory, timeout: 120)
            #expect(more.stdout.contains("; stopped at the memory bound (112.0 MiB); "), "\(more)")
            let suite = try await runJourney(["test", "--explore"], cwd: directory, timeout: 120)
            #expect(suite.status == Exit.ok, "\(suite)")
            #expect(
                suite.stdout.contains(
                    "; cut short by the bounds: from the default device, stopped at the memory bound (96.0 MiB) after "
                ),
                "\(suite)")
            // A bound out of its range, of the wrong type or misspelt stops every command at its place.
            try writeText(
                "defaults:\n  explore:\n    depth: 0\n    states: many\n    restart: 3\n    memory: lots\n", to: project
            )
            for arguments in [["explore"], ["test", "--explore"]] {
                let bad = try await runJourney(arguments, cwd: directory)
                #expect(bad.status == Exit.invalid, "\(bad)")
                #expect(
                    bad.diagnostics.map { "\($0.line):\($0.column) \($0.id)" }
                        == ["3:12 value.range", "4:13 value.type", "5:5 key.unknown", "6:13 value.type"], "\(bad)")
                #expect(
                    bad.stderr.contains(
                        "'memory' takes a size from 1MiB to 16TiB with its unit, like 512MiB, 4GiB or 1.5G, found 'lots'"
                    ),
                    "\(bad)")
                #expect(bad.stderr.contains("'depth' must be from 1 to 1000000, found 0"), "\(bad)")
                #expect(bad.stderr.contains("did you mean 'restarts'?"), "\(bad)")
            }
        }
    }

    @Test("--strict fails a verdict the bounds cut short, in journey explore and in journey test --explore")
    func strictFailsWhatTheBoundsCutShort() async throws {
        let explored = try await runJourney(["explore", "--strict", "Tests/Fixtures/deep", "Tests/Fixtures/heavy"])
        #expect(explored.status == Exit.failed, "\(explored)")
        #expect(
            explored.stdout.hasSuffix(
                "explored 2 journeys: 2 clean, 0 with violations; 1 cut short by the bounds: t.steps (--strict: it fails)\n"
            ), "\(explored)")
        // With --json the exit status says it alone: standard output is the report.
        let json = try await runJourney(["explore", "--strict", "--json", "Tests/Fixtures/deep"])
        #expect(json.status == Exit.failed, "\(json)")
        #expect(json.stdout.contains(#""frontier": 6"#), "\(json)")
        #expect(json.stderr.isEmpty, "\(json)")
        // Explored to the end, --strict changes nothing; nor does a bound raised until it is.
        let exhausted = try await runJourney(["explore", "--strict", "journeys/examples/pin-model.journey.yaml"])
        #expect(exhausted.status == Exit.ok, "\(exhausted)")
        #expect(exhausted.stdout.hasSuffix("explored 1 journey: 1 clean, 0 with violations\n"), "\(exhausted)")
        // The state bound cuts short as the depth bound does.
        let few = try await runJourney(
            ["explore", "--strict", "--states", "10", "journeys/examples/pin-model.journey.yaml"])
        #expect(few.status == Exit.failed, "\(few)")
        #expect(few.stdout.contains("; 1 cut short by the bounds: examples.pin-model (--strict: it fails)\n"), "\(few)")

        let failing = try await runJourney(["test", "Tests/Fixtures/deep", "--explore", "--strict"], timeout: 120)
        #expect(failing.status == Exit.failed, "\(failing)")
        #expect(failing.stdout.hasPrefix("FAIL t.steps › explore"), "\(failing)")
        #expect(
            failing.stdout.contains(
                "cut short by the bounds: from the default device, 6 states at the depth bound (50) not expanded; `journey explore Tests/Fixtures/deep/steps.journey.yaml --depth 100` goes further (--strict)"
            ), "\(failing)")
        #expect(!failing.stdout.contains("note:"), "\(failing)")
        #expect(failing.stdoutLines.last == "0 passed, 1 failed", "\(failing)")
        try await withTemporaryDirectory { directory in
            let reported = try await runJourney(
                [
                    "test", Paths.root.appendingPathComponent("Tests/Fixtures/deep").path, "--explore", "--strict",
                    "--json", "report.json",
                ], cwd: directory, timeout: 120)
            #expect(reported.status == Exit.failed, "\(reported)")
            // Failed for its bounds, not for an invariant: the report's problem says which.
            let report = try String(contentsOf: directory.appendingPathComponent("report.json"), encoding: .utf8)
            #expect(report.contains(#""kind": "unexplored", "message": "cut short by the bounds: "#), "\(report)")
            #expect(!report.contains(#""kind": "invariant", "message": "cut short"#), "\(report)")
        }
        // A journey explored to the end passes as before.
        let passing = try await runJourney(
            ["test", "journeys/examples", "--explore", "--strict"], timeout: 120)
        #expect(passing.status == Exit.ok, "\(passing)")
        #expect(passing.stdout.contains("PASS examples.pin-model › explore"), "\(passing)")
        // --strict judges explorations only.
        let alone = try await runJourney(["test", "Tests/Fixtures/deep", "--strict"])
        #expect(alone.status == Exit.invalid, "\(alone)")
        #expect(alone.stderr.contains("--strict goes with --explore"), "\(alone)")
    }

    /// A journey no start can run was said not explored and passed `--strict`: a CI gate kept
    /// quiet about a journey it never checked. Now --strict fails it unless the journey declares
    /// `explore.explorable` with the reason (a harness around a live server); one that declares
    /// it and can be explored is explored, and said not to need it.
    @Test("--strict fails a journey not explored unless it declares explore.explorable, which is said with its reason")
    func strictFailsAJourneyNotExploredThatDoesNotSayWhy() async throws {
        try await withTemporaryDirectory { directory in
            func journey(_ id: String, param: String, exception: String?) -> String {
                """
                journey: \(id)
                version: 1
                title: Asks a server
                params:
                  \(param)
                \(exception.map { "exceptions:\n  explore.explorable: \"\($0)\"" } ?? "")
                start: ask
                steps:
                  ask:
                    handler: ui.screen
                    screen:
                      actions: { done: Done }
                    on:
                      done: finished
                ends:
                  finished: { kind: success }

                """
            }
            let reason = "it asks a live server what it refuses, which stubs cannot say"
            let files = [
                "undeclared.journey.yaml": journey("t.undeclared", param: "issuer: { type: string }", exception: nil),
                "declared.journey.yaml": journey("t.declared", param: "issuer: { type: string }", exception: reason),
                "needless.journey.yaml": journey(
                    "t.needless", param: "issuer: { type: string, default: here }", exception: reason),
            ]
            for (name, text) in files {
                try text.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
            }
            let lenient = try await runJourney(["explore", "."], cwd: directory)
            #expect(lenient.status == Exit.ok, "\(lenient)")
            #expect(
                lenient.stdout.contains(
                    "t.declared: not explored: it needs param 'issuer', which has no default, and none of its scenarios is among those given (give their folder, or start from one with --from)\n  explore.explorable broken on purpose: \(reason)\n"
                ), "\(lenient)")
            #expect(lenient.stdout.contains("t.undeclared: not explored: it needs param 'issuer'"), "\(lenient)")
            #expect(
                !lenient.stdout.contains(
                    "t.undeclared: not explored: it needs param 'issuer', which has no default, and none of its scenarios is among those given (give their folder, or start from one with --from)\n  explore.explorable"
                ), "\(lenient)")
            // Explorable all the same: explored, and the exception said not to be needed.
            #expect(
                lenient.stdoutLines.contains { $0.hasPrefix("t.needless: ") && $0.hasSuffix(": clean") }, "\(lenient)")
            #expect(
                lenient.stdout.contains("  explore.explorable declared as an exception but not broken: \(reason)"),
                "\(lenient)")
            #expect(
                lenient.stdout.hasSuffix(
                    "explored 1 journey: 1 clean, 0 with violations; 1 not explored: t.undeclared; 1 not explored, as it declares: t.declared\n"
                ), "\(lenient)")

            let strict = try await runJourney(["explore", "--strict", "."], cwd: directory)
            #expect(strict.status == Exit.failed, "\(strict)")
            #expect(
                strict.stdout.contains(
                    "; 1 not explored: t.undeclared (--strict: it fails); 1 not explored, as it declares"),
                "\(strict)")
            // Declared, the journey passes --strict.
            try FileManager.default.removeItem(at: directory.appendingPathComponent("undeclared.journey.yaml"))
            let declared = try await runJourney(["explore", "--strict", "--json", "."], cwd: directory)
            #expect(declared.status == Exit.ok, "\(declared)")
            let entries = try #require(
                try JSONSerialization.jsonObject(with: Data(declared.stdout.utf8)) as? [[String: Any]], "\(declared)")
            let notExplored = try #require(entries.first { $0["journey"] as? String == "t.declared" }, "\(entries)")
            #expect(notExplored["exception"] as? String == reason, "\(entries)")

            // journey test --explore: skipped with the reason; undeclared under --strict, failed.
            let suite = try await runJourney(["test", ".", "--explore", "--strict"], cwd: directory, timeout: 120)
            #expect(suite.status == Exit.ok, "\(suite)")
            #expect(
                suite.stdout.contains(
                    "SKIP t.declared › explore: not explored: it needs param 'issuer', which has no default, and none of its scenarios is among those given; explore.explorable broken on purpose: \(reason)"
                ), "\(suite)")
            try files["undeclared.journey.yaml"]!.write(
                to: directory.appendingPathComponent("undeclared.journey.yaml"), atomically: true, encoding: .utf8)
            let failing = try await runJourney(["test", ".", "--explore", "--strict"], cwd: directory, timeout: 120)
            #expect(failing.status == Exit.failed, "\(failing)")
            #expect(
                failing.stdout.contains(
                    "FAIL t.undeclared › explore"), "\(failing)")
            #expect(
                failing.stdout.contains(
                    "(--strict: give it a scenario that plays against stubs, or declare explore.explorable under exceptions: with the reason)"
                ), "\(failing)")
            let lenientSuite = try await runJourney(["test", ".", "--explore"], cwd: directory, timeout: 120)
            #expect(lenientSuite.status == Exit.ok, "\(lenientSuite)")
            #expect(lenientSuite.stdout.contains("SKIP t.undeclared › explore: not explored"), "\(lenientSuite)")
        }
    }

    @Test("--random plays seeded random walks: the bug is found, the same seed gives the same result, and it replays")
    func randomWalks() async throws {
        try await withTemporaryDirectory { directory in
            let out = directory.appendingPathComponent("walks").path
            let arguments = [
                "explore", "--random", "--seed", "3", "--walks", "300", "\(Self.fixtures)/pin-model-bug.journey.yaml",
            ]
            let result = try await runJourney(arguments + ["--emit", out])
            #expect(result.status == Exit.failed, "\(result)")
            #expect(
                result.stdoutLines.first?.hasPrefix("examples.pin-model-bug: 300 random walks (seed 3): ") == true,
                "\(result)")
            #expect(result.stdout.contains("  explore.counter-survives: "), "\(result)")
            #expect(result.stdout.contains("explore.reaches-an-end is not judged on random walks"), "\(result)")
            // The state bound stops the walks too, and the result says how many were played.
            let bounded = try await runJourney(
                [
                    "explore", "--random", "--walks", "1000", "--states", "5",
                    "\(Self.fixtures)/pin-model-bug.journey.yaml",
                ])
            let first = try #require(bounded.stdoutLines.first, "\(bounded)")
            #expect(first.contains(": 5 states seen, ") && !first.contains(" 1000 random walks"), "\(bounded)")
            #expect(bounded.stdout.contains("5 states (reached: the exploration stopped there)"), "\(bounded)")
            let again = try await runJourney(arguments)
            #expect(
                again.stdoutLines.filter { !$0.contains("written to") }
                    == result.stdoutLines.filter {
                        !$0.contains("written to")
                    }, "the same seed, the same walks")
            let other = try await runJourney([
                "explore", "--random", "--seed", "4", "--walks", "300", "\(Self.fixtures)/pin-model-bug.journey.yaml",
            ])
            #expect(other.stdoutLines.first != result.stdoutLines.first, "another seed, other walks: \(other)")
            let replay = try await runJourney([
                "run", "--scenario", "\(out)/examples.pin-model-bug.counter-survives.scenario.yaml", "--journeys",
                Self.fixtures,
            ])
            // The walk's path replays to the same violation: the count it had before the restart is gone.
            #expect(
                replay.status == Exit.failed
                    && replay.stderr.contains(#/expected state\.failures = [1-9][0-9]*, found 0/#), "\(replay)")
            // Not the shortest path: one a walk took.
            let emitted = try String(
                contentsOfFile: "\(out)/examples.pin-model-bug.counter-survives.scenario.yaml", encoding: .utf8)
            #expect(
                emitted.split(separator: "\n")[1]
                    == "# Written by journey explore: a path of the random walks from seed 3 that breaks explore.counter-survives.",
                "\(emitted)")
        }
        // Enough walks see every state of the model an exhaustive exploration finds.
        let many = try await runJourney([
            "explore", "--random", "--seed", "3", "--walks", "2000", "--json",
            "journeys/examples/pin-model.journey.yaml",
        ])
        #expect(many.status == Exit.ok, "\(many)")
        #expect(many.stdout.contains(#""random": {"seed": "3", "walks": 2000}"#), "\(many)")
        #expect(many.stdout.contains(#""states": 45,"#), "\(many)")
    }
}

extension ExploreCommandTests {
    @Test("coverage: the transitions the explored paths take that no committed scenario does, in text and JSON")
    func coverage() async throws {
        let result = try await runJourney(["explore", "journeys/examples", "--journey", "examples.pin-model"])
        #expect(result.status == Exit.ok, "\(result)")
        #expect(
            result.stdout.contains(
                "  coverage: the explored paths take 19 of 21 transitions, the scenarios 14 (1 scenario with goldens); reachable but no scenario takes them (5): launch --next [if 2]-->, launch --next [else]-->, create --weak-->, biometry --dismiss-->, unlocked --timeout-->\n"
            ), "\(result)")
        let json = try await runJourney(["explore", "journeys/examples", "--journey", "examples.pin-model", "--json"])
        let starts = try #require(
            try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]], "\(json)")
        #expect(
            (starts.first?["coverage"] as? [String: Any])?["reachableUntested"] as? [String] == [
                "launch --next [if 2]-->", "launch --next [else]-->", "create --weak-->", "biometry --dismiss-->",
                "unlocked --timeout-->",
            ], "\(json)")
        let alone = try await runJourney(["explore", "journeys/examples/pin-model.journey.yaml"])
        #expect(alone.stdout.contains("no scenario of the journey is among the files explored"), "\(alone)")
        // A called journey with no scenario of its own: its callers' scenarios take its transitions.
        let called = try await runJourney(["explore", "journeys/diia", "--journey", "diia.biometry-opt-in"])
        #expect(called.status == Exit.ok, "\(called)")
        #expect(
            called.stdout.contains(
                "  coverage: the explored paths take 3 of 5 transitions, the scenarios 4 (5 scenarios of journeys that call it)\n"
            ), "\(called)")
        let calledJSON = try await runJourney([
            "explore", "journeys/diia", "--journey", "diia.biometry-opt-in", "--json",
        ])
        let entries = try #require(
            try JSONSerialization.jsonObject(with: Data(calledJSON.stdout.utf8)) as? [[String: Any]], "\(calledJSON)")
        let counts = (entries.first?["coverage"] as? [String: Any]) ?? [:]
        #expect(
            [counts["scenarios"], counts["withoutGolden"], counts["callerScenarios"]].map { $0 as? Int } == [0, 0, 5],
            "\(calledJSON)")
    }

    @Test("a journey is explored from the default device and from where each of its scenarios starts, said together")
    func scenarioStarts() async throws {
        try await withTemporaryDirectory { directory in
            // A new project: its journey asks for the PIN the device keeps, which only its
            // scenario seals; from the default device the journey ends at once (and again at
            // each launch after).
            let made = try await runJourney(["new", "project", "app"], cwd: directory)
            #expect(made.status == Exit.ok, "\(made)")
            let project = directory.appendingPathComponent("app")
            let result = try await runJourney(["explore"], cwd: project)
            #expect(result.status == Exit.ok, "\(result)")
            #expect(
                Array(result.stdoutLines.prefix(4)) == [
                    "app.unlock from 2 starts (the default device and 1 scenario): clean",
                    "  played: every input class, up to 2 restarts, no clock jumps; bounds: depth 50, 200000 states",
                    "  from the default device: 3 states, 2 transitions, depth 2",
                    "  from wrong-then-right: 26 states, 42 transitions, depth 5",
                ], "\(result)")
            // Every transition is taken from one start or the other; the coverage is over both.
            #expect(!result.stdout.contains("transitions no path takes"), "\(result)")
            // Where the limit leads once spent counts as one more: reachable, and no scenario takes it.
            #expect(
                result.stdout.contains(
                    "  coverage: the explored paths take 5 of 5 transitions, the scenarios 2 (1 scenario with goldens); reachable but no scenario takes them (3): enterPin --missing-->, enterPin --forgot-->, enterPin --limit pinEntry reached-->\n"
                ), "\(result)")
            #expect(result.stdout.contains("explored 1 journey from 2 starts: 1 clean"), "\(result)")
            // --json gives each start on its own.
            let json = try await runJourney(["explore", "--json"], cwd: project)
            let entries = try #require(
                try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]], "\(json)")
            #expect(entries.map { $0["from"] as? String } == [nil, "wrong-then-right"], "\(json)")
            // From the one scenario alone, the step's PIN is never missing: that transition is not taken.
            let scenario = "journeys/app/scenarios/wrong-then-right.scenario.yaml"
            let from = try await runJourney(["explore", "--from", scenario], cwd: project)
            #expect(from.status == Exit.ok, "\(from)")
            #expect(from.stdout.contains("  transitions no path takes (1 of 5): enterPin --missing-->\n"), "\(from)")
            // A violation found from one start among several says which.
            let fixtures = try await runJourney([
                "explore", "\(Paths.root.path)/\(Self.fixtures)", "--journey", "explore.server",
            ])
            #expect(fixtures.status == Exit.failed, "\(fixtures)")
            #expect(
                Array(fixtures.stdoutLines.prefix(5)) == [
                    "explore.server from 3 starts (the default device and 2 scenarios): 1 violation",
                    "  played: every input class, the network going away and coming back (from the starts with stubs), up to 2 restarts, no clock jumps; bounds: depth 50, 200000 states",
                    // With no stubs the request goes as if offline: what a server would answer is
                    // not played, so no trap is claimed from there.
                    "  from the default device: 6 states, 16 transitions, depth 3",
                    "  from server-answers-in-turn: 40 states, 158 transitions, depth 5",
                    "  from server-refuses-all: 12 states, 44 transitions, depth 4: 1 violation",
                ], "\(fixtures)")
            #expect(fixtures.stdout.contains("\n  explore.reaches-an-end (from server-refuses-all): "), "\(fixtures)")
            // A start named again, or already among the paths, is explored once.
            let twice = try await runJourney(["explore", "--from", scenario, "--from", scenario], cwd: project)
            #expect(twice.stdout == from.stdout, "\(twice)")
            let again = try await runJourney(["explore", "journeys", "--from", scenario], cwd: project)
            #expect(again.stdout == result.stdout, "\(again)")
            let named = try await runJourney(
                ["explore", "journeys", "--journey", "app.unlock", "--journey", "app.unlock"], cwd: project)
            #expect(named.stdout == result.stdout, "\(named)")
            // So is a scenario that starts where another does, named with --from.
            let copy = "journeys/app/scenarios/copy.scenario.yaml"
            let text = try String(contentsOf: project.appendingPathComponent(scenario), encoding: .utf8)
            try writeText(
                text.replacingOccurrences(of: "scenario: wrong-then-right", with: "scenario: copy"),
                to: project.appendingPathComponent(copy))
            let alike = try await runJourney(["explore", "journeys", "--from", copy], cwd: project)
            #expect(alike.stdoutLines.first == "app.unlock from 2 starts (the default device and 1 scenario): clean")
            #expect(alike.stdoutLines.filter { $0.hasPrefix("  from ") }.count == 2, "\(alike)")
        }
    }
}

extension ExploreCommandTests {
    @Test(
        "from a scenario with stubs the network goes away and comes back anywhere; the path replays with online: false")
    func offline() async throws {
        try await withTemporaryDirectory { directory in
            let out = directory.appendingPathComponent("out").path
            let from = "\(Self.fixtures)/scenarios/offline-loads.scenario.yaml"
            let result = try await runJourney(["explore", "--from", from, "--emit", out])
            #expect(result.status == Exit.failed, "\(result)")
            #expect(result.stdout.contains("the network going away and coming back"), "\(result)")
            #expect(result.stdout.contains("    2 moves: offline → home: load\n"), "\(result)")
            let path = "\(out)/explore.offline.from-offline-loads.never-fails.scenario.yaml"
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(text.contains("script:\n  - online: false\n  - at: home\n"), "\(text)")
            let replay = try await runJourney(["run", "--scenario", path, "--journeys", Self.fixtures])
            #expect(replay.status == Exit.failed && replay.stderr.contains("shows no enabled action"), "\(replay)")
            let online = try await runJourney(["explore", "--from", from, "--no-offline"])
            #expect(online.status == Exit.ok, "without going offline the failure is out of reach: \(online)")
            // From the default device there are no stubs: a request goes as if offline while the
            // device is online, so Try again loops back to it. That loop is the explorer's want
            // of a server, not a trap of the journey's (a replay could not tell it either).
            let device = try await runJourney(["explore", "\(Self.fixtures)/offline.journey.yaml", "--emit", out])
            #expect(device.status == Exit.ok, "\(device)")
            #expect(!device.stdout.contains("explore.reaches-an-end"), "\(device)")
            #expect(device.stdout.contains("explore.offline.load: sends a request with no network"), "\(device)")
        }
    }

    @Test("time the journey can observe makes states: a resend enabled after its cooldown is explored")
    func observedTime() async throws {
        let result = try await runJourney(
            ["explore", "--from", "journeys/examples/scenarios/mfa-sms-resend.scenario.yaml"], timeout: 120)
        #expect(result.status == Exit.ok, "\(result)")
        let unreached = result.stdoutLines.first { $0.contains("transitions no path takes") } ?? ""
        // "Send again" enables 60 s after the code was sent: only a clock jump that keeps the
        // time the code was sent apart from the minute after reaches it.
        #expect(!unreached.contains("smsCode --resend-->"), "\(result)")
        #expect(!unreached.contains("challenge --ok-->"), "\(result)")
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
        // Seven threads and more share a level of 29 states (and others) without a run past its end.
        let starts = try await runJourney(["explore", "journeys/tinkoff", "--jobs", "1"], timeout: 120)
        #expect(starts.status == Exit.ok && starts.stdout.contains("from 19 starts"), "\(starts)")
        for jobs in ["7", "8"] {
            let more = try await runJourney(["explore", "journeys/tinkoff", "--jobs", jobs], timeout: 120)
            #expect(more.status == starts.status && more.stdout == starts.stdout, "\(jobs) jobs: \(more)")
        }
        let zero = try await runJourney(["explore", "--jobs", "0", "journeys/examples/pin-model.journey.yaml"])
        #expect(zero.status == Exit.invalid && zero.stderr.contains("--jobs must be from 1 to 1024"), "\(zero)")
    }
}

extension ExploreCommandTests {
    @Test(
        "each counterexample is printed as the transcript of its replay, secrets shown as •••, and how the replay ends")
    func transcriptOfTheCounterexample() async throws {
        let result = try await runJourney(["explore", "\(Self.fixtures)/pin-model-bug.journey.yaml"])
        #expect(result.status == Exit.failed, "\(result)")
        let lines = result.stdoutLines
        let start = try #require(lines.firstIndex(of: "    transcript:"), "\(result)")
        let transcript = lines[(start + 1)...].prefix { $0.hasPrefix("      ") }
        #expect(transcript.first?.hasPrefix("      # transcript examples.pin-model-bug") == true, "\(result)")
        #expect(transcript.contains("      00:00.000   attempt pinEntry charged 1/3"), "\(result)")
        #expect(transcript.contains("      00:00.000 ⟳ app restarted"), "\(result)")
        #expect(transcript.last == "      the replay fails: expected state.failures = 1, found 0", "\(result)")
        #expect(transcript.contains("      00:00.000   input pin=•••"), "the PIN typed is a secret: \(result)")
        let json = try await runJourney(["explore", "\(Self.fixtures)/pin-model-bug.journey.yaml", "--json"])
        #expect(!json.stdout.contains("transcript"), "\(json)")
    }
}
