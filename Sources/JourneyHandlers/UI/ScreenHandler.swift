import JourneyCore

/// `ui.screen`: an information screen; the user presses one of its actions.
public struct ScreenHandler: StepHandler {
    public init() {}

    public let contract = HandlerContract(
        id: "ui.screen",
        summary:
            "An information screen with actions; each enabled action is an outcome, and with `networkBack` the network coming back is one too.",
        parameters: [
            ParameterSpec(
                name: "networkBack", kind: .value(TypeInfo(.bool)),
                summary:
                    "also leave the screen with outcome `networkBack` when a scenario's `online: true` brings the device's network back while it shows, as an app's reachability observer reacts (a repeat while online does nothing); off unless `true`"
            ),
            ParameterSpec(
                name: "timeout", kind: .value(TypeInfo(.duration)),
                summary:
                    "leave the screen with outcome `timeout` when it has shown this long on the virtual clock without the user leaving it (a session that locks after five idle minutes)",
                range: 1...Duration.maximum),
        ],
        actionsAreOutcomes: true,
        refinedInputs: [Conditional(ScreenHandler.networkInput, .isTrue("networkBack"))],
        refinedOutcomes: [
            Conditional(ScreenHandler.networkBack, .isTrue("networkBack")),
            Conditional(ScreenHandler.timedOut, .given("timeout")),
        ],
        refine: { shape, contract in
            if shape.constants["networkBack"] == .bool(true) {
                contract.inputs.append(ScreenHandler.networkInput)
                contract.outcomes.append(ScreenHandler.networkBack)
            }
            // Its time runs from when the step was entered: how long it has shown is part of
            // where a run is.
            if shape.given.contains("timeout") {
                contract.outcomes.append(ScreenHandler.timedOut)
                contract.readsTimeAtStep = true
            }
        })

    static let timedOut = OutcomeSpec(
        name: "timeout", summary: "the screen showed for `timeout` on the virtual clock and the user did not leave it")

    static let networkBack = OutcomeSpec(
        name: "networkBack",
        summary: "a scenario's `online: true` brought the device's network back while the screen showed")

    /// The input a screen that waits for the network asks for: the driver gives it when a
    /// scenario's `online: true` arrives while the screen shows.
    public static let networkInput = InputSpec(
        name: "network", type: TypeInfo(.bool), summary: "the network came back (a scenario's `online: true`)")

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        guard invocation.canBeLeft || invocation[parameter: "timeout"] != nil else {
            throw HandlerError("step '\(invocation.step)' shows no enabled action, so the user cannot leave it")
        }
        let answer: (action: String?, values: [String: Value])
        if case .duration(let timeout)? = invocation[parameter: "timeout"] {
            // From when the step was entered, not when this run of the handler began: a run taken
            // up again at the waiting step (an explorer's next move) starts the handler again.
            guard let given = try await context.ask(invocation, until: context.stepEnteredAt + timeout) else {
                return HandlerResult("timeout")
            }
            answer = given
        } else {
            answer = try await context.ask(invocation)
        }
        let (action, values) = answer
        if action == nil, values.value(named: "network") == .bool(true) { return HandlerResult("networkBack") }
        guard let action else { throw HandlerError("step '\(invocation.step)' needs an 'action'") }
        return HandlerResult(action)
    }
}

/// `ui.alert`: an alert with actions, or one that dismisses itself after `dismissAfter`.
public struct AlertHandler: StepHandler {
    public init() {}

    public let contract = HandlerContract(
        id: "ui.alert",
        summary: "An alert with actions; with `dismissAfter` it closes by itself after that time on the virtual clock.",
        parameters: [
            ParameterSpec(
                name: "dismissAfter", kind: .value(TypeInfo(.duration)),
                summary: "close the alert after this long, with outcome `dismissed`; the user is not asked",
                range: 0...Duration.maximum)
        ],
        actionsAreOutcomes: true,
        refinedOutcomes: [Conditional(AlertHandler.dismissed, .given("dismissAfter"))],
        refine: { shape, contract in
            guard shape.given.contains("dismissAfter") else { return }
            contract.inputs.removeAll { $0.name == "action" }
            contract.outcomes = contract.outcomes.map {
                var o = $0; o.optional = true; return o
            }
            contract.outcomes.append(AlertHandler.dismissed)
        })

    static let dismissed = OutcomeSpec(name: "dismissed", summary: "the alert closed by itself")

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        if case .duration(let ms)? = invocation[parameter: "dismissAfter"] {
            context.wait(milliseconds: ms, reason: "alert dismisses itself")
            return HandlerResult("dismissed")
        }
        guard invocation.canBeLeft else {
            throw HandlerError("alert '\(invocation.step)' has no enabled action and no 'dismissAfter'")
        }
        let (action, _) = try await context.ask(invocation)
        guard let action else { throw HandlerError("alert '\(invocation.step)' needs an 'action'") }
        return HandlerResult(action)
    }
}

/// `ui.choice`: pick one of a list of options (banks, accounts, …), or press an action.
public struct ChoiceHandler: StepHandler {
    public init() {}

    public let contract = HandlerContract(
        id: "ui.choice", summary: "A list to choose from; `empty` when there is nothing to choose.",
        parameters: [
            ParameterSpec(
                name: "options", kind: .value(TypeInfo(.list)), required: true, summary: "the options to choose from")
        ],
        inputs: [
            InputSpec(name: "choice", type: TypeInfo(.string), summary: "the option the user picks: one of `options`")
        ],
        outcomes: [
            OutcomeSpec(
                name: "chosen", summary: "the user picked an option",
                data: [DataSpec(name: "choice", type: TypeInfo(.string))]),
            OutcomeSpec(name: "empty", summary: "there were no options to show"),
        ],
        actionsAreOutcomes: true)

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        guard case .list(let options)? = invocation[parameter: "options"]?.revealed else {
            throw HandlerError("'options' of step '\(invocation.step)' is not a list")
        }
        if options.isEmpty { return HandlerResult("empty") }
        let (action, values) = try await context.ask(invocation)
        if let action { return HandlerResult(action) }
        guard let choice = values["choice"] else {
            throw HandlerError("step '\(invocation.step)' needs a 'choice' or an 'action'")
        }
        guard options.contains(choice.revealed) else {
            throw HandlerError("the choice at step '\(invocation.step)' is not one of its \(options.count) options")
        }
        return HandlerResult("chosen", data: ["choice": choice])
    }
}
