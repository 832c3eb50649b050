import Foundation
import Testing

@Suite("journey run", .timeLimit(.minutes(30)))
struct RunTests {
    static let happyPath = "journeys/eduid/scenarios/happy-path.scenario.yaml"
    static let goldenText = Paths.journeys.appendingPathComponent("eduid/transcripts/happy-path.txt")
    static let goldenJSONL = Paths.journeys.appendingPathComponent("eduid/transcripts/happy-path.jsonl")

    /// Names a run may leave behind in a transcript's folder by mistake (AtomicFile writes
    /// `.NAME.journey-PID.tmp` beside the target).
    static func strayTemporaries(in directory: URL) -> [String] {
        entries(of: directory).filter { $0.hasPrefix(".") || $0.hasSuffix(".tmp") }
    }

    @Test("the binary under test is the `journey` built with this test bundle")
    func binaryUnderTest() throws {
        let binary = try #require(Paths.journeyBinary, "\(SubprocessError.binaryNotFound)")
        #expect(FileManager.default.isExecutableFile(atPath: binary.path))
        #if os(Linux)
        if ProcessInfo.processInfo.environment["JOURNEY_BINARY"] == nil,
            let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        {
            let bundleFolder = URL(fileURLWithPath: exe).resolvingSymlinksInPath().deletingLastPathComponent()
            #expect(binary.resolvingSymlinksInPath().deletingLastPathComponent().path == bundleFolder.path)
        }
        #endif
    }

    @Test("the text transcript equals the committed golden byte for byte")
    func textMatchesGolden() async throws {
        let result = try await runJourney(["run", "--scenario", Self.happyPath])
        expectNoCrash(result)
        #expect(result.status == Exit.ok, "\(result)")
        let golden = try Data(contentsOf: Self.goldenText)
        #expect(result.stdoutData == golden, "stdout differs from \(Self.goldenText.lastPathComponent)")
        // The verdict goes to stderr, not into the transcript.
        #expect(result.stderr.contains("PASS eduid.onboarding › happy-path"), "\(result.stderr)")
        #expect(result.stderr.contains("home"))
        #expect(!result.stdout.contains("PASS"))
    }

