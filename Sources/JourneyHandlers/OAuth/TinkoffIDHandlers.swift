import Crypto
import Foundation
import JourneyCore

/// TinkoffID's app-to-app sign-in (tinkoff-mobile-tech/TinkoffID-iOS), step by step: the
/// launch URL with camelCase parameters, the callback parser, and the token, refresh and
/// revoke requests exactly as the SDK builds them.
enum TinkoffID {
    /// The SDK's verifier: 128 random bytes, base64, made URL-safe, cut to 128 characters.
    static func verifier(using random: inout RandomSource) -> String {
        String(Base64URL.encode(SecureRandom.bytes(128, from: &random)).prefix(128))
    }

    /// `Authorization: Basic base64("<client_id>:")` and `X-SSO-No-Adapter: true`.
    static func headers(clientId: String, adapter: Bool = true) -> [HTTPRequest.Header] {
        var headers = [HTTPRequest.Header("Authorization", "Basic " + Data("\(clientId):".utf8).base64EncodedString())]
        if adapter { headers.append(.init("X-SSO-No-Adapter", "true")) }
        return headers
    }

    /// The SDK's form body: `key=value` joined with `&`, keys sorted, values not percent-encoded.
    static func body(_ pairs: [String: String]) -> String {
        pairs.keys.sorted().map { "\($0)=\(pairs[$0]!)" }.joined(separator: "&")
    }

    /// A launch URL's query value as URLComponents.queryItems writes it: percent-encoded
    /// except what a query component may hold (RFC 3986: unreserved, sub-delimiters, `:`, `@`,
    /// `/`, `?`), and except `&`, `=`, `+` and `#`, which would end or change the item.
    static func queryValue(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: queryAllowed) ?? text
    }

    static let queryAllowed = FormEncoding.unreserved.union(CharacterSet(charactersIn: "!$'()*,;:@/?"))

    /// The same body with secret values masked, for transcripts.
    static func shown(_ pairs: [String: String], secret: Set<String>) -> String {
        pairs.keys.sorted().map { "\($0)=\(secret.contains($0) ? Value.redacted : pairs[$0]!)" }.joined(separator: "&")
    }

    static let tokenData = [
        DataSpec(name: "accessToken", type: TypeInfo(.string, secret: true)),
        DataSpec(name: "refreshToken", type: TypeInfo(.string, secret: true)),
        DataSpec(name: "hasRefreshToken", type: TypeInfo(.bool)),
        DataSpec(name: "idToken", type: TypeInfo(.string, secret: true)),
        DataSpec(name: "expiresIn", type: TypeInfo(.int)),
        DataSpec(name: "request", type: TypeInfo(.string)),
    ]

    /// The SDK's `TinkoffTokenPayload`, decoded as its `JSONDecoder` decodes it: a
    /// `refresh_token` of another type than text fails the whole payload, as does a boolean
    /// `expires_in` (a `TimeInterval`); `null` or no `refresh_token` is none.
    struct TokenPayload: Decodable {
        var accessToken: String
        var refreshToken: String?
        var idToken: String
        var expirationTimeout: TimeInterval

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case refreshToken = "refresh_token"
            case idToken = "id_token"
            case expirationTimeout = "expires_in"
        }
    }

    /// The SDK's sign-out answer, `struct SignOutResponse: Codable {}`: any JSON value decodes
    /// to it (an array, a text, `null`), only a body that is not JSON does not.
    struct SignOutResponse: Decodable {}

    /// Decodes a TinkoffTokenPayload; nil when the body does not decode (the status is not looked at).
    static func payload(_ response: HTTPResponse, request: String) -> HandlerResult? {
        guard let decoded = try? JSONDecoder().decode(TokenPayload.self, from: Data(response.body.utf8)),
            decoded.expirationTimeout.isFinite, abs(decoded.expirationTimeout) < 1e15
        else { return nil }
        let (access, refresh, idToken) = (decoded.accessToken, decoded.refreshToken, decoded.idToken)
        // The journey keeps whole seconds.
        let expires = Int(decoded.expirationTimeout)
        return HandlerResult(
            "obtained",
            data: [
                "accessToken": .secret(.string(access)), "refreshToken": .secret(.string(refresh ?? "")),
                "hasRefreshToken": .bool(refresh != nil), "idToken": .secret(.string(idToken)),
                "expiresIn": .int(expires), "request": .string(request),
            ])
    }
}

