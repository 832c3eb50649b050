import Foundation
import JourneyCore

/// `bankid.select`: the list of banks, with search. Searching is a case-insensitive
/// substring match on the name; an empty query shows every bank. An empty list gives
/// `empty` without showing anything to choose.
public struct BankSelectHandler: StepHandler {
    public init() {}

    public let contract = HandlerContract(
        id: "bankid.select",
        summary: "Choose a bank from `ids`/`names` (search: case-insensitive substring); `empty` when there are none.",
        parameters: [
            ParameterSpec(name: "ids", kind: .value(TypeInfo(.list)), required: true, summary: "bank ids"),
            ParameterSpec(
                name: "names", kind: .value(TypeInfo(.list)), required: true, summary: "bank names, same order"),
        ],
        inputs: [
            InputSpec(name: "search", type: TypeInfo(.string), summary: "text typed into the search field"),
            InputSpec(name: "bank", type: TypeInfo(.string), summary: "the id of the bank tapped, one of those shown"),
        ],
        outcomes: [
            OutcomeSpec(
                name: "selected", summary: "a bank was tapped",
                data: [
                    DataSpec(name: "bankId", type: TypeInfo(.string)),
                    DataSpec(name: "bankName", type: TypeInfo(.string)),
                    DataSpec(name: "shown", type: TypeInfo(.list)),
                ]),
            OutcomeSpec(
                name: "searched", summary: "a search without a choice",
                data: [DataSpec(name: "shown", type: TypeInfo(.list))]),
            OutcomeSpec(name: "empty", summary: "there are no banks to show"),
        ],
        actionsAreOutcomes: true)

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        let ids = invocation.strings("ids")
        let names = invocation.strings("names")
        guard ids.count == names.count else {
            throw HandlerError("'ids' and 'names' of step '\(invocation.step)' differ in length")
        }
        if ids.isEmpty { return HandlerResult("empty") }
        let (action, values) = try await context.ask(invocation)
        if let action { return HandlerResult(action) }
        var query = ""
        if case .string(let q)? = values["search"]?.revealed { query = q }
        let shown = zip(ids, names).filter { query.isEmpty || $0.1.lowercased().contains(query.lowercased()) }
        let shownNames = Value.list(shown.map { .string($0.1) })
        guard case .string(let bank)? = values["bank"]?.revealed else {
            return HandlerResult("searched", data: ["shown": shownNames])
        }
        guard let chosen = shown.first(where: { $0.0 == bank }) else {
            throw HandlerError("bank '\(bank)' is not in the list shown at step '\(invocation.step)'")
        }
        return HandlerResult(
            "selected", data: ["bankId": .string(chosen.0), "bankName": .string(chosen.1), "shown": shownNames])
    }
}

/// `bankid.page`: the bank's sign-in page in a web view, watching where it navigates. A
/// redirect to one of `handledHosts` carrying `code` gives `code` (secret); other http(s)
/// pages stay in the web view (`navigated`); custom schemes and App Store links open outside
/// the app (`external`) when the device can open them, and otherwise stay.
public struct BankPageHandler: StepHandler {
    public init() {}

