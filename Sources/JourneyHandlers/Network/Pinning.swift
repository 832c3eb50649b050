import Foundation
import JourneyCore

/// Certificate pinning for the handlers that send the app's own requests, as iOS's
/// `NSPinnedDomains` configures it: `pins` (the keys) and `pinnedDomains` (the hosts they are
/// for, each with its subdomains; without it, every request of the step), and, at every step
/// that gives `pins`, a `pinMismatch` outcome the journey must handle. A pinned request goes
/// only over https to a server whose verified certificate chain holds one of the keys
/// (``ServerTrust``). Scenario stubs have no certificates: pins are checked on the real network.
enum Pinning {
    static let parameter = ParameterSpec(
        name: "pins", kind: .value(TypeInfo(.list)),
        summary:
            "key pins (SHA-256 of a certificate's public key, base64, as iOS's SPKI-SHA256-BASE64): pinned requests go over https only, to a server whose certificate chain holds one of these keys",
        check: { KeyPin.problem(in: $0) })

    static let domains = ParameterSpec(
        name: "pinnedDomains", kind: .value(TypeInfo(.list)),
        summary:
            "the hosts `pins` are for, each with its subdomains (`NSPinnedDomains` with `NSIncludesSubdomains`); without it, every request of the step is pinned"
    )

    static let parameters = [parameter, domains]

    static let outcome = OutcomeSpec(
        name: "pinMismatch",
        summary:
            "the server's certificate chain holds none of the pinned keys (or the URL is not https); nothing was sent",
        data: [DataSpec(name: "origin", type: TypeInfo(.string))])

    /// `pinMismatch`, at the steps that give `pins`: what ``refine(_:_:)`` does, as data.
    static let refinedOutcomes = [Conditional(outcome, .given(parameter.name))]

    /// Adds `pinMismatch` at the steps that give `pins`.
    static func refine(_ shape: StepShape, _ contract: inout StepContract) {
        if shape.given.contains(parameter.name) { contract.outcomes.append(outcome) }
    }

    /// The request with the step's pins, when its host is one they are for.
    static func pinned(_ request: HTTPRequest, _ invocation: HandlerInvocation) -> HTTPRequest {
        var request = request
        let domains = invocation.strings(Self.domains.name)
        if domains.isEmpty || covers(domains, request.url) { request.pins = invocation.strings(parameter.name) }
        return request
    }

    /// Whether a URL's host is one of the domains or under one of them.
    static func covers(_ domains: [String], _ url: String) -> Bool {
        guard let host = URLComponents(string: url)?.host?.lowercased(), !host.isEmpty else { return false }
        return domains.contains { domain in
            let domain = domain.lowercased()
            return host == domain || host.hasSuffix("." + domain)
        }
    }

    /// The outcome of a request the network did not answer: `pinMismatch`, or `offline`.
    static func result(_ error: NetworkError, url: String) -> HandlerResult {
        guard case .pinMismatch = error else { return HandlerResult("offline") }
        let origin = URLOrigin.of(url).map(URLOrigin.shown) ?? ""
        return HandlerResult(outcome.name, data: ["origin": .string(origin)])
    }
}

extension HandlerContext {
    /// Sends a request with the step's pins.
    nonisolated(nonsending) func send(
        _ request: HTTPRequest, pinnedBy invocation: HandlerInvocation
    ) async throws -> HTTPResponse {
        try await send(Pinning.pinned(request, invocation))
    }
}
