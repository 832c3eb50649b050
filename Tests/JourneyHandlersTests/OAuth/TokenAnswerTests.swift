import Foundation
import JourneyCore
import Testing

@testable import JourneyHandlers

/// What a token endpoint answers is read before anything in it is kept: a token response
/// (RFC 6749 §5.1) and, after a refresh, an id_token checked as OIDC Core §12.2 asks.
@Suite("Token answers are checked before anything is kept")
struct TokenAnswerTests {
    static let issuer = OAuthCryptoTests.issuer
    static var now: Int { Int(Date().timeIntervalSince1970) }

    /// An id_token the test provider (OAuthCryptoTests' keys) signs, about `sub`, issued now.
    static func idToken(sub: String = "alice", nonce: String? = "n-1", algorithm: String = "RS256") -> String {
        var claims: [String: Any] = [
            "iss": issuer, "aud": "mobile-app", "sub": sub, "exp": now + 300, "iat": now,
        ]
        if let nonce { claims["nonce"] = nonce }
        if algorithm == "none" {
            let header = Base64URL.encode(Data(#"{"alg":"none"}"#.utf8))
            let body = Base64URL.encode(try! JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys]))
            return "\(header).\(body)."
        }
        return OAuthCryptoTests.token(claims)
    }

    static func json(_ object: [String: Any]) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    /// Plays `oidc.refresh` (forced) against a token endpoint answering `answer`, the JWKS at
    /// https://op.example/jwks; the end says what came of it: `refreshed` and the id_token
    /// passed on (`kept` the one held, `new` another), or the outcome's name.
    static func refresh(
        answer: [String: Any], status: Int = 200, held: String = "", checks: Bool = true
    ) async throws -> (end: String?, transcript: String) {
        let journey = """
            journey: t.refresh
            version: 1
            title: Refresh
            params:
              held: { type: string, secret: true, default: "" }
            start: s
            steps:
              s:
                handler: oidc.refresh
                with:
                  endpoint: https://op.example/token
                  clientId: mobile-app
                  refreshToken: rt-1
                  expiresAt: 0
                  force: true
                  idToken: "${params.held}"
            \(checks ? "      jwksUri: https://op.example/jwks\n      issuer: \"\(issuer)\"" : "")
                on:
                  refreshed:
                    - if: outcome.idToken == params.held
                      to: kept
                    - else: new
                  fresh: fresh
                  invalidGrant: invalidGrant
                  invalidToken: invalidToken
                  noRefreshToken: other
                  failed: failed
                  offline: other
            ends:
              kept: { kind: success }
              new: { kind: success }
              fresh: { kind: failure }
              invalidGrant: { kind: failure }
              invalidToken: { kind: failure }
              failed: { kind: failure }
              other: { kind: failure }
            """
        let jwks = String(decoding: OAuthCryptoTests.jwks, as: UTF8.self)
        let scenario = """
            scenario: s
            journey: t.refresh
            params: { held: "\(held)" }
            network:
              - request: POST https://op.example/token
                response: { status: \(status), body: \(Self.quoted(Self.json(answer))) }
              - request: GET https://op.example/jwks
                response: { status: 200, body: \(Self.quoted(jwks)) }
            script: []
            expect: { end: kept }
            """
        let (report, transcript) = try await run(journeys: [journey], scenario: scenario)
        return (report.result.end, transcript.text)
    }

    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    static var tokens: [String: Any] {
        [
            "access_token": "at-2", "refresh_token": "rt-2", "token_type": "Bearer", "expires_in": 300,
        ]
    }

    /// The tokens with `changes`, a JSON object whose `null`s remove a field.
    static func with(_ changes: String) -> [String: Any] {
        var answer = tokens
        let parsed = try! JSONSerialization.jsonObject(with: Data(changes.utf8)) as! [String: Any]
        for (key, value) in parsed { answer[key] = value is NSNull ? nil : value }
        return answer
    }

    static func with(idToken: String) -> [String: Any] {
        var answer = tokens
        answer["id_token"] = idToken
        return answer
    }

