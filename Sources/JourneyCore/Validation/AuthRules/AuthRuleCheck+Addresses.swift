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
            guard let handler = step.handlerID, Self.serverHandlerPrefixes.contains(where: handler.hasPrefix) else {
                continue
            }
            for (name, value) in step.with where !Self.redirectParameters.contains(name.value) {
                guard let text = resolved(value), let problem = AuthRule.endpointProblem(text) else { continue }
                find(
                    .plainHTTP, "'\(name.value)' of step '\(step.id.value)' \(problem)\(fromDefault(value))",
                    at: value.location)
            }
        }
    }

    /// ``AuthRule/redirectURI``: plain http to a host that is not a loopback IP, or `localhost`.
    mutating func redirectURIs() {
        for step in journey.steps {
            for (name, value) in step.with where Self.redirectParameters.contains(name.value) {
                guard let text = resolved(value), let problem = AuthRule.redirectProblem(text) else { continue }
                find(
                    .redirectURI, "'\(name.value)' of step '\(step.id.value)' \(problem)\(fromDefault(value))",
                    at: value.location)
            }
        }
    }

    /// Where an address that starts with a param (`${params.issuer}/token`) takes its scheme and
    /// host from: the param's default, the one place to put it right for every step given it.
    private func fromDefault(_ value: RawValue) -> String {
        guard case .scalar(let text, _, _) = value, text.hasPrefix("${"),
            case .success(let template) = Template.parse(text),
            case .expression(let expression, _)? = template.parts.first,
            let param = param(readBy: expression), let location = param.defaultValue?.location
        else { return "" }
        return " (from the default of params.\(param.name.value) at line \(location.line): put it right there)"
    }
}
