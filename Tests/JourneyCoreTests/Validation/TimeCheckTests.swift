import Testing

@testable import JourneyCore

/// `journey check` on lockouts, computed maximums and time in expressions: every misuse is a
/// located diagnostic.
@Suite("Checking lockouts, computed maximums and time")
struct TimeCheckTests {
    /// A journey whose step `a` charges limit `pin`, written as `limit` (markers allowed).
    static func source(limit: String, declarations: String = "") -> MarkedSource {
        MarkedSource(
            journey(
                steps: """
                      a:
                        handler: t.check
                        attempts: { limit: pin, counts: [wrong], resets: [correct] }
                        on: { correct: done, wrong: a, cancel: failed }
                    """,
                extra: """
                    params:
                      maxAttempts: { type: int, default: 3 }
                      name: { type: string, default: x }
                      code: { type: int, default: 3, secret: true }
                    state:
                      tries: { type: int, default: 0 }
                      until: { type: int, default: 0 }
                    stored:
                      failures: { type: int, default: 0 }
                      lockedUntil: { type: int, default: 0 }
                      label: { type: string, default: "" }
                    \(declarations)
                    limits:
                      pin: \(limit)
                    """))
    }

    @Test("a well-formed lockout and computed max check clean")
    func clean() {
        let source = Self.source(
            limit:
                "{ max: \"${params.maxAttempts}\", counter: stored.failures, exceeded: failed, lockout: 1h30m, lockedUntil: stored.lockedUntil }"
        )
        #expect(diagnostics(source.text).filter { $0.severity == .error } == [])
    }

    @Test(
        "a lockout must be whole seconds from 1s to 3650d",
        arguments: [("1500ms", "value.range"), ("0s", "value.range"), ("3651d", "value.range"), ("soon", "value.type")])
    func lockoutRange(written: String, id: String) {
        let source = Self.source(
            limit:
                "{ max: 3, counter: stored.failures, exceeded: failed, lockout: 1️⃣\(written), lockedUntil: stored.lockedUntil }"
        )
        expectDiagnostic(id, at: "1️⃣", in: source, containing: "lockout")
    }

    @Test("a lockout needs lockedUntil, and lockedUntil a lockout")
    func lockoutComesInPairs() {
        expectDiagnostic(
            "key.missing", at: "1️⃣",
            in: Self.source(limit: "{ max: 3, counter: stored.failures, exceeded: failed, lockout: 1️⃣15m }"),
            containing: "no 'lockedUntil'")
        expectDiagnostic(
            "key.missing", at: "1️⃣",
            in: Self.source(
                limit: "{ max: 3, counter: stored.failures, exceeded: failed, 1️⃣lockedUntil: stored.lockedUntil }"),
            containing: "no 'lockout'")
    }

    @Test(
        "lockedUntil names a declared int, not the counter, and is stored when the counter is",
        arguments: [
            ("stored.lockedUntill", "did you mean 'lockedUntil'"),
            ("stored.label", "must be an int"),
            ("stored.failures", "another value than the counter"),
            ("state.until", "a restart would end the lockout"),
        ])
    func lockedUntilRules(written: String, message: String) {
        let source = Self.source(
            limit: "{ max: 3, counter: stored.failures, exceeded: failed, lockout: 15m, lockedUntil: 1️⃣\(written) }")
        expectDiagnostic("limit.lockout", at: "1️⃣", in: source, containing: message)
    }

    @Test("a lockout whose exceeded leads back to a step it locks would loop, and is an error there")
    func lockoutLoop() {
        let source = Self.source(
            limit:
                "{ max: 3, counter: stored.failures, exceeded: 1️⃣a, lockout: 15m, lockedUntil: stored.lockedUntil }")
        expectDiagnostic("limit.lockout", at: "1️⃣", in: source, containing: "would loop until the lockout ends")
    }

    @Test("a run-only counter may keep its lockout in state or stored")
    func stateCounter() {
        for until in ["state.until", "stored.lockedUntil"] {
            let source = Self.source(
                limit: "{ max: 3, counter: state.tries, exceeded: failed, lockout: 30s, lockedUntil: \(until) }")
            #expect(diagnostics(source.text).filter { $0.severity == .error } == [], "\(until)")
        }
    }

