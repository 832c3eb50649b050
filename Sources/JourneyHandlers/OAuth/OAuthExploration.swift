import JourneyCore

extension TinkoffCallbackHandler: ExplorableHandler {
    /// The callback URL with a code, with `cancelled`, with `unavailable`, and a URL that is
    /// not the callback URL (`ignored`).
    public func explorationChoices(
        _ request: InputRequest, invocation: HandlerInvocation, device: DeviceState, hints: ExplorationHints
    ) -> [ExplorationChoice] {
        guard let callback = invocation.optionalText("callbackUrl") else { return [] }
        let separator = callback.contains("?") ? "&" : "?"
        return [
            ("code", "\(callback)\(separator)code=explored-code"),
            ("cancelled", "\(callback)\(separator)cancelled=true"),
            ("unavailable", "\(callback)\(separator)unavailable=true"),
            ("ignored", "https://elsewhere.example/callback?code=explored-code"),
        ].map { ExplorationChoice(label: $0.0, values: ["url": .string($0.1)]) }
    }
}

extension OIDCBrowserHandler: ExplorableHandler {
    /// Nothing beyond the actions: signing in (or cancelling) is what a user does; a redirect
    /// handed over is how a scenario stands in for a provider it does not run.
    public func explorationChoices(
        _ request: InputRequest, invocation: HandlerInvocation, device: DeviceState, hints: ExplorationHints
    ) -> [ExplorationChoice] { [] }
}
