import Foundation
import JourneyCore

/// `link.wait`: waits for a deep link, universal link or redirect that the driver delivers,
/// and routes it as the app's link handling does: by the rule of the link's scheme (which
/// part of the URL its routes look at, and in which order), to the first route whose text
/// that part contains; a link no route takes gives its scheme's `unmatched` outcome, else
/// `other`. Given `url`, it routes that link at once instead of asking for one.
///
/// With `domains` (the app's associated domains) an http(s) link reaches the app only from
/// one of those hosts, as iOS delivers universal links: a link of any other host opens in the
/// browser, which the step's `browser` outcome says, and no route looks at it.
///
/// Query and fragment values never reach the transcript (they carry codes and tokens);
/// `outcome.url` holds the redacted URL. With `secret: true` the whole URL is secret, and
/// `outcome.url` is the URL as received.
public struct LinkWaitHandler: StepHandler {
    public init() {}

    /// The parts of a link a route can look at.
    enum Part: String, CaseIterable {
        /// The URL without its query and fragment: scheme, host and path.
        case address
        /// The path alone (`eduid://account-linked` has an empty path: the word is its host).
        case path
        /// The host alone.
        case host
        /// The whole URL as received, query and fragment included.
        case url
    }

    public let contract = HandlerContract(
        id: "link.wait",
        summary:
            "Waits for a link the app receives and routes it by its scheme's rule: the first route whose text the part of the URL looked at contains is the outcome; a link no route takes gives its scheme's `unmatched` outcome, else `other`.",
        parameters: [
            ParameterSpec(
                name: "routes", kind: .tables, required: true,
                summary:
                    "outcome → text, checked in order; or a table of them per URL scheme (`*`: every other scheme), for apps that route each kind of link in its own order",
                keys: .id, tableNames: .scheme),
            ParameterSpec(
                name: "match", kind: .map,
                summary:
                    "scheme → the part of the URL its routes look at: `address` (scheme, host and path; the default), `path`, `host`, or `url` (the whole URL, query included); `*`: every other scheme",
                keys: .scheme, texts: .oneOf(Part.allCases.map(\.rawValue))),
            ParameterSpec(
                name: "unmatched", kind: .map,
                summary:
                    "scheme → the outcome of a link of that scheme no route takes (default `other`); `*`: every other scheme",
                keys: .scheme, texts: .id),
            ParameterSpec(
                name: "url", kind: .value(TypeInfo(.string)),
                summary:
                    "a link already received (the redirect a browser step hands back): routed at once, nothing is asked",
                mayBeSecret: true,
                shown: { url in
                    // A secret URL is shown as every secret is; any other with its query redacted.
                    guard !url.isSecret, case .string(let text) = url.revealed else { return url }
                    return .string(URLRedaction.redact(text))
                }),
            ParameterSpec(
                name: "domains", kind: .value(TypeInfo(.list)),
                summary:
                    "the app's associated domains: an http(s) link reaches the app only from one of these hosts (compared without case; `*.example.org` is every host under example.org), as iOS delivers universal links; a link of any other host opens in the browser (`browser`). Unless given, every link reaches the app",
                check: LinkWaitHandler.domainsProblem),
            ParameterSpec(
                name: "secret", kind: .value(TypeInfo(.bool)), defaultValue: .bool(false),
                summary: "whether whole links are secret; otherwise only their query and fragment values are redacted"),
        ],
        inputs: [LinkWaitHandler.linkInput],
        outcomes: [],
        actionsAreOutcomes: true,
        refinedInputs: [Conditional(LinkWaitHandler.linkInput, .absent("url"))],
        refinedOutcomes: [
            Conditional(
                OutcomeSpec(
                    name: "ROUTE",
                    summary:
                        "a link the route takes; `outcome.url` is the URL with its query and fragment values redacted, or with `secret: true` or `url` the whole URL, secret",
                    data: [DataSpec(name: "url", type: TypeInfo(.string))]),
                .eachKey("routes")),
            Conditional(
                OutcomeSpec(
                    name: "UNMATCHED", summary: "a link of a scheme `unmatched` names that no route takes",
                    data: [DataSpec(name: "url", type: TypeInfo(.string))]),
                .eachText("unmatched")),
            Conditional(
                OutcomeSpec(
                    name: "other", summary: "a link no route takes, of a scheme `unmatched` does not name",
                    data: [DataSpec(name: "url", type: TypeInfo(.string))]),
                .lacksKey("unmatched", key: LiteralTables.anyName)),
            Conditional(
                OutcomeSpec(
                    name: Self.browser,
                    summary: LinkWaitHandler.browserSummary, data: [DataSpec(name: "url", type: TypeInfo(.string))]),
                .given("domains")),
        ],
        refine: { shape, contract in
            let given = shape.given.contains("url")
            let secret = shape.constants["secret"] == .bool(true) || given
            let url = [DataSpec(name: "url", type: TypeInfo(.string, secret: secret))]
            let routes = shape.tables["routes"] ?? LiteralTables([])
            let unmatched = shape.maps["unmatched"] ?? []
            var outcomes: [OutcomeSpec] = routes.keys.map { outcome in
                let texts = routes.tables.compactMap { table in
                    table.entries.first { $0.key == outcome }.map {
                        table.name == LiteralTables.anyName ? "'\($0.text)'" : "\(table.name): '\($0.text)'"
                    }
                }
                return OutcomeSpec(
                    name: outcome, summary: "a link containing \(texts.joined(separator: "; ")) arrived", data: url)
            }
            var fallbacks = unmatched.map(\.value)
            if !unmatched.contains(where: { $0.key == LiteralTables.anyName }) { fallbacks.append("other") }
            for fallback in fallbacks where !outcomes.contains(where: { $0.name == fallback }) {
                let schemes = unmatched.filter { $0.value == fallback }.map(\.key)
                let which = schemes.isEmpty || fallback == "other" ? "" : " (\(schemes.joined(separator: ", ")))"
                outcomes.append(OutcomeSpec(name: fallback, summary: "a link\(which) that matches no route", data: url))
            }
            if shape.given.contains("domains"), !outcomes.contains(where: { $0.name == Self.browser }) {
                outcomes.append(OutcomeSpec(name: Self.browser, summary: Self.browserSummary, data: url))
            }
            contract.outcomes.insert(contentsOf: outcomes, at: 0)
            if given {
                contract.inputs.removeAll { $0.name == "link" }
            } else if let i = contract.inputs.firstIndex(where: { $0.name == "link" }) {
                contract.inputs[i].type.secret = secret
                contract.inputs[i].classes = outcomes.map(\.name)
            }
        })

