import JourneyCore

extension BankSelectHandler: ExplorableHandler {
    /// `selected`: the first bank tapped; `searched`: a search for the first bank's name
    /// without a tap.
    public func explorationChoices(
        _ request: InputRequest, invocation: HandlerInvocation, device: DeviceState, hints: ExplorationHints
    ) -> [ExplorationChoice] {
        let ids = invocation.strings("ids")
        let names = invocation.strings("names")
        guard let id = ids.first, let name = names.first else { return [] }
        return [
            ExplorationChoice(label: "selected", values: ["bank": .string(id)]),
            ExplorationChoice(label: "searched", values: ["search": .string(String(name.prefix(3)))]),
        ]
    }
}

extension BankPageHandler: ExplorableHandler {
    /// `code`: a redirect to the first handled host with a code; `navigated`: another page;
    /// `external`: a link to an app the device has, when it has one.
    public func explorationChoices(
        _ request: InputRequest, invocation: HandlerInvocation, device: DeviceState, hints: ExplorationHints
    ) -> [ExplorationChoice] {
        var choices: [ExplorationChoice] = []
        if let host = invocation.strings("handledHosts").first {
            choices.append(
                ExplorationChoice(
                    label: "code", values: ["redirect": .string("https://\(host)/callback?code=c0de-2580-explored")]))
        }
        choices.append(
            ExplorationChoice(label: "navigated", values: ["redirect": .string("https://bank.example/next-page")]))
        if let app = device.profile.apps.sorted().first {
            choices.append(ExplorationChoice(label: "external", values: ["redirect": .string("\(app)://open")]))
        }
        return choices
    }
}
