import JourneyCore

/// `ui.pin`: a simple PIN pad. The PIN is secret from the moment the driver gives it.
///
/// Without `expected` the step gives `entered` with the PIN; with `expected` (a secret) it
/// compares in constant time and gives `correct` or `wrong`, which is what attempt limits
/// count. (Hashing, salts and device-bound keys belong to the `pin.*` handlers.)
public struct PinEntryHandler: StepHandler {
    public init() {}

    public let contract = HandlerContract(
        id: "ui.pin",
        summary:
            "A PIN pad of `length` digits: gives `entered` with the PIN, or with `expected` compares in constant time (charging the step's attempt limit first) and gives `correct` or `wrong`. It compares with a PIN it is given; to keep a PIN on the device, use `pin.save` and `pin.verify`.",
        parameters: [
            ParameterSpec(
                name: "length", kind: .value(TypeInfo(.int)), defaultValue: .int(6), summary: "how many digits",
                range: 1...64),
            ParameterSpec(
                name: "expected", kind: .value(TypeInfo(.string, secret: true)),
                summary: "the PIN to compare with; the step then gives `correct` or `wrong`"),
        ],
        inputs: [pinInput],
        outcomes: [PinEntryHandler.entered],
        actionsAreOutcomes: true,
        refinedOutcomes: [
            Conditional(PinEntryHandler.entered, .absent("expected"))
        ] + PinEntryHandler.compared.map { Conditional($0, .given("expected")) },
        credentialCheck: .init(accepted: ["correct"], refused: ["wrong"]),
        refine: { shape, contract in
            guard shape.given.contains("expected") else { return }
            contract.outcomes.removeAll { $0.name == "entered" }
            contract.outcomes.insert(contentsOf: PinEntryHandler.compared, at: 0)
            if let i = contract.inputs.firstIndex(where: { $0.name == "pin" }) {
                contract.inputs[i].classes = ["correct", "wrong"]
            }
        })

    static let entered = OutcomeSpec(
        name: "entered", summary: "the user entered all the digits",
        data: [DataSpec(name: "pin", type: TypeInfo(.string, secret: true))])

    /// The outcomes of a step that compares with `expected`.
    static let compared = [
        OutcomeSpec(name: "correct", summary: "the PIN matches `expected`"),
        OutcomeSpec(name: "wrong", summary: "the PIN does not match `expected`"),
    ]

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        guard case .int(let length)? = invocation[parameter: "length"]?.revealed, (1...64).contains(length) else {
            throw HandlerError("'length' of step '\(invocation.step)' must be between 1 and 64")
        }
        let (action, digits) = try await context.pinPad(invocation, length: length)
        if let action { return HandlerResult(action) }
        let pin = digits ?? ""
        if let expected = invocation[parameter: "expected"] {
            guard case .string(let wanted) = expected.revealed else {
                throw HandlerError("'expected' of step '\(invocation.step)' is not a text")
            }
            context.chargeAttempt()
            return HandlerResult(ConstantTime.equal(pin, wanted) ? "correct" : "wrong")
        }
        return HandlerResult("entered", data: ["pin": .secret(.string(pin))])
    }
}
