import Foundation
import JourneyCore

/// Form encoding for OAuth requests (application/x-www-form-urlencoded).
enum FormEncoding {
    static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }

    static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }
}

/// Parses a JSON object body, or nil.
func jsonObject(_ body: String) -> [String: Any]? {
    try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
}

/// `oidc.discover`: fetches `ISSUER/.well-known/openid-configuration` and checks that the
/// document names exactly that issuer (a different one is a mix-up, RFC 9700 §4.4) and that
/// every endpoint it names is on the issuer's origin — scheme, host and port — or on one the
/// journey lists in `allowedOrigins`. A document that points an endpoint elsewhere would have
/// the tokens sent there (RFC 9700 §2.3), so it gives `foreignEndpoint` and no endpoint at all.
public struct OIDCDiscoverHandler: StepHandler {
    public init() {}

    static let endpoints = [
        ("authorizationEndpoint", "authorization_endpoint"), ("tokenEndpoint", "token_endpoint"),
        ("userinfoEndpoint", "userinfo_endpoint"), ("jwksUri", "jwks_uri"),
        ("revocationEndpoint", "revocation_endpoint"), ("endSessionEndpoint", "end_session_endpoint"),
    ]

    public let contract = HandlerContract(
        id: "oidc.discover",
        summary:
            "OpenID discovery; `ok` with the endpoints, `mismatch` (another issuer), `foreignEndpoint` (an endpoint off the issuer's origin).",
        parameters: [
            ParameterSpec(name: "issuer", kind: .value(TypeInfo(.string)), required: true, summary: "the issuer URL"),
            ParameterSpec(
                name: "allowedOrigins", kind: .value(TypeInfo(.list)),
                summary:
                    "origins such as `https://keys.example.net` that endpoints may be on besides the issuer's (an origin is scheme, host and port); none unless listed"
            ),
        ] + Pinning.parameters,
        outcomes: [
            OutcomeSpec(
                name: "ok",
                summary:
                    "the endpoints from `/.well-known/openid-configuration` (each empty when the provider has none)",
                data: OIDCDiscoverHandler.endpoints.map { DataSpec(name: $0.0, type: TypeInfo(.string)) }),
            OutcomeSpec(name: "mismatch", summary: "the document is for another issuer"),
            OutcomeSpec(
                name: "foreignEndpoint",
                summary:
                    "an endpoint is on an origin other than the issuer's and not allowed: `outcome.endpoint` names it (e.g. `userinfoEndpoint`) and `outcome.origin` says where it points; no endpoint is kept, so no token goes there",
                data: [
                    DataSpec(name: "endpoint", type: TypeInfo(.string)),
                    DataSpec(name: "origin", type: TypeInfo(.string)),
                ]),
            OutcomeSpec(
                name: "failed", summary: "no usable document", data: [DataSpec(name: "status", type: TypeInfo(.int))]),
            OutcomeSpec(name: "offline", summary: "no response"),
        ],
        refinedOutcomes: Pinning.refinedOutcomes, refine: Pinning.refine)

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        let issuer = try invocation.text("issuer")
        let url = (issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer) + "/.well-known/openid-configuration"
        let response: HTTPResponse
        do {
            response = try await context.send(HTTPRequest(method: "GET", url: url), pinnedBy: invocation)
        } catch let error as NetworkError {
            return Pinning.result(error, url: url)
        }
        guard response.status == 200, let document = jsonObject(response.body) else {
            return HandlerResult("failed", data: ["status": .int(response.status)])
        }
        guard document["issuer"] as? String == issuer else { return HandlerResult("mismatch") }
        let allowed = Set(([issuer] + invocation.strings("allowedOrigins")).compactMap(URLOrigin.of))
        var data: [String: Value] = [:]
        for (name, key) in Self.endpoints {
            let endpoint = document[key] as? String ?? ""
            if !endpoint.isEmpty {
                guard let origin = URLOrigin.of(endpoint), allowed.contains(origin) else {
                    let shown = URLOrigin.of(endpoint).map(URLOrigin.shown) ?? ""
                    return HandlerResult(
                        "foreignEndpoint", data: ["endpoint": .string(name), "origin": .string(shown)])
                }
            }
            data[name] = .string(endpoint)
        }
        return HandlerResult("ok", data: data)
    }
}

/// `oidc.authorize`: builds the authorization request: `response_type=code`, PKCE S256 with a
/// fresh 32-byte verifier, a random `state` and `nonce`. `outcome.request` shows the request
/// with its secret values masked; the real URL, state, nonce and verifier are secret.
public struct OIDCAuthorizeHandler: StepHandler {
    public init() {}

