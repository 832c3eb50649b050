import Foundation
import JourneySuite
import Testing

/// `journey play`: a journey played a line at a time from standard input (as a script or a
/// test gives it), with undo, device events, and what was played saved as a scenario whose
/// golden is recorded and passes `journey test`.
@Suite("journey play", .timeLimit(.minutes(30)))
struct PlayTests {
    /// The PIN model played: a PIN chosen, biometry allowed, a wrong PIN, a restart, five
    /// minutes, a wrong PIN taken back with undo, the right one, and finish.
    static let played = [
        "2580", "2580", "allow", "1397", ":restart", ":clock 5m", "1397", ":undo", "2580", "finish",
    ]

    @Test("a journey with a param no default gives is played from a scenario: said before anything is played, exit 2")
    func paramsNeedAScenario() async throws {
        let result = try await runJourney(["play", "examples.tree-login"], cwd: Paths.root, input: ":quit\n")
        expectNoCrash(result)
        #expect(result.status == Exit.invalid, "\(result)")
        #expect(
            result.stderrLines == [
                "error: journey 'examples.tree-login' needs param 'hotpSecret', which has no default: play it from a scenario that gives it, journey play --from SCENARIO (such as journeys/examples/scenarios/tree-sign-in.scenario.yaml)"
            ], "\(result)")
        // From a scenario that gives it, it plays.
        let from = try await runJourney(
            ["play", "--from", "journeys/examples/scenarios/tree-sign-in.scenario.yaml"], cwd: Paths.root,
            input: ":quit\n")
        #expect(from.status == Exit.ok, "\(from)")
    }

    @Test(
        "a journey played from standard input, with undo, a restart and a clock jump, saved as a scenario that journey test passes"
    )
    func playAndSave() async throws {
        try await withTemporaryDirectory { folder in
            try copyShippedJourneys(into: folder)
            let saved = "journeys/examples/scenarios/played.scenario.yaml"
            let input = (Self.played + [":store", ":save \(saved)", "y", ":quit"]).joined(separator: "\n") + "\n"
            let result = try await runJourney(["play", "examples.pin-model"], cwd: folder, input: input, timeout: 120)
            expectNoCrash(result)
            #expect(result.status == 0, "\(result)")
            let out = result.stdout
            for shown in [
                "── examples.pin-model › create ──", "Choose a PIN", "1. allow \"Allow\"",
                "attempts left (pinEntry): 3",
                "attempt pinEntry charged 1/3", "↶ back one move", "⏱ +5m", "■ the journey ended at 'done' (success)",
                "stored.failures = 0", "stored.pin = •••", "wrote \(saved)",
                "wrote journeys/examples/transcripts/played.txt",
                "next: journey test \(saved)",
            ] {
                #expect(out.contains(shown), "\(shown) not in:\n\(out)")
            }
            // The PINs typed never show.
            #expect(!result.output.contains("2580") && !result.output.contains("1397"), "\(result.output)")
            let text = try String(contentsOf: folder.appendingPathComponent(saved), encoding: .utf8)
            #expect(
                text.contains(
                    """
                    script:
                      - at: create
                        pin: "2580"
                      - at: repeat
                        pin: "2580"
                      - at: biometry
                        action: "allow"
                      - at: locked
                        pin: "1397"
                      - restart
                      - advance: 5m
                      - at: locked
                        pin: "2580"
                      - at: unlocked
                        action: "finish"
                    expect:
                      end: done
                    """), "\(text)")
            let transcripts = folder.appendingPathComponent("journeys/examples/transcripts")
            #expect(FileManager.default.fileExists(atPath: transcripts.appendingPathComponent("played.txt").path))
            // The end play shows counts the steps of the whole path, as the golden does (the
            // undone move's steps not among them).
            let golden = try String(contentsOf: transcripts.appendingPathComponent("played.txt"), encoding: .utf8)
            let end = try #require(RunResult.lines(golden).first { $0.contains("■ end") })
            #expect(end.hasSuffix("after 10 steps"), "\(end)")
            #expect(out.contains(end), "\(out)")
            let test = try await runJourney(["test", saved], cwd: folder, timeout: 120)
            #expect(test.status == 0, "\(test)")
            #expect(test.stdout.contains("PASS examples.pin-model › played"), "\(test)")
        }
    }

    @Test("a line past the longest play reads is dropped with a word, not held whole, and play goes on")
    func anEndlessLineIsDropped() async throws {
        let long = String(repeating: "1", count: 200_000)
        let result = try await runJourney(
            ["play", "examples.unlock", "--device", "pins.pin=2580"], cwd: Paths.root,
            input: "\(long)\n2580\n:quit\n", timeout: 60)
        #expect(result.status == Exit.ok, "\(result.stderr)")
        #expect(result.stdout.contains("a line longer than 65536 bytes was ignored"))
        #expect(result.stdout.contains("examples.unlock → unlocked (success)"))
        #expect(!result.output.contains(String(repeating: "1", count: 100)))
    }

    @Test("a secret typed is saved only when the player says so; an existing file is never replaced")
    func savingAsks() async throws {
        try await withTemporaryDirectory { folder in
            try copyShippedJourneys(into: folder)
            let saved = "journeys/examples/scenarios/declined.scenario.yaml"
            let declined = try await runJourney(
                ["play", "examples.pin-model"], cwd: folder,
                input: (Self.played + [":save \(saved)", "n", ":quit"]).joined(separator: "\n") + "\n", timeout: 120)
            #expect(declined.status == 0, "\(declined)")
            #expect(declined.stdout.contains("not saved"), "\(declined)")
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent(saved).path))

            let existing = "journeys/examples/scenarios/correct-pin.scenario.yaml"
            let before = try Data(contentsOf: folder.appendingPathComponent(existing))
            let refused = try await runJourney(
                ["play", "examples.pin-model"], cwd: folder,
                input: (Self.played + [":save \(existing)", ":save journeys/bad name.scenario.yaml", ":quit"])
                    .joined(separator: "\n") + "\n", timeout: 120)
            #expect(
                refused.stdout.contains(
                    "\(existing), journeys/examples/transcripts/correct-pin.jsonl, journeys/examples/transcripts/correct-pin.txt already exist: save to another file"
                ), "\(refused)")
            #expect(refused.stdout.contains("'bad name' cannot be a scenario's id"), "\(refused)")
            #expect(try Data(contentsOf: folder.appendingPathComponent(existing)) == before)

            // A new file whose name is the id of another scenario of the journey would make both
            // unrunnable: refused, at :save and for --save, and nothing is written.
            let twin = "journeys/examples/more/pin-model-twenty-events.scenario.yaml"
            let clash =
                "scenario 'pin-model-twenty-events' of 'examples.pin-model' is already defined at journeys/examples/scenarios/pin-model-twenty-events.scenario.yaml: save to a file of another name"
            let saving = try await runJourney(
                ["play", "examples.pin-model"], cwd: folder,
                input: (Self.played + [":save \(twin)", ":quit", ":quit"]).joined(separator: "\n") + "\n", timeout: 120)
            #expect(saving.stdout.contains(clash), "\(saving)")
            let option = try await runJourney(
                ["play", "examples.pin-model", "--save", twin], cwd: folder, input: "", timeout: 60)
            #expect(option.status == Exit.invalid && option.stderr.contains("--save \(twin): \(clash)"), "\(option)")
            #expect(
                !FileManager.default.fileExists(atPath: folder.appendingPathComponent("journeys/examples/more").path))
        }
    }

    @Test(
        "--save that cannot take the play is refused before anything is played; a save that fails at the end keeps play going, then exits 1"
    )
    func saveOption() async throws {
        try await withTemporaryDirectory { folder in
            try copyShippedJourneys(into: folder)
            // Refused up front, with the usage, before a move is played.
            let existing = "journeys/examples/scenarios/correct-pin.scenario.yaml"
            for (path, says) in [
                (
                    existing,
                    "\(existing), journeys/examples/transcripts/correct-pin.jsonl, journeys/examples/transcripts/correct-pin.txt already exist: save to another file"
                ),
                ("journeys/examples/scenarios/x.yaml", "a scenario file's name ends in .scenario.yaml"),
                ("journeys/examples/scenarios/bad name.scenario.yaml", "'bad name' cannot be a scenario's id"),
            ] {
                let refused = try await runJourney(
                    ["play", "examples.pin-model", "--save", path], cwd: folder, input: "2580\n", timeout: 60)
                #expect(refused.status == Exit.invalid, "\(refused)")
                #expect(refused.stderr.contains("Error: --save \(path): \(says)"), "\(refused)")
                #expect(refused.stdout.isEmpty, "nothing is played: \(refused)")
            }
            // A golden left where the scenario's would go is not replaced either.
            let orphan = "journeys/examples/transcripts/orphan.txt"
            try writeText("mine\n", to: folder.appendingPathComponent(orphan))
            let kept = try await runJourney(
                ["play", "examples.pin-model", "--save", "journeys/examples/scenarios/orphan.scenario.yaml"],
                cwd: folder, input: "", timeout: 60)
            #expect(kept.status == Exit.invalid, "\(kept)")
            #expect(kept.stderr.contains("\(orphan) already exists: save to another file"), "\(kept)")
            #expect(try String(contentsOf: folder.appendingPathComponent(orphan), encoding: .utf8) == "mine\n")

            // Declined at the end (a PIN was typed), the save keeps play going: saved elsewhere,
            // the play ends well; left without saving, it ends with exit 1.
            let target = "journeys/examples/scenarios/target.scenario.yaml"
            let elsewhere = "journeys/examples/scenarios/elsewhere.scenario.yaml"
            let rescued = try await runJourney(
                ["play", "examples.pin-model", "--save", target], cwd: folder,
                input: (Self.played + [":quit", "n", ":save \(elsewhere)", "y", ":quit"]).joined(separator: "\n")
                    + "\n",
                timeout: 120)
            #expect(rescued.status == Exit.ok, "\(rescued)")
            #expect(
                rescued.stdout.contains("what was played is not saved: :save FILE saves it to another file"),
                "\(rescued)")
            #expect(rescued.stdout.contains("wrote \(elsewhere)"), "\(rescued)")
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent(target).path))

            let lost = try await runJourney(
                ["play", "examples.pin-model", "--save", target], cwd: folder,
                input: (Self.played + [":quit", "n", ":quit"]).joined(separator: "\n") + "\n", timeout: 120)
            #expect(lost.status == Exit.failed, "\(lost)")
            #expect(lost.stderr.contains("journey play: what was played was not saved to \(target)"), "\(lost)")
            // The input ends before the question is answered: nothing saved, exit 1.
            let ended = try await runJourney(
                ["play", "examples.pin-model", "--save", target], cwd: folder,
                input: Self.played.joined(separator: "\n") + "\n", timeout: 120)
            #expect(ended.status == Exit.failed, "\(ended)")
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent(target).path))
        }
    }

    @Test("a play in another locale is saved in it: the scenario says its locale, and its golden shows what was played")
    func saveKeepsTheLocale() async throws {
        try await withTemporaryDirectory { folder in
            try copyShippedJourneys(into: folder)
            let saved = "journeys/examples/scenarios/dutch.scenario.yaml"
            let result = try await runJourney(
                ["play", "examples.unlock", "--device", "pins.pin=0420", "--locale", "nl"], cwd: folder,
                input: "0420\n:save \(saved)\ny\n:quit\n", timeout: 120)
            #expect(result.status == Exit.ok, "\(result)")
            #expect(result.stdout.contains("Voer je pincode in"), "\(result)")
            let text = try String(contentsOf: folder.appendingPathComponent(saved), encoding: .utf8)
            #expect(RunResult.lines(text).contains("locale: nl"), "\(text)")
            let golden = try String(
                contentsOf: folder.appendingPathComponent("journeys/examples/transcripts/dutch.txt"), encoding: .utf8)
            #expect(golden.contains("screen \"Voer je pincode in\""), "\(golden)")
        }
    }

    @Test(":restart after an end opens the app again with what the device keeps; saved, each launch is a session")
    func openedAgainAfterAnEnd() async throws {
        try await withTemporaryDirectory { folder in
            try copyShippedJourneys(into: folder)
            let saved = "journeys/examples/scenarios/next-day.scenario.yaml"
            let result = try await runJourney(
                ["play", "examples.unlock"], cwd: folder,
                input: "2580\n2580\n:restart\n1111\n2580\n:save \(saved)\ny\n:quit\n", timeout: 120)
            #expect(result.status == Exit.ok, "\(result)")
            // The PIN chosen in the first launch is asked for in the next, a wrong one counted.
            #expect(
                result.stdout.contains("■ the journey ended at 'unlocked' (success): :restart opens the app again"),
                "\(result)")
            #expect(
                result.stdout.contains("── examples.unlock › enterPin ──\nEnter your PIN\nAttempts left: 2\n"),
                "\(result)")
            let text = try String(contentsOf: folder.appendingPathComponent(saved), encoding: .utf8)
            #expect(
                text.contains(
                    """
                    sessions:
                      - script:
                          - at: choosePin
                            pin: "2580"
                          - at: repeatPin
                            pin: "2580"
                        expect: { end: unlocked }
                      - script:
                          - at: enterPin
                            pin: "1111"
                          - at: enterPin
                            pin: "2580"
                        expect:
                          end: unlocked
                    """), "\(text)")
            let test = try await runJourney(["test", saved], cwd: folder, timeout: 120)
            #expect(test.status == Exit.ok && test.stdout.contains("PASS examples.unlock › next-day"), "\(test)")
        }
    }

    @Test("--from plays the scenario's script first and goes on where it ends")
    func fromScenario() async throws {
        let result = try await runJourney(
            ["play", "--from", "journeys/examples/scenarios/one-wrong-then-right.scenario.yaml"],
            input: ":undo\n:hint\n:quit\n", timeout: 60)
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdout.contains("played the script of journeys/examples/scenarios/one-wrong-then-right"), "\(result)"
        )
        // Undo goes back into the script: the PIN screen, with one wrong PIN counted.
        let undone = try #require(result.stdout.components(separatedBy: "↶ back one move").last, "\(result)")
        #expect(undone.contains("── examples.unlock › enterPin ──\nEnter your PIN\nAttempts left: 2\n"), "\(undone)")
        #expect(result.stdout.contains("  correct: pin=•••"), "\(result)")
    }

    @Test("--device sets up the device as a scenario's device does, and the scenario saved keeps it")
    func deviceFlags() async throws {
        try await withTemporaryDirectory { folder in
            try copyShippedJourneys(into: folder)
            let saved = "journeys/examples/scenarios/touch.scenario.yaml"
            let result = try await runJourney(
                ["play", "examples.unlock", "--device", "pins.pin=0420", "--device", "biometry=touchID"], cwd: folder,
                input: "1111\n:save \(saved)\ny\n:quit\n", timeout: 120)
            #expect(result.status == 0, "\(result)")
            // The PIN is sealed on the device: the pad counts a wrong one instead of asking for a new PIN.
            #expect(result.stdout.contains("attempt pinEntry charged 1/3"), "\(result)")
            let text = try String(contentsOf: folder.appendingPathComponent(saved), encoding: .utf8)
            // The rest as without --device: one round of key derivation, so the replay is as fast.
            #expect(
                text.contains("device:\n  biometry: touchID\n  kdfRounds: 1\n  pins: { pin: \"0420\" }\n"), "\(text)")
            #expect(text.hasSuffix("expect:\n  at: enterPin\n"), "\(text)")
            let test = try await runJourney(["test", saved], cwd: folder, timeout: 120)
            #expect(test.status == 0, "\(test)")
        }
        let bad = try await runJourney(["play", "examples.unlock", "--device", "biometry=faceid"], input: "")
        #expect(bad.status == 2, "\(bad)")
        #expect(bad.stderr.contains("did you mean 'faceID'"), "\(bad)")
        // Each problem is said of the setting that made it, never of lines the user did not
        // write, and a PIN's value is not shown.
        let several = try await runJourney(
            [
                "play", "examples.unlock", "--device", "pins.pin=2580", "--device", "kdfRounds=0", "--device",
                "pins.pin2=1", "--device", "wifi=on",
            ], input: "")
        #expect(several.status == 2, "\(several)")
        #expect(
            several.stderrLines == [
                "error: --device kdfRounds=0: 'kdfRounds' must be from 1 to 600000, found 0 [value.range]",
                "error: --device wifi=on: unknown key 'wifi' in 'device' [key.unknown]",
            ], "\(several)")
        // A dotted key other than pins. and store. says which it may be, and hides its value,
        // which may be a PIN written under the wrong name.
        for (setting, said) in [
            (
                "pin.pin=2580",
                "error: --device pin.pin=•••: unknown key 'pin.pin': a key with a dot is pins.NAME (a PIN sealed under NAME) or store.NAME (a value the device keeps); did you mean 'pins.pin'?"
            ),
            (
                "stor.onboarded=true",
                "error: --device stor.onboarded=•••: unknown key 'stor.onboarded': a key with a dot is pins.NAME (a PIN sealed under NAME) or store.NAME (a value the device keeps); did you mean 'store.onboarded'?"
            ),
            (
                "wifi.on=yes",
                "error: --device wifi.on=•••: unknown key 'wifi.on': a key with a dot is pins.NAME (a PIN sealed under NAME) or store.NAME (a value the device keeps)"
            ),
        ] {
            let refused = try await runJourney(["play", "examples.unlock", "--device", setting], input: "")
            #expect(refused.status == 2, "\(refused)")
            #expect(refused.stderrLines == [said], "\(refused)")
        }
        let malformed = try await runJourney(["play", "examples.unlock", "--device", "pins.pin"], input: "")
        #expect(malformed.status == 2, "\(malformed)")
        #expect(malformed.stderrLines == ["error: --device takes key=value, found 'pins.pin'"], "\(malformed)")
        #expect(
            PlayedScenario.origin(
                at: 6, column: 30,
                in: [
                    .init(line: 6, columns: 1..<20, setting: "pins.a=1"),
                    .init(line: 6, columns: 18..<28, setting: "pins.b=2"),
                ])?.shown(secretStored: { _ in false }) == "pins.b=•••")
        // Nor is the value of a stored key the project keeps secret, in what is wrong with it or
        // with how it is written.
        for (setting, said) in [
            ("store.pin=[SECRETZZ3]", "error: --device store.pin=•••: stored value 'pin' is string, found a list"),
            ("store.pin=SECRET\nZZ3", "error: --device takes key=value on one line, found 'store.pin=•••'"),
            ("store.pinFailures=[7]", "error: --device store.pinFailures=[7]: stored value 'pinFailures' is int"),
        ] {
            let refused = try await runJourney(["play", "examples.unlock", "--device", setting], input: "")
            #expect(refused.status == 2, "\(refused)")
            #expect(refused.stderr.contains(said), "\(refused)")
            #expect(!refused.stderr.contains("SECRET"), "\(refused)")
        }
    }

    @Test("--from a scenario that needs the OpenID provider plays against it, as journey test does")
    func live() async throws {
        let result = try await runJourney(
            ["play", "--from", "journeys/eiam/scenarios/i1-sign-in-with-pkce.scenario.yaml"], input: ":quit\n",
            timeout: 60)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("http POST http://127.0.0.1:4593/api/oidc/token → 200"), "\(result)")
        #expect(result.stdout.contains("■ the journey ended at 'loggedIn' (success)"), "\(result)")
    }

    @Test(":foreground brings the app back at a step that sends it to the background, and only there")
    func foreground() async throws {
        let result = try await runJourney(
            ["play", "diia.resume"], input: ":clock 10m\n:foreground\n:foreground\n:quit\n", timeout: 60)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("── diia.resume › background ──"), "\(result)")
        // Ten minutes away, measured from when the app went to the background.
        #expect(result.stdout.contains("outcome foreground {away: 600}"), "\(result)")
        #expect(result.stdout.contains("■ the journey ended at 'resumed' (success)"), "\(result)")
        #expect(result.stdout.contains("the app is not in the background here"), "\(result)")
        let elsewhere = try await runJourney(["play", "examples.unlock"], input: ":foreground\n:quit\n", timeout: 60)
        #expect(elsewhere.stdout.contains("the app is not in the background here"), "\(elsewhere)")
    }

    @Test("a value with a control character (an arrow key) is refused where it is typed, never saved")
    func controlCharacters() async throws {
        let result = try await runJourney(
            ["play", "--from", "journeys/examples/scenarios/tree-sign-in.scenario.yaml"],
            input: ":undo\n:undo\n:undo\nusername=\u{1B}[A password=x next\n:quit\n", timeout: 60)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("username: a control character was typed"), "\(result)")
        // Nothing was played: the credentials screen is still there.
        let after = try #require(result.stdout.components(separatedBy: "a control character was typed").last)
        #expect(!after.contains("input username"), "\(after)")
    }

    @Test("bad use: an unknown journey, input a step does not take, a duration that is none")
    func badUse() async throws {
        let unknown = try await runJourney(["play", "examples.unlok"], input: "")
        #expect(unknown.status == 2, "\(unknown)")
        #expect(unknown.stderr.contains("no journey 'examples.unlok'"), "\(unknown)")
        #expect(unknown.stderr.contains("examples.unlock"), "\(unknown)")
        let dutch = try await runJourney(
            ["play", "examples.unlock", "--locale", "nl", "--device", "pins.pin=2580"], input: ":quit\n")
        #expect(
            dutch.stdout.contains("Voer je pincode in\nPogingen over: 3\n  1. forgot \"Pincode vergeten?\""), "\(dutch)"
        )
        let klingon = try await runJourney(["play", "examples.unlock", "--locale", "tlh"], input: "")
        #expect(klingon.status == 2, "\(klingon)")
        #expect(klingon.stderr.contains("has no locale 'tlh': it has en, nl"), "\(klingon)")
        let none = try await runJourney(["play"], input: "")
        #expect(none.status == 2, "\(none)")
        let wrong = try await runJourney(
            ["play", "examples.pin-model"], input: "code=1\npin=9713 action=submit\n:clock soon\n:bogus\n:quit\n",
            timeout: 60)
        #expect(wrong.status == 0, "\(wrong)")
        #expect(wrong.stdout.contains("step 'create' takes no 'code'"), "\(wrong)")
        // An action pressed by name that the screen does not have is asked again, as any other
        // slip, not the end of the play.
        #expect(wrong.stdout.contains("step 'create' has no actions to press"), "\(wrong)")
        #expect(!wrong.stdout.contains("was given for step"), "\(wrong)")
        #expect(wrong.stdout.contains("give how long: :clock"), "\(wrong)")
        #expect(wrong.stdout.contains("unknown command ':bogus'"), "\(wrong)")
    }
}
