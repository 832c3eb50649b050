import JourneyCore

/// `session.clear`: wipes the device store except the keys listed in `keep` (Diia keeps its
/// pending logout token and the device id). Every removal is recorded in the transcript.
public struct ClearStoreHandler: StepHandler {
    public init() {}

    public let contract: HandlerContract = {
        var contract = HandlerContract(
            id: "session.clear", summary: "Removes every stored value except those listed in `keep`.",
            parameters: [
                ParameterSpec(
                    name: "keep", kind: .value(TypeInfo(.list)), defaultValue: .list([]),
                    summary: "store keys that survive")
            ],
            outcomes: [OutcomeSpec(name: "cleared", summary: "the store holds only the kept keys")])
        contract.touchesEveryStoredKey = true
        return contract
    }()

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        guard case .list(let items)? = invocation[parameter: "keep"]?.revealed else {
            throw HandlerError("'keep' of step '\(invocation.step)' is not a list")
        }
        let keep = Set(items.compactMap { if case .string(let s) = $0 { s } else { nil } })
        for key in context.storedKeys where !keep.contains(key) { context.store(key, nil) }
        return HandlerResult("cleared")
    }
}
