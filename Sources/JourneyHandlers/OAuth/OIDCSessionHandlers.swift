import Foundation
import JourneyCore

/// `oidc.revoke`: token revocation (RFC 7009). The token goes in the form body, never in a
/// URL; a provider that wants the caller authenticated gets the access token as a Bearer
/// header. The provider answers 200 whether or not the token was valid (RFC 7009 §2.2), so
/// `revoked` says the request was accepted, not that the token had been alive.
public struct OIDCRevokeHandler: StepHandler {
    public init() {}

    public let contract = HandlerContract(
        id: "oidc.revoke",
        summary:
            "Token revocation (RFC 7009): `revoked` (200), `failed` (status, error) or `offline`; the token travels in the body, never in a URL.",
        parameters: [
            ParameterSpec(
                name: "endpoint", kind: .value(TypeInfo(.string)), required: true,
                summary: "the revocation endpoint (discovery's `revocationEndpoint`)"),
            ParameterSpec(name: "clientId", kind: .value(TypeInfo(.string)), required: true, summary: "the client"),
            ParameterSpec(
                name: "token", kind: .value(TypeInfo(.string, secret: true)), required: true,
                summary: "the token to revoke"),
            ParameterSpec(
                name: "hint", kind: .value(TypeInfo(.string)), defaultValue: .string("refresh_token"),
                summary: "`token_type_hint`: refresh_token or access_token"),
            ParameterSpec(
                name: "accessToken", kind: .value(TypeInfo(.string, secret: true)),
                summary: "sent as a Bearer header when the provider wants the caller authenticated"),
        ] + Pinning.parameters,
        outcomes: [
            OutcomeSpec(
                name: "revoked",
                summary: "200: the provider accepted the revocation (it answers so whether or not the token was alive)"),
            OutcomeSpec(
                name: "failed", summary: "the provider refused it",
                data: [
                    DataSpec(name: "status", type: TypeInfo(.int)), DataSpec(name: "error", type: TypeInfo(.string)),
                ]),
            OutcomeSpec(name: "offline", summary: "no response"),
        ],
        refinedOutcomes: Pinning.refinedOutcomes, refine: Pinning.refine)

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        var headers: [HTTPRequest.Header] = [.init("Content-Type", "application/x-www-form-urlencoded")]
        if let bearer = invocation.optionalText("accessToken") {
            headers.append(.init("Authorization", "Bearer " + bearer))
        }
        let form = FormEncoding.encode([
            ("token", try invocation.text("token")), ("token_type_hint", try invocation.text("hint")),
            ("client_id", try invocation.text("clientId")),
        ])
        let endpoint = try invocation.text("endpoint")
        do {
            let response = try await context.send(
                HTTPRequest(method: "POST", url: endpoint, headers: headers, body: form), pinnedBy: invocation)
            guard response.status == 200 else {
                let error = TokenAnswer.code(jsonObject(response.body)?["error"] as? String)
                return HandlerResult("failed", data: ["status": .int(response.status), "error": .string(error)])
            }
            return HandlerResult("revoked")
        } catch let error as NetworkError {
            return Pinning.result(error, url: endpoint)
        }
    }
}

/// `oidc.endSession`: RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0) in the
/// headless browser. The browser opens the end-session endpoint with `id_token_hint` and
/// `post_logout_redirect_uri`, carrying the provider's session cookies from `cookieJar`; the
/// provider's logout page (JavaScript, so the browser speaks to the provider's API as that
/// page does, like `oidc.browser` for signing in) then ends the session and revokes what it
/// issued. `outcome.returnedTo` is where the provider sent the browser afterwards: the
/// post-logout URI when it allows it, never another (that would be an open redirect);
/// empty when it keeps the browser on its own page. The cookies stay in the jar, as a copy
/// taken before the logout would: from now on the provider must refuse them.
public struct OIDCEndSessionHandler: StepHandler {
    public init() {}