/// `tinkoff.launch`: `startTinkoffAuth`: a fresh verifier and its S256 challenge, and the
/// launch URL `https://tinkoff.ru/partner_auth?clientId=…&codeChallenge=…&codeChallengeMethod=S256&callbackUrl=…`
/// opened as a universal link (in the bank's app when it is installed, else on the web).
public struct TinkoffLaunchHandler: StepHandler {
    public init() {}

    public let contract = HandlerContract(
        id: "tinkoff.launch",
        summary:
            "Opens the TinkoffID launch URL with a PKCE challenge; `outcome.inApp` says whether the bank app took it.",
        parameters: [
            ParameterSpec(name: "clientId", kind: .value(TypeInfo(.string)), required: true, summary: "the client id"),
            ParameterSpec(
                name: "callbackUrl", kind: .value(TypeInfo(.string)), required: true, summary: "the app's callback URL"),
            ParameterSpec(
                name: "authUrl", kind: .value(TypeInfo(.string)),
                defaultValue: .string("https://tinkoff.ru/partner_auth"),
                summary: "the launch URL"),
            ParameterSpec(
                name: "appScheme", kind: .value(TypeInfo(.string)), defaultValue: .string("tinkoffbank"),
                summary: "the bank app's URL scheme (the availability probe)"),
        ],
        outcomes: [
            OutcomeSpec(
                name: "launched",
                summary:
                    "the launch URL with a PKCE S256 challenge was opened; `outcome.inApp`: the bank app is installed, `outcome.verifier` (secret) for the exchange, `outcome.challenge` the challenge the URL carries (written ••• like the verifier it is made from)",
                data: [
                    DataSpec(name: "request", type: TypeInfo(.string)), DataSpec(name: "inApp", type: TypeInfo(.bool)),
                    DataSpec(name: "verifier", type: TypeInfo(.string, secret: true)),
                    DataSpec(name: "challenge", type: TypeInfo(.string, secret: true)),
                ]),
            OutcomeSpec(
                name: "failed",
                summary: "the system would not open the launch URL (failedToLaunchApp); no sign-in is in flight"),
        ])

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        let verifier = TinkoffID.verifier(using: &context.random)
        let pkce = PKCE(verifier: verifier)
        let clientId = try invocation.text("clientId")
        let callback = try invocation.text("callbackUrl")
        // URLSchemeBuilder sets URLComponents.queryItems, which leaves what a query may hold
        // (`:` and `/` of the callback URL) as it is. (It builds the items from a dictionary, in
        // whatever order that gives; here they are in the order the SDK names them.)
        let request =
            try invocation.text("authUrl") + "?"
            + [
                "clientId=\(TinkoffID.queryValue(clientId))", "codeChallenge=\(Value.redacted)",
                "codeChallengeMethod=\(pkce.method)", "callbackUrl=\(TinkoffID.queryValue(callback))",
            ].joined(separator: "&")
        guard context.device.opensLinks else { return HandlerResult("failed") }
        let inApp = context.device.apps.contains(try invocation.text("appScheme"))
        return HandlerResult(
            "launched",
            data: [
                "request": .string(request), "inApp": .bool(inApp), "verifier": .secret(.string(verifier)),
                "challenge": .secret(.string(pkce.challenge)),
            ])
    }
}

