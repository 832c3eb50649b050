import Foundation
import JourneyCore
import Testing

@testable import JourneyHandlers

@Suite("UI handlers")
struct UIHandlerTests {
    static let form = oneStep(
        """
        handler: ui.form
        screen:
          fields:
            email: { kind: email }
            code: { kind: digits, pattern: '^[0-9]{6}$', secret: true }
            nick: { required: false, maxLength: 5 }
            terms: { kind: switch }
          actions: { submit: Send, cancel: Cancel }
        on:
          submit:
            - if: outcome.email == 'a@b.nl' && outcome.terms
              to: done
            - else: other
          invalid: s
          cancel: other
        """)

    @Test func formsValidateEveryFieldAndNeverEchoValues() async throws {
        let (report, transcript) = try await run(
            journeys: [Self.form],
            scenario: scenario(
                """
                - at: s
                  email: not-an-email
                  code: "12345"
                  nick: toolongnick
                  terms: false
                  action: submit
                - at: s
                  email: a@b.nl
                  code: "654321"
                  terms: true
                  action: submit
                """))
        #expect(report.passed, "\(report.problems)")
        #expect(transcript.text.contains(#"errors: ["email", "code", "nick", "terms"]"#))
        #expect(transcript.text.contains(#"firstError: "email: is not an email address""#))
        #expect(!transcript.text.contains("12345") && !transcript.text.contains("654321"))
        #expect(!transcript.jsonl.contains("654321"))
    }

    @Test func formActionsOtherThanSubmitSkipValidation() async throws {
        let (report, _) = try await run(
            journeys: [Self.form], scenario: scenario("- at: s\n  action: cancel", expect: "other"))
        #expect(report.passed, "\(report.problems)")
    }

    static let pin = oneStep(
        """
        handler: ui.pin
        with: { length: 4, expected: "${stored.pin}" }
        attempts: { limit: tries, counts: [wrong], resets: [correct] }
        on: { correct: done, wrong: s }
        """,
        extra: """
            stored:
              pin: { type: string, secret: true }
              fails: { type: int, default: 0 }
            limits:
              tries: { max: 2, counter: stored.fails, exceeded: other }
            """)

    @Test func pinComparesAndChargesBeforeTheVerdict() async throws {
        let (report, transcript) = try await run(
            journeys: [Self.pin],
            scenario: scenario(
                "- at: s\n  pin: \"0001\"\n- at: s\n  pin: \"0002\"", expect: "other",
                device: "{ store: { pin: \"0420\" } }"))
        #expect(report.passed, "\(report.problems)")
        let lines = transcript.text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let charged = try #require(lines.firstIndex { $0.hasSuffix("attempt tries charged 2/2") })
        let outcome = try #require(lines.lastIndex { $0.hasSuffix("outcome wrong") })
        #expect(charged < outcome, "the second attempt is on the device before its result is acted on")
        #expect(!transcript.text.contains("0420") && !transcript.text.contains("0001"))
    }

    /// The pad's length from a param: `journey check` cannot count the keys (it does where the
    /// length is a constant), so the run refuses them.
    @Test func pinOfTheWrongLengthFailsTheRunWithoutShowingIt() async throws {
        let pin = Self.pin.replacingOccurrences(of: "length: 4,", with: "length: \"${params.digits}\",")
            .replacingOccurrences(of: "stored:\n", with: "params:\n  digits: { type: int, default: 4 }\nstored:\n")
        let (report, transcript) = try await run(
            journeys: [pin],
            scenario: scenario("- at: s\n  pin: \"98765\"", device: "{ store: { pin: \"0420\" } }"))
        #expect(!report.passed)
        #expect(report.problems.first?.contains("the PIN pad advanced after 4 digits; 1 more keys were given") == true)
        #expect(transcript.text.contains("✗ ui.pin failed"))
        #expect(!transcript.text.contains("98765"))
    }

