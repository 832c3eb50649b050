/// A URL's origin (scheme, host and port): what a scenario's `needs` names, what pins and
/// allowed discovery endpoints are kept to, and what a service lock is taken on.
public enum URLOrigin {
    /// `scheme://host:port`, lowercased, with the default port made explicit; nil when the
    /// URL has no scheme or host.
    public static func of(_ url: String) -> String? {
        guard let scheme = url.range(of: "://") else { return nil }
        let name = url[..<scheme.lowerBound].lowercased()
        let rest = url[scheme.upperBound...]
        var authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }.lowercased()
        if let at = authority.lastIndex(of: "@") { authority = String(authority[authority.index(after: at)...]) }
        guard !authority.isEmpty else { return nil }
        let hasPort = authority.last.map(\.isNumber) == true && authority.contains(":") && !authority.hasSuffix("]")
        if !hasPort { authority += name == "https" ? ":443" : name == "http" ? ":80" : "" }
        return name + "://" + authority
    }

    /// An origin as people write it: without the scheme's default port.
    public static func shown(_ origin: String) -> String {
        for (scheme, port) in [("https://", ":443"), ("http://", ":80")] where origin.hasPrefix(scheme) {
            if origin.hasSuffix(port) { return String(origin.dropLast(port.count)) }
        }
        return origin
    }
}

/// The host of a URL as a browser reads it (the WHATWG URL standard), not as Foundation's
/// parser does: `https://evil.example\@eduid.nl/` is evil.example's.
public enum URLHost {
    /// The host of `uri` if its scheme is `scheme` (lowercase), lowercased, without brackets
    /// round an IPv6 address; nil for another scheme. Spaces around the URI are dropped; after
    /// the scheme's colon come any number of slashes or backslashes, none included
    /// (`http:/example.com`, `http:example.com` and `http:\\example.com` all go to
    /// example.com); the host ends at a `/`, `\`, `?` or `#`, after any user info, before any port.
    public static func of(_ uri: String, scheme: String) -> String? {
        let lowered = uri.lowercased().trimmingCharacters(in: .whitespacesAndNewlines)
        guard lowered.hasPrefix(scheme + ":") else { return nil }
        let rest = lowered.dropFirst(scheme.count + 1).drop { $0 == "/" || $0 == "\\" }
        var authority = rest.prefix { $0 != "/" && $0 != "\\" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if authority.hasPrefix("[") { return String(authority.prefix { $0 != "]" }.dropFirst()) }
        return String(authority.prefix { $0 != ":" })
    }
}

/// The query of a URL as a browser reads it.
public enum URLQuery {
    /// What follows the first `?` that comes before the fragment, up to the fragment's `#`;
    /// nil without one. A `?` inside the fragment (`…/cb#?code=x`) starts no query.
    public static func of(_ url: Substring) -> Substring? {
        let fragment = url.firstIndex(of: "#") ?? url.endIndex
        guard let question = url[..<fragment].firstIndex(of: "?") else { return nil }
        return url[url.index(after: question)..<fragment]
    }
}