    @Test(
        "a computed max is an int expression over params, located where it goes wrong",
        arguments: [
            ("1️⃣\"${params.name}\"", "value.type", "is int, but"),
            ("\"${1️⃣state.tries}\"", "expr.undefined", "unknown name 'state.tries'"),
            ("\"${1️⃣params.maxAttemps}\"", "expr.undefined", "did you mean 'params.maxAttempts'"),
            ("1️⃣\"${params.code}\"", "secret.leak", "cannot be computed from a secret"),
            ("\"${params.maxAttempts +1️⃣}\"", "expr.syntax", "expected an expression"),
            ("1️⃣0", "value.range", "from 1 to 1000"),
        ])
    func computedMaxErrors(written: String, id: String, message: String) {
        let source = Self.source(limit: "{ max: \(written), counter: stored.failures, exceeded: failed }")
        // A max that does not load leaves the limit out, so its step names an unknown limit too.
        let found = diagnostics(source.text).filter { $0.severity == .error && $0.id != "limit.unknown" }
        #expect(found.map(\.id) == [id], "\(found)")
        #expect(found.first?.location == source.location("1️⃣"), "\(found)")
        #expect(found.first?.message.contains(message) == true, "\(found)")
    }

    @Test("a computed max whose params' defaults put it out of range is reported at the max")
    func computedMaxDefaultOutOfRange() {
        let source = Self.source(
            limit: "{ max: 1️⃣\"${params.maxAttempts - 3}\", counter: stored.failures, exceeded: failed }")
        expectDiagnostic("value.range", at: "1️⃣", in: source, containing: "is 0 with the params' defaults")
    }

    @Test("locked and unlocksIn exist only for a limit with a lockout, typed bool and duration")
    func lockoutNames() {
        let withoutLockout = MarkedSource(
            journey(
                steps: """
                      a:
                        handler: t.screen
                        screen:
                          title: "${1️⃣limits.pin.locked}"
                          actions: { go: Go }
                        attempts: { limit: pin, counts: [go] }
                        on: { go: done }
                    """,
                extra:
                    "state:\n  tries: { type: int, default: 0 }\nlimits:\n  pin: { max: 3, counter: state.tries, exceeded: failed }"
            ))
        expectDiagnostic("expr.undefined", at: "1️⃣", in: withoutLockout, containing: "limits.pin.locked")
        let typed = MarkedSource(
            journey(
                steps: """
                      a:
                        handler: t.screen
                        screen:
                          title: "${limits.pin.unlocksIn}"
                          actions:
                            go: { label: Go, enabled: "${limits.pin.unlocksIn 1️⃣> 0}" }
                        attempts: { limit: pin, counts: [go] }
                        on: { go: done }
                    """,
                extra:
                    "state:\n  tries: { type: int, default: 0 }\n  until: { type: int, default: 0 }\nlimits:\n  pin: { max: 3, counter: state.tries, exceeded: failed, lockout: 1m, lockedUntil: state.until }"
            ))
        expectDiagnostic("expr.type", at: "1️⃣", in: typed, containing: "found duration and int")
    }

    @Test("an action enabled by the clock is known as such; one enabled by other values is not")
    func clockActions() throws {
        let (library, found) = compile([
            journey(
                steps: """
                      a:
                        handler: t.screen
                        screen:
                          title: Code
                          actions:
                            resend: { label: Resend, enabled: "${since(state.sentAt) >= 1m}" }
                            retry: { label: Retry, enabled: "${!limits.pin.locked}" }
                            other: { label: Other, enabled: "${state.sentAt > 0}" }
                        attempts: { limit: pin, counts: [other] }
                        on: { resend: done, retry: done, other: done }
                    """,
                extra:
                    "state:\n  sentAt: { type: int, default: 0 }\n  tries: { type: int, default: 0 }\n  until: { type: int, default: 0 }\nlimits:\n  pin: { max: 3, counter: state.tries, exceeded: failed, lockout: 1m, lockedUntil: state.until }"
            )
        ])
        let lib = try #require(library, "\(found)")
        let step = try #require(lib["t.j"]?.steps.first)
        #expect(step.clockActions == ["resend", "retry"])
    }
}
