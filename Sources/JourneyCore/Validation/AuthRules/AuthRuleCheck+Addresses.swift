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

    /// ``AuthRule/redirectURI`` and ``AuthRule/plainHTTP`` through a call: a redirect URI or a
    /// server's address that a called journey's step builds from its params, with what this
    /// journey gives them (`call: shared.sign-in` `with: { callback: "http://evil.example/cb" }`).
    /// Found at what this journey gives, the one place to put it right.
    mutating func addressesGivenToCalls() {
        for step in journey.steps {
            guard case .call(let callee) = step.kind, let called = all[callee.value] else { continue }
            var given: [String: String] = [:]
            var locations: [String: SourceLocation] = [:]
            for (name, value) in step.with {
                guard let text = resolved(value) else { continue }
                given[name.value] = text
                locations[name.value] = value.location
            }
            for found in Self.addressProblems(in: called, given: given, handlers: handlers, all: all) {
                guard let location = locations[found.param] else { continue }
                find(
                    found.rule,
                    "'\(found.param)' of step '\(step.id.value)' gives \(callee.value)'s step '\(found.step)' a '\(found.parameter)' that \(found.problem)",
                    at: location)
            }
        }
    }

    /// The redirect URIs and servers' addresses the steps of `journey` build from its params,
    /// worked out with what a caller (a calling step, a scenario) gives them, that break
    /// ``AuthRule/redirectURI`` or ``AuthRule/plainHTTP``: each with the param given, once.
    /// What the journey's own defaults hold is its own finding, not the giver's.
    static func addressProblems(
        in journey: Journey, given: [String: String], handlers: HandlerRegistry, all: [String: Journey]
    ) -> [(param: String, step: String, parameter: String, rule: AuthRule, problem: String)] {
        guard !given.isEmpty else { return [] }
        let inner = AuthRuleCheck(journey: journey, handlers: handlers, all: all)
        var found: [(param: String, step: String, parameter: String, rule: AuthRule, problem: String)] = []
        var said = Set<String>()
        for step in journey.steps {
            let server = step.handlerID.map { id in serverHandlerPrefixes.contains(where: id.hasPrefix) }
            for (name, value) in step.with {
                let redirect = redirectParameters.contains(name.value)
                guard redirect || server == true, case .scalar(let text, _, _) = value,
                    case .success(let template) = Template.parse(text)
                else { continue }
                // The params given that it reads: without one, the journey's own check finds it.
                let read = template.parts.flatMap { part -> [String] in
                    guard case .expression(let expression, _) = part else { return [] }
                    return expression.references.filter { $0.count == 2 && $0[0] == "params" }.map { $0[1] }
                }
                guard let param = read.first(where: { given[$0] != nil }),
                    let address = inner.resolved(value, given: given),
                    let problem = redirect ? AuthRule.redirectProblem(address) : AuthRule.endpointProblem(address),
                    said.insert(param).inserted
                else { continue }
                found.append((param, step.id.value, name.value, redirect ? .redirectURI : .plainHTTP, problem))
            }
        }
        return found
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