    static let wait = oneStep(
        """
        handler: link.wait
        with:
          routes: { created: created, linked: account-linked }
        screen:
          actions: { resend: Resend }
        on: { created: done, linked: other, other: s, resend: s }
        """)

    @Test func linksRouteByAddressAndHideTheirQuery() async throws {
        let (report, transcript) = try await run(
            journeys: [Self.wait],
            scenario: scenario(
                """
                - at: s
                  link: "eduid://x/oauth-redirect?code=created-abc&state=s1"
                - at: s
                  action: resend
                - at: s
                  link: "https://login.eduid.nl/created?t=secret-token"
                """))
        #expect(report.passed, "\(report.problems)")
        #expect(transcript.text.contains("outcome other"))
        #expect(transcript.text.contains(#"input link="https://login.eduid.nl/created?t=•••""#))
        #expect(!transcript.text.contains("created-abc") && !transcript.jsonl.contains("secret-token"))
    }

    /// The eduID app's SceneDelegate (README era): `eduid://` links by their path, in one
    /// order; universal (https) links by the whole URL, in another; an https link no route
    /// takes is ignored, any other link goes on to `other`.
    static let sceneDelegate = oneStep(
        """
        handler: link.wait
        with:
          routes:
            eduid: { linked: account-linked, redirect: oauth-redirect, created: created }
            https: { tiqr: tiqrauth, created: created, redirect: oauth-redirect, linked: account-linked }
          match: { eduid: path, https: url }
          unmatched: { https: ignored }
        screen:
          actions: { close: Close }
        on: { linked: s, redirect: s, created: s, tiqr: s, ignored: s, other: s, close: done }
        """)

    @Test(arguments: [
        ("eduid://account-linked", "other"),  // the word is the host: the path is empty
        ("eduid://x-callback-url/account-linked", "linked"),
        ("eduid://oauth-redirect?code=c1&state=s1", "other"),
        ("eduid://created", "other"),
        ("eduid://x/created/account-linked", "linked"),  // the eduid table's order
        ("EDUID://x/created", "created"),  // schemes compare without case
        ("https://login.eduid.nl/account-linked?next=created", "created"),  // the whole URL, its own order
        ("https://eduid.nl/tiqrauth/?q=created", "tiqr"),
        ("https://eduid.nl/", "ignored"),
        ("tiqrauth://eduid.nl/tiqrauth/?q=1", "other"),  // no table for this scheme
    ])
    func linksRouteByTheRuleOfTheirScheme(link: String, outcome: String) async throws {
        try await expectRouted(link, to: outcome, by: Self.sceneDelegate)
    }

    /// Plays `link` at step `s` of `journey` (then `close`) and expects the step's outcome.
    func expectRouted(
        _ link: String, to outcome: String, by journey: String,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) async throws {
        let (report, transcript) = try await run(
            journeys: [journey], scenario: scenario("- at: s\n  link: \"\(link)\"\n- at: s\n  action: close"))
        #expect(report.passed, "\(report.problems)", sourceLocation: sourceLocation)
        #expect(transcript.text.contains("outcome \(outcome) {"), "\(transcript.text)", sourceLocation: sourceLocation)
    }

    @Test func routesCanLookAtTheHostAndAStarServesEveryOtherScheme() async throws {
        let host = oneStep(
            """
            handler: link.wait
            with:
              routes: { linked: account-linked }
              match: { "*": host }
              unmatched: { "*": ignored }
            on: { linked: done, ignored: s }
            """)
        let (report, transcript) = try await run(
            journeys: [host],
            scenario: scenario(
                """
                - at: s
                  link: "eduid://x/account-linked"
                - at: s
                  link: "eduid://account-linked"
                """))
        #expect(report.passed, "\(report.problems)")
        #expect(transcript.text.contains("outcome ignored {"))
        #expect(transcript.text.contains("outcome linked {"))
        #expect(!transcript.text.contains("outcome other"))
    }