    public let contract = HandlerContract(
        id: "oidc.authorize",
        summary: "The authorization request with PKCE (S256), state and nonce; the secrets come back as secret data.",
        parameters: [
            ParameterSpec(
                name: "endpoint", kind: .value(TypeInfo(.string)), required: true, summary: "authorization endpoint"),
            ParameterSpec(name: "clientId", kind: .value(TypeInfo(.string)), required: true, summary: "the client id"),
            ParameterSpec(
                name: "redirectUri", kind: .value(TypeInfo(.string)), required: true, summary: "the redirect URI"),
            ParameterSpec(
                name: "scope", kind: .value(TypeInfo(.string)), defaultValue: .string("openid"), summary: "scopes"),
            ParameterSpec(name: "prompt", kind: .value(TypeInfo(.string)), summary: "`prompt`, e.g. select_account"),
            ParameterSpec(
                name: "idTokenHint", kind: .value(TypeInfo(.string, secret: true)),
                summary: "`id_token_hint`: the id_token of the session, as a silent sign-in (`prompt=none`) may need"),
        ],
        outcomes: [
            OutcomeSpec(
                name: "ready",
                summary:
                    "an authorization request with PKCE S256 and a fresh `state` and `nonce`; `outcome.url`, `state`, `nonce` and `verifier` are secret, `outcome.request` is the URL without them",
                data: [
                    DataSpec(name: "request", type: TypeInfo(.string)),
                    DataSpec(name: "url", type: TypeInfo(.string, secret: true)),
                    DataSpec(name: "state", type: TypeInfo(.string, secret: true)),
                    DataSpec(name: "nonce", type: TypeInfo(.string, secret: true)),
                    DataSpec(name: "verifier", type: TypeInfo(.string, secret: true)),
                ])
        ])

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        let endpoint = try invocation.text("endpoint")
        let pkce = PKCE(using: &context.random)
        let state = PKCE.randomToken(bytes: 32, using: &context.random)
        let nonce = PKCE.randomToken(bytes: 32, using: &context.random)
        var pairs: [(String, String, Bool)] = [
            ("response_type", "code", false), ("client_id", try invocation.text("clientId"), false),
            ("redirect_uri", try invocation.text("redirectUri"), false),
            ("scope", invocation.optionalText("scope") ?? "openid", false),
        ]
        if let prompt = invocation.optionalText("prompt") { pairs.append(("prompt", prompt, false)) }
        if let hint = invocation.optionalText("idTokenHint") { pairs.append(("id_token_hint", hint, true)) }
        pairs += [
            ("code_challenge", pkce.challenge, true), ("code_challenge_method", pkce.method, false),
            ("state", state, true), ("nonce", nonce, true),
        ]
        let separator = endpoint.contains("?") ? "&" : "?"
        let url = endpoint + separator + FormEncoding.encode(pairs.map { ($0.0, $0.1) })
        let shown =
            endpoint + separator
            + pairs.map { "\($0.0)=\($0.2 ? Value.redacted : FormEncoding.escape($0.1))" }.joined(separator: "&")
        return HandlerResult(
            "ready",
            data: [
                "request": .string(shown), "url": .secret(.string(url)), "state": .secret(.string(state)),
                "nonce": .secret(.string(nonce)), "verifier": .secret(.string(pkce.verifier)),
            ])
    }
}

/// `oidc.browser`: the system browser as a headless user agent. The user (the driver) signs in
/// (`action: signIn`) or cancels (`action: cancel`); a scenario may instead hand over the
/// redirect itself (`redirect`). Signing in speaks the reference provider's (Glewlwyd's) REST
/// API: password login, consent, then the authorization request, whose 302 is the redirect.
public struct OIDCBrowserHandler: StepHandler {
    public init() {}

