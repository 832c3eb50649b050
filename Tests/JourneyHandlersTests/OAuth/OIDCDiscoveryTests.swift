import Foundation
import JourneyCore
import Testing

@testable import JourneyHandlers

/// `oidc.discover` hands out only endpoints on the issuer's own origin (scheme, host and
/// port), or on origins the journey lists: a discovery document that points an endpoint
/// elsewhere would have the client send its tokens there (RFC 9700 §2.3, security note #59).
@Suite("OpenID discovery keeps endpoints on the issuer's origin")
struct OIDCDiscoveryTests {
    static let issuer = "https://op.example.org/oidc"

    /// A journey that discovers, then sends the access token to the userinfo endpoint found.
    static func journey(allowing origins: [String]? = nil) -> String {
        let allowed = origins.map { ", allowedOrigins: [\($0.map { "\"\($0)\"" }.joined(separator: ", "))]" } ?? ""
        return """
            journey: t.discover
            version: 1
            title: Discover, then userinfo
            state:
              userinfo: { type: string, default: "" }
            start: discover
            steps:
              discover:
                handler: oidc.discover
                with: { issuer: "\(issuer)"\(allowed) }
                on:
                  ok:
                    set: { state.userinfo: "${outcome.userinfoEndpoint}" }
                    to: userinfo
                  foreignEndpoint:
                    - if: outcome.endpoint == 'userinfoEndpoint' && outcome.origin == 'https://evil.example'
                      to: refused
                    - else: other
                  mismatch: other
                  failed: other
                  offline: other
              userinfo:
                handler: oidc.userinfo
                with: { endpoint: "${state.userinfo}", accessToken: "access-token-0123456789" }
                on: { ok: done, unauthorized: other, failed: other, offline: other }
            ends:
              done: { kind: success }
              refused: { kind: failure }
              other: { kind: failure }
            """
    }

    static func scenario(userinfo: String, jwks: String = "https://op.example.org/oidc/jwks", expect: String) -> String
    {
        """
        scenario: s
        journey: t.discover
        network:
          - request: GET https://op.example.org/oidc/.well-known/openid-configuration
            response:
              status: 200
              json:
                issuer: "\(issuer)"
                authorization_endpoint: "https://op.example.org/oidc/auth"
                token_endpoint: "https://op.example.org/oidc/token"
                userinfo_endpoint: "\(userinfo)"
                jwks_uri: "\(jwks)"
          - request: GET \(userinfo)
            response: { status: 200, json: { name: Ada } }
          - request: GET https://op.example.org/oidc/userinfo
            response: { status: 200, json: { name: Ada } }
        script: []
        expect: { end: \(expect) }
        """
    }

    @Test("an endpoint on another origin is refused, naming the endpoint, and nothing is sent there")
    func foreignUserinfoIsRefused() async throws {
        let (report, transcript) = try await run(
            journeys: [Self.journey()],
            scenario: Self.scenario(userinfo: "https://evil.example/steal", expect: "refused"))
        #expect(report.passed, "\(report.problems)")
        #expect(
            transcript.text.contains(
                #"outcome foreignEndpoint {endpoint: "userinfoEndpoint", origin: "https://evil.example"}"#))
        #expect(!transcript.text.contains("http GET https://evil.example"), "the access token went to another origin")
    }

    /// The same host on another scheme or port is another origin; a user part before `@`
    /// hides the real host, which the outcome names.
    @Test(
        "the same host on another scheme or port, or behind a user part, is another origin",
        arguments: [
            ("http://op.example.org/oidc/userinfo", "other"), ("https://op.example.org:8443/oidc/userinfo", "other"),
            ("https://op.example.org@evil.example/oidc/userinfo", "refused"),
        ])
    func lookalikeOriginsAreForeign(_ userinfo: String, _ end: String) async throws {
        let (report, transcript) = try await run(
            journeys: [Self.journey()], scenario: Self.scenario(userinfo: userinfo, expect: end))
        #expect(report.passed, "\(report.problems)")
        #expect(transcript.text.contains(#"outcome foreignEndpoint {endpoint: "userinfoEndpoint""#))
    }

    @Test("an origin the journey lists is allowed")
    func listedOriginIsAllowed() async throws {
        let (report, transcript) = try await run(
            journeys: [Self.journey(allowing: ["https://keys.example.net"])],
            scenario: Self.scenario(
                userinfo: "https://op.example.org/oidc/userinfo", jwks: "https://keys.example.net/oidc/jwks",
                expect: "done"))
        #expect(report.passed, "\(report.problems)")
        #expect(transcript.text.contains("outcome ok"))
        let refused = try await run(
            journeys: [Self.journey(allowing: ["https://keys.example.net"])],
            scenario: Self.scenario(userinfo: "https://evil.example/steal", expect: "refused"))
        #expect(refused.report.passed, "\(refused.report.problems)")
    }

    @Test("the endpoints on the issuer's origin pass, with a default port written or not")
    func sameOriginPasses() async throws {
        let (report, _) = try await run(
            journeys: [Self.journey()],
            scenario: Self.scenario(userinfo: "https://OP.example.org:443/oidc/userinfo", expect: "done"))
        #expect(report.passed, "\(report.problems)")
    }
}
