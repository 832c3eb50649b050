import JourneyCore

/// `ui.pin`: a simple PIN pad. The PIN is secret from the moment the driver gives it.
public struct PinEntryHandler: StepHandler {
    public init() {}

    public let contract = HandlerContract(
        id: "ui.pin", summary: "A PIN pad of `length` digits; the PIN entered is secret.",
        parameters: [
            ParameterSpec(name: "length", kind: .value(TypeInfo(.int)), defaultValue: .int(6), summary: "how many digits")
        ],
        inputs: [InputSpec(name: "pin", type: TypeInfo(.string, secret: true), summary: "the digits the user enters")],
        outcomes: [
            OutcomeSpec(
                name: "entered", summary: "the user entered all the digits",
                data: [DataSpec(name: "pin", type: TypeInfo(.string, secret: true))])
        ],
        actionsAreOutcomes: true)

    public func run(_ invocation: HandlerInvocation, context: HandlerContext) async throws -> HandlerResult {
        guard case .int(let length)? = invocation[parameter: "length"]?.revealed, (1...64).contains(length) else {
            throw HandlerError("'length' of step '\(invocation.step)' must be between 1 and 64")
        }
        let (action, values) = try await context.ask(invocation)
        if let action { return HandlerResult(action) }
        guard let pin = values["pin"], case .string(let digits) = pin.revealed else {
            throw HandlerError("step '\(invocation.step)' needs a 'pin' or an 'action'")
        }
        guard digits.count == length, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw HandlerError("the PIN given at step '\(invocation.step)' is not \(length) digits")
        }
        return HandlerResult("entered", data: ["pin": .secret(.string(digits))])
    }
}
