import JourneyCore

/// `session.state`: who the app is signed in as, from the tokens on the device: a user token
/// means `userAuth`, else a service token `serviceAuth`, else `notAuthorized` (Diia's
/// AuthorizationService works out its initial state the same way).
public struct SessionStateHandler: StepHandler {
    public init() {}

    public let contract = HandlerContract(
        id: "session.state",
        summary: "`userAuth`, `serviceAuth` or `notAuthorized`, from the tokens in the device store.",
        parameters: [
            ParameterSpec(
                name: "userToken", kind: .value(TypeInfo(.string)), defaultValue: .string("authorizationToken"),
                summary: "store key of the user token", storeKey: .reads),
            ParameterSpec(
                name: "serviceToken", kind: .value(TypeInfo(.string)), defaultValue: .string("serviceToken"),
                summary: "store key of the service token", storeKey: .reads),
        ],
        outcomes: [
            OutcomeSpec(name: "userAuth", summary: "a user token is stored"),
            OutcomeSpec(name: "serviceAuth", summary: "only a service token is stored"),
            OutcomeSpec(name: "notAuthorized", summary: "no token is stored"),
        ])

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        func present(_ key: String) -> Bool {
            if case .string(let token)? = context.stored(key)?.revealed { return !token.isEmpty }
            return false
        }
        if present(try invocation.text("userToken")) { return HandlerResult("userAuth") }
        if present(try invocation.text("serviceToken")) { return HandlerResult("serviceAuth") }
        return HandlerResult("notAuthorized")
    }
}
