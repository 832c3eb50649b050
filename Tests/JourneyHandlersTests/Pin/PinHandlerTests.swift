import Foundation
import JourneyCore
import Testing

@testable import JourneyHandlers

@Suite("PIN and biometry handlers")
struct PinHandlerTests {
    static let unlock = """
        journey: t.one
        version: 1
        title: Unlock
        stored:
          fails: { type: int, default: 0 }
        limits:
          pin: { max: 3, counter: stored.fails, exceeded: locked }
        start: s
        steps:
          s:
            handler: pin.verify
            with: { key: userPin }
            attempts: { limit: pin, counts: [wrong], resets: [correct] }
            on: { correct: done, wrong: s, missing: other }
        ends:
          done: { kind: success }
          other: { kind: failure }
          locked: { kind: failure }
        """

    @Test func theCounterSurvivesARestartBetweenTwoAttempts() async throws {
        let (report, transcript) = try await run(
            journeys: [Self.unlock],
            scenario: """
                scenario: s
                journey: t.one
                device: { kdfRounds: 1000, pins: { userPin: "4096" } }
                script:
                  - at: s
                    pin: "1111"
                  - restart
                  - at: s
                    pin: "2222"
                  - at: s
                    pin: "4096"
                expect: { end: done, stored: { fails: 0 } }
                """)
        #expect(report.passed, "\(report.problems)")
        let attempts = transcript.text.split(separator: "\n").filter { $0.contains("attempt pin") }
            .map { $0.dropFirst(10).trimmingCharacters(in: .whitespaces) }
        #expect(
            attempts == [
                "attempt pin charged 1/3", "attempt pin charged 2/3", "attempt pin charged 3/3",
                "attempt pin reset 0/3",
            ])
        #expect(transcript.text.contains("# settings: {kdfRounds: 1000}"), "a lowered cost is always visible")
        for secret in ["4096", "1111", "2222"] { #expect(!transcript.text.contains(secret)) }
        #expect(!transcript.jsonl.contains("pin-v1"), "the sealed record never reaches a transcript")
    }

    @Test func threeWrongPinsAcrossARestartExceedTheLimit() async throws {
        let (report, _) = try await run(
            journeys: [Self.unlock],
            scenario: """
                scenario: s
                journey: t.one
                device: { kdfRounds: 1000, pins: { userPin: "4096" } }
                script:
                  - at: s
                    pin: "1111"
                  - at: s
                    pin: "2222"
                  - restart
                  - at: s
                    pin: "3333"
                expect: { end: locked }
                """)
        #expect(report.passed, "\(report.problems)")
    }

    @Test func aMissingOrCorruptRecordIsNotAWrongPin() async throws {
        let (none, _) = try await run(
            journeys: [Self.unlock],
            scenario: "scenario: s\njourney: t.one\nscript: []\nexpect: { end: other }")
        #expect(none.passed, "\(none.problems)")
        // Unreadable is `missing` before the pad is shown: nothing is asked, no attempt charged.
        let (corrupt, transcript) = try await run(
            journeys: [Self.unlock],
            scenario: """
                scenario: s
                journey: t.one
                device: { store: { userPin: "pin-v1:1000:broken:record" } }
                script: []
                expect: { end: other, stored: { fails: 0 } }
                """)
        #expect(corrupt.passed, "\(corrupt.problems)")
        #expect(!transcript.text.contains("attempt pin"))
    }

    @Test func savedPinsVerify() async throws {
        let create = """
            journey: t.one
            version: 1
            title: Create then check
            state:
              first: { type: string, secret: true }
            start: create
            steps:
              create:
                handler: pin.entry
                on:
                  entered:
                    set: { state.first: "${outcome.pin}" }
                    to: again
              again:
                handler: pin.repeat
                with: { first: "${state.first}" }
                on:
                  match: { set: { state.first: "${outcome.pin}" }, to: save }
                  mismatch: create
              save:
                handler: pin.save
                with: { key: userPin, pin: "${state.first}" }
                on: { saved: check }
              check:
                handler: pin.verify
                with: { key: userPin }
                on: { correct: done, wrong: other, missing: other }
            ends:
              done: { kind: success }
              other: { kind: failure }
            """
        let (report, transcript) = try await run(
            journeys: [create],
            scenario: """
                scenario: s
                journey: t.one
                device: { kdfRounds: 1000 }
                script:
                  - at: create
                    pin: "5⌫678⌫89"
                  - at: again
                    pin: "6780"
                  - at: create
                    pin: "6789"
                  - at: again
                    pin: "6789"
                  - at: check
                    pin: "6789"
                expect: { end: done }
                """)
        #expect(report.passed, "\(report.problems)")
        #expect(transcript.text.contains("outcome mismatch"))
        #expect(transcript.text.contains("set stored.userPin = •••"))
        #expect(!transcript.text.contains("6789") && !transcript.text.contains("678"))
    }

