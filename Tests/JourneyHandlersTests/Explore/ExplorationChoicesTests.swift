import Foundation
import JourneyCore
import Testing

@testable import JourneyHandlers

/// The inputs handlers make for `journey explore`: played through the real handler, each class
/// reaches the outcome it stands for, so that a one-step journey around the handler explores
/// every outcome it declares and leaves nothing out.
@Suite("Inputs handlers make for exploration")
struct ExplorationChoicesTests {
    /// Explores a one-step journey (every outcome of `s` ends it) from `device` with `hints`.
    static func explore(
        _ step: String, extra: String = "", device: DeviceState = JourneyExplorer.defaultDevice,
        hints: ExplorationHints = ExplorationHints()
    ) async throws -> JourneyExplorer.Result {
        let project = ProjectLoader(handlers: BuiltinHandlers.registry).load([
            SourceFile(path: "j.yaml", data: Data(oneStep(step, extra: extra).utf8))
        ])
        let errors = project.diagnostics.items.filter { $0.severity == .error }
        try #require(errors.isEmpty, "\(errors)")
        let library = try #require(project.library)
        let journey = try #require(library["t.one"])
        return await JourneyExplorer(
            library: library, device: device, bounds: .init(depth: 3, restarts: 0), hints: hints
        ).explore(journey)
    }

    static func described(_ result: JourneyExplorer.Result) -> String {
        "unreached \(result.unreached), left out \(result.leftOut), violations \(result.violations.map(\.message))"
    }