    public let contract = HandlerContract(
        id: "bankid.page",
        summary: "The bank's page as a redirect watcher: `code` from a handled host, `navigated`, or `external`.",
        parameters: [
            ParameterSpec(
                name: "url", kind: .value(TypeInfo(.string)), required: true, summary: "the page to load",
                mayBeSecret: true),
            ParameterSpec(
                name: "handledHosts", kind: .value(TypeInfo(.list)), required: true,
                summary: "hosts whose redirects carry the code back to the app"),
        ],
        inputs: [
            InputSpec(
                name: "redirect", type: TypeInfo(.string), summary: "the next URL the page navigates to",
                classes: ["code", "navigated", "external"], redactsQuery: true)
        ],
        outcomes: [
            OutcomeSpec(
                name: "code", summary: "a redirect to a host of `handledHosts` with a `code` query item (secret)",
                data: [DataSpec(name: "code", type: TypeInfo(.string, secret: true))]),
            OutcomeSpec(
                name: "navigated",
                summary:
                    "the page stays in the web view: any other http(s) page, or a custom scheme no installed app opens",
                data: [DataSpec(name: "url", type: TypeInfo(.string))]),
            OutcomeSpec(
                name: "external",
                summary: "the link opened outside the app: a custom scheme whose app is installed, or the App Store",
                data: [DataSpec(name: "url", type: TypeInfo(.string))]),
        ],
        actionsAreOutcomes: true)

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        guard case .list(let hostValues)? = invocation[parameter: "handledHosts"]?.revealed else {
            throw HandlerError("'handledHosts' of step '\(invocation.step)' is not a list")
        }
        let handled = Set(hostValues.compactMap { if case .string(let s) = $0 { s.lowercased() } else { nil } })
        let (action, url) = try await context.askText("redirect", invocation)
        if let action { return HandlerResult(action) }
        let parts = URLParts(url)
        let shown = Value.string(URLRedaction.redact(url))
        if parts.scheme == "https" || parts.scheme == "http", parts.host != "apps.apple.com" {
            // Any `code=` item, even an empty one, is taken (BankIdAuthPresenter.handle: the
            // first query item named `code` with a value, and `?code=` has the value "").
            if handled.contains(parts.host), let code = parts.query["code"] {
                return HandlerResult("code", data: ["code": .secret(.string(code))])
            }
            return HandlerResult("navigated", data: ["url": shown])
        }
        // A custom scheme opens if an app for it is installed; App Store links always open.
        let canOpen = parts.host == "apps.apple.com" || context.device.apps.contains(parts.scheme)
        return HandlerResult(canOpen ? "external" : "navigated", data: ["url": shown])
    }
}

/// Just enough URL parsing for routing: scheme, host and query items (lowercased scheme and host).
struct URLParts {
    /// The names of the query items, in order, including those without a value (`?cancelled`),
    /// percent-decoded as Foundation's `URLQueryItem` names are (`?cancell%65d` is `cancelled`).
    static func queryNames(_ url: String) -> [String] {
        guard let query = URLQuery.of(url[...]) else { return [] }
        return query.split(separator: "&").map {
            let raw = String($0.prefix { $0 != "=" })
            return raw.removingPercentEncoding ?? raw
        }
    }

    var scheme = ""
    var host = ""
    /// The query items written `name=value`, by name (the first of each), the value possibly
    /// empty. An item without `=` (`?cancelled`) has no value, as with Foundation's
    /// `URLQueryItem`: it is in ``queryNames(_:)`` only.
    var query: [String: String] = [:]
    /// Every query item written `name=value`, in order, repeated names included.
    var items: [(name: String, value: String)] = []

    init(_ url: String) {
        guard let colon = url.firstIndex(of: ":") else { return }
        scheme = url[..<colon].lowercased()
        var rest = url[url.index(after: colon)...]
        if rest.hasPrefix("//") {
            rest = rest.dropFirst(2)
            let end = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
            var authority = rest[..<end]
            if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
            if authority.hasPrefix("[") {
                // An IPv6 literal: its colons are the address's, the port's follows the `]`.
                authority = authority.prefix { $0 != "]" }.dropFirst()
            } else if let port = authority.lastIndex(of: ":") {
                authority = authority[..<port]
            }
            host = authority.lowercased()
            rest = rest[end...]
        }
        if let written = URLQuery.of(rest) {
            for pair in written.split(separator: "&") {
                guard let equals = pair.firstIndex(of: "=") else { continue }
                let rawName = String(pair[..<equals])
                let rawValue = String(pair[pair.index(after: equals)...])
                let name = rawName.removingPercentEncoding ?? rawName
                let value = rawValue.removingPercentEncoding ?? rawValue
                if query[name] == nil { query[name] = value }
                items.append((name, value))
            }
        }
    }
}
