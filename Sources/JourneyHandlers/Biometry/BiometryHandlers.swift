import JourneyCore

/// `biometry.optIn`: asks whether to allow sign-in with Face ID or Touch ID and stores the
/// answer under `key`. The screen's `allow` action stores true, `later` stores false. On a
/// device without enrolled biometry the step gives `unavailable` without asking.
public struct BiometryOptInHandler: StepHandler {
    public init() {}

    public let contract = HandlerContract(
        id: "biometry.optIn",
        summary:
            "Asks to allow biometric sign-in: the `allow` action stores true under `key`, `later` stores false, and every action is its own outcome; `unavailable` without asking on a device without enrolled biometry.",
        parameters: [
            ParameterSpec(
                name: "key", kind: .value(TypeInfo(.string)), required: true,
                summary: "the device store key the choice is kept under: true for `allow`, false for `later`",
                storeKey: .writes)
        ],
        outcomes: [OutcomeSpec(name: "unavailable", summary: "the device has no enrolled biometry; nothing was asked")],
        actionsAreOutcomes: true)

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        let key = try invocation.text("key")
        guard context.device.biometry != .none, context.device.biometryEnrolled else {
            return HandlerResult("unavailable")
        }
        let (action, _) = try await context.ask(invocation)
        guard let action else { throw HandlerError("step '\(invocation.step)' needs an 'action'") }
        switch action {
        case "allow": context.store(key, .bool(true))
        case "later": context.store(key, .bool(false))
        default: break
        }
        return HandlerResult(action)
    }
}

/// `biometry.authenticate`: the system's Face ID / Touch ID prompt. The driver plays the
/// sensor (`result`: success, cancel, failure or lockout); without enrolled biometry the
/// step gives `unavailable` and nothing is shown.
public struct BiometryAuthenticateHandler: StepHandler {
    public init() {}

    static let results = ["success", "cancel", "failure", "lockout"]

    public let contract = HandlerContract(
        id: "biometry.authenticate",
        summary: "The system biometric prompt: success, cancel, failure, lockout, or unavailable on this device.",
        parameters: [
            ParameterSpec(
                name: "reason", kind: .value(TypeInfo(.string)), summary: "why the app asks, shown by the system")
        ],
        inputs: [
            InputSpec(
                name: "result", type: TypeInfo(.string),
                summary: "what the sensor reports (the driver plays it): `success`, `cancel`, `failure` or `lockout`",
                classes: BiometryAuthenticateHandler.results)
        ],
        outcomes: [
            OutcomeSpec(name: "success", summary: "the face or finger matched"),
            OutcomeSpec(name: "cancel", summary: "the user dismissed the prompt"),
            OutcomeSpec(name: "failure", summary: "no match"),
            OutcomeSpec(name: "lockout", summary: "too many failures; the system locked biometry"),
            OutcomeSpec(name: "unavailable", summary: "the device has no enrolled biometry; nothing was asked"),
        ],
        credentialCheck: .init(accepted: ["success"], refused: ["failure"]))

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        guard context.device.biometry != .none, context.device.biometryEnrolled else {
            return HandlerResult("unavailable")
        }
        let values = try await context.input(invocation.request())
        guard case .string(let result)? = values["result"]?.revealed, Self.results.contains(result) else {
            throw HandlerError(
                "step '\(invocation.step)' needs a 'result': one of \(Self.results.joined(separator: ", "))")
        }
        return HandlerResult(result)
    }
}