/// `tinkoff.callback`: `handleCallbackUrl`. A URL that does not start with the callback URL,
/// or arrives with no sign-in in flight, is ignored. Otherwise a `cancelled` or `unavailable`
/// item wins over `code`; a URL with none of them is ignored too.
public struct TinkoffCallbackHandler: StepHandler {
    public init() {}

    public let contract = HandlerContract(
        id: "tinkoff.callback",
        summary: "Waits for the callback URL: `code` (secret), `cancelled`, `unavailable`, or `ignored`.",
        parameters: [
            ParameterSpec(
                name: "callbackUrl", kind: .value(TypeInfo(.string)), required: true, summary: "the callback URL"),
            ParameterSpec(
                name: "inFlight", kind: .value(TypeInfo(.bool)), defaultValue: .bool(true),
                summary: "whether a sign-in was started"),
        ],
        inputs: [
            InputSpec(
                name: "url", type: TypeInfo(.string), summary: "the URL the app is opened with",
                classes: ["code", "cancelled", "unavailable", "ignored"], redactsQuery: true)
        ],
        outcomes: [
            OutcomeSpec(
                name: "code", summary: "a code to exchange",
                data: [DataSpec(name: "code", type: TypeInfo(.string, secret: true))]),
            OutcomeSpec(name: "cancelled", summary: "the user cancelled in the bank (cancelledByUser)"),
            OutcomeSpec(name: "unavailable", summary: "the bank says TinkoffID is unavailable"),
            OutcomeSpec(
                name: "ignored",
                summary:
                    "not the callback URL, or no sign-in in flight (handleCallbackUrl returned false); nothing happens"),
        ],
        actionsAreOutcomes: true)

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        let (action, url) = try await context.askText("url", invocation)
        if let action { return HandlerResult(action) }
        guard url.hasPrefix(try invocation.text("callbackUrl")), invocation[parameter: "inFlight"] != .bool(false)
        else {
            return HandlerResult("ignored")
        }
        let names = Set(URLParts.queryNames(url))
        if names.contains("cancelled") { return HandlerResult("cancelled") }
        if names.contains("unavailable") { return HandlerResult("unavailable") }
        // The first `code` with a value, as CallbackURLParser's compactMap(…).first takes it.
        guard let code = URLParts(url).items.first(where: { $0.name == "code" && !$0.value.isEmpty })?.value else {
            return HandlerResult("ignored")
        }
        return HandlerResult("code", data: ["code": .secret(.string(code))])
    }
}

/// `tinkoff.token`: the code exchange (`grant_type=authorization_code`) or a refresh
/// (`grant_type=refresh_token`) at `/auth/token`. Any failure to get a decodable payload —
/// network or body, whatever the status — is `failed`.
public struct TinkoffTokenHandler: StepHandler {
    public init() {}

    public let contract = HandlerContract(
        id: "tinkoff.token",
        summary:
            "POST /auth/token: exchanges a code, or with `refreshToken` refreshes; `obtained` with the payload, or `failed`.",
        parameters: [
            ParameterSpec(
                name: "api", kind: .value(TypeInfo(.string)), defaultValue: .string("https://id.tinkoff.ru"),
                summary: "the API base"),
            ParameterSpec(name: "clientId", kind: .value(TypeInfo(.string)), required: true, summary: "the client id"),
            ParameterSpec(name: "callbackUrl", kind: .value(TypeInfo(.string)), summary: "for a code exchange"),
            ParameterSpec(name: "code", kind: .value(TypeInfo(.string, secret: true)), summary: "for a code exchange"),
            ParameterSpec(
                name: "verifier", kind: .value(TypeInfo(.string, secret: true)), summary: "for a code exchange"),
            ParameterSpec(
                name: "refreshToken", kind: .value(TypeInfo(.string, secret: true)), summary: "for a refresh"),
        ],
        outcomes: [
            OutcomeSpec(
                name: "obtained",
                summary:
                    "the token payload, whatever the answer's status, as the SDK decodes it; the refresh token is optional",
                data: TinkoffID.tokenData),
            OutcomeSpec(
                name: "failed",
                summary: "no payload in the body, or no answer (failedToObtainToken, failedToRefreshCredentials)"),
        ])

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        let clientId = try invocation.text("clientId")
        var pairs = ["client_id": clientId]
        if let refresh = invocation.optionalText("refreshToken") {
            pairs["grant_type"] = "refresh_token"
            pairs["refresh_token"] = refresh
        } else {
            pairs["grant_type"] = "authorization_code"
            pairs["code"] = try invocation.text("code")
            pairs["code_verifier"] = try invocation.text("verifier")
            pairs["redirect_uri"] = try invocation.text("callbackUrl")
        }
        let shown = TinkoffID.shown(pairs, secret: ["code", "code_verifier", "refresh_token"])
        do {
            let response = try await context.send(
                HTTPRequest(
                    method: "POST", url: try invocation.text("api") + "/auth/token",
                    headers: TinkoffID.headers(clientId: clientId), body: TinkoffID.body(pairs)))
            return TinkoffID.payload(response, request: shown) ?? HandlerResult("failed")
        } catch is NetworkError {
            return HandlerResult("failed")
        }
    }
}

