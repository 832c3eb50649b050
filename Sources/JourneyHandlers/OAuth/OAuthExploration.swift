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
    /// Besides the actions (signing in at the provider, cancelling), the redirects a browser
    /// can hand back that are not the provider's answer to this request, as a scenario hands
    /// one over for a provider it does not run: to the registered redirect URI (the
    /// authorization request's `redirect_uri`) with a state that is not the one sent
    /// (`forgedState`), and with a code to another URI on the same scheme (`otherOnScheme`) or
    /// elsewhere (`elsewhere`). The provider's own answer, which carries the state sent, is not
    /// made: the state is drawn at random when the journey runs, so a scenario written from a
    /// path through it would not play the same; a start whose stubs answer the sign-in plays it.
    /// None when the request has no redirect URI, or when the step signs in silently.
    public func explorationChoices(
        _ request: InputRequest, invocation: HandlerInvocation, device: DeviceState, hints: ExplorationHints
    ) -> [ExplorationChoice] {
        guard invocation[parameter: "silent"] != .bool(true), let url = invocation.optionalText("url"),
            let redirectURI = URLParts(url).query["redirect_uri"], let colon = redirectURI.firstIndex(of: ":")
        else { return [] }
        let separator = redirectURI.contains("?") ? "&" : "?"
        let scheme = redirectURI[..<colon]
        return [
            ("forgedState", "\(redirectURI)\(separator)code=explored-code&state=explored-forged-state"),
            ("otherOnScheme", "\(scheme)://explored-elsewhere/?code=explored-code&state=explored-state"),
            ("elsewhere", "https://elsewhere.example/callback?code=explored-code&state=explored-state"),
        ].map { ExplorationChoice(label: $0.0, values: ["redirect": .string($0.1)]) }
    }
}
