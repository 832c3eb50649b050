import Foundation
import JourneyCore
import Testing

@testable import JourneyHandlers

/// The secret rules that go beyond one journey's own declarations: a stored key secret
/// anywhere is secret everywhere, an HTTP request's headers and body are never recorded, and
/// a sealed record is never shown.
@Suite("Secret rules across journeys, requests and stored records")
struct SecretRulesTests {
    /// Declares `token` secret; the journey the scenario plays below never calls it.
    static let declaring = """
        journey: t.declares
        version: 1
        title: Declares
        stored:
          token: { type: string, secret: true }
        start: a
        steps:
          a:
            handler: flow.decide
            on: { next: done }
        ends:
          done: { kind: success }
        """

    static let using = """
        journey: t.one
        version: 1
        title: Uses the token without declaring it
        start: s
        steps:
          s:
            handler: flow.decide
            on:
              next:
                set: { stored.copy: "${stored.token}" }
                to: done
        stored:
          token: { type: string, default: "" }
          copy: { type: string, default: "" }
        ends:
          done: { kind: success }
        """

    @Test("a stored key any journey declares secret is secret in a journey that does not, header included")
    func projectWideStoredKey() async throws {
        let scenario = """
            scenario: s
            journey: t.one
            device: { store: { token: user-token-4711 } }
            script: []
            expect: { end: done, stored: { token: user-token-4711 } }
            """
        let (report, transcript) = try await run(journeys: [Self.using, Self.declaring], scenario: scenario)
        #expect(report.passed, "\(report.problems)")
        #expect(transcript.text.contains("# store: {token: •••}"), "\(transcript.text)")
        for output in [transcript.text, transcript.jsonl] {
            #expect(!output.contains("user-token"), "\(output)")
            #expect(!output.contains("4711"))
        }
    }

    @Test("an expectation on a secret compares it, and a mismatch shows neither value")
    func secretExpectation() async throws {
        let scenario = """
            scenario: s
            journey: t.one
            device: { store: { token: user-token-4711 } }
            script: []
            expect: { end: done, stored: { token: other-token-0815 } }
            """
        let (report, _) = try await run(journeys: [Self.using, Self.declaring], scenario: scenario)
        #expect(!report.passed)
        let problems = report.problems.joined(separator: "\n")
        #expect(problems.contains("stored.token (secret, not shown)"), "\(problems)")
        #expect(!problems.contains("4711") && !problems.contains("0815"))
    }

    @Test("a key pin.verify reads is secret: a PIN record in the store is never shown")
    func pinRecordInHeader() async throws {
        let record = try PinVault.seal(pin: "4826", rounds: 1000)
        let journey = """
            journey: t.one
            version: 1
            title: Enter
            start: s
            steps:
              s:
                handler: pin.verify
                with: { key: pincode }
                on: { correct: done, wrong: other, missing: other }
            ends:
              done: { kind: success }
              other: { kind: failure }
            """
        let scenario = """
            scenario: s
            journey: t.one
            device: { kdfRounds: 1000, store: { pincode: "\(record)" } }
            script:
              - at: s
                pin: "4826"
            expect: { end: done }
            """
        let (report, transcript) = try await run(journeys: [journey], scenario: scenario)
        #expect(report.passed, "\(report.problems)")
        #expect(transcript.text.contains("# store: {pincode: •••}"), "\(transcript.text)")
        let sealed = String(record.split(separator: ":").last!)
        for output in [transcript.text, transcript.jsonl] {
            #expect(!output.contains("pin-v1"))
            #expect(!output.contains(sealed.prefix(12)))
        }
    }

    @Test(
        "a record asking for more PBKDF2 rounds than JourneyKit writes is tampered: missing, no attempt, no hang",
        arguments: ["99999999999", "4294967296", "2147483647", "600001", "0", "-5"])
    func tamperedRounds(rounds: String) async throws {
        var parts = try PinVault.seal(pin: "4826", rounds: 1000).split(separator: ":").map(String.init)
        parts[1] = rounds
        let journey = """
            journey: t.one
            version: 1
            title: Enter
            stored:
              failures: { type: int, default: 0 }
            limits:
              pin: { max: 3, counter: stored.failures, exceeded: other }
            start: s
            steps:
              s:
                handler: pin.verify
                with: { key: pincode }
                attempts: { limit: pin, counts: [wrong], resets: [correct] }
                on: { correct: done, wrong: s, missing: other }
            ends:
              done: { kind: success }
              other: { kind: failure }
            """
        let scenario = """
            scenario: s
            journey: t.one
            device: { kdfRounds: 1000, store: { pincode: "\(parts.joined(separator: ":"))" } }
            script: []
            expect: { end: other, stored: { failures: 0 } }
            """
        let (report, transcript) = try await run(journeys: [journey], scenario: scenario)
        #expect(report.passed, "\(report.problems)")
        #expect(transcript.text.contains("outcome missing"))
        #expect(!transcript.text.contains("attempt pin charged"))
        #expect(throws: PinVault.Failure.unreadableRecord) { try PinVault.parse(parts.joined(separator: ":")) }
    }

    @Test("a Locker vault asking for more rounds than it writes is unreadable, and easy access says missing")
    func tamperedLockerVault() throws {
        let enrolment = try LockerVault.enrol(secret: "Correct-Horse-7", rounds: 1000)
        var parts = enrolment.vault.split(separator: ":").map(String.init)
        parts[1] = "99999999999"
        let tampered = parts.joined(separator: ":")
        #expect(throws: LockerVault.Failure.unreadable) { try LockerVault.parse(vault: tampered) }
        #expect(throws: LockerVault.Failure.unreadable) {
            try LockerVault.open(vault: tampered, secret: "Correct-Horse-7")
        }
    }

    @Test("http.request shows header names and the body's size, never a value, whatever they are built from")
    func httpHeadersAndBody() async throws {
        let journey = """
            journey: t.one
            version: 1
            title: Call
            start: s
            steps:
              s:
                handler: http.request
                with:
                  method: POST
                  url: https://api.example.org/v1/register
                  headers: ["X-Api-Key: ${lower('KEY-31337-ABC')}", "Content-Type: application/json"]
                  body: "{\\"phone\\": \\"${'+380' + '671234567'}\\"}"
                on: { ok: done, failed: other, offline: other }
            ends:
              done: { kind: success }
              other: { kind: failure }
            """
        let scenario = """
            scenario: s
            journey: t.one
            network:
              - request: POST https://api.example.org/v1/register
                response: { status: 201 }
            script: []
            expect: { end: done }
            """
        let (report, transcript) = try await run(journeys: [journey], scenario: scenario)
        #expect(report.passed, "\(report.problems)")
        #expect(
            transcript.text.contains(#"headers: ["X-Api-Key", "Content-Type"]"#), "\(transcript.text)")
        #expect(
            transcript.text.contains(#"body: "\#(#"{"phone": "+380671234567"}"#.utf8.count) bytes""#),
            "\(transcript.text)")
        for output in [transcript.text, transcript.jsonl] {
            #expect(!output.contains("31337"))
            #expect(!output.contains("1234567"))
            #expect(!output.contains("application/json"))
        }
    }
}
