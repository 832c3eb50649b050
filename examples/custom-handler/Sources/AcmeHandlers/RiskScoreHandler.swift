import JourneyCore

/// `acme.riskScore`: decides on the device whether a sign-in may go on, must step up (the user
/// confirms it is them) or is refused, before the app asks its backend for a session.
///
/// It asks the platform's attestation service about the app (App Attest, Play Integrity: the
/// driver plays it, as it plays the biometric sensor) and scores what it knows:
///
/// | signal | points |
/// |---|---|
/// | the app failed attestation | 60 |
/// | attestation could not be asked (an old OS, a rooted device without the service) | 20 |
/// | a jailbreak or root tool is installed | 50 |
/// | a device never seen: no device id stored yet | 30 |
/// | the device was last seen longer ago than `staleAfter`, or its last sign-in is in the future | 20 |
/// | no biometry enrolled | 10 |
///
/// A score of `denyAt` or more is `deny`, of `stepUpAt` or more `stepUp`, anything lower
/// `allow`. Every decision carries the score, the reasons in words, and a one-time `ticket`
/// (secret) that the app sends with the sign-in so the backend can match it with the decision.
/// The device's id is made on its first sign-in from the run's random source and kept secret;
/// when the device was last seen (seconds since 1970, like `device.now`) is written on every
/// decision. Offline, nothing is asked or
/// stored: the outcome is `offline`.
public struct RiskScoreHandler: StepHandler {
    /// The apps whose presence means the device is jailbroken or rooted, by URL scheme or name.
    public static let rootTools: Set<String> = ["cydia", "sileo", "zebra", "magisk"]
    /// What the attestation service can answer.
    public static let verdicts = ["valid", "invalid", "unavailable"]

    public init() {}

    static let riskData = [
        DataSpec(name: "score", type: TypeInfo(.int)),
        DataSpec(name: "reasons", type: TypeInfo(.list)),
        DataSpec(name: "ticket", type: TypeInfo(.string, secret: true)),
    ]

    public let contract = HandlerContract(
        id: "acme.riskScore",
        summary: "Scores the sign-in's risk from the app's attestation and the device: allow, stepUp or deny.",
        parameters: [
            ParameterSpec(
                name: "deviceIdKey", kind: .value(TypeInfo(.string)), required: true,
                summary: "the store key of the device's id, made on its first sign-in (secret)",
                namesSecretStoreKey: true),
            ParameterSpec(
                name: "lastSeenKey", kind: .value(TypeInfo(.string)), required: true,
                summary: "the store key of when the device last signed in (seconds since 1970)"),
            ParameterSpec(
                name: "stepUpAt", kind: .value(TypeInfo(.int)), defaultValue: .int(30),
                summary: "the score from which the user must confirm it is them", range: 1...100),
            ParameterSpec(
                name: "denyAt", kind: .value(TypeInfo(.int)), defaultValue: .int(80),
                summary: "the score from which the sign-in is refused; above stepUpAt", range: 1...200),
            ParameterSpec(
                name: "staleAfter", kind: .value(TypeInfo(.duration)), defaultValue: .duration(30 * 86_400_000),
                summary: "how long a device may stay away before it counts as a risk again",
                range: 60_000...(365 * 86_400_000)),
        ],
        inputs: [
            InputSpec(
                name: "attestation", type: TypeInfo(.string),
                summary: "what the platform's attestation service says of the app", classes: RiskScoreHandler.verdicts)
        ],
        outcomes: [
            OutcomeSpec(name: "allow", summary: "a low score: the sign-in goes on", data: RiskScoreHandler.riskData),
            OutcomeSpec(
                name: "stepUp", summary: "a score of stepUpAt or more: the user must confirm it is them",
                data: RiskScoreHandler.riskData),
            OutcomeSpec(
                name: "deny", summary: "a score of denyAt or more: the sign-in is refused",
                data: RiskScoreHandler.riskData),
            OutcomeSpec(name: "offline", summary: "the device is offline; nothing was asked or stored"),
        ])

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        let deviceIdKey = try invocation.text("deviceIdKey")
        let lastSeenKey = try invocation.text("lastSeenKey")
        let stepUpAt = try invocation.int("stepUpAt")
        let denyAt = try invocation.int("denyAt")
        guard denyAt > stepUpAt else {
            throw HandlerError("step '\(invocation.step)': 'denyAt' (\(denyAt)) must be above 'stepUpAt' (\(stepUpAt))")
        }
        let staleAfter = try invocation.duration("staleAfter")
        guard context.device.online else { return HandlerResult("offline") }

        let answer = try await context.input(invocation.request())
        guard case .string(let verdict)? = answer["attestation"]?.revealed, Self.verdicts.contains(verdict) else {
            throw HandlerError(
                "step '\(invocation.step)' needs an 'attestation': one of \(Self.verdicts.joined(separator: ", "))")
        }

        let now = context.now
        var score = 0
        var reasons: [String] = []
        func add(_ points: Int, _ reason: String) {
            score += points
            reasons.append(reason)
        }
        switch verdict {
        case "invalid": add(60, "the app failed attestation")
        case "unavailable": add(20, "the app could not be attested")
        default: break
        }
        if context.device.apps.contains(where: { Self.rootTools.contains($0.lowercased()) }) {
            add(50, "a jailbreak or root tool is installed")
        }
        if context.stored(deviceIdKey) == nil {
            add(30, "a device never seen before")
            context.store(deviceIdKey, .secret(.string(Self.hex(context.random.bytes(16)))))
        } else if case .int(let lastSeen)? = context.stored(lastSeenKey)?.revealed {
            if lastSeen < 0 || lastSeen > now / 1000 {
                add(20, "the device's last sign-in is not a time in the past")
            } else if (now / 1000 - lastSeen) * 1000 > staleAfter {
                add(20, "the device was last seen \(Self.span(seconds: now / 1000 - lastSeen)) ago")
            }
        }
        if context.device.biometry == .none || !context.device.biometryEnrolled {
            add(10, "no biometry enrolled")
        }
        // Times are seconds since 1970 in journeys, so that they can read it: since(stored.lastSeen).
        context.store(lastSeenKey, .int(now / 1000))

        let outcome = score >= denyAt ? "deny" : score >= stepUpAt ? "stepUp" : "allow"
        return HandlerResult(
            outcome,
            data: [
                "score": .int(score),
                "reasons": .list(reasons.map(Value.string)),
                "ticket": .secret(.string(Self.hex(context.random.bytes(16)))),
            ])
    }

    /// A time span in its largest whole unit: "90 days", "1 hour", "5 minutes".
    static func span(seconds: Int) -> String {
        for (unit, size) in [("day", 86_400), ("hour", 3_600), ("minute", 60)] where seconds >= size {
            let count = seconds / size
            return "\(count) \(unit)\(count == 1 ? "" : "s")"
        }
        return "\(seconds) seconds"
    }

    /// Bytes as lowercase hexadecimal.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] })
    }
}
