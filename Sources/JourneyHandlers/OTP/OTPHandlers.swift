import JourneyCore

/// What `otp.hotp` and `otp.totp` share: the secret, the code's digits and the HMAC's hash, and
/// a `code` to check, whose presence makes the step a check instead of generating a code.
enum OTPParameters {
    static let secret = ParameterSpec(
        name: "secret", kind: .value(TypeInfo(.string, secret: true)), required: true,
        summary: "the shared secret, in base32 as in an `otpauth://` URI", check: OneTimePassword.secretProblem)
    static let digits = ParameterSpec(
        name: "digits", kind: .value(TypeInfo(.int)), defaultValue: .int(6), summary: "digits in a code",
        range: OneTimePassword.digits)
    static let algorithm = ParameterSpec(
        name: "algorithm", kind: .value(TypeInfo(.string)), defaultValue: .string("SHA1"),
        summary: "the HMAC's hash: `SHA1`, `SHA256` or `SHA512`", check: OneTimePassword.algorithmProblem)
    static let code = ParameterSpec(
        name: "code", kind: .value(TypeInfo(.string, secret: true)),
        summary: "a code to check (spaces are ignored); without it the step generates a code")
    static let generated = OutcomeSpec(
        name: "generated", summary: "the HOTP of `counter` (RFC 4226), secret",
        data: [DataSpec(name: "code", type: TypeInfo(.string, secret: true))])
    static let invalid = OutcomeSpec(name: "invalid", summary: "the code is not one the window accepts")

    /// What a step has: `generated` without `code`, the `checked` outcomes with it.
    static func refined(generated: OutcomeSpec, checked: [OutcomeSpec]) -> [Conditional<OutcomeSpec>] {
        [Conditional(generated, .absent(code.name))] + checked.map { Conditional($0, .given(code.name)) }
    }

    /// Whether the step checks a code: it gives `code`.
    static func checks(_ shape: StepShape) -> Bool { shape.given.contains("code") }

    static func read(
        _ invocation: HandlerInvocation
    ) throws -> (
        key: [UInt8], digits: Int, algorithm: OneTimePassword.Algorithm
    ) {
        guard case .string(let text)? = invocation[parameter: "secret"]?.revealed,
            let key = OneTimePassword.base32Decode(text)
        else {
            throw HandlerError("'secret' of step '\(invocation.step)' must be a base32 secret")
        }
        guard case .int(let digits)? = invocation[parameter: "digits"]?.revealed,
            OneTimePassword.digits.contains(digits)
        else { throw HandlerError("'digits' of step '\(invocation.step)' must be 6 to 10") }
        guard case .string(let name)? = invocation[parameter: "algorithm"]?.revealed,
            let algorithm = OneTimePassword.Algorithm(rawValue: name)
        else { throw HandlerError("'algorithm' of step '\(invocation.step)' must be SHA1, SHA256 or SHA512") }
        return (key, digits, algorithm)
    }

    /// The code to check: nil when the step generates one. Spaces a user types between groups
    /// (`123 456`) are ignored, as authenticator apps show them.
    static func code(_ invocation: HandlerInvocation) -> String? {
        guard let value = invocation[parameter: "code"] else { return nil }
        guard case .string(let text) = value.revealed else { return "" }
        return text.filter { $0 != " " }
    }

    /// The first of `counters` whose code `code` is, or nil. Every counter's code is computed
    /// and compared in constant time, so the time taken says nothing of which matched.
    static func firstMatch(
        _ code: String, among counters: [Int], key: [UInt8], digits: Int, algorithm: OneTimePassword.Algorithm
    ) -> Int? {
        var matched: Int?
        for counter in counters where counter >= 0 {
            let expected = OneTimePassword.hotp(
                key: key, counter: UInt64(counter), digits: digits, algorithm: algorithm)
            if ConstantTime.equal(code, expected), matched == nil { matched = counter }
        }
        return matched
    }
}

/// `otp.hotp`: an HMAC-based one-time password (RFC 4226), for a counter kept by the journey.
public struct HOTPHandler: StepHandler {
    public init() {}

    /// The largest counter: what JSON carries exactly.
    static let counters = 0...((1 << 53) - 1)

    public let contract = HandlerContract(
        id: "otp.hotp",
        summary:
            "HOTP (RFC 4226): generates the code for `counter`, or with `code` checks it against `counter` and the `window` after it; every counter of the window is computed and compared in constant time.",
        parameters: [
            OTPParameters.secret, OTPParameters.digits, OTPParameters.algorithm,
            ParameterSpec(
                name: "counter", kind: .value(TypeInfo(.int)), required: true,
                summary: "the moving factor: the next counter value the server expects", range: HOTPHandler.counters),
            OTPParameters.code,
            ParameterSpec(
                name: "window", kind: .value(TypeInfo(.int)), defaultValue: .int(0),
                summary: "how many counters after `counter` a code may be from (a token pressed without logging in)",
                range: 0...100),
        ],
        outcomes: [OTPParameters.generated],
        refinedOutcomes: OTPParameters.refined(generated: OTPParameters.generated, checked: HOTPHandler.checked),
        credentialCheck: .init(accepted: ["valid"], refused: ["invalid"]),
        refine: { shape, contract in
            guard OTPParameters.checks(shape) else { return }
            contract.outcomes = HOTPHandler.checked
        })