    /// The app's associated domains (eduID's entitlements): iOS hands the app a universal link
    /// only from one of them; any other http(s) link opens in the browser, whatever it contains.
    static let associated = oneStep(
        """
        handler: link.wait
        with:
          routes:
            eduid: { created: created }
            https: { tiqr: tiqrauth, created: created }
          match: { eduid: path, https: url }
          unmatched: { https: ignored }
          domains: [eduid.nl, login.test2.eduid.nl, "*.surf.example"]
        screen:
          actions: { close: Close }
        on: { created: s, tiqr: s, ignored: s, other: s, browser: s, close: done }
        """)

    @Test(arguments: [
        ("https://eduid.nl/created", "created"),
        ("https://LOGIN.test2.eduid.nl/client/mobile/created", "created"),  // hosts compare without case
        ("https://login.eduid.nl/created", "browser"),  // not an associated domain
        ("https://eduid.nl.evil.example/tiqrauth", "browser"),
        ("https://www.eduid.nl/tiqrauth", "browser"),  // eduid.nl is that host alone
        ("http://eduid.example/created", "browser"),
        ("https://a.surf.example/tiqrauth", "tiqr"),  // a host under a `*.` domain
        ("https://surf.example/tiqrauth", "browser"),  // but not the domain itself
        ("https://eduid.nl/help", "ignored"),
        ("eduid://x/created", "created"),  // custom schemes are not universal links
        ("https:created", "browser"),  // no host
        // A browser reads a backslash as a slash: the host is evil.example's, not eduid.nl's.
        (#"https://evil.example\\@eduid.nl/created"#, "browser"),
        ("https://eduid.nl@evil.example/created", "browser"),  // user info, then the host
        ("https://user@eduid.nl:443/created", "created"),
    ])
    func universalLinksComeOnlyFromTheAppsDomains(link: String, outcome: String) async throws {
        try await expectRouted(link, to: outcome, by: Self.associated)
    }

    @Test(arguments: [
        ("applinks:eduid.nl", true), ("eduid.nl?mode=developer", true), ("https://eduid.nl", true),
        ("eduid.nl/path", true), ("", true), ("*", true), ("*.", true), ("eduid..nl", true),
        ("eduid.nl", false), ("*.eduid.nl", false), ("login.test2.eduid.nl", false), ("bücher.example", false),
    ])
    func aDomainThatIsNoHostIsRefused(domain: String, refused: Bool) {
        let problem = LinkWaitHandler.domainsProblem(.list([.string("eduid.nl"), .string(domain)]))
        #expect((problem != nil) == refused, "\(domain): \(problem ?? "")")
        #expect(problem.map { $0.contains("'\(domain)' is not a host") } ?? true)
    }

    @Test func theBrowserOutcomeIsDeclaredWithDomains() throws {
        let routes = LiteralTables([.init(name: "https", entries: [.init(key: "created", text: "created")])])
        let with = LinkWaitHandler().contract.resolve(
            for: StepShape(tables: ["routes": routes], given: ["routes", "domains"]))
        #expect(with.outcomes.map(\.name) == ["created", "other", "browser"])
        #expect(with.input(named: "link")?.classes == ["created", "other", "browser"])
        let without = LinkWaitHandler().contract.resolve(for: StepShape(tables: ["routes": routes], given: ["routes"]))
        #expect(without.outcomes.map(\.name) == ["created", "other"])
    }

    @Test func aLinkAlreadyReceivedIsRoutedWithoutAsking() async throws {
        let given = oneStep(
            """
            handler: link.wait
            with:
              url: "https://login.eduid.nl/client/mobile/oauth-redirect?code=c-1&state=s-1"
              routes: { https: { created: created, redirect: oauth-redirect } }
              match: { https: url }
              unmatched: { "*": ignored }
              secret: true
            on: { created: other, redirect: done, ignored: other }
            """)
        let (report, transcript) = try await run(journeys: [given], scenario: scenario("[]"))
        #expect(report.passed, "\(report.problems)")
        #expect(!transcript.text.contains("input"), "nothing is asked")
        #expect(transcript.text.contains("outcome redirect {url: •••}"), "\(transcript.text)")
        #expect(!transcript.jsonl.contains("c-1"))
    }

    @Test func routeOutcomesAreDeclaredFromTheTables() throws {
        let contract = LinkWaitHandler().contract.resolve(
            for: StepShape(
                maps: ["unmatched": [(key: "https", value: "ignored")]],
                tables: [
                    "routes": LiteralTables([
                        .init(name: "eduid", entries: [.init(key: "linked", text: "account-linked")]),
                        .init(
                            name: "https",
                            entries: [
                                .init(key: "tiqr", text: "tiqrauth"), .init(key: "linked", text: "account-linked"),
                            ]),
                    ])
                ]))
        #expect(contract.outcomes.map(\.name) == ["linked", "tiqr", "ignored", "other"])
        #expect(contract.input(named: "link")?.classes == ["linked", "tiqr", "ignored", "other"])
        let covered = LinkWaitHandler().contract.resolve(
            for: StepShape(
                maps: ["unmatched": [(key: "*", value: "ignored")]],
                tables: ["routes": LiteralTables([.init(name: "*", entries: [.init(key: "linked", text: "x")])])]))
        #expect(covered.outcomes.map(\.name) == ["linked", "ignored"], "with `*` covered, nothing is `other`")
    }

    @Test func alertsCanDismissThemselvesOnTheVirtualClock() async throws {
        let alert = oneStep(
            """
            handler: ui.alert
            with: { dismissAfter: 1.5s }
            screen: { title: Done }
            on: { dismissed: done }
            """)
        let (report, transcript) = try await run(
            journeys: [alert], scenario: scenario("[]").replacingOccurrences(of: "script:\n  []", with: "script: []"))
        #expect(report.passed, "\(report.problems)")
        #expect(transcript.text.contains("00:01.500 ⏱ +1.5s (alert dismisses itself)"))
    }

    @Test func choicesOfferTheirOptionsOrSayThereAreNone() async throws {
        let choice = oneStep(
            """
            handler: ui.choice
            with: { options: "${params.banks}" }
            on:
              chosen:
                - if: outcome.choice == 'Monobank'
                  to: done
                - else: other
              empty: other
            """,
            extra: "params:\n  banks: { type: list, default: [PrivatBank, Monobank] }")
        let (picked, _) = try await run(journeys: [choice], scenario: scenario("- at: s\n  choice: Monobank"))
        #expect(picked.passed, "\(picked.problems)")
        let (wrong, _) = try await run(journeys: [choice], scenario: scenario("- at: s\n  choice: Raiffeisen"))
        #expect(wrong.problems.first?.contains("is not one of its 2 options") == true)
        let empty = choice.replacingOccurrences(of: "[PrivatBank, Monobank]", with: "[]")
        let (none, _) = try await run(
            journeys: [empty],
            scenario: scenario("[]", expect: "other").replacingOccurrences(of: "script:\n  []", with: "script: []"))
        #expect(none.passed, "\(none.problems)")
    }

    @Test func disabledActionsCannotBePressed() async throws {
        // Disabled as the run goes: the run refuses it.
        let screen = oneStep(
            """
            handler: ui.screen
            screen:
              actions:
                go: Go
                skip: { label: Skip, enabled: "${device.now < 0}" }
            on: { go: done, skip: done }
            """)
        let (report, _) = try await run(journeys: [screen], scenario: scenario("- at: s\n  action: skip"))
        #expect(report.problems.first?.contains("'skip' is disabled") == true)
        // Never enabled: the scenario is refused when checked, before anything runs.
        let never = oneStep(
            """
            handler: ui.screen
            screen:
              actions:
                go: Go
                skip: { label: Skip, enabled: false }
            on: { go: done }
            """)
        let project = ProjectLoader(handlers: BuiltinHandlers.registry).load([
            SourceFile(path: "j.yaml", data: Data(never.utf8)),
            SourceFile(path: "s.yaml", data: Data(scenario("- at: s\n  action: skip").utf8)),
        ])
        #expect(
            project.diagnostics.items.map(\.message).contains("step 's' takes no action 'skip' (it takes: go)"),
            "\(project.diagnostics.items)")
    }
}