    public let contract = HandlerContract(
        id: "oidc.browser",
        summary:
            "A headless browser sign-in: it signs in at the provider's own API with `username` and `password` (or, `silent`, with its cookies alone) and gives `redirected` with the redirect (secret), or `refused` by the provider; a scenario may hand over a `redirect` instead, or press an action.",
        parameters: [
            ParameterSpec(
                name: "url", kind: .value(TypeInfo(.string, secret: true)), required: true,
                summary: "the authorization request"),
            ParameterSpec(
                name: "providerApi", kind: .value(TypeInfo(.string)), required: true,
                summary: "the provider's login API (Glewlwyd's /api)"),
            ParameterSpec(name: "clientId", kind: .value(TypeInfo(.string)), required: true, summary: "the client"),
            ParameterSpec(
                name: "scope", kind: .value(TypeInfo(.string)), defaultValue: .string("openid"),
                summary: "scopes consented"),
            ParameterSpec(name: "username", kind: .value(TypeInfo(.string)), required: true, summary: "who signs in"),
            ParameterSpec(
                name: "password", kind: .value(TypeInfo(.string, secret: true)), required: true,
                summary: "their password"),
            ParameterSpec(
                name: "cookieJar", kind: .value(TypeInfo(.string)), defaultValue: .string(""),
                summary:
                    "a device store key where the browser keeps the provider's session cookies (secret), as Safari does",
                storeKey: [.reads, .writes]),
            ParameterSpec(
                name: "silent", kind: .value(TypeInfo(.bool)), defaultValue: .bool(false),
                summary:
                    "no sign-in and nothing asked: the request goes with the cookies in `cookieJar` alone (for `prompt=none`)"
            ),
        ],
        inputs: [
            InputSpec(
                name: "redirect", type: TypeInfo(.string),
                summary: "a redirect the scenario hands over instead of signing in",
                redactsQuery: true)
        ],
        outcomes: [
            OutcomeSpec(
                name: "redirected", summary: "the provider redirected back",
                data: [DataSpec(name: "redirect", type: TypeInfo(.string, secret: true))]),
            OutcomeSpec(
                name: "refused",
                summary: "the provider would not redirect: a bad client, an unregistered redirect URI, a failed login",
                data: [DataSpec(name: "status", type: TypeInfo(.int))]),
            OutcomeSpec(name: "offline", summary: "the provider did not answer"),
        ],
        actionsAreOutcomes: true)

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        let jar = invocation.optionalText("cookieJar")
        let silent = invocation[parameter: "silent"] == .bool(true)
        var url = try invocation.text("url")
        var cookies: [String] = []
        do {
            if silent {
                // Nothing is shown, so nothing is asked: the provider answers from its session alone.
                if let jar, case .string(let stored)? = context.stored(jar)?.revealed, !stored.isEmpty {
                    cookies = [stored]
                }
            } else {
                let (action, values) = try await context.ask(invocation)
                if case .string(let redirect)? = values["redirect"]?.revealed {
                    return HandlerResult("redirected", data: ["redirect": .secret(.string(redirect))])
                }
                if let action, action != "signIn" { return HandlerResult(action) }
                switch try await signIn(invocation, context: context) {
                case .success(let cookie): cookies = [cookie]
                case .failure(let status): return HandlerResult("refused", data: ["status": .int(status.code)])
                }
                url += "&g_continue"
            }
            var authorize = HTTPRequest(
                method: "GET", url: url,
                headers: cookies.isEmpty ? [] : [.init("Cookie", cookies.joined(separator: "; "))])
            authorize.displayURL = URLRedaction.redact(try invocation.text("url"))
            let answer = try await context.send(authorize)
            guard (300..<400).contains(answer.status), let location = answer.headers["location"] else {
                return HandlerResult("refused", data: ["status": .int(answer.status)])
            }
            if !silent, let jar {
                cookies += Self.sessionCookie(answer.headers["set-cookie"]).map { [$0] } ?? []
                context.store(jar, .secret(.string(cookies.joined(separator: "; "))))
            }
            return HandlerResult("redirected", data: ["redirect": .secret(.string(location))])
        } catch is NetworkError {
            return HandlerResult("offline")
        }
    }

    /// A refused sign-in, by the status the provider answered.
    struct Refusal: Error { var code: Int }

    /// Signs in and consents through the provider's API, as its JavaScript login page would;
    /// the session cookie, or the status that refused it.
    private nonisolated(nonsending) func signIn(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> Result<String, Refusal> {
        let api = try invocation.text("providerApi")
        let json = [HTTPRequest.Header("Content-Type", "application/json")]
        let credentials = try JSONSerialization.data(withJSONObject: [
            "username": try invocation.text("username"), "password": try invocation.text("password"),
        ])
        var login = HTTPRequest(
            method: "POST", url: api + "/auth/", headers: json, body: String(decoding: credentials, as: UTF8.self))
        login.displayURL = api + "/auth/"
        let signedIn = try await context.send(login)
        guard signedIn.status == 200, let cookie = Self.sessionCookie(signedIn.headers["set-cookie"]) else {
            return .failure(Refusal(code: signedIn.status))
        }
        let consent = try JSONSerialization.data(withJSONObject: ["scope": invocation.optionalText("scope") ?? "openid"]
        )
        let granted = try await context.send(
            HTTPRequest(
                method: "PUT", url: api + "/auth/grant/" + FormEncoding.escape(try invocation.text("clientId")),
                headers: json + [.init("Cookie", cookie)], body: String(decoding: consent, as: UTF8.self)))
        return granted.status == 200 ? .success(cookie) : .failure(Refusal(code: granted.status))
    }

    /// `name=value` of the session cookie from a Set-Cookie header.
    static func sessionCookie(_ header: String?) -> String? {
        guard let header, let first = header.split(separator: ";").first, first.contains("=") else { return nil }
        return String(first).trimmingCharacters(in: .whitespaces)
    }
}

/// `oidc.callback`: checks a redirect before anything is exchanged: it must be exactly the
/// registered redirect URI, its `state` must be the one sent (compared in constant time), and
/// an `error` wins over a `code`.
public struct OIDCCallbackHandler: StepHandler {
    public init() {}