    public let contract = HandlerContract(
        id: "oidc.endSession",
        summary:
            "RP-initiated logout in the headless browser, the provider's logout page driven through its API: `ended` (returnedTo), `refused` (status), `openRedirect`, `offline`.",
        parameters: [
            ParameterSpec(
                name: "endpoint", kind: .value(TypeInfo(.string)), required: true,
                summary: "the end-session endpoint (discovery's `endSessionEndpoint`)"),
            ParameterSpec(
                name: "idToken", kind: .value(TypeInfo(.string, secret: true)), required: true,
                summary: "sent as `id_token_hint`"),
            ParameterSpec(
                name: "postLogoutRedirectUri", kind: .value(TypeInfo(.string)), required: true,
                summary: "where the app asks to be sent back"),
            ParameterSpec(
                name: "providerApi", kind: .value(TypeInfo(.string)), required: true,
                summary: "the provider's API, which its logout page calls (Glewlwyd's /api)"),
            ParameterSpec(
                name: "cookieJar", kind: .value(TypeInfo(.string)), required: true,
                summary: "the device store key of the browser's cookies for the provider", storeKey: .reads),
        ],
        outcomes: [
            OutcomeSpec(
                name: "ended",
                summary:
                    "the session is over; `outcome.returnedTo` is the post-logout URI, or empty when the provider keeps the browser",
                data: [DataSpec(name: "returnedTo", type: TypeInfo(.string))]),
            OutcomeSpec(
                name: "refused", summary: "the provider did not end it",
                data: [DataSpec(name: "status", type: TypeInfo(.int))]),
            OutcomeSpec(
                name: "openRedirect",
                summary: "the provider would send the browser to a URI other than the one asked for"),
            OutcomeSpec(name: "offline", summary: "no response"),
        ])

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        let endpoint = try invocation.text("endpoint")
        let target = try invocation.text("postLogoutRedirectUri")
        let jar = try invocation.text("cookieJar")
        var cookies: [HTTPRequest.Header] = []
        if case .string(let stored)? = context.stored(jar)?.revealed, !stored.isEmpty {
            cookies = [.init("Cookie", stored)]
        }
        let query = FormEncoding.encode([
            ("id_token_hint", try invocation.text("idToken")), ("post_logout_redirect_uri", target),
        ])
        var request = HTTPRequest(
            method: "GET", url: endpoint + (endpoint.contains("?") ? "&" : "?") + query, headers: cookies)
        request.displayURL = URLRedaction.redact(request.url)
        do {
            let answer = try await context.send(request)
            guard (300..<400).contains(answer.status), let location = answer.headers["location"] else {
                return HandlerResult("refused", data: ["status": .int(answer.status)])
            }
            let page = URLComponents(string: location)?.queryItems ?? []
            func item(_ name: String) -> String? {
                page.first { $0.name == name }?.value.flatMap { $0.isEmpty ? nil : $0 }
            }
            var returnedTo = ""
            // A path on the provider's own origin: `/logout?…`, not `//evil.example/…` nor
            // `/\evil.example/…` (a browser reads a backslash as a slash there), which name
            // another host.
            let slashed = location.replacingOccurrences(of: "\\", with: "/")
            let ownPage =
                (slashed.hasPrefix("/") && !slashed.hasPrefix("//"))
                || URLOrigin.of(location) == URLOrigin.of(endpoint)
            if ownPage {
                guard let sid = item("sid"), let plugin = item("plugin") else {
                    return HandlerResult("refused", data: ["status": .int(answer.status)])
                }
                // The provider's logout page: end the session, then the sign-in.
                let api = try invocation.text("providerApi")
                var end = HTTPRequest(
                    method: "DELETE",
                    url: api + "/" + FormEncoding.escape(plugin) + "/session/" + FormEncoding.escape(sid),
                    headers: cookies)
                end.displayURL = api + "/" + plugin + "/session/" + Value.redacted
                let ended = try await context.send(end)
                guard ended.status == 200 else { return HandlerResult("refused", data: ["status": .int(ended.status)]) }
                _ = try await context.send(HTTPRequest(method: "DELETE", url: api + "/auth/", headers: cookies))
                returnedTo = item("post_redirect_to") == nil ? "" : (item("callback_url") ?? "")
            } else {
                returnedTo = String(location.prefix { $0 != "?" && $0 != "#" })
            }
            if !returnedTo.isEmpty && returnedTo != target
                && String(returnedTo.prefix { $0 != "?" && $0 != "#" }) != target
            {
                return HandlerResult("openRedirect")
            }
            return HandlerResult("ended", data: ["returnedTo": .string(URLRedaction.redact(returnedTo))])
        } catch is NetworkError {
            return HandlerResult("offline")
        }
    }
}
