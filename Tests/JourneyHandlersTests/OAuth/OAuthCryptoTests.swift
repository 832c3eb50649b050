import Crypto
import CryptoExtras
import Foundation
import Testing

@testable import JourneyHandlers

@Suite("PKCE and id_token validation")
struct OAuthCryptoTests {
    /// RFC 7636 Appendix B.
    @Test func pkceMatchesTheRFCVector() {
        let pkce = PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        #expect(pkce.challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(pkce.method == "S256")
    }

    @Test func freshVerifiersAreLongRandomAndValid() {
        let a = PKCE(), b = PKCE()
        #expect(a.verifier.count == 43 && PKCE.isValid(verifier: a.verifier))
        #expect(a.verifier != b.verifier)
        #expect(!PKCE.isValid(verifier: "short") && !PKCE.isValid(verifier: String(repeating: "a", count: 42) + "!"))
        #expect(PKCE.randomToken().count >= 22, "state and nonce carry at least 128 bits")
    }

    static let key = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    static let issuer = "http://127.0.0.1:4593/api/oidc"

    static var jwks: Data {
        let primitives = try! key.publicKey.getKeyPrimitives()
        let json =
            #"{"keys":[{"kty":"RSA","use":"sig","kid":"k1","alg":"RS256","n":"\#(Base64URL.encode(primitives.modulus))","e":"\#(Base64URL.encode(primitives.publicExponent))"}]}"#
        return Data(json.utf8)
    }

    static func token(
        _ claims: [String: Any], header: [String: Any] = ["alg": "RS256", "kid": "k1"], tamper: Bool = false
    ) -> String {
        let h = Base64URL.encode(try! JSONSerialization.data(withJSONObject: header, options: [.sortedKeys]))
        let c = Base64URL.encode(try! JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys]))
        var signature = Data(
            try! key.signature(for: SHA256.hash(data: Data("\(h).\(c)".utf8)), padding: .insecurePKCS1v1_5)
                .rawRepresentation)
        if tamper { signature[signature.count - 1] ^= 0x01 }
        return "\(h).\(c).\(Base64URL.encode(signature))"
    }

    static let now = 1_767_225_600
    static let accessToken = "access-token-for-at-hash"
    static var goodClaims: [String: Any] {
        let digest = Array(SHA256.hash(data: Data(accessToken.utf8)))
        return [
            "iss": issuer, "aud": "mobile-app", "azp": "mobile-app", "sub": "alice", "exp": now + 300, "iat": now,
            "nonce": "n-0S6_WzA2Mj", "at_hash": Base64URL.encode(digest.prefix(16)),
        ]
    }

    func validate(_ token: String) throws(IDTokenValidator.Failure) -> [String: Any] {
        try IDTokenValidator(issuer: Self.issuer, clientID: "mobile-app").validate(
            token, jwks: Self.jwks, nonce: "n-0S6_WzA2Mj", accessToken: Self.accessToken, now: Self.now)
    }

    @Test func aProperTokenValidates() throws {
        let claims = try validate(Self.token(Self.goodClaims))
        #expect(claims["sub"] as? String == "alice")
    }

    @Test func everyTamperingIsRefused() {
        func refused(_ token: String, _ expected: IDTokenValidator.Failure) {
            #expect(throws: expected) { _ = try validate(token) }
        }
        refused(Self.token(Self.goodClaims, tamper: true), .signature)
        refused(Self.token(Self.goodClaims, header: ["alg": "none", "kid": "k1"]), .algorithm("none"))
        refused(Self.token(Self.goodClaims, header: ["alg": "HS256", "kid": "k1"]), .algorithm("HS256"))
        refused(Self.token(Self.goodClaims, header: ["alg": "RS256", "kid": "other"]), .unknownKey)
        var claims = Self.goodClaims
        claims["iss"] = "http://evil.example"
        refused(Self.token(claims), .claim("issuer is not \(Self.issuer)"))
        claims = Self.goodClaims
        claims["aud"] = "someone-else"
        refused(Self.token(claims), .claim("audience does not include mobile-app"))
        claims = Self.goodClaims
        claims["azp"] = "someone-else"
        refused(Self.token(claims), .claim("authorized party is not mobile-app"))
        claims = Self.goodClaims
        claims["exp"] = Self.now - 61
        refused(Self.token(claims), .claim("expired"))
        claims = Self.goodClaims
        claims["nonce"] = "replayed"
        refused(Self.token(claims), .claim("nonce is not the one sent"))
        claims = Self.goodClaims
        claims["at_hash"] = "AAAAAAAAAAAAAAAAAAAAAA"
        refused(Self.token(claims), .claim("at_hash does not match the access token"))
        refused("not.a.jwt.at.all", .malformed)
    }
}