    public let contract = HandlerContract(
        id: "oidc.callback",
        summary:
            "Checks the redirect: exact redirect URI and the state sent, then `code`, `error`, `stateMismatch` or `foreign`.",
        parameters: [
            ParameterSpec(
                name: "redirect", kind: .value(TypeInfo(.string, secret: true)), required: true,
                summary: "the redirect received"),
            ParameterSpec(
                name: "redirectUri", kind: .value(TypeInfo(.string)), required: true,
                summary: "the registered redirect URI"),
            ParameterSpec(
                name: "state", kind: .value(TypeInfo(.string, secret: true)), required: true, summary: "the state sent"),
            ParameterSpec(
                name: "issuer", kind: .value(TypeInfo(.string)),
                summary:
                    "the provider asked: a redirect whose `iss` names another is an `error`, a mix-up (RFC 9207); one without `iss` is taken"
            ),
        ],
        outcomes: [
            OutcomeSpec(
                name: "code", summary: "an authorization code",
                data: [DataSpec(name: "code", type: TypeInfo(.string, secret: true))]),
            OutcomeSpec(
                name: "error",
                summary:
                    "the provider reported an error (`outcome.error`: its OAuth error code), or the redirect holds no code, a parameter twice, or another provider's `iss`",
                data: [DataSpec(name: "error", type: TypeInfo(.string))]),
            OutcomeSpec(
                name: "stateMismatch",
                summary: "state missing or not the one sent, or no state was sent; nothing is exchanged"),
            OutcomeSpec(
                name: "foreign",
                summary:
                    "not a redirect to the registered URI; `outcome.sameScheme`: it has the registered URI's scheme (where a browser session waiting for that callback scheme, like ASWebAuthenticationSession, ends)",
                data: [DataSpec(name: "sameScheme", type: TypeInfo(.bool))]),
        ])

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        let redirect = try invocation.text("redirect")
        let expected = try invocation.text("redirectUri")
        let address = String(redirect.prefix { $0 != "?" && $0 != "#" })
        guard address == expected else {
            let scheme = { (url: String) in url.prefix { $0 != ":" }.lowercased() }
            return HandlerResult(
                "foreign", data: ["sameScheme": .bool(redirect.contains(":") && scheme(redirect) == scheme(expected))])
        }
        let parts = URLParts(redirect)
        let query = parts.query
        // A parameter given twice is no answer to take either way (RFC 6749 §3.1): a state
        // twice is no state sent, a code or error twice no code or error.
        func repeated(_ name: String) -> Bool { parts.items.lazy.filter { $0.name == name }.count > 1 }
        // No state sent (a journey that passes one never set) matches nothing, not an empty
        // `state=`: a redirect an attacker made would carry their code in (RFC 9700 4.7).
        let sent = try invocation.text("state")
        guard !sent.isEmpty, !repeated("state"), let state = query["state"], ConstantTime.equal(state, sent) else {
            return HandlerResult("stateMismatch")
        }
        // The provider that answered, where it says (RFC 9207): another one's answer is a
        // mix-up, whatever it holds.
        if let issuer = invocation.optionalText("issuer"), let said = query["iss"] {
            guard !repeated("iss"), said == issuer else {
                return HandlerResult("error", data: ["error": .string("the answer is another provider's (iss)")])
            }
        }
        if repeated("error") || repeated("code") {
            return HandlerResult("error", data: ["error": .string("a parameter is given twice")])
        }
        if let error = query["error"] {
            return HandlerResult("error", data: ["error": .string(TokenAnswer.code(error))])
        }
        guard let code = query["code"], !code.isEmpty else {
            return HandlerResult("error", data: ["error": .string("no code")])
        }
        return HandlerResult("code", data: ["code": .secret(.string(code))])
    }
}

/// `oidc.token`: exchanges the code (with the PKCE verifier) and validates the id_token
/// against the provider's JWKS before anything is kept (``IDTokenValidator``). Token times are
/// checked against the wall clock with 60 s of leeway; the journey's virtual clock plans
/// refreshes.
public struct OIDCTokenHandler: StepHandler {
    public init() {}

    static let tokens = [
        DataSpec(name: "accessToken", type: TypeInfo(.string, secret: true)),
        DataSpec(name: "refreshToken", type: TypeInfo(.string, secret: true)),
        DataSpec(name: "idToken", type: TypeInfo(.string, secret: true)),
        DataSpec(name: "expiresIn", type: TypeInfo(.int)),
        DataSpec(name: "expires", type: TypeInfo(.bool)),
    ]

