import JourneyCore

/// A handler of one's own with a mistake: it gives back what was typed into its secret input
/// as data its contract does not declare secret, so the transcript shows it. What
/// `explore.no-secret-leak`, a golden's secret check and a counterexample's masking are tested
/// against.
public struct EchoingHandler: StepHandler {
    public let contract = HandlerContract(
        id: "test.echo", summary: "Asks for a code and gives it back.",
        inputs: [InputSpec(name: "code", type: TypeInfo(.string, secret: true), summary: "the code", classes: ["any"])],
        outcomes: [OutcomeSpec(name: "done", summary: "", data: [DataSpec(name: "shown", type: TypeInfo(.string))])])

    public init() {}

    /// A journey `t.echo` whose one step `s` runs it, then ends at `done`.
    public static let journey = """
        journey: t.echo
        version: 1
        title: Echo
        start: s
        steps:
          s:
            handler: test.echo
            on: { done: done }
        ends:
          done: { kind: success }
        """

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        let (_, code) = try await context.askText("code", invocation)
        return HandlerResult("done", data: ["shown": .string(code)])
    }
}

extension EchoingHandler: ExplorableHandler {
    public func explorationChoices(
        _ request: InputRequest, invocation: HandlerInvocation, device: DeviceState, hints: ExplorationHints
    ) -> [ExplorationChoice] { [ExplorationChoice(label: "any", values: ["code": .string("314159")])] }
}