@Suite("Scripted driver")
struct ScriptedDriverTests {
    static let two = """
        journey: t.one
        version: 1
        title: Two steps
        start: s
        steps:
          s:
            handler: ui.screen
            screen: { actions: { next: Next } }
            on: { next: t }
          t:
            handler: ui.screen
            screen: { actions: { next: Next } }
            on: { next: done }
        ends:
          done: { kind: success }
        """

    @Test func inputForAnotherStepNamesBothSteps() async throws {
        let (report, transcript) = try await run(journeys: [Self.two], scenario: scenario("- at: t\n  action: next"))
        let problem = try #require(report.problems.first)
        #expect(problem.contains("scenario gives input for step 't'"))
        #expect(problem.contains("the journey is at step 's'"))
        #expect(transcript.text.contains("✗ failed at s"))
    }

    @Test func runningOutOfScriptSaysWhereTheJourneyWaits() async throws {
        let (report, _) = try await run(journeys: [Self.two], scenario: scenario("- at: s\n  action: next"))
        #expect(report.problems.first?.contains("waits at step 't'") == true)
    }

    @Test func leftoverEntriesFailTheScenario() async throws {
        let (report, _) = try await run(
            journeys: [Self.two],
            scenario: scenario("- at: s\n  action: next\n- at: t\n  action: next\n- at: t\n  action: next"))
        #expect(report.problems.first?.contains("1 more entries") == true)
    }