    public let contract = HandlerContract(
        id: "oidc.token",
        summary:
            "Code → tokens with PKCE; the id_token is validated (signature, iss, aud, azp, exp, iat, nonce, at_hash).",
        parameters: [
            ParameterSpec(name: "endpoint", kind: .value(TypeInfo(.string)), required: true, summary: "token endpoint"),
            ParameterSpec(
                name: "scope", kind: .value(TypeInfo(.string)), defaultValue: .string("openid"),
                summary:
                    "the scope requested; with `openid` an id_token is required and validated, without it the exchange is plain OAuth 2.0"
            ),
            ParameterSpec(
                name: "jwksUri", kind: .value(TypeInfo(.string)), required: true, summary: "the provider's JWKS"),
            ParameterSpec(
                name: "issuer", kind: .value(TypeInfo(.string)), required: true, summary: "the expected issuer"),
            ParameterSpec(name: "clientId", kind: .value(TypeInfo(.string)), required: true, summary: "the client"),
            ParameterSpec(
                name: "redirectUri", kind: .value(TypeInfo(.string)), required: true, summary: "the redirect URI"),
            ParameterSpec(
                name: "code", kind: .value(TypeInfo(.string, secret: true)), required: true, summary: "the code"),
            ParameterSpec(
                name: "verifier", kind: .value(TypeInfo(.string, secret: true)), required: true,
                summary: "the PKCE verifier"),
            ParameterSpec(
                name: "nonce", kind: .value(TypeInfo(.string, secret: true)), required: true, summary: "the nonce sent"),
            ParameterSpec(
                name: "trustedAudiences", kind: .value(TypeInfo(.list)),
                summary: "audiences besides the client an id_token may also name (none unless listed)"),
            ParameterSpec(
                name: "issuedWithin", kind: .value(TypeInfo(.int)), defaultValue: .int(IDTokenValidator.defaultMaxAge),
                summary: "how long ago, in seconds, the id_token may have been issued (`iat`); 600 as AppAuth",
                range: 1...86_400),
        ] + Pinning.parameters,
        outcomes: [
            OutcomeSpec(
                name: "ok",
                summary:
                    "valid tokens. The id_token is checked: its signature against the JWKS with jwt-kit (RS256, PS256, ES256 or EdDSA, with a key the JWKS publishes for that algorithm, a P-256 key's `x` or `y` written without its leading zero bytes read as the same point; `alg: none` and HMAC are refused), then `iss`, `aud` (it must name `clientId`, and any other audience must be in `trustedAudiences`), `azp`, `exp`, `iat` (not in the future, and at most `issuedWithin` seconds ago), `nonce` and `at_hash`, times against the wall clock with 60 s of leeway",
                data: OIDCTokenHandler.tokens),
            OutcomeSpec(
                name: "rejected", summary: "the provider refused the exchange",
                data: [
                    DataSpec(name: "status", type: TypeInfo(.int)), DataSpec(name: "error", type: TypeInfo(.string)),
                ]),
            OutcomeSpec(
                name: "invalidToken",
                summary:
                    "the answer is no token response (an `error` beside the tokens, no access token, a token_type other than Bearer, an expires_in that is no whole number of seconds) or the id_token failed validation; `outcome.reason` names the rule that failed, and nothing is kept",
                data: [DataSpec(name: "reason", type: TypeInfo(.string))]),
            OutcomeSpec(name: "offline", summary: "no response"),
        ],
        refinedOutcomes: Pinning.refinedOutcomes, verifiedOutcomes: ["ok"], refine: Pinning.refine)

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        let form = FormEncoding.encode([
            ("grant_type", "authorization_code"), ("code", try invocation.text("code")),
            ("redirect_uri", try invocation.text("redirectUri")), ("client_id", try invocation.text("clientId")),
            ("code_verifier", try invocation.text("verifier")),
        ])
        let endpoint = try invocation.text("endpoint")
        do {
            let response = try await context.send(
                HTTPRequest(
                    method: "POST", url: endpoint,
                    headers: [.init("Content-Type", "application/x-www-form-urlencoded")], body: form),
                pinnedBy: invocation)
            let body = jsonObject(response.body) ?? [:]
            guard response.status == 200 else {
                return HandlerResult(
                    "rejected",
                    data: [
                        "status": .int(response.status), "error": .string(TokenAnswer.code(body["error"] as? String)),
                    ])
            }
            let access: String
            let expiresIn: Int?
            switch TokenAnswer.read(body) {
            case .success(let answer): (access, expiresIn) = answer
            case .failure(let problem): return HandlerResult("invalidToken", data: ["reason": .string(problem.reason)])
            }
            let openID = (invocation.optionalText("scope") ?? "openid").split(separator: " ").contains("openid")
            guard let idToken = body["id_token"] as? String else {
                // Plain OAuth 2.0 (no `openid` asked for) has no id_token; OpenID Connect must.
                if openID { return HandlerResult("invalidToken", data: ["reason": .string("no id_token was issued")]) }
                return HandlerResult(
                    "ok", data: Self.result(access: access, idToken: "", expiresIn: expiresIn, body: body))
            }
            let jwksUri = try invocation.text("jwksUri")
            let jwks: HTTPResponse
            do {
                jwks = try await context.send(HTTPRequest(method: "GET", url: jwksUri), pinnedBy: invocation)
            } catch let error as NetworkError {
                return Pinning.result(error, url: jwksUri)
            }
            let maxAge: Int =
                if case .int(let n)? = invocation[parameter: "issuedWithin"]?.revealed { n } else {
                    IDTokenValidator.defaultMaxAge
                }
            let validator = IDTokenValidator(
                issuer: try invocation.text("issuer"), clientID: try invocation.text("clientId"),
                trustedAudiences: Set(invocation.strings("trustedAudiences")), maxAge: maxAge)
            let nonce = try invocation.text("nonce")
            do throws(IDTokenValidator.Failure) {
                _ = try await validator.validate(
                    idToken, jwks: Data(jwks.body.utf8), nonce: nonce, accessToken: access,
                    now: context.wallClock / 1000)
            } catch {
                return HandlerResult("invalidToken", data: ["reason": .string(error.description)])
            }
            return HandlerResult(
                "ok", data: Self.result(access: access, idToken: idToken, expiresIn: expiresIn, body: body))
        } catch let error as NetworkError {
            return Pinning.result(error, url: endpoint)
        }
    }

    static func result(access: String, idToken: String, expiresIn: Int?, body: [String: Any]) -> [String: Value] {
        [
            "accessToken": .secret(.string(access)),
            "refreshToken": .secret(.string(body["refresh_token"] as? String ?? "")),
            "idToken": .secret(.string(idToken)),
        ].merging(lifetime(expiresIn)) { $1 }
    }

    /// `expiresIn` (0 when the answer gave none) and `expires`, whether it gave one.
    static func lifetime(_ expiresIn: Int?) -> [String: Value] {
        ["expiresIn": .int(expiresIn ?? 0), "expires": .bool(expiresIn != nil)]
    }
}