/// `tinkoff.revoke`: `signOut` — POST `/auth/revoke` with `token` and `token_type_hint`. As in
/// the SDK, the HTTP status is never looked at (API.swift decodes the body whatever the status;
/// URLSession's IURLRequestProcessor passes on any data): a body that decodes as a JSON object
/// (`SignOutResponse`, an empty struct) is a sign-out, even with a 500; a body that does not,
/// or no answer, is `failed`.
public struct TinkoffRevokeHandler: StepHandler {
    public init() {}

    public let contract = HandlerContract(
        id: "tinkoff.revoke",
        summary:
            "POST /auth/revoke with token and token_type_hint: `revoked` when the body decodes (any status), or `failed`.",
        parameters: [
            ParameterSpec(
                name: "api", kind: .value(TypeInfo(.string)), defaultValue: .string("https://id.tinkoff.ru"),
                summary: "the API base"),
            ParameterSpec(name: "clientId", kind: .value(TypeInfo(.string)), required: true, summary: "the client id"),
            ParameterSpec(
                name: "token", kind: .value(TypeInfo(.string, secret: true)), required: true, summary: "the token"),
            ParameterSpec(
                name: "hint", kind: .value(TypeInfo(.string)), defaultValue: .string("access_token"),
                summary: "access_token or refresh_token"),
        ],
        outcomes: [
            OutcomeSpec(
                name: "revoked",
                summary: "an answer whose body is a JSON object, whatever its status: the SDK never reads the status",
                data: [
                    DataSpec(name: "request", type: TypeInfo(.string)), DataSpec(name: "status", type: TypeInfo(.int)),
                ]),
            OutcomeSpec(
                name: "failed",
                summary: "a body that does not decode, or no answer (status 0): the error, passed through",
                data: [DataSpec(name: "status", type: TypeInfo(.int))]),
        ])

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        let pairs = ["token": try invocation.text("token"), "token_type_hint": try invocation.text("hint")]
        do {
            let response = try await context.send(
                HTTPRequest(
                    method: "POST", url: try invocation.text("api") + "/auth/revoke",
                    headers: TinkoffID.headers(clientId: try invocation.text("clientId"), adapter: false),
                    body: TinkoffID.body(pairs)))
            guard (try? JSONDecoder().decode(TinkoffID.SignOutResponse.self, from: Data(response.body.utf8))) != nil
            else {
                return HandlerResult("failed", data: ["status": .int(response.status)])
            }
            return HandlerResult(
                "revoked",
                data: [
                    "request": .string(TinkoffID.shown(pairs, secret: ["token"])), "status": .int(response.status),
                ])
        } catch is NetworkError {
            return HandlerResult("failed", data: ["status": .int(0)])
        }
    }
}