    @Test func clockAdvancesAndRestartsAreRecorded() async throws {
        let (report, transcript) = try await run(
            journeys: [Self.two],
            scenario: scenario(
                "- at: s\n  action: next\n- advance: 5m\n- restart\n- at: s\n  action: next\n- at: t\n  action: next"))
        #expect(report.passed, "\(report.problems)")
        #expect(transcript.text.contains("05:00.000 ⏱ +5m (scenario)"))
        #expect(transcript.text.contains("05:00.000 ⟳ app restarted"))
    }

    @Test("keys a PIN pad does not have are refused when the scenario is checked, never shown; digits and delete pass")
    func pinPadKeysAreCheckedWhenChecked() throws {
        let pad = oneStep(
            """
            handler: pin.entry
            on: { entered: done }
            """)
        func errors(_ pin: String) -> [String] {
            ProjectLoader(handlers: BuiltinHandlers.registry).load([
                SourceFile(path: "j.yaml", data: Data(pad.utf8)),
                SourceFile(path: "s.yaml", data: Data(scenario("- at: s\n  pin: \"\(pin)\"").utf8)),
            ]).diagnostics.items.filter { $0.severity == .error }.map { "\($0.id) \($0.message)" }
        }
        #expect(errors("2580").isEmpty)
        #expect(errors("258⌫80").isEmpty)
        let letters = errors("abcd")
        #expect(letters == ["scenario.input 'pin' at step 's' is typed with the keys 0123456789<⌫ only"], "\(letters)")
        #expect(!letters.joined().contains("abcd"))
        // As many keys as the pad's length, deletes applied: a digit short, or keys typed after
        // the pad went on, fail the run, and so the check; only counts are said.
        #expect(
            errors("25⌫80") == [
                "scenario.input 'pin' at step 's' comes to 3 of the 4 keys its pad takes (the step's length), deletes applied"
            ])
        #expect(
            errors("258011") == [
                "scenario.input 'pin' at step 's' has 2 keys more than the 4 its pad takes (the step's length): the pad goes on once it has 4"
            ])
        #expect(!errors("25⌫80").joined().contains("258") && !errors("258011").joined().contains("2580"))
        let six = oneStep(
            """
            handler: pin.entry
            with: { length: 6 }
            on: { entered: done }
            """)
        let sixErrors = ProjectLoader(handlers: BuiltinHandlers.registry).load([
            SourceFile(path: "j.yaml", data: Data(six.utf8)),
            SourceFile(path: "s.yaml", data: Data(scenario("- at: s\n  pin: \"2580\"").utf8)),
        ]).diagnostics.items.filter { $0.severity == .error }.map(\.message)
        #expect(
            sixErrors == [
                "'pin' at step 's' comes to 4 of the 6 keys its pad takes (the step's length), deletes applied"
            ])
    }

    @Test func unknownInputsAreRejectedWhenTheScenarioIsChecked() throws {
        let files = [
            SourceFile(path: "j.yaml", data: Data(Self.two.utf8)),
            SourceFile(path: "s.yaml", data: Data(scenario("- at: s\n  acton: next\n- at: x\n  action: next").utf8)),
        ]
        let project = ProjectLoader(handlers: BuiltinHandlers.registry).load(files)
        let ids = project.diagnostics.items.map(\.id)
        #expect(ids.contains("scenario.input"))
        #expect(ids.contains("scenario.step"))
        #expect(project.diagnostics.items.contains { $0.message.contains("did you mean 'action'") })
    }

    @Test(
        "a value no step can take (an action's typo, a sensor result) is an error when checked; a stored key no journey has is a warning"
    )
    func valuesTheStepsCannotTakeAreFoundWhenChecked() throws {
        let journey = """
            journey: t.one
            version: 1
            title: A screen and a biometric prompt
            stored:
              seen: { type: bool, default: false }
            start: s
            steps:
              s:
                handler: ui.screen
                screen: { actions: { next: Next } }
                on: { next: t }
              t:
                handler: biometry.authenticate
                on: { success: done, cancel: done, failure: t, lockout: done, unavailable: done }
            ends:
              done: { kind: success }
            """
        func diagnostics(_ script: String, expect: String = "{ end: done }", device: String = "{}") -> [String] {
            let text = scenario(script, device: device).replacingOccurrences(
                of: "expect: { end: done }", with: "expect: \(expect)")
            let project = ProjectLoader(handlers: BuiltinHandlers.registry).load([
                SourceFile(path: "j.yaml", data: Data(journey.utf8)),
                SourceFile(path: "s.yaml", data: Data(text.utf8)),
            ])
            // The auth rules' warnings about the journey are not what is tested here.
            return project.diagnostics.items.filter { !$0.id.hasPrefix("auth.") }.map {
                "\($0.severity) \($0.id) \($0.location.line):\($0.location.column) \($0.message)"
            }
        }
        #expect(diagnostics("- at: s\n  action: next\n- at: t\n  result: success").isEmpty)
        let typo = diagnostics("- at: s\n  action: nxt\n- at: t\n  result: succes")
        #expect(
            typo == [
                "error scenario.input 6:13 step 's' takes no action 'nxt'; did you mean 'next'? (it takes: next)",
                "error scenario.input 8:13 step 't' takes no result 'succes'; did you mean 'success'? (it takes: cancel, failure, lockout, success)",
            ], "\(typo)")
        // A stored key the journey declares is fine; one nobody declares or writes is a typo.
        let stored = "- at: s\n  action: next\n- at: t\n  result: success"
        #expect(diagnostics(stored, expect: "{ end: done, stored: { seen: false } }").isEmpty)
        #expect(
            diagnostics(stored, expect: "{ end: done, stored: { sen: false } }") == [
                "warning scenario.expect 9:32 stored 'sen' is declared and written by no journey this scenario plays, so a run finds nothing there; did you mean 'seen'?"
            ])
        // A key the device starts with: one the journey declares is fine; one nothing reads is a typo.
        #expect(diagnostics(stored, device: "{ store: { seen: true } }").isEmpty)
        #expect(
            diagnostics(stored, device: "{ store: { sen: true } }") == [
                "warning scenario.store 3:20 the device starts with 'sen', which no journey this scenario plays declares or reads, so nothing reads it; did you mean 'seen'?"
            ])
    }
}