/// `oidc.userinfo`: the userinfo endpoint with the access token as a Bearer header.
public struct OIDCUserinfoHandler: StepHandler {
    public init() {}

    public let contract = HandlerContract(
        id: "oidc.userinfo",
        summary:
            "Userinfo with a Bearer access token: `ok` (name, given/family name, email), `unauthorized`, `failed`.",
        parameters: [
            ParameterSpec(
                name: "endpoint", kind: .value(TypeInfo(.string)), required: true, summary: "userinfo endpoint"),
            ParameterSpec(
                name: "accessToken", kind: .value(TypeInfo(.string, secret: true)), required: true,
                summary: "the access token"),
        ] + Pinning.parameters,
        outcomes: [
            OutcomeSpec(
                name: "ok", summary: "the user's claims",
                data: ["name", "givenName", "familyName", "email"].map { DataSpec(name: $0, type: TypeInfo(.string)) }),
            OutcomeSpec(name: "unauthorized", summary: "401: the access token is not, or no longer, valid"),
            OutcomeSpec(
                name: "failed", summary: "another status", data: [DataSpec(name: "status", type: TypeInfo(.int))]),
            OutcomeSpec(name: "offline", summary: "no response"),
        ],
        refinedOutcomes: Pinning.refinedOutcomes, refine: Pinning.refine)

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        let endpoint = try invocation.text("endpoint")
        do {
            let response = try await context.send(
                HTTPRequest(
                    method: "GET", url: endpoint,
                    headers: [.init("Authorization", "Bearer " + (try invocation.text("accessToken")))]),
                pinnedBy: invocation)
            if response.status == 401 { return HandlerResult("unauthorized") }
            guard response.status == 200, let claims = jsonObject(response.body) else {
                return HandlerResult("failed", data: ["status": .int(response.status)])
            }
            var data: [String: Value] = [:]
            for (name, key) in [
                ("name", "name"), ("givenName", "given_name"), ("familyName", "family_name"), ("email", "email"),
            ] {
                data[name] = .string(claims[key] as? String ?? "")
            }
            return HandlerResult("ok", data: data)
        } catch let error as NetworkError {
            return Pinning.result(error, url: endpoint)
        }
    }
}

/// `oidc.refresh`: fresh tokens the way AppAuth's `performAction(freshTokens:)` gives them:
/// while more than `skew` seconds remain (on the virtual clock) and nothing forces it, the
/// stored access token is `fresh` and nothing is sent; otherwise the refresh token is spent
/// (`grant_type=refresh_token`) and the rotated tokens come back. The journey must store the
/// new refresh token before anything else: the old one is dead.
public struct OIDCRefreshHandler: StepHandler {
    public init() {}