    /// Seed-flows L9 and the state table of 2.1: VerifiedOffline holds no token, even one that
    /// background access fetched before. (Not a shipped scenario: a start with a token endpoint
    /// stubbed explores to some hundred thousand states, which `journey test --explore` would
    /// play on every run.)
    @Test("Locker: offline verification after background access drops the background token")
    func offlineVerificationDropsABackgroundToken() async throws {
        try await withTemporaryDirectory { directory in
            try copyShippedJourneys(into: directory)
            try writeText("journeys: [journeys]\n", to: directory.appendingPathComponent("journeykit.yaml"))
            let path = "journeys/locker/scenarios/l9-drops-a-background-token.scenario.yaml"
            try writeText(
                """
                # yaml-language-server: $schema=../../../schemas/scenario.schema.json
                # Source (ErsteLockerSDK v2's code is not public; its README is the reference):
                #   ErsteLockerSDK v2 README.md "Offline Verification" (the password checked on the device, no token)
                #   seed-flows 2.1, the state table: VerifiedOffline holds no token; L9
                scenario: l9-offline-verification-drops-a-background-token
                journey: locker.session
                title: "L9: background access, then offline verification → VerifiedOffline, the background token gone"
                tags: [L9, L5]
                device:
                  kdfRounds: 1000
                  store:
                    vault: "locker-v1:1000:dWuxOjvVZ9subO3JTZlbWQ==:/cpKlodXSv215QVtM/JjZKlO1LdF0DS5t6PDhzjdkkt7egdNf+MtvB+0qlMB7x5nBpkusQ72kHM99VRl8hEhN+oeyQBc0VqdRabO+4nswWH6mjZbGNe+vB5t7N6rcMYnzJAXVDJ0JrX8SlE+RKZoeFo0T5C3AqqwXR1nCYKRAEDWWlfOzjeZh4d1bhiwKJmiQSLlsx/iQ5zYcCeK+ER4f8ysBnaUgHo+JvKdZMGxhoQC4eAI2WuROQgFLabZSRnYYJJZZJsAYWIURzDC0BGWmGEj8S9dR9FXvqjKwKdPLOvPBAWEoSBtuNSPfDD+SUcXib7Dc7YYS4U="
                    deviceWrap: "locker-v1:QUb+baGqMjsPw8b6uSIHap196s04glH27vgNvEEJh4c=:XPIuOswtfq6O4WzLy8HWF0HdTYc3ipo55AMUgQnzbujFgwBZKA8mZ52M24vsCvvcRPOtai+Gc1eNcekiTuf06hken6AC5fJBFLbW24PCCClxJPzV33SFHvsVoCgotHX6iKo7up9N+ZTUG1M1LC98RvWZuioN726EzV00ZbBBDTquExyhdauSH2qo9lbQviY="
                    refreshToken: refresh-1
                    tokenEndpoint: "https://login.example-bank.test/oidc/token"
                network:
                  - request: POST https://login.example-bank.test/oidc/token
                    times: 1
                    response:
                      status: 200
                      json: { access_token: bgTok9Qz, refresh_token: rfTok4Wv, token_type: Bearer, expires_in: 300, scope: openid }
                script:
                  - at: home
                    action: backgroundAccess
                  - online: false
                  - at: home
                    action: startAuthSession
                  - at: offlineCheck
                    password: Correct-Horse-7
                  - at: home
                    action: close
                expect:
                  end: closed
                  state: { status: VerifiedOffline }
                  stored: { accessToken: { is: empty } }

                """, to: directory.appendingPathComponent(path))
            let result = try await runJourney(["run", "--scenario", path], cwd: directory)
            #expect(result.status == Exit.ok, "\(result)")
            #expect(result.stdout.contains("status = \"BackgroundAccess\""), "\(result)")
            #expect(result.stdout.contains("status = \"VerifiedOffline\""), "\(result)")
            #expect(!result.output.contains("bgTok9Qz"), "\(result)")
        }
    }

