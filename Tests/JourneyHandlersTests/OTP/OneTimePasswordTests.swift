import Foundation
import JourneyCore
import Testing

@testable import JourneyHandlers

/// HOTP and TOTP against the RFCs' own test vectors, and `otp.hotp` / `otp.totp` in journeys:
/// codes on the virtual clock, drift, replays, and no code in any transcript.
@Suite("One-time passwords")
struct OneTimePasswordTests {
    /// RFC 4648 §10 base32 of an ASCII text, to write the RFCs' ASCII secrets as journeys do.
    static func base32(_ text: String) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        var out = ""
        var buffer: UInt32 = 0
        var bits = 0
        for byte in text.utf8 {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                out.append(alphabet[Int((buffer >> UInt32(bits)) & 31)])
            }
        }
        if bits > 0 { out.append(alphabet[Int((buffer << UInt32(5 - bits)) & 31)]) }
        return out
    }

    static let sha1Seed = "12345678901234567890"

    /// RFC 4226 Appendix D: the six-digit codes for counters 0 to 9.
    @Test func hotpMatchesRFC4226() {
        let expected = [
            "755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489",
        ]
        let key = Array(Self.sha1Seed.utf8)
        for (counter, code) in expected.enumerated() {
            #expect(OneTimePassword.hotp(key: key, counter: UInt64(counter), digits: 6, algorithm: .sha1) == code)
        }
    }

    /// RFC 6238 Appendix B: eight-digit codes for SHA-1, SHA-256 and SHA-512 at six times, with
    /// 30-second periods (each hash with its own seed length, as the RFC's reference code).
    @Test(arguments: [
        (59, "94287082", "46119246", "90693936"),
        (1_111_111_109, "07081804", "68084774", "25091201"),
        (1_111_111_111, "14050471", "67062674", "99943326"),
        (1_234_567_890, "89005924", "91819424", "93441116"),
        (2_000_000_000, "69279037", "90698825", "38618901"),
        (20_000_000_000, "65353130", "77737706", "47863826"),
    ])
    func totpMatchesRFC6238(seconds: Int, sha1: String, sha256: String, sha512: String) {
        let step = UInt64(OneTimePassword.timeStep(milliseconds: seconds * 1000, periodMilliseconds: 30_000))
        let seeds: [(OneTimePassword.Algorithm, String, String)] = [
            (.sha1, String(repeating: Self.sha1Seed, count: 1), sha1),
            (.sha256, String(repeating: Self.sha1Seed, count: 2).prefix(32).description, sha256),
            (.sha512, String(repeating: Self.sha1Seed, count: 4).prefix(64).description, sha512),
        ]
        for (algorithm, seed, code) in seeds {
            let key = OneTimePassword.base32Decode(Self.base32(seed))!
            #expect(key == Array(seed.utf8))
            #expect(
                OneTimePassword.hotp(key: key, counter: step, digits: 8, algorithm: algorithm) == code, "\(algorithm)")
        }
    }

    /// RFC 4648 §10, and the forms authenticator apps accept.
    @Test func base32AsAuthenticatorAppsReadIt() {
        let vectors = [
            ("MY======", "f"), ("MZXQ====", "fo"), ("MZXW6===", "foo"), ("MZXW6YQ=", "foob"), ("MZXW6YTB", "fooba"),
            ("MZXW6YTBOI======", "foobar"), ("mzxw 6ytb-oi", "foobar"),
        ]
        for (text, bytes) in vectors { #expect(OneTimePassword.base32Decode(text) == Array(bytes.utf8), "\(text)") }
        for bad in ["", "====", "MZXW1", "MZ=XW", "MZXW6YTBOI!"] {
            #expect(OneTimePassword.base32Decode(bad) == nil, "\(bad)")
        }
    }

    static let totpJourney = """
        journey: t.totp
        version: 1
        title: TOTP
        stored:
          seed: { type: string, secret: true, default: "" }
          lastStep: { type: int, default: -1 }
        state:
          code: { type: string, secret: true, default: "" }
          drift: { type: int, default: 0 }
        start: app
        steps:
          app:
            handler: otp.totp
            with: { secret: "${stored.seed}" }
            on:
              generated:
                set: { state.code: "${outcome.code}" }
                to: enter
          enter:
            handler: ui.screen
            screen: { title: Enter the code, actions: { submit: Submit } }
            on: { submit: check }
          check:
            handler: otp.totp
            with: { secret: "${stored.seed}", code: "${state.code}", lastStep: "${stored.lastStep}" }
            on:
              valid:
                set: { stored.lastStep: "${outcome.step}", state.drift: "${outcome.drift}" }
                to: again
              replayed: replayed
              invalid: refused
          again:
            handler: otp.totp
            with: { secret: "${stored.seed}", code: "${state.code}", lastStep: "${stored.lastStep}" }
            on: { valid: done, replayed: replayed, invalid: refused }
        ends:
          done: { kind: success }
          replayed: { kind: failure }
          refused: { kind: failure }
        """

    /// A code made at 00:59 (period 1: 287082) and typed 20 s later (period 2) is one period
    /// of drift: accepted, its period kept; typed again it is a replay.
    @Test func aCodeIsAcceptedOnceWithinTheWindowAndNeverShown() async throws {
        let (report, transcript) = try await run(
            journeys: [Self.totpJourney],
            scenario: """
                scenario: s
                journey: t.totp
                device: { clock: "1970-01-01T00:00:59Z", store: { seed: "\(Self.base32(Self.sha1Seed))" } }
                script:
                  - advance: 20s
                  - at: enter
                    action: submit
                expect: { end: replayed, stored: { lastStep: 1 }, state: { drift: -1 } }
                """)
        #expect(report.passed, "\(report.problems)\n\(transcript.text)")
        #expect(transcript.text.contains("outcome generated {code: •••, expiresIn: 1s, step: 1}"), "\(transcript.text)")
        #expect(transcript.text.contains("outcome replayed {step: 1}"), "\(transcript.text)")
        for secret in ["287082", "GEZDGNBV"] {
            #expect(!transcript.text.contains(secret) && !transcript.jsonl.contains(secret))
        }
    }

    /// Typed at 01:30 (period 3), a code of period 1 is two periods late: past the default
    /// window of one; with `window: 2` it is accepted.
    @Test(arguments: [(1, "refused"), (2, "done")])
    func driftBeyondTheWindowIsRefused(window: Int, end: String) async throws {
        let journey = Self.totpJourney.replacingOccurrences(
            of: "code: \"${state.code}\", lastStep: \"${stored.lastStep}\" }\n    on:\n      valid:",
            with:
                "code: \"${state.code}\", lastStep: \"${stored.lastStep}\", window: \(window) }\n    on:\n      valid:"
        ).replacingOccurrences(of: "to: again", with: "to: done")
        #expect(journey.contains("window: \(window)"))
        let (report, transcript) = try await run(
            journeys: [journey],
            scenario: """
                scenario: s
                journey: t.totp
                device: { clock: "1970-01-01T00:00:59Z", store: { seed: "\(Self.base32(Self.sha1Seed))" } }
                script:
                  - advance: 31s
                  - at: enter
                    action: submit
                expect: { end: \(end) }
                """)
        #expect(report.passed, "\(report.problems)\n\(transcript.text)")
    }

    /// RFC 4226 §7.4: a code from a counter ahead of the server's is accepted within the
    /// look-ahead window, and the server moves past it.
    @Test(arguments: [(2, "other"), (3, "done")])
    func hotpLooksAheadWithinTheWindow(window: Int, end: String) async throws {
        let step = """
            handler: otp.hotp
            with: { secret: "\(Self.base32(Self.sha1Seed))", counter: 0, code: "969 429", window: \(window) }
            on:
              valid:
                set: { stored.counter: "${outcome.counter}" }
                to: done
              invalid: other
            """
        let (report, transcript) = try await run(
            journeys: [oneStep(step, extra: "stored:\n  counter: { type: int, default: 0 }")],
            scenario: """
                scenario: s
                journey: t.one
                script: []
                expect: { end: \(end)\(end == "done" ? ", stored: { counter: 4 }" : "") }
                """)
        #expect(report.passed, "\(report.problems)\n\(transcript.text)")
        #expect(!transcript.text.contains("969"), "the code is a secret")
    }

    /// Misuse is found by `journey check`, where it is written.
    @Test func checkFindsMisuse() {
        let step = """
            handler: otp.totp
            with: { secret: "not base32!", digits: 5, algorithm: MD5, period: 0s }
            on: { generated: done }
            """
        let project = ProjectLoader(handlers: BuiltinHandlers.registry).load([
            SourceFile(path: "j.yaml", data: Data(oneStep(step).utf8))
        ])
        let found = project.diagnostics.items.map { "\($0.location.line):\($0.location.column) \($0.message)" }
        #expect(found.contains { $0.hasPrefix("9:21 ") && $0.contains("base32") }, "\(found)")
        #expect(found.contains { $0.contains("'digits'") && $0.contains("6") }, "\(found)")
        #expect(found.contains { $0.contains("SHA1, SHA256, SHA512, found 'MD5'") }, "\(found)")
        #expect(found.contains { $0.contains("'period'") }, "\(found)")
        #expect(!found.contains { $0.contains("not base32!") }, "a secret's value is never quoted: \(found)")

        let unhandled = """
            handler: otp.totp
            with: { secret: "GEZDGNBV", code: "123456" }
            on: { valid: done }
            """
        let second = ProjectLoader(handlers: BuiltinHandlers.registry).load([
            SourceFile(path: "j.yaml", data: Data(oneStep(unhandled).utf8))
        ])
        let messages = second.diagnostics.items.map(\.message).joined(separator: "\n")
        #expect(messages.contains("'invalid'") && messages.contains("'replayed'"), "\(messages)")
    }
}