    static let biometry = """
        journey: t.one
        version: 1
        title: Biometry
        stored:
          allowed: { type: bool, default: false }
        start: ask
        steps:
          ask:
            handler: biometry.optIn
            with: { key: allowed }
            screen: { actions: { allow: Allow, later: Later } }
            on: { allow: prompt, later: other, unavailable: other }
          prompt:
            handler: biometry.authenticate
            on: { success: done, cancel: prompt, failure: other, lockout: other, unavailable: other }
        ends:
          done: { kind: success }
          other: { kind: failure }
        """

    @Test func biometryOptInStoresTheAnswerAndThePromptPlaysTheSensor() async throws {
        let (report, transcript) = try await run(
            journeys: [Self.biometry],
            scenario: """
                scenario: s
                journey: t.one
                device: { biometry: faceID }
                script:
                  - at: ask
                    action: allow
                  - at: prompt
                    result: cancel
                  - at: prompt
                    result: success
                expect: { end: done, stored: { allowed: true } }
                """)
        #expect(report.passed, "\(report.problems)")
        #expect(transcript.text.contains("outcome cancel"))
    }

    @Test func withoutEnrolledBiometryNothingIsAsked() async throws {
        let (report, _) = try await run(
            journeys: [Self.biometry],
            scenario: """
                scenario: s
                journey: t.one
                device: { biometry: touchID, enrolled: false }
                script: []
                expect: { end: other, stored: { allowed: false } }
                """)
        #expect(report.passed, "\(report.problems)")
    }

    @Test func clearingTheStoreKeepsOnlyTheListedKeys() async throws {
        let journey = """
            journey: t.one
            version: 1
            title: Clear
            start: wipe
            steps:
              wipe:
                handler: session.clear
                with: { keep: [logoutToken, mobileUID] }
                on: { cleared: done }
            ends:
              done: { kind: success }
            """
        let (report, transcript) = try await run(
            journeys: [journey],
            scenario: """
                scenario: s
                journey: t.one
                device: { store: { logoutToken: t, mobileUID: m, pinFailures: 2, userPin: x } }
                script: []
                expect: { end: done, stored: { logoutToken: t, mobileUID: m } }
                """)
        #expect(report.passed, "\(report.problems)")
        #expect(transcript.text.contains("set stored.pinFailures = \"(removed)\""))
        #expect(transcript.text.contains("set stored.userPin = \"(removed)\""))
        #expect(!transcript.text.contains("stored.mobileUID ="))
    }
}

extension PinHandlerTests {
    /// `journey check`'s warnings of the scenario `expect` gives, with the unlock journey.
    static func expectationWarnings(_ expect: String, pins: String = "{}") -> [String] {
        let scenario = """
            scenario: s
            journey: t.one
            device: { pins: \(pins), kdfRounds: 1000 }
            script:
              - at: s
                pin: "2580"
            expect: { end: done, stored: \(expect) }
            """
        let project = ProjectLoader(handlers: BuiltinHandlers.registry).load([
            SourceFile(path: "j.yaml", data: Data(unlock.utf8)), SourceFile(path: "s.yaml", data: Data(scenario.utf8)),
        ])
        return project.diagnostics.items.filter { $0.id == "scenario.expect" }.map {
            "\($0.severity) \($0.location.line):\($0.location.column) \($0.message)"
        }
    }