    /// The outcomes of a step that checks a code.
    static let checked = [
        OutcomeSpec(
            name: "valid",
            summary: "the code matches; `outcome.counter` is the counter to expect next (the matched one + 1)",
            data: [DataSpec(name: "counter", type: TypeInfo(.int))]),
        OTPParameters.invalid,
    ]

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        let (key, digits, algorithm) = try OTPParameters.read(invocation)
        guard case .int(let counter)? = invocation[parameter: "counter"]?.revealed, Self.counters.contains(counter)
        else { throw HandlerError("'counter' of step '\(invocation.step)' must be 0 to \(Self.counters.upperBound)") }
        guard let code = OTPParameters.code(invocation) else {
            let code = OneTimePassword.hotp(key: key, counter: UInt64(counter), digits: digits, algorithm: algorithm)
            return HandlerResult("generated", data: ["code": .secret(.string(code))])
        }
        guard case .int(let window)? = invocation[parameter: "window"]?.revealed ?? .int(0) else {
            throw HandlerError("'window' of step '\(invocation.step)' must be 0 to 100")
        }
        let counters = Array(counter...min(counter + window, Self.counters.upperBound))
        guard
            let matched = OTPParameters.firstMatch(
                code, among: counters, key: key, digits: digits, algorithm: algorithm)
        else { return HandlerResult("invalid") }
        return HandlerResult("valid", data: ["counter": .int(matched + 1)])
    }
}

/// `otp.totp`: a time-based one-time password (RFC 6238) on the virtual clock.
public struct TOTPHandler: StepHandler {
    public init() {}

    public let contract = HandlerContract(
        id: "otp.totp",
        summary:
            "TOTP (RFC 6238) on the virtual clock: generates the current code, or with `code` checks it within `window` periods either side, refusing a period already used.",
        parameters: [
            OTPParameters.secret, OTPParameters.digits, OTPParameters.algorithm,
            ParameterSpec(
                name: "period", kind: .value(TypeInfo(.duration)), defaultValue: .duration(30_000),
                summary: "how long a code lasts", range: 1_000...3_600_000),
            OTPParameters.code,
            ParameterSpec(
                name: "window", kind: .value(TypeInfo(.int)), defaultValue: .int(1),
                summary: "periods before and after the current one a code may be from (clock drift)", range: 0...10),
            ParameterSpec(
                name: "lastStep", kind: .value(TypeInfo(.int)), defaultValue: .int(-1),
                summary:
                    "the period of the last code accepted: a code from it or before is a replay (RFC 6238 §5.2); -1 for none",
                range: -1...Int(Int32.max)),
        ],
        outcomes: [TOTPHandler.generated],
        refinedOutcomes: OTPParameters.refined(generated: TOTPHandler.generated, checked: TOTPHandler.checked),
        // A code already used is refused like a wrong one: an attacker replays what they saw.
        credentialCheck: .init(accepted: ["valid"], refused: ["invalid", "replayed"]),
        refine: { shape, contract in
            guard OTPParameters.checks(shape) else { return }
            contract.outcomes = TOTPHandler.checked
        })

    static let generated = OutcomeSpec(
        name: "generated",
        summary:
            "the current code on the virtual clock (RFC 6238), secret; `outcome.step` is its period since 1970, `outcome.expiresIn` the time it has left",
        data: [
            DataSpec(name: "code", type: TypeInfo(.string, secret: true)),
            DataSpec(name: "step", type: TypeInfo(.int)),
            DataSpec(name: "expiresIn", type: TypeInfo(.duration)),
        ])

    /// The outcomes of a step that checks a code.
    static let checked = [
        OutcomeSpec(
            name: "valid",
            summary:
                "the code matches; `outcome.step` is its period (keep it as `lastStep`), `outcome.drift` how many periods from now",
            data: [DataSpec(name: "step", type: TypeInfo(.int)), DataSpec(name: "drift", type: TypeInfo(.int))]),
        OutcomeSpec(
            name: "replayed",
            summary:
                "the code is right, but from a period at or before `lastStep` (`outcome.step`): RFC 6238 §5.2 allows a code once",
            data: [DataSpec(name: "step", type: TypeInfo(.int))]),
        OTPParameters.invalid,
    ]

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        let (key, digits, algorithm) = try OTPParameters.read(invocation)
        guard case .duration(let period)? = invocation[parameter: "period"]?.revealed,
            (1_000...3_600_000).contains(period)
        else { throw HandlerError("'period' of step '\(invocation.step)' must be 1s to 1h") }
        let now = OneTimePassword.timeStep(milliseconds: context.now, periodMilliseconds: period)
        guard let code = OTPParameters.code(invocation) else {
            let code = OneTimePassword.hotp(
                key: key, counter: UInt64(max(now, 0)), digits: digits, algorithm: algorithm)
            let left = (now + 1) * period - context.now
            return HandlerResult(
                "generated", data: ["code": .secret(.string(code)), "step": .int(now), "expiresIn": .duration(left)])
        }
        guard case .int(let window)? = invocation[parameter: "window"]?.revealed ?? .int(1),
            case .int(let lastStep)? = invocation[parameter: "lastStep"]?.revealed ?? .int(-1)
        else { throw HandlerError("'window' and 'lastStep' of step '\(invocation.step)' must be numbers") }
        // The current period first, then outwards, so that the nearest match wins.
        let periods = [now] + (0...window).dropFirst().flatMap { [now - $0, now + $0] }
        let found = OTPParameters.firstMatch(code, among: periods, key: key, digits: digits, algorithm: algorithm)
        guard let matched = found else { return HandlerResult("invalid") }
        if matched <= lastStep { return HandlerResult("replayed", data: ["step": .int(matched)]) }
        return HandlerResult("valid", data: ["step": .int(matched), "drift": .int(matched - now)])
    }
}