    public let contract = HandlerContract(
        id: "oidc.refresh",
        summary:
            "Refreshes the tokens when the access token expires within `skew` seconds (or always, with `force`), the refresh token rotated: `refreshed`; `fresh` sends nothing while it is still good.",
        parameters: [
            ParameterSpec(name: "endpoint", kind: .value(TypeInfo(.string)), required: true, summary: "token endpoint"),
            ParameterSpec(name: "clientId", kind: .value(TypeInfo(.string)), required: true, summary: "the client"),
            ParameterSpec(
                name: "refreshToken", kind: .value(TypeInfo(.string, secret: true)), required: true,
                summary: "the refresh token (empty when there is none)"),
            ParameterSpec(
                name: "expiresAt", kind: .value(TypeInfo(.int)), required: true,
                summary:
                    "when the access token expires, in seconds since 1970 on the device clock (up to the year 9999)",
                range: 0...(NumberRange.clock.upperBound / 1000)),
            ParameterSpec(
                name: "expires", kind: .value(TypeInfo(.bool)), defaultValue: .bool(true),
                summary:
                    "false: the access token has no lifetime (the answer that brought it gave no `expires_in`, its `outcome.expires`), so `expiresAt` is not read and the token is `fresh` unless forced, as AppAuth's isTokenFresh takes a token without an expiration date"
            ),
            ParameterSpec(
                name: "skew", kind: .value(TypeInfo(.int)), defaultValue: .int(60),
                summary: "seconds of margin: a token that expires sooner is refreshed",
                range: 0...86_400),
            ParameterSpec(
                name: "force", kind: .value(TypeInfo(.bool)), defaultValue: .bool(false),
                summary: "refresh even a token that is still good"),
            ParameterSpec(
                name: "scope", kind: .value(TypeInfo(.string)),
                summary: "a narrower scope for the new access token (RFC 6749 §6), e.g. a descoped background token"),
            ParameterSpec(
                name: "sendsEmpty", kind: .value(TypeInfo(.bool)), defaultValue: .bool(false),
                summary:
                    "with no refresh token, send the grant anyway with an empty one (as eduID's AppAuthController does) instead of `noRefreshToken`"
            ),
            ParameterSpec(
                name: "idToken", kind: .value(TypeInfo(.string, secret: true)),
                summary:
                    "the id_token held: `outcome.idToken` when the answer brings none, and a new one must name the same issuer, subject and audience, and the same nonce if it has one (OIDC Core §12.2)"
            ),
            ParameterSpec(
                name: "jwksUri", kind: .value(TypeInfo(.string)),
                summary:
                    "the provider's JWKS: a new id_token is validated as oidc.token validates one (its nonce aside) before it is passed on; without it, a new id_token is not passed on"
            ),
            ParameterSpec(
                name: "issuer", kind: .value(TypeInfo(.string)),
                summary: "the expected issuer of a new id_token (needed with `jwksUri`)"),
        ] + Pinning.parameters,
        outcomes: [
            OutcomeSpec(
                name: "fresh",
                summary:
                    "the access token is still good for more than `skew` seconds, or has no lifetime (`expires: false`); nothing was sent"
            ),
            OutcomeSpec(
                name: "refreshed",
                summary:
                    "new tokens; `refreshToken` is the one the answer holds, else the one sent, and `rotated` says which",
                data: OIDCTokenHandler.tokens + [DataSpec(name: "rotated", type: TypeInfo(.bool))]),
            OutcomeSpec(name: "invalidGrant", summary: "the refresh token was refused (expired, revoked or reused)"),
            OutcomeSpec(
                name: "invalidToken",
                summary:
                    "the answer is no token response (an `error` beside the tokens, no access token, a token_type other than Bearer, an expires_in that is no whole number of seconds) or its id_token failed validation; `outcome.reason` names the rule that failed, and nothing is kept",
                data: [DataSpec(name: "reason", type: TypeInfo(.string))]),
            OutcomeSpec(
                name: "noRefreshToken",
                summary: "expired and nothing to refresh with (without `sendsEmpty`); nothing was sent"),
            OutcomeSpec(
                name: "failed", summary: "another error",
                data: [
                    DataSpec(name: "status", type: TypeInfo(.int)), DataSpec(name: "error", type: TypeInfo(.string)),
                ]),
            OutcomeSpec(name: "offline", summary: "no response"),
        ],
        refinedOutcomes: Pinning.refinedOutcomes, refine: Pinning.refine)

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        let expiresAt: Int = if case .int(let n)? = invocation[parameter: "expiresAt"]?.revealed { n } else { 0 }
        let skew: Int = if case .int(let n)? = invocation[parameter: "skew"]?.revealed { n } else { 60 }
        let force = invocation[parameter: "force"]?.revealed == .bool(true)
        let expires = invocation[parameter: "expires"]?.revealed != .bool(false)
        if !force && (!expires || expiresAt - context.now / 1000 > skew) { return HandlerResult("fresh") }
        let sendsEmpty = invocation[parameter: "sendsEmpty"]?.revealed == .bool(true)
        guard let refreshToken = invocation.optionalText("refreshToken") ?? (sendsEmpty ? "" : nil) else {
            return HandlerResult("noRefreshToken")
        }
        var pairs = [
            ("grant_type", "refresh_token"), ("refresh_token", refreshToken),
            ("client_id", try invocation.text("clientId")),
        ]
        if let scope = invocation.optionalText("scope") { pairs.append(("scope", scope)) }
        let form = FormEncoding.encode(pairs)
        let endpoint = try invocation.text("endpoint")
        do {
            let response = try await context.send(
                HTTPRequest(
                    method: "POST", url: endpoint,
                    headers: [.init("Content-Type", "application/x-www-form-urlencoded")], body: form),
                pinnedBy: invocation)
            let body = jsonObject(response.body) ?? [:]
            let error = TokenAnswer.code(body["error"] as? String)
            guard response.status == 200 else {
                // Providers answer a dead refresh token with 400 invalid_grant (RFC 6749 §5.2);
                // some only with the status.
                if error == "invalid_grant" || (response.status == 400 && error.isEmpty) {
                    return HandlerResult("invalidGrant")
                }
                return HandlerResult("failed", data: ["status": .int(response.status), "error": .string(error)])
            }
            let access: String
            let expiresIn: Int?
            switch TokenAnswer.read(body) {
            case .success(let answer): (access, expiresIn) = answer
            case .failure(let problem): return HandlerResult("invalidToken", data: ["reason": .string(problem.reason)])
            }
            let idToken: String
            switch await Self.idToken(in: body, access: access, invocation, context) {
            case .success(let kept): idToken = kept
            case .failure(let refusal): return refusal.result
            }
            return HandlerResult(
                "refreshed",
                data: [
                    "accessToken": .secret(.string(access)),
                    "refreshToken": .secret(.string(body["refresh_token"] as? String ?? refreshToken)),
                    "rotated": .bool(body["refresh_token"] is String),
                    "idToken": .secret(.string(idToken)),
                ].merging(OIDCTokenHandler.lifetime(expiresIn)) { $1 })
        } catch let error as NetworkError {
            return Pinning.result(error, url: endpoint)
        }
    }

    struct Refusal: Error {
        let result: HandlerResult
    }

    /// The id_token the refreshed tokens come with (OIDC Core §12.2): the one held when the
    /// answer brings none; a new one only once validated against the provider's JWKS (its
    /// nonce aside: a refresh sends none) and found to name the held one's issuer, subject and
    /// audience, and its nonce if it has one. Without `jwksUri` a new one cannot be checked and
    /// is not passed on: the one held is.
    nonisolated(nonsending) static func idToken(
        in body: [String: Any], access: String, _ invocation: HandlerInvocation, _ context: HandlerContext
    ) async -> Result<String, Refusal> {
        let held = invocation.optionalText("idToken") ?? ""
        func invalid(_ reason: String) -> Result<String, Refusal> {
            .failure(Refusal(result: HandlerResult("invalidToken", data: ["reason": .string(reason)])))
        }
        guard let answer = body["id_token"] else { return .success(held) }
        guard let fresh = answer as? String else { return invalid(IDTokenValidator.Failure.malformed.description) }
        guard let jwksUri = invocation.optionalText("jwksUri") else { return .success(held) }
        guard let issuer = invocation.optionalText("issuer") else {
            return invalid("the step gives jwksUri but no issuer to check the id_token's against")
        }
        let jwks: HTTPResponse
        do {
            jwks = try await context.send(HTTPRequest(method: "GET", url: jwksUri), pinnedBy: invocation)
        } catch let error as NetworkError {
            return .failure(Refusal(result: Pinning.result(error, url: jwksUri)))
        } catch {
            return invalid("the provider's JWKS could not be read")
        }
        let validator = IDTokenValidator(issuer: issuer, clientID: (try? invocation.text("clientId")) ?? "")
        let claims: IDTokenClaims
        do throws(IDTokenValidator.Failure) {
            claims = try await validator.validate(
                fresh, jwks: Data(jwks.body.utf8), nonce: nil, accessToken: access, now: context.wallClock / 1000)
        } catch {
            return invalid(error.description)
        }
        // The held one was validated when it was issued: its claims are read, not checked again.
        if !held.isEmpty {
            guard let before = IDTokenClaims.unverified(held) else {
                return invalid("the id_token held is not a JWT, so the new one cannot be compared with it")
            }
            guard claims.iss == before.iss, claims.sub == before.sub else {
                return invalid(
                    IDTokenValidator.Failure.claim("issuer or subject is not the held id_token's").description)
            }
            guard Set(claims.aud) == Set(before.aud) else {
                return invalid(IDTokenValidator.Failure.claim("audience is not the held id_token's").description)
            }
            if let nonce = claims.nonce, nonce != before.nonce {
                return invalid(IDTokenValidator.Failure.claim("nonce is not the held id_token's").description)
            }
        }
        return .success(fresh)
    }
}