    @Test("a value expected of a key a PIN is sealed under can never hold, and check says so; whether it holds one can")
    func aSealedRecordIsNeverAValue() {
        #expect(
            Self.expectationWarnings(#"{ userPin: "2580" }"#, pins: #"{ userPin: "2580" }"#) == [
                "warning 7:32 stored 'userPin' is a key a secret is sealed under (step 's', pin.verify): it holds the sealed record, never the secret itself, so no value written here can equal it; write `userPin: { is: set }` to expect it kept, or `{ is: empty }` to expect it gone"
            ])
        // Sealed only by the device's pins, a key no step names is still a sealed record.
        #expect(
            Self.expectationWarnings(#"{ otherPin: "1111" }"#, pins: #"{ otherPin: "1111" }"#).map {
                $0.contains("(the device's pins seal a PIN there)")
            } == [true])
        #expect(Self.expectationWarnings("{ userPin: { is: set } }", pins: #"{ userPin: "2580" }"#).isEmpty)
        #expect(Self.expectationWarnings("{ userPin: { is: empty } }").isEmpty)
        #expect(Self.expectationWarnings("{ fails: 0 }", pins: #"{ userPin: "2580" }"#).isEmpty)
    }

    @Test("a PIN the device keeps with more or fewer digits than the pads that check it take is said when checked")
    func aPinNoPadCanType() {
        func warnings(_ pins: String) -> [String] {
            let scenario = """
                scenario: s
                journey: t.one
                device: { pins: \(pins), kdfRounds: 1000 }
                script: []
                expect: { at: s }
                """
            let project = ProjectLoader(handlers: BuiltinHandlers.registry).load([
                SourceFile(path: "j.yaml", data: Data(Self.unlock.utf8)),
                SourceFile(path: "s.yaml", data: Data(scenario.utf8)),
            ])
            return project.diagnostics.items.filter { $0.id == "scenario.pin" }.map {
                "\($0.severity) \($0.location.line):\($0.location.column) \($0.message)"
            }
        }
        #expect(
            warnings(#"{ userPin: "258046" }"#) == [
                "warning 3:19 PIN 'userPin' has 6 digits, but the pads that check it take another number ('s' takes 4): it can never be typed there, so no run unlocks with it (its value is not shown)"
            ])
        #expect(warnings(#"{ userPin: "2580" }"#).isEmpty)
        // A key no step checks: nothing to type it at.
        #expect(warnings(#"{ otherPin: "258046" }"#).isEmpty)
    }
}

@Suite("PIN policy and session state")
struct PinPolicyTests {
    static let choose = """
        journey: t.one
        version: 1
        title: Choose
        start: s
        steps:
          s:
            handler: pin.entry
            with: { warnWeak: true }
            on:
              entered: done
              weak:
                - if: outcome.reason == 'a run of consecutive digits'
                  to: s
                - else: other
        ends:
          done: { kind: success }
          other: { kind: failure }
        """

    @Test func weakPinsGetAWarningOutcome() async throws {
        let (report, transcript) = try await run(
            journeys: [Self.choose],
            scenario:
                "scenario: s\njourney: t.one\nscript:\n  - at: s\n    pin: \"1234\"\n  - at: s\n    pin: \"4826\"\nexpect: { end: done }"
        )
        #expect(report.passed, "\(report.problems)")
        #expect(transcript.text.contains(#"outcome weak {pin: •••, reason: "a run of consecutive digits"}"#))
    }

    @Test func withoutTheProfileNoWarningIsDeclared() throws {
        let text = Self.choose.replacingOccurrences(of: "with: { warnWeak: true }", with: "with: { warnWeak: false }")
        let project = ProjectLoader(handlers: BuiltinHandlers.registry).load([
            SourceFile(path: "j.yaml", data: Data(text.utf8))
        ])
        #expect(project.diagnostics.items.contains { $0.id == "outcome.undeclared" && $0.message.contains("'weak'") })
    }

    @Test(arguments: [
        ("{ authorizationToken: u, serviceToken: s }", "userAuth"), ("{ serviceToken: s }", "serviceAuth"),
        ("{ authorizationToken: \"\" }", "notAuthorized"), ("{}", "notAuthorized"),
    ])
    func sessionStateFollowsTheStoredTokens(store: String, state: String) async throws {
        let journey = """
            journey: t.one
            version: 1
            title: State
            start: s
            steps:
              s:
                handler: session.state
                on: { userAuth: user, serviceAuth: service, notAuthorized: none }
            ends:
              user: { kind: success }
              service: { kind: success }
              none: { kind: failure }
            """
        let end = ["userAuth": "user", "serviceAuth": "service", "notAuthorized": "none"][state]!
        let (report, _) = try await run(
            journeys: [journey],
            scenario: "scenario: s\njourney: t.one\ndevice: { store: \(store) }\nscript: []\nexpect: { end: \(end) }")
        #expect(report.passed, "\(report.problems)")
    }
}
