// `auth.plain-http` and `auth.redirect-uri`: one family of the static auth rules (``AuthRuleCheck``).

extension AuthRuleCheck {
    static let redirectParameters: Set<String> = ["redirectUri", "postLogoutRedirectUri", "callbackUrl"]

    /// The handlers that talk to an authorization server: every address a step of theirs is
    /// given is the server's.
    static let serverHandlerPrefixes = ["oidc.", "tinkoff."]

    /// ``AuthRule/plainHTTP``: an address given to a handler that talks to an authorization
    /// server, plain http to another machine.
    mutating func serverAddresses() {
        for step in journey.steps {
            guard let handler = handlerID(step), Self.serverHandlerPrefixes.contains(where: handler.hasPrefix) else {
                continue
            }
            for (name, value) in step.with where !Self.redirectParameters.contains(name.value) {
                guard let text = resolved(value), let problem = AuthRule.endpointProblem(text) else { continue }
                find(.plainHTTP, "'\(name.value)' of step '\(step.id.value)' \(problem)", at: value.location)
            }
        }
    }

    /// ``AuthRule/redirectURI``: plain http to a host that is not a loopback IP, or `localhost`.
    mutating func redirectURIs() {
        for step in journey.steps {
            for (name, value) in step.with where Self.redirectParameters.contains(name.value) {
                guard let text = resolved(value), let problem = AuthRule.redirectProblem(text) else { continue }
                find(.redirectURI, "'\(name.value)' of step '\(step.id.value)' \(problem)", at: value.location)
            }
        }
    }
}