    @Test("a refreshed id_token is passed on only once validated and found to name the held one's subject")
    func refreshedIDToken() async throws {
        let held = Self.idToken()
        // Signed by the provider, about the same user: passed on.
        #expect(try await Self.refresh(answer: Self.with(idToken: Self.idToken(nonce: nil)), held: held).end == "new")
        // Forged (alg none), or about someone else, or with another nonce: refused, nothing kept.
        for forged in [Self.idToken(algorithm: "none"), Self.idToken(sub: "mallory"), Self.idToken(nonce: "n-2")] {
            #expect(try await Self.refresh(answer: Self.with(idToken: forged), held: held).end == "invalidToken")
        }
        // No id_token in the answer: the one held (it was wiped to "" before).
        #expect(try await Self.refresh(answer: Self.tokens, held: held).end == "kept")
        // A step that gives no JWKS cannot check a new one: the one held is passed on, not it.
        #expect(
            try await Self.refresh(
                answer: Self.with(idToken: Self.idToken(algorithm: "none")), held: held, checks: false
            ).end == "kept")
    }

    @Test(
        "an answer that is no token response is refused, never taken for new tokens",
        arguments: [
            #"{"error": "invalid_grant"}"#, #"{"token_type": null}"#, #"{"token_type": "mac"}"#,
            #"{"access_token": ""}"#, #"{"access_token": null}"#, #"{"expires_in": 1e300}"#, #"{"expires_in": -5}"#,
            #"{"expires_in": true}"#, #"{"expires_in": 1.5}"#, #"{"expires_in": "soon"}"#,
        ])
    func notATokenResponse(_ changes: String) async throws {
        #expect(try await Self.refresh(answer: Self.with(changes)).end == "invalidToken", "\(changes)")
    }

    @Test("a lifetime written as text, and a lowercase token type, are read as meant")
    func lenientWhereHarmless() async throws {
        #expect(
            try await Self.refresh(answer: Self.with(#"{"expires_in": "3600", "token_type": "bearer"}"#)).end == "kept")
        #expect(TokenAnswer.lifetime("3600") == 3600 && TokenAnswer.lifetime(nil) == 0)
        #expect(TokenAnswer.lifetime(NSNumber(value: 3_650 * 86_400 + 1)) == nil)
    }

    /// `expires_in` is RECOMMENDED (RFC 6749 §5.1): an answer without it has a token of no
    /// known lifetime, which AppAuth keeps as fresh; one of 0 seconds has expired already.
    @Test("an answer without expires_in says it gave no lifetime; one of 0 seconds gave one")
    func noLifetimeIsNotZero() throws {
        let without: [String: Any] = ["access_token": "at-2", "token_type": "Bearer"]
        let read = try TokenAnswer.read(without).get()
        #expect(read.access == "at-2" && read.expiresIn == nil)
        #expect(OIDCTokenHandler.lifetime(read.expiresIn) == ["expiresIn": .int(0), "expires": .bool(false)])
        let zero = try TokenAnswer.read(without.merging(["expires_in": 0]) { $1 }).get()
        #expect(zero.expiresIn == 0)
        #expect(OIDCTokenHandler.lifetime(zero.expiresIn) == ["expiresIn": .int(0), "expires": .bool(true)])
    }

    @Test("a server's error text is shown only when it is an OAuth error code")
    func errorText() async throws {
        let refused = try await Self.refresh(
            answer: ["error": "invalid_grant rt-1-the-refresh-token-echoed"], status: 401)
        #expect(refused.end == "failed")
        #expect(!refused.transcript.contains("echoed"), "\(refused.transcript)")
        #expect(refused.transcript.contains("(not an OAuth error code)"), "\(refused.transcript)")
        #expect(TokenAnswer.code("invalid_grant") == "invalid_grant")
        #expect(TokenAnswer.code(String(repeating: "a", count: 65)) == "(not an OAuth error code)")
    }

    @Test("an id_token without a subject is refused")
    func noSubject() async {
        var claims = OAuthCryptoTests.goodClaims
        claims["sub"] = nil
        await #expect(throws: IDTokenValidator.Failure.claim("subject (sub) is missing")) {
            _ = try await IDTokenValidator(issuer: OAuthCryptoTests.issuer, clientID: "mobile-app").validate(
                OAuthCryptoTests.token(claims), jwks: OAuthCryptoTests.jwks, nonce: "n-0S6_WzA2Mj",
                accessToken: OAuthCryptoTests.accessToken, now: OAuthCryptoTests.now)
        }
    }
}