    @Test("--format text is the default, and --format jsonl equals the .jsonl golden")
    func jsonlMatchesGolden() async throws {
        let text = try await runJourney(["run", "--scenario", Self.happyPath, "--format", "text"])
        #expect(text.status == Exit.ok)
        #expect(text.stdoutData == (try Data(contentsOf: Self.goldenText)))

        let result = try await runJourney(["run", "--scenario", Self.happyPath, "--format", "jsonl"])
        expectNoCrash(result)
        #expect(result.status == Exit.ok, "\(result)")
        #expect(result.stdoutData == (try Data(contentsOf: Self.goldenJSONL)))
        // Every line is a JSON object with an event; the first is the header.
        let lines = result.stdoutLines
        #expect(lines.count > 10)
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["event"] is String, "\(line)")
        }
        #expect(lines.first?.contains("\"event\":\"transcript\"") == true)
    }

    @Test("the journey may be named by its id, as journey play takes it; another journey's id is refused")
    func journeyByID() async throws {
        let byID = try await runJourney(["run", "eduid.onboarding", "--scenario", Self.happyPath])
        expectNoCrash(byID)
        #expect(byID.status == Exit.ok, "\(byID)")
        #expect(byID.stdoutData == (try Data(contentsOf: Self.goldenText)), "\(byID)")

        let other = try await runJourney(["run", "examples.unlock", "--scenario", Self.happyPath])
        expectNoCrash(other)
        #expect(other.status == Exit.invalid, "\(other)")
        #expect(other.stdoutData.isEmpty, "nothing is run: \(other)")
        #expect(
            other.stderr == "error: the scenario plays journey 'eduid.onboarding', not 'examples.unlock'\n", "\(other)")
    }

    @Test("a scenario given where the journey goes is refused, not dropped")
    func scenarioAsTheJourney() async throws {
        let other = "journeys/examples/scenarios/correct-pin.scenario.yaml"
        let result = try await runJourney(["run", other, "--scenario", Self.happyPath])
        expectNoCrash(result)
        #expect(result.status == Exit.invalid, "\(result)")
        #expect(result.stdoutData.isEmpty, "nothing is run: \(result)")
        #expect(result.stderr.contains("\(other) is a scenario, not a journey"), "\(result)")
    }

    @Test("--scenario given a folder or a journey says which it is and what takes it; journey play --from too")
    func notAScenario() async throws {
        let cases: [([String], String)] = [
            (
                ["run", "--scenario", "journeys/examples"],
                "journeys/examples is a folder, and --scenario takes one scenario file: journey test journeys/examples runs every scenario in it"
            ),
            (
                ["run", "--scenario", "journeys/examples/unlock.journey.yaml"],
                "journeys/examples/unlock.journey.yaml is a journey (examples.unlock), not a scenario: --scenario takes a scenario file (journey new scenario writes one)"
            ),
            // Read before it was known to be a scenario, a folder was a Foundation error.
            (
                ["play", "--from", "journeys/examples/scenarios"],
                "journeys/examples/scenarios is a folder, and --from takes one scenario file: give one of the scenarios in it"
            ),
        ]
        for (arguments, said) in cases {
            let result = try await runJourney(arguments, input: "")
            expectNoCrash(result)
            #expect(result.status == Exit.invalid, "\(arguments): \(result)")
            #expect(result.stdoutData.isEmpty, "\(arguments): \(result)")
            #expect(result.stderr == "error: \(said)\n", "\(arguments): \(result)")
        }
    }

    @Test("--scenario given an empty folder is refused before anything in it is read: one line, no warning")
    func emptyFolderAsScenario() async throws {
        try await withTemporaryDirectory { directory in
            try FileManager.default.createDirectory(
                at: directory.appendingPathComponent("m/dir.scenario.yaml"), withIntermediateDirectories: true)
            let result = try await runJourney(["run", "--scenario", "m/dir.scenario.yaml"], cwd: directory)
            expectNoCrash(result)
            #expect(result.status == Exit.invalid, "\(result)")
            #expect(
                result.stderr
                    == "error: m/dir.scenario.yaml is a folder, and --scenario takes one scenario file: journey test m/dir.scenario.yaml runs every scenario in it\n",
                "\(result)")
        }
    }

    @Test("a scenario given alone, without --scenario, is a usage error with the command that plays it")
    func scenarioWithoutTheOption() async throws {
        let scenario = "journeys/examples/scenarios/correct-pin.scenario.yaml"
        let result = try await runJourney(["run", scenario])
        expectNoCrash(result)
        #expect(result.status == Exit.invalid, "\(result)")
        #expect(result.stdoutData.isEmpty, "\(result)")
        #expect(
            result.stderr.contains("hint: a scenario is played with --scenario: journey run --scenario \(scenario)"),
            "\(result)")
        // A journey given alone has no such hint: what is missing is its scenario.
        let journey = try await runJourney(["run", "journeys/examples/pin-model.journey.yaml"])
        #expect(journey.status == Exit.invalid && !journey.stderr.contains("hint:"), "\(journey)")
    }

    @Test("running twice gives identical bytes", arguments: ["text", "jsonl"])
    func deterministic(format: String) async throws {
        let first = try await runJourney(["run", "--scenario", Self.happyPath, "--format", format])
        let second = try await runJourney(["run", "--scenario", Self.happyPath, "--format", format])
        #expect(first.status == Exit.ok && second.status == Exit.ok)
        #expect(!first.stdoutData.isEmpty)
        #expect(first.stdoutData == second.stdoutData)
        #expect(first.stderrData == second.stderrData)
    }

    @Test("--transcript FILE writes the file, prints no transcript, leaves no temporary files")
    func transcriptFile() async throws {
        try await withTemporaryDirectory { directory in
            let scenario = Paths.root.appendingPathComponent(Self.happyPath).path
            let text = directory.appendingPathComponent("happy.txt")
            let result = try await runJourney(
                ["run", "--scenario", scenario, "--transcript", text.path], cwd: directory)
            expectNoCrash(result)
            #expect(result.status == Exit.ok, "\(result)")
            #expect(result.stdoutData.isEmpty, "stdout: \(result.stdout)")
            #expect((try? Data(contentsOf: text)) == (try Data(contentsOf: Self.goldenText)))

            // The format follows a .jsonl name unless --format says otherwise.
            let jsonl = directory.appendingPathComponent("happy.jsonl")
            let second = try await runJourney(
                ["run", "--scenario", scenario, "--transcript", jsonl.path], cwd: directory)
            #expect(second.status == Exit.ok, "\(second)")
            #expect(second.stdoutData.isEmpty)
            #expect((try? Data(contentsOf: jsonl)) == (try Data(contentsOf: Self.goldenJSONL)))

            // Overwriting an existing transcript replaces it whole.
            try Data("old transcript\n".utf8).write(to: text)
            let third = try await runJourney(
                ["run", "--scenario", scenario, "--transcript", text.path], cwd: directory)
            #expect(third.status == Exit.ok)
            #expect((try? Data(contentsOf: text)) == (try Data(contentsOf: Self.goldenText)))

            #expect(entries(of: directory) == ["happy.jsonl", "happy.txt"])
            #expect(Self.strayTemporaries(in: directory).isEmpty)
        }
    }

    @Test("--transcript into folders that do not exist makes them, as --junit does; under a file: exit 2, nothing made")
    func transcriptIntoMissingFolder() async throws {
        try await withTemporaryDirectory { directory in
            let scenario = Paths.root.appendingPathComponent(Self.happyPath).path
            let result = try await runJourney(
                ["run", "--scenario", scenario, "--transcript", "out/deeper/happy.txt"], cwd: directory)
            expectNoCrash(result)
            #expect(result.status == Exit.ok, "\(result)")
            #expect(
                (try? Data(contentsOf: directory.appendingPathComponent("out/deeper/happy.txt")))
                    == (try Data(contentsOf: Self.goldenText)))

            try writeText("a file\n", to: directory.appendingPathComponent("blocker"))
            let blocked = try await runJourney(
                ["run", "--scenario", scenario, "--transcript", "blocker/new/out.txt"], cwd: directory)
            expectNoCrash(blocked)
            #expect(blocked.status == Exit.invalid, "\(blocked)")
            #expect(
                blocked.stderrLines == [
                    "error: cannot write the transcript to blocker/new/out.txt: blocker is a file, not a folder"
                ],
                "\(blocked.stderr)")
            #expect(blocked.stdoutData.isEmpty)
            #expect(entries(of: directory) == ["blocker", "out"])
        }
    }

    @Test("--transcript naming a folder: exit 2, the folder untouched, no temporary file left")
    func transcriptIsAFolder() async throws {
        try await withTemporaryDirectory { directory in
            let scenario = Paths.root.appendingPathComponent(Self.happyPath).path
            let folder = directory.appendingPathComponent("existing", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
            try Data("keep me\n".utf8).write(to: folder.appendingPathComponent("inside.txt"))
            let result = try await runJourney(
                ["run", "--scenario", scenario, "--transcript", folder.path], cwd: directory)
            expectNoCrash(result)
            #expect(result.status == Exit.invalid, "\(result)")
            #expect(result.stderr.contains("cannot write"), "\(result.stderr)")
            #expect(entries(of: directory) == ["existing"])
            #expect(entries(of: folder) == ["inside.txt"])
            #expect(
                (try? String(contentsOf: folder.appendingPathComponent("inside.txt"), encoding: .utf8)) == "keep me\n")
        }
    }

    @Test("a transcript that cannot be written in full keeps the previous file")
    func failedWriteKeepsOldTranscript() async throws {
        let binary = try #require(Paths.journeyBinary)
        try await withTemporaryDirectory { directory in
            let scenario = Paths.root.appendingPathComponent(Self.happyPath).path
            let target = directory.appendingPathComponent("out.txt")
            let old = Data("the previous transcript\n".utf8)
            try old.write(to: target)
            // A file size limit of one block makes write(2) fail with EFBIG half-way
            // through the ~7 KB transcript (SIGXFSZ is ignored so the write fails
            // instead of killing the process). Running as root does not lift it.
            let result = try await runProcess(
                URL(fileURLWithPath: "/bin/sh"),
                [
                    "-c", "trap '' XFSZ; ulimit -f 1; exec \"$@\"", "sh", binary.path, "run", "--scenario", scenario,
                    "--transcript", target.path,
                ],
                cwd: directory)
            expectNoCrash(result)
            #expect(result.status == Exit.invalid, "\(result)")
            #expect(result.stderr.contains("cannot write"), "\(result.stderr)")
            #expect((try? Data(contentsOf: target)) == old, "the previous transcript was replaced")
            #expect(entries(of: directory) == ["out.txt"], "left behind: \(entries(of: directory))")
        }
    }

    @Test("a scenario expecting the wrong end fails with exit 1 and says so")
    func wrongEnd() async throws {
        try await withTemporaryDirectory { directory in
            let journeys = try copyShippedJourneys(into: directory)
            let scenario = journeys.appendingPathComponent("eduid/scenarios/happy-path.scenario.yaml")
            let original = try String(contentsOf: scenario, encoding: .utf8)
            #expect(original.contains("\n  end: home\n"))
            try writeText(original.replacingOccurrences(of: "\n  end: home\n", with: "\n  end: scanQr\n"), to: scenario)
            let result = try await runJourney(
                ["run", "--scenario", "journeys/eduid/scenarios/happy-path.scenario.yaml"], cwd: directory)
            expectNoCrash(result)
            #expect(result.status == Exit.failed, "\(result)")
            #expect(result.stderr.contains("FAIL"))
            #expect(result.stderr.contains("expected end"), "\(result.stderr)")
            #expect(result.stderr.contains("scanQr") && result.stderr.contains("home"))
            // The transcript still shows what happened.
            #expect(result.stdout.contains("→ home (success)"))
        }
    }

    @Test(
        "usage errors exit 2 with usage text",
        arguments: [
            ["run", "--scenario", RunTests.happyPath, "--bogus"],
            ["run", "--bogus"],
            ["run"],
            ["run", "--scenario", RunTests.happyPath, "--format", "xml"],
            ["run", "--scenario", RunTests.happyPath, "--step-budget", "0"],
            ["check", "--bogus"],
            ["test", "--bogus"],
            ["frobnicate"],
        ])
    func usageErrors(arguments: [String]) async throws {
        let result = try await runJourney(arguments)
        expectNoCrash(result)
        #expect(result.status == Exit.invalid, "\(result)")
        #expect(result.stderr.contains("Usage: journey"), "\(result.stderr)")
        #expect(result.stdoutData.isEmpty)
        if arguments.contains("--bogus") && arguments.contains("--scenario") {
            #expect(result.stderr.contains("Unknown option '--bogus'"))
        }
        if arguments == ["run"] {
            #expect(result.stderr.contains("--scenario"))
        }
    }

    @Test(
        "a negative number is refused with the option's range, not taken for a missing value",
        arguments: [
            (["run", "--scenario", RunTests.happyPath, "--step-budget", "-5"], "--step-budget must be from 1 to"),
            (["explore", "journeys/examples/pin-model.journey.yaml", "--depth", "-1"], "--depth must be from 1 to"),
            (
                ["explore", "--restarts", "-2", "journeys/examples/pin-model.journey.yaml"],
                "--restarts must be from 0 to"
            ),
            (["explore", "--random", "--walks", "-10", "journeys/examples"], "--walks must be from 1 to"),
            (["explore", "--random", "--seed", "-1", "journeys/examples"], "'-1' is invalid for '--seed <seed>'"),
            (["test", "journeys/examples", "--repeat", "-3"], "--repeat must be from 1 to 1000"),
            (["test", "journeys/examples", "--jobs", "-1"], "--jobs must be from 1 to 1024"),
            (["bench", "--process-runs", "-1"], "--process-runs must be from 0 to 10000"),
            (
                ["explore", "--clock-jump", "-5m", "journeys/examples/pin-model.journey.yaml"],
                "--clock-jump takes"
            ),
        ])
    func negativeNumbers(arguments: [String], says: String) async throws {
        let result = try await runJourney(arguments, cwd: Paths.root)
        expectNoCrash(result)
        #expect(result.status == Exit.invalid, "\(result)")
        #expect(result.stderr.contains(says), "\(result.stderr)")
        #expect(!result.stderr.contains("Missing value"), "\(result.stderr)")
        #expect(result.stdoutData.isEmpty)
    }

    @Test("--help and --version exit 0")
    func helpAndVersion() async throws {
        let help = try await runJourney(["--help"])
        #expect(help.status == Exit.ok)
        #expect(help.stdout.contains("USAGE: journey <subcommand>"))
        for command in ["check", "run", "test"] {
            #expect(help.stdout.contains(command))
            let sub = try await runJourney([command, "--help"])
            #expect(sub.status == Exit.ok, "\(command) --help: \(sub)")
            #expect(sub.stdout.contains("USAGE: journey \(command)"))
        }
        let version = try await runJourney(["--version"])
        #expect(version.status == Exit.ok)
        #expect(version.stdout.first?.isNumber == true, "\(version.stdout)")
    }

    @Test("a missing scenario file exits 2 with a located message")
    func missingScenario() async throws {
        try await withTemporaryDirectory { directory in
            let result = try await runJourney(["run", "--scenario", "journeys/nope.scenario.yaml"], cwd: directory)
            expectNoCrash(result)
            #expect(result.status == Exit.invalid, "\(result)")
            #expect(result.diagnostics.contains { $0.path == "journeys/nope.scenario.yaml" && $0.severity == "error" })
        }
    }

    @Test("relative paths without a folder, or with a one-character folder, work")
    func shortRelativePaths() async throws {
        // swift-corelibs-foundation traps on NSString path methods for one-character paths
        // such as "." or "a"; the CLI must not crash on them.
        let folder = Paths.journeys.appendingPathComponent("eduid/scenarios")
        let run = try await runJourney(["run", "--scenario", "happy-path.scenario.yaml"], cwd: folder)
        let golden = try Data(contentsOf: Self.goldenText)
        expectNoCrash(run)
        #expect(run.status == Exit.ok, "\(run)")
        #expect(run.stdoutData == golden)

        let checkDot = try await runJourney(["check", "."], cwd: Paths.journeys)
        expectNoCrash(checkDot)
        #expect(checkDot.status == Exit.ok, "\(checkDot)")

        try await withTemporaryDirectory { directory in
            let tabs = Paths.badFixtures.appendingPathComponent("tabs.yaml")
            try FileManager.default.createDirectory(
                at: directory.appendingPathComponent("a"), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: tabs, to: directory.appendingPathComponent("tabs.yaml"))
            try FileManager.default.copyItem(at: tabs, to: directory.appendingPathComponent("a/tabs.yaml"))
            for path in ["tabs.yaml", "a/tabs.yaml", "a"] {
                let check = try await runJourney(["check", path], cwd: directory)
                expectNoCrash(check)
                #expect(check.status == Exit.invalid, "\(check)")
                #expect(
                    check.errors("yaml.tab").contains { $0.path.hasSuffix("tabs.yaml") && $0.position == "7:1" })
            }
            // Control: the same file named with a longer folder is checked normally.
            try FileManager.default.moveItem(
                at: directory.appendingPathComponent("a"), to: directory.appendingPathComponent("ab"))
            let control = try await runJourney(["check", "ab/tabs.yaml"], cwd: directory)
            expectNoCrash(control)
            #expect(control.status == Exit.invalid)
            #expect(control.errors("yaml.tab").map { "\($0.path):\($0.position)" } == ["ab/tabs.yaml:7:1"])
        }
    }

    @Test("--locale wins over the scenario's locale, which wins over the journey's default")
    func localeOverride() async throws {
        try await withTemporaryDirectory { directory in
            try writeText(
                """
                journey: t.greet
                version: 1
                title: { uk: Привіт, en: Hello }
                locales: [uk, en]
                start: hello
                steps:
                  hello:
                    handler: ui.screen
                    screen:
                      title: { uk: Вітаємо, en: Welcome }
                      actions: { next: { uk: Далі, en: Next } }
                    on: { next: done }
                ends:
                  done: { kind: success }
                """, to: directory.appendingPathComponent("greet.journey.yaml"))
            for (scenarioLocale, flag, expected) in [
                (nil, nil, "uk"), ("en", nil, "en"), ("en", "uk", "uk"), (nil, "en", "en"),
            ] as [(String?, String?, String)] {
                try writeText(
                    """
                    scenario: s
                    journey: t.greet
                    \(scenarioLocale.map { "locale: \($0)" } ?? "")
                    script:
                      - at: hello
                        action: next
                    expect: { end: done }
                    """, to: directory.appendingPathComponent("s.scenario.yaml"))
                let run = try await runJourney(
                    ["run", "--scenario", "s.scenario.yaml"] + (flag.map { ["--locale", $0] } ?? []), cwd: directory)
                expectNoCrash(run)
                #expect(run.status == Exit.ok, "\(run)")
                #expect(run.stdout.contains("· locale \(expected)\n"), "\(run.stdout)")
                #expect(
                    run.stdout.contains(expected == "uk" ? "screen \"Вітаємо\"" : "screen \"Welcome\""), "\(run.stdout)"
                )
            }
            // A locale the journey has no texts in is refused, not written into the header over
            // texts in another.
            let french = try await runJourney(
                ["run", "--scenario", "s.scenario.yaml", "--locale", "fr"], cwd: directory)
            expectNoCrash(french)
            #expect(french.status == Exit.invalid && french.stdout.isEmpty, "\(french)")
            #expect(french.stderr.contains("journey 't.greet' has no locale 'fr': it has uk, en"), "\(french)")
        }
    }

    /// The commands under "Examples:" in a command's `--help`, continuation lines joined and
    /// comments dropped, each as its arguments after `journey`.
    static func examples(ofHelp help: String) -> [[String]] {
        var commands: [String] = []
        var inExamples = false
        var pending = ""
        for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text == "Examples:" {
                inExamples = true
                continue
            }
            guard inExamples else { continue }
            if text.isEmpty, pending.isEmpty { break }
            let code = text.components(separatedBy: "  #").first ?? text
            pending += (pending.isEmpty ? "" : " ") + code.trimmingCharacters(in: .whitespaces)
            if pending.hasSuffix("\\") {
                pending = String(pending.dropLast()).trimmingCharacters(in: .whitespaces)
                continue
            }
            if pending.hasPrefix("journey ") { commands.append(pending) }
            pending = ""
        }
        return commands.map { Array($0.split(separator: " ").dropFirst().map(String.init)) }
    }

    @Test("the examples of journey check --help and journey run --help work as shown, in a copy of the repository")
    func helpExamplesWork() async throws {
        try await withTemporaryDirectory { directory in
            try copyShippedJourneys(into: directory)
            try FileManager.default.copyItem(
                at: Paths.root.appendingPathComponent("journeykit.yaml"),
                to: directory.appendingPathComponent("journeykit.yaml"))
            for command in ["check", "run"] {
                let help = try await runJourney([command, "--help"])
                let examples = Self.examples(ofHelp: help.stdout)
                #expect(examples.count >= 2, "\(command): \(help.stdout)")
                for example in examples {
                    let result = try await runJourney(example, cwd: directory)
                    expectNoCrash(result)
                    #expect(result.status == Exit.ok, "journey \(example.joined(separator: " ")): \(result)")
                }
            }
            #expect(
                FileManager.default.fileExists(atPath: directory.appendingPathComponent("out/pin-mismatch.jsonl").path))
        }
    }
}