    /// The outcome of an http(s) link from a host that is not one of the app's `domains`.
    static let browser = "browser"
    static let browserSummary =
        "an http(s) link of a host not among `domains`: it opens in the browser, and the app never sees it"

    static let linkInput = InputSpec(
        name: "link", type: TypeInfo(.string), summary: "the URL the app receives", redactsQuery: true)

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        let link: String
        var secret = invocation[parameter: "secret"] == .bool(true)
        if let given = invocation[parameter: "url"] {
            guard case .string(let text) = given.revealed else {
                throw HandlerError("'url' of step '\(invocation.step)' is not a text")
            }
            link = text
            secret = secret || given.isSecret
        } else {
            let (action, url) = try await context.askText("link", invocation)
            if let action { return HandlerResult(action) }
            link = url
        }
        let value = secret ? Value.secret(.string(link)) : Value.string(URLRedaction.redact(link))
        return HandlerResult(Self.route(link, invocation), data: ["url": value])
    }

    /// The outcome for `link`: the first route of its scheme's table whose text the part of the
    /// URL its scheme looks at contains; else its scheme's `unmatched` outcome, else `other`.
    static func route(_ link: String, _ invocation: HandlerInvocation) -> String {
        let scheme = Self.scheme(of: link)
        if scheme == "https" || scheme == "http", let domains = Self.domains(invocation),
            !Self.isAssociated(URLHost.of(link, scheme: scheme) ?? "", domains)
        {
            return Self.browser
        }
        func rule(_ name: String) -> String? {
            let entries = invocation.maps[name] ?? []
            return
                (entries.first { $0.key.lowercased() == scheme } ?? entries.first { $0.key == LiteralTables.anyName })?
                .value
        }
        let table =
            invocation.tables["routes"]?.tables.first { $0.name.lowercased() == scheme }
            ?? invocation.tables["routes"]?.table(for: LiteralTables.anyName)
        let part = rule("match").flatMap(Part.init(rawValue:)) ?? .address
        let text = Self.text(of: link, part)
        for route in table?.entries ?? [] where text.contains(route.text) {
            return route.key
        }
        return rule("unmatched") ?? "other"
    }

    /// The step's `domains`, lowercased, when it has them.
    static func domains(_ invocation: HandlerInvocation) -> [String]? {
        guard case .list(let items)? = invocation[parameter: "domains"]?.revealed else { return nil }
        return items.compactMap { if case .string(let host) = $0.revealed { host.lowercased() } else { nil } }
    }

    /// Why `value` is no list of associated domains: an entry that is not a host or `*.` and a
    /// host (an entitlement's `applinks:` prefix or `?mode=` suffix copied with it, a scheme, a
    /// path); nil when it is one, or not a list (which `journey check` reports as a type).
    static func domainsProblem(_ value: Value) -> String? {
        guard case .list(let items) = value.revealed else { return nil }
        for item in items {
            guard case .string(let domain) = item.revealed else { continue }
            let host = domain.hasPrefix("*.") ? domain.dropFirst(2) : Substring(domain)
            let labels = host.split(separator: ".", omittingEmptySubsequences: false)
            let isHost =
                !host.isEmpty
                && labels.allSatisfy { label in
                    !label.isEmpty && label.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" }
                }
            if !isHost {
                return
                    "'\(domain)' is not a host: write the domain alone (`eduid.nl`, or `*.eduid.nl` for the hosts under it), as an entitlement's `applinks:` entry names it without its prefix and `?mode=`"
            }
        }
        return nil
    }

    /// Whether `host` is one of `domains`: the same host, or under a `*.` domain (which, as an
    /// associated domain, takes the hosts under it but not itself).
    static func isAssociated(_ host: String, _ domains: [String]) -> Bool {
        guard !host.isEmpty else { return false }
        return domains.contains { domain in
            domain.hasPrefix("*.") ? host.hasSuffix(domain.dropFirst()) : host == domain
        }
    }

    /// The scheme, lowercased (schemes compare without case), or "" when the link has none.
    static func scheme(of link: String) -> String {
        guard let colon = link.firstIndex(of: ":") else { return "" }
        let scheme = link[..<colon].lowercased()
        let letters = "abcdefghijklmnopqrstuvwxyz"
        guard let first = scheme.first, letters.contains(first),
            scheme.allSatisfy({ letters.contains($0) || "0123456789+-.".contains($0) })
        else { return "" }
        return scheme
    }

    /// The part of the link a route looks at. Path and host are read as iOS reads them
    /// (percent escapes decoded); a link that is not a URL has neither.
    static func text(of link: String, _ part: Part) -> String {
        switch part {
        case .url: return link
        case .address: return String(link.prefix { $0 != "?" && $0 != "#" })
        case .path: return URLComponents(string: link)?.path ?? ""
        case .host: return URLComponents(string: link)?.host ?? ""
        }
    }
}
