import Foundation
import Testing

/// A shipped scenario and the secrets it gives: every `pin:` (PINs entered, and the PIN in
/// `device.store`), every `code:` (the eduID SMS code, a secret form field), and the query
/// values of links (an OAuth redirect's authorization code and state).
struct ShippedScenario: Sendable, CustomTestStringConvertible {
    /// Relative to the package root, e.g. journeys/eduid/scenarios/happy-path.scenario.yaml.
    var path: String
    var secrets: [Secret]

    var testDescription: String { path.replacingOccurrences(of: "journeys/", with: "") }

    /// The golden transcripts beside the scenario's folder.
    var goldens: [URL] {
        let url = Paths.root.appendingPathComponent(path)
        let name = url.lastPathComponent.replacingOccurrences(of: ".scenario.yaml", with: "")
        let transcripts = url.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
            "transcripts")
        return ["txt", "jsonl"].map { transcripts.appendingPathComponent("\(name).\($0)") }
    }

    struct Secret: Sendable, Hashable, CustomStringConvertible {
        /// The text that must not appear.
        var text: String
        /// For digit strings: must not appear as a whole number (not next to other digits),
        /// so that "123456" is found in `pin=123456` and `"123456"` but not inside the
        /// phone number +31612345678, which is not secret.
        var digitsOnly: Bool { text.count >= 4 && text.allSatisfy { $0.isASCII && $0.isNumber } }
        var description: String { text }

        func occurs(in output: String) -> Bool {
            guard digitsOnly else { return output.contains(text) }
            let scalars = Array(output.unicodeScalars)
            let needle = Array(text.unicodeScalars)
            guard scalars.count >= needle.count else { return false }
            func isDigit(_ i: Int) -> Bool { i >= 0 && i < scalars.count && ("0"..."9").contains(scalars[i]) }
            for start in 0...(scalars.count - needle.count) where scalars[start] == needle[0] {
                if Array(scalars[start..<(start + needle.count)]) == needle && !isDigit(start - 1)
                    && !isDigit(start + needle.count)
                {
                    return true
                }
            }
            return false
        }
    }

    static func secrets(in yaml: String) -> [Secret] {
        var found: [Secret] = []
        for line in RunResult.lines(yaml) {
            let trimmed = line.drop { $0 == " " }
            if trimmed.hasPrefix("#") { continue }
            // `pin: "123456"`, `- code: 12345`, `store: { pin: "0420", pinFailures: 2 }`; not an
            // expectation that says only whether there is one (`password: { is: empty }`).
            for match in line.matches(
                of: #/(?:^|[\s{,])(?:pin|code|password)\s*:\s*(?:"([^"]*)"|'([^']*)'|([^\s,{}\[\]#"']+))/#)
            {
                if let value = match.1 ?? match.2 ?? match.3, !value.isEmpty {
                    found.append(Secret(text: String(value)))
                }
            }
            // `link: "eduid://…?code=abc&state=xyz"`: the query values are secret.
            if let link = line.firstMatch(of: #/link:\s*"([^"]*)"/#)?.1,
                let items = URLComponents(string: String(link))?.queryItems
            {
                for item in items {
                    if let value = item.value, !value.isEmpty { found.append(Secret(text: "\(item.name)=\(value)")) }
                }
            }
        }
        var seen = Set<Secret>()
        return found.filter { seen.insert($0).inserted }
    }

    static let all: [ShippedScenario] = files(under: Paths.journeys, endingWith: ".scenario.yaml").map { url in
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        let path = String(url.path.dropFirst(Paths.root.path.count + 1))
        return ShippedScenario(path: path, secrets: secrets(in: text))
    }
}

@Suite("Secrets never reach transcripts or the console", .timeLimit(.minutes(30)))
struct SecretTests {
    @Test("the secret extraction finds the shipped PINs, codes, passwords and stored PINs")
    func extractionWorks() throws {
        let all = ShippedScenario.all
        #expect(all.count >= 10, "found \(all.count) scenarios")
        let texts = Set(all.flatMap(\.secrets).map(\.text))
        for expected in [
            "739104", "739105", "246810", "80451", "804517", "4826", "0420", "1111", "3333", "code=abc",
            "ada-Analytical-1843", "Correct-Horse-7",
        ] {
            #expect(texts.contains(expected), "\(expected) not extracted; found \(texts.sorted())")
        }
        // Not secrets: names, emails, phone numbers, plain links.
        for notSecret in ["Ada", "ada@example.org", "0612345678", "eduid://x-callback-url/created"] {
            #expect(!texts.contains(notSecret))
        }
        // Every scenario that enters or stores a PIN has at least that secret (an empty PIN,
        // which a Tiqr screen takes, is none).
        for scenario in all {
            let text = try String(contentsOf: Paths.root.appendingPathComponent(scenario.path), encoding: .utf8)
            if text.contains("pin: "), text.contains(#/pin: "?[0-9]/#) {
                #expect(!scenario.secrets.isEmpty, "\(scenario.path)")
            }
        }
        // The matcher itself.
        let pin = ShippedScenario.Secret(text: "123456")
        #expect(pin.occurs(in: "input pin=123456"))
        #expect(pin.occurs(in: #"{"pin":"123456"}"#))
        #expect(!pin.occurs(in: "phone=\"+31612345678\""))
        #expect(!pin.occurs(in: "input pin=•••"))
    }

    @Test(
        "no secret in `journey run` output",
        arguments: ShippedScenario.all.filter { !$0.secrets.isEmpty }, ["text", "jsonl"])
    func runOutputHasNoSecrets(scenario: ShippedScenario, format: String) async throws {
        let result = try await runJourney(["run", "--scenario", scenario.path, "--format", format])
        expectNoCrash(result)
        #expect(result.status == Exit.ok, "\(result)")
        for secret in scenario.secrets {
            #expect(!secret.occurs(in: result.stdout), "\(secret) appears in the \(format) transcript")
            #expect(!secret.occurs(in: result.stderr), "\(secret) appears on stderr")
        }
        // The secrets were there to leak: the transcript shows where they were masked.
        #expect(result.stdout.contains("•••"), "nothing was redacted in \(scenario.path)")
    }

    @Test(
        "no secret in the committed golden transcripts", arguments: ShippedScenario.all.filter { !$0.secrets.isEmpty })
    func goldensHaveNoSecrets(scenario: ShippedScenario) throws {
        for golden in scenario.goldens {
            let text = try String(contentsOf: golden, encoding: .utf8)
            for secret in scenario.secrets {
                #expect(!secret.occurs(in: text), "\(secret) appears in \(golden.lastPathComponent)")
            }
            #expect(text.contains("•••"))
        }
    }

    /// The shipped suite as CI runs it (`./scripts/regression`): every scenario, and every
    /// journey explored (each explores clean or declares its exception with the reason), to the
    /// end (`--strict`).
    @Test("no secret on the console of `journey test --explore --strict`; every shipped journey explores clean")
    func testCommandOutputHasNoSecrets() async throws {
        let result = try await runJourney(["test", "journeys", "--explore", "--strict"], timeout: 600)
        #expect(result.status == Exit.ok, "\(result)")
        #expect(!result.stdout.contains("FAIL "), "\(result)")
        #expect(result.stdout.contains("PASS locker.session › explore"), "\(result)")
        // ...and explores to the end from every start: no verdict holds within the bounds only.
        #expect(!result.stdout.contains("cut short by the bounds"), "\(result)")
        // Each line's timing, `(1358 ms)`, is a number the run chose, not one a scenario gave.
        let output = result.output.replacingOccurrences(
            of: #" \([0-9]+ ms\)"#, with: "", options: .regularExpression)
        #expect(output.contains("PASS "), "the console output is there to search")
        for secret in Set(ShippedScenario.all.flatMap(\.secrets)) {
            #expect(!secret.occurs(in: output), "\(secret)")
        }
    }

    @Test(
        "a secret written where it does not fit, or with a leading zero, is never shown in check's messages or the reports"
    )
    func secretsInDiagnostics() async throws {
        try await withTemporaryDirectory { directory in
            try writeText("journeys: [journeys]\n", to: directory.appendingPathComponent("journeykit.yaml"))
            try writeText(
                """
                journey: s.j
                version: 1
                title: Secrets of the wrong type
                params:
                  seed: { type: int, secret: true }
                  when: { type: duration, secret: true }
                state:
                  code: { type: int, secret: true }
                stored:
                  vault: { type: int, secret: true }
                  flag: { type: bool, secret: true }
                  pin: { type: string, secret: true }
                start: s
                steps:
                  s:
                    handler: ui.screen
                    screen: { title: Hi, actions: { ok: OK } }
                    on: { ok: done }
                ends:
                  done: { kind: success, title: Done }

                """, to: directory.appendingPathComponent("journeys/j.journey.yaml"))
            try writeText(
                """
                scenario: x
                journey: s.j
                params: { seed: "seed-LEAK-1", when: "dur-LEAK-2" }
                device:
                  store: { vault: "vault-LEAK-3", flag: "flag-LEAK-4", pin: 0420 }
                script:
                  - at: s
                    action: ok
                expect:
                  end: done
                  state: { code: "code-LEAK-5" }
                  stored: { vault: "vault-LEAK-6", flag: maybe-LEAK-7, pin: 0420 }

                """, to: directory.appendingPathComponent("journeys/scenarios/x.scenario.yaml"))
            let check = try await runJourney(["check"], cwd: directory)
            #expect(check.status == Exit.invalid, "\(check)")
            #expect(check.stderr.contains("found a value that is not one (secret, not shown)"), "\(check)")
            #expect(check.stderr.contains("quote this secret"), "\(check)")
            let test = try await runJourney(
                ["test", "--json", "report.json", "--junit", "report.xml"], cwd: directory)
            #expect(test.status == Exit.invalid, "\(test)")
            let reports = try ["report.json", "report.xml"].map {
                try String(contentsOf: directory.appendingPathComponent($0), encoding: .utf8)
            }
            for text in [check.output, test.output] + reports {
                #expect(!text.contains("LEAK") && !text.contains("0420"), "\(text)")
            }
        }
    }

    @Test("journey run writes ••• for a secret the scenario gives that a handler's outcome shows in clear, and fails")
    func runShowsNoGivenSecret() async throws {
        try await withTemporaryDirectory { directory in
            try writeText(
                """
                journey: t.echo
                version: 1
                title: Echo
                params:
                  tok: { type: string, secret: true }
                start: a
                steps:
                  a:
                    handler: http.request
                    with:
                      method: POST
                      url: "https://api.example.org/session"
                      body: "tok=${params.tok}"
                      captures: { plain: { path: plain, type: string } }
                    on: { ok: done, failed: done, offline: done }
                ends:
                  done: { kind: success }
                """, to: directory.appendingPathComponent("journeys/echo.journey.yaml"))
            try writeText(
                """
                scenario: echoed
                journey: t.echo
                params: { tok: "TOKSECRET77" }
                network:
                  - request: POST https://api.example.org/session
                    response: { status: 200, json: { plain: TOKSECRET77 } }
                script: []
                expect: { end: done }
                """, to: directory.appendingPathComponent("journeys/scenarios/echoed.scenario.yaml"))
            let scenario = "journeys/scenarios/echoed.scenario.yaml"
            for format in ["text", "jsonl"] {
                let run = try await runJourney(
                    ["run", "--scenario", scenario, "--format", format, "--transcript", "out.\(format)"], cwd: directory
                )
                expectNoCrash(run)
                #expect(run.status == Exit.failed, "\(run)")
                #expect(
                    run.stderrLines.last
                        == "  the run shows params.tok as the scenario gives it, a secret, in clear: the transcript writes ••• for it, but something writes it where nothing is declared secret, a value without `secret: true` or a handler's outcome",
                    "\(run)")
                let written = try String(contentsOf: directory.appendingPathComponent("out.\(format)"), encoding: .utf8)
                #expect(!written.contains("TOKSECRET77") && written.contains("plain"), "\(written)")
            }
            let printed = try await runJourney(["run", "--scenario", scenario], cwd: directory)
            #expect(printed.status == Exit.failed && !printed.output.contains("TOKSECRET77"), "\(printed)")
            #expect(printed.stdout.contains(#"plain: "•••""#), "\(printed)")
        }
    }

    @Test(
        "a golden that holds a scenario's secret in clear is refused by docs and test, which never print it"
    )
    func goldenHoldingASecret() async throws {
        try await withTemporaryDirectory { directory in
            let journeys = directory.appendingPathComponent("journeys")
            try FileManager.default.copyItem(
                at: Paths.journeys.appendingPathComponent("examples"), to: journeys.appendingPathComponent("examples"))
            try writeText("journeys: [journeys]\n", to: directory.appendingPathComponent("journeykit.yaml"))
            let golden = journeys.appendingPathComponent("examples/transcripts/correct-pin.jsonl")
            let recorded = try String(contentsOf: golden, encoding: .utf8)
            // A hand-edited golden: the PIN the scenario types, where JourneyKit wrote •••.
            let lines = recorded.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let input = try #require(lines.firstIndex { $0.contains(#""event":"input""#) })
            var edited = lines
            edited[input] = lines[input].replacingOccurrences(of: #""pin":"•••""#, with: #""pin":"0420""#)
            #expect(edited[input] != lines[input])
            try writeText(edited.joined(separator: "\n"), to: golden)

            let docs = try await runJourney(["docs", "--out", "site"], cwd: directory)
            expectNoCrash(docs)
            #expect(docs.status == Exit.invalid, "\(docs)")
            #expect(
                docs.stderr.contains(
                    "journeys/examples/transcripts/correct-pin.jsonl:\(input + 1):1: error: the golden shows what the scenario types into 'pin' at step 'enterPin', a secret, in clear"
                ), "\(docs)")
            #expect(!docs.output.contains("0420"), "\(docs)")
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("site").path))

            let test = try await runJourney(["test", "--filter", "correct-pin"], cwd: directory)
            expectNoCrash(test)
            #expect(test.status == Exit.failed, "\(test)")
            #expect(test.stdout.contains("FAIL examples.unlock › correct-pin"), "\(test)")
            #expect(test.stdout.contains("the golden shows what the scenario types into 'pin'"), "\(test)")
            #expect(!test.output.contains("0420"), "\(test)")

            // Recorded again, the golden writes ••• and both commands take it.
            let update = try await runJourney(["test", "--filter", "correct-pin", "--update"], cwd: directory)
            #expect(update.status == Exit.ok, "\(update)")
            #expect(try String(contentsOf: golden, encoding: .utf8) == recorded)
            let again = try await runJourney(["docs", "--out", "site"], cwd: directory)
            #expect(again.status == Exit.ok, "\(again)")
        }
    }
}
