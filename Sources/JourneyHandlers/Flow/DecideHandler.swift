import JourneyCore

/// `flow.decide`: a step that shows nothing and does nothing; its `next` transition's guards
/// decide where the journey goes (for example, "is biometry available and allowed?").
public struct DecideHandler: StepHandler {
    public init() {}

    public let contract = HandlerContract(
        id: "flow.decide", summary: "Shows nothing; its `next` transition's guarded branches choose the way on.",
        outcomes: [OutcomeSpec(name: "next", summary: "always; its guarded branches choose the way")])

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        HandlerResult("next")
    }
}
