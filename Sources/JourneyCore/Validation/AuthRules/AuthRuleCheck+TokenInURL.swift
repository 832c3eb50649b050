// `auth.token-in-url`: one family of the static auth rules (``AuthRuleCheck``).

extension AuthRuleCheck {
    /// ``AuthRule/tokenInURL``: an `http.request` whose URL sends a credential in its query
    /// (`?access_token=${stored.accessToken}`, `&password=…`), where servers, proxies and the
    /// device's own logs keep it whoever reads them.
    mutating func tokensInURLs() {
        for step in journey.steps where step.handlerID == "http.request" {
            guard let url = step.parameter("url"), case .scalar(let text, _, let location) = url else { continue }
            // The query as written, an expression standing for what the run gives.
            guard let query = URLQuery.of(text[...]) else { continue }
            var said = Set<String>()
            for item in query.split(separator: "&") {
                guard let equals = item.firstIndex(of: "=") else { continue }
                let name = String(item[..<equals]).removingPercentEncoding ?? String(item[..<equals])
                let value = item[item.index(after: equals)...]
                let credential =
                    Self.credentialFields.contains(name.lowercased()) || Self.namesASecret(name)
                guard credential, !value.isEmpty, said.insert(name).inserted else { continue }
                find(
                    .tokenInURL,
                    "the URL of step '\(step.id.value)' sends '\(name)' in its query, which servers, proxies and logs keep; send it in a header ('Authorization: Bearer ${…}') or in the body (RFC 6750 2.3)",
                    at: location)
            }
        }
    }
}
