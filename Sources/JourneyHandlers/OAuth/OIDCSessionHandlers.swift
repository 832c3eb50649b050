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
        summary: "Token revocation (RFC 7009): `revoked` (200), `failed` (status, error) or `offline`.",
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
        ],
        outcomes: [
            OutcomeSpec(name: "revoked", summary: "the provider accepted the revocation"),
            OutcomeSpec(
                name: "failed", summary: "the provider refused it",
                data: [
                    DataSpec(name: "status", type: TypeInfo(.int)), DataSpec(name: "error", type: TypeInfo(.string)),
                ]),
            OutcomeSpec(name: "offline", summary: "no response"),
        ])

    public func run(_ invocation: HandlerInvocation, context: HandlerContext) async throws -> HandlerResult {
        var headers: [HTTPRequest.Header] = [.init("Content-Type", "application/x-www-form-urlencoded")]
        if let bearer = invocation.optionalText("accessToken") {
            headers.append(.init("Authorization", "Bearer " + bearer))
        }
        let form = FormEncoding.encode([
            ("token", try invocation.text("token")), ("token_type_hint", try invocation.text("hint")),
            ("client_id", try invocation.text("clientId")),
        ])
        do {
            let response = try await context.send(
                HTTPRequest(method: "POST", url: try invocation.text("endpoint"), headers: headers, body: form))
            guard response.status == 200 else {
                let error = jsonObject(response.body)?["error"] as? String ?? ""
                return HandlerResult("failed", data: ["status": .int(response.status), "error": .string(error)])
            }
            return HandlerResult("revoked")
        } catch is NetworkError {
            return HandlerResult("offline")
        }
    }
}
