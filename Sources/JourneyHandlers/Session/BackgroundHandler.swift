import JourneyCore

/// `app.background`: the app is in the background until the driver brings it back
/// (`event: foreground`). `outcome.away` is how long it was away, in seconds of virtual time,
/// so a journey can decide whether to ask for the PIN again.
public struct BackgroundHandler: StepHandler {
    public init() {}

    public let contract = HandlerContract(
        id: "app.background",
        summary:
            "The app waits in the background until brought to the foreground; `outcome.away` is the time away (s).",
        inputs: [
            InputSpec(
                name: "event", type: TypeInfo(.string), summary: "what happens to the app: `foreground`",
                classes: ["foreground"])
        ],
        outcomes: [
            OutcomeSpec(
                name: "foreground",
                summary:
                    "the app is back in the foreground; `outcome.away` is how long it was away, in seconds on the virtual clock",
                data: [DataSpec(name: "away", type: TypeInfo(.int))])
        ],
        readsTimeAtStep: true)

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        let values = try await context.input(invocation.request())
        guard values["event"]?.revealed == .string("foreground") else {
            throw HandlerError("step '\(invocation.step)' needs 'event: foreground'")
        }
        // The app went to the background when the step was entered.
        return HandlerResult("foreground", data: ["away": .int((context.now - context.stepEnteredAt) / 1000)])
    }
}
