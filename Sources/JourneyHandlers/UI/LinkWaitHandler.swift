import JourneyCore

/// `link.wait`: waits for a deep link, universal link or redirect that the driver delivers,
/// and routes it: the first route whose text the URL (without its query) contains is the
/// outcome, else `other`.
///
/// Query and fragment values never reach the transcript (they carry codes and tokens);
/// `outcome.url` holds the redacted URL. With `secret: true` the whole URL is secret.
public struct LinkWaitHandler: StepHandler {
    public init() {}

    public let contract = HandlerContract(
        id: "link.wait",
        summary:
            "Waits for a link the app receives; the first matching route is the outcome, anything else is `other`.",
        parameters: [
            ParameterSpec(
                name: "routes", kind: .map, required: true,
                summary: "outcome → text the URL must contain, checked in order"),
            ParameterSpec(
                name: "secret", kind: .value(TypeInfo(.bool)), defaultValue: .bool(false),
                summary: "whether whole links are secret; otherwise only their query and fragment values are redacted"),
        ],
        inputs: [
            InputSpec(name: "link", type: TypeInfo(.string), summary: "the URL the app receives", redactsQuery: true)
        ],
        outcomes: [
            OutcomeSpec(
                name: "other", summary: "a link that matches no route",
                data: [DataSpec(name: "url", type: TypeInfo(.string))])
        ],
        actionsAreOutcomes: true,
        refine: { shape, contract in
            let secret = shape.constants["secret"] == .bool(true)
            let routes = shape.maps["routes"] ?? []
            let url = [DataSpec(name: "url", type: TypeInfo(.string, secret: secret))]
            if let i = contract.inputs.firstIndex(where: { $0.name == "link" }) {
                contract.inputs[i].type.secret = secret
                contract.inputs[i].classes = routes.map(\.key) + ["other"]
            }
            if let i = contract.outcomes.firstIndex(where: { $0.name == "other" }) { contract.outcomes[i].data = url }
            contract.outcomes.insert(
                contentsOf: routes.map {
                    OutcomeSpec(name: $0.key, summary: "a link containing '\($0.value)' arrived", data: url)
                }, at: 0)
        })

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        let (action, url) = try await context.askText("link", invocation)
        if let action { return HandlerResult(action) }
        let secret = invocation[parameter: "secret"] == .bool(true)
        let value = secret ? Value.secret(.string(url)) : Value.string(URLRedaction.redact(url))
        // Routes look at the scheme, host and path; a query can carry anything.
        let address = url.prefix { $0 != "?" && $0 != "#" }
        for (outcome, needle) in invocation.maps["routes"] ?? [] where address.contains(needle) {
            return HandlerResult(outcome, data: ["url": value])
        }
        return HandlerResult("other", data: ["url": value])
    }
}