    @Test(
        "each class of input reaches its outcome",
        arguments: [
            (
                "ui.form, each field's kind and length",
                """
                handler: ui.form
                with: { submit: go }
                screen:
                  fields:
                    email: { kind: email, required: true }
                    phone: { kind: phone, required: true }
                    code: { kind: digits, required: true, minLength: 6, maxLength: 6, secret: true }
                    name: { required: true, minLength: 3 }
                    terms: { kind: switch, required: true }
                  actions: { go: Go, back: Back }
                on: { go: done, invalid: other, back: other }
                """
            ),
            (
                "link.wait, a route per scheme and the links no route takes",
                """
                handler: link.wait
                with:
                  routes:
                    app: { linked: account-linked, created: created }
                    https: { challenge: tiqrauth }
                  match: { app: path, https: url }
                  unmatched: { https: ignored }
                on: { linked: done, created: done, challenge: done, ignored: other, other: other }
                """
            ),
            (
                "link.wait with associated domains, a link of each route from the app's host and one of another host",
                """
                handler: link.wait
                with:
                  routes:
                    app: { linked: account-linked }
                    https: { challenge: tiqrauth, created: created }
                  match: { app: path, https: url }
                  unmatched: { https: ignored }
                  domains: ["*.app.example"]
                on: { linked: done, created: done, challenge: done, ignored: other, other: other, browser: other }
                """
            ),
            (
                "link.wait with associated domains and no https table: a link of another host is tried too",
                """
                handler: link.wait
                with:
                  routes: { linked: account-linked }
                  domains: [app.example]
                on: { linked: done, other: other, browser: other }
                """
            ),
            (
                "tinkoff.callback, the callback URL with each of its answers and a foreign URL",
                """
                handler: tinkoff.callback
                with: { callbackUrl: "partner://cb" }
                on: { code: done, cancelled: other, unavailable: other, ignored: other }
                """
            ),
            (
                "bankid.page, a redirect with a code and another page",
                """
                handler: bankid.page
                with: { url: "https://bank.example/login", handledHosts: [app.example] }
                on: { code: done, navigated: other, external: other }
                """
            ),
            (
                "bankid.select, a bank tapped and a search",
                """
                handler: bankid.select
                with: { ids: [b1, b2], names: [First Bank, Second Bank] }
                on: { selected: done, searched: other, empty: other }
                """
            ),
        ] as [(String, String)])
    func reachesEachOutcome(_ name: String, _ step: String) async throws {
        let result = try await Self.explore(step)
        #expect(result.leftOut.isEmpty, "\(name): \(Self.described(result))")
        #expect(result.violations.isEmpty, "\(name): \(Self.described(result))")
        // What no input can reach from here: bankid.page's `external` needs an app on the
        // device, bankid.select's `empty` a list without banks.
        let unreachable: Set<String> = ["external", "empty"]
        #expect(
            result.unreached.filter { !unreachable.contains($0.outcome) }.isEmpty, "\(name): \(Self.described(result))"
        )
    }

    @Test("a form plays each text the starting point typed that passes: the server tells a right code from a wrong one")
    func formPlaysTypedTexts() async throws {
        let step = """
            handler: ui.form
            screen:
              fields:
                code: { kind: digits, required: true, minLength: 6, maxLength: 6 }
              actions: { submit: Send }
            on: { submit: done, invalid: other }
            """
        let form = FormHandler()
        let invocation = HandlerInvocation(
            journey: "t.one", step: "s", parameters: [:], maps: [:],
            screen: RenderedScreen(
                title: nil, text: nil, actions: [.init(id: "submit", label: "Send", enabled: true)],
                fields: [
                    .init(
                        name: "code", label: nil, kind: .digits, required: true, pattern: nil, minLength: 6,
                        maxLength: 6, secret: false)
                ]), contract: StepContract(inputs: [], outcomes: []))
        let hints = ExplorationHints(typed: ["code": ["12345", "000000", "482913"]])
        let choices = form.explorationChoices(
            invocation.request(), invocation: invocation, device: JourneyExplorer.defaultDevice, hints: hints)
        // "12345" is too short for the field: only the two that pass are played, then the invalid one.
        #expect(choices.map(\.label) == ["valid", "valid-2", "invalid"])
        #expect(choices.map { $0.values["code"] } == [.string("000000"), .string("482913"), .string("")])
        #expect(choices.allSatisfy { $0.values["action"] == .string("submit") })
        let explored = try await Self.explore(step, hints: hints)
        #expect(explored.unreached.isEmpty, "\(Self.described(explored))")
    }

    @Test("Erste Locker's easy access: the password typed on the way opens the vault, another does not")
    func lockerPassword() throws {
        var random = RandomSource.seeded(7)
        let enrolment = try LockerVault.enrol(secret: "correct horse", rounds: 1, using: &random)
        let invocation = HandlerInvocation(
            journey: "t.one", step: "s", parameters: ["vault": .secret(.string(enrolment.vault))], maps: [:],
            screen: nil, contract: StepContract(inputs: [], outcomes: []))
        let handler = LockerEasyAccessHandler()
        let device = JourneyExplorer.defaultDevice
        let without = handler.explorationChoices(
            invocation.request(), invocation: invocation, device: device, hints: ExplorationHints())
        #expect(without.map(\.label) == ["wrong"], "no password known opens it: only a wrong one is played")
        let with = handler.explorationChoices(
            invocation.request(), invocation: invocation, device: device,
            hints: ExplorationHints(typed: ["password": ["correct horse"]]))
        #expect(with.map(\.label) == ["unlocked", "wrong"])
        #expect(with.first?.values["password"] == .string("correct horse"))
    }

    @Test(
        "the lifetimes a start's stubs give their tokens are the waits it knows: each expires_in once, in milliseconds")
    func tokenLifetimesFromStubs() {
        func stub(_ body: String) -> NetworkStub {
            NetworkStub(
                method: "POST", url: "*", status: 200, body: body, times: nil,
                location: SourceLocation(file: "s.yaml", line: 1, column: 1))
        }
        let stubs = [
            stub(#"{"access_token": "a", "expires_in": 1800}"#),
            stub(#"{"access_token": "b", "expires_in": 300, "refresh_expires_in": 1800}"#),
            stub(#"{"tokens": [{"expires_in": 60}], "expires_in": "300"}"#),  // a text is no lifetime
            stub(#"{"expires_in": 0}"#), stub(#"{"expires_in": -5}"#), stub(#"{"expires_in": 999999999999}"#),
            stub("not json"), stub(""),
        ]
        #expect(ExplorationHints.waits(in: stubs) == [60_000, 300_000, 1_800_000])
        #expect(ExplorationHints.waits(in: []) == [])
    }
}
