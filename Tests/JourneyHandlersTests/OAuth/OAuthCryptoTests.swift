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
    static let pssKey = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    static let ecKey = P256.Signing.PrivateKey()
    static let edKey = Curve25519.Signing.PrivateKey()
    static let issuer = "http://127.0.0.1:4593/api/oidc"

    /// The algorithms a provider may sign id_tokens with, each with a key of its own in the JWKS.
    enum Algorithm: String, CaseIterable, Sendable {
        case rs256 = "RS256", ps256 = "PS256", es256 = "ES256", eddsa = "EdDSA"

        var kid: String {
            switch self {
            case .rs256: "k1"
            case .ps256: "k-pss"
            case .es256: "k-ec"
            case .eddsa: "k-ed"
            }
        }

        func sign(_ input: Data) -> Data {
            switch self {
            case .rs256:
                Data(try! key.signature(for: SHA256.hash(data: input), padding: .insecurePKCS1v1_5).rawRepresentation)
            case .ps256: Data(try! pssKey.signature(for: SHA256.hash(data: input), padding: .PSS).rawRepresentation)
            case .es256: try! ecKey.signature(for: input).rawRepresentation
            case .eddsa: try! edKey.signature(for: input)
            }
        }

        /// `at_hash`: the left half of the access token's hash, SHA-256 for the algorithms with
        /// 256 in their name and SHA-512 for EdDSA over Ed25519.
        func atHash(_ accessToken: String) -> String {
            let digest: [UInt8] =
                self == .eddsa
                ? Array(SHA512.hash(data: Data(accessToken.utf8))) : Array(SHA256.hash(data: Data(accessToken.utf8)))
            return Base64URL.encode(digest.prefix(digest.count / 2))
        }
    }

    static var jwks: Data {
        func rsa(_ key: _RSA.Signing.PrivateKey, kid: String, alg: String) -> String {
            let primitives = try! key.publicKey.getKeyPrimitives()
            return
                #"{"kty":"RSA","use":"sig","kid":"\#(kid)","alg":"\#(alg)","n":"\#(Base64URL.encode(primitives.modulus))","e":"\#(Base64URL.encode(primitives.publicExponent))"}"#
        }
        let point = ecKey.publicKey.rawRepresentation
        let ec =
            #"{"kty":"EC","use":"sig","kid":"k-ec","alg":"ES256","crv":"P-256","x":"\#(Base64URL.encode(point.prefix(32)))","y":"\#(Base64URL.encode(point.suffix(32)))"}"#
        let ed =
            #"{"kty":"OKP","use":"sig","kid":"k-ed","alg":"EdDSA","crv":"Ed25519","x":"\#(Base64URL.encode(edKey.publicKey.rawRepresentation))"}"#
        let keys = [rsa(key, kid: "k1", alg: "RS256"), rsa(pssKey, kid: "k-pss", alg: "PS256"), ec, ed]
        return Data(#"{"keys":[\#(keys.joined(separator: ","))]}"#.utf8)
    }

    static func token(
        _ claims: [String: Any], header: [String: Any]? = nil, algorithm: Algorithm = .rs256, tamper: Bool = false
    ) -> String {
        let header = header ?? ["alg": algorithm.rawValue, "kid": algorithm.kid]
        let h = Base64URL.encode(try! JSONSerialization.data(withJSONObject: header, options: [.sortedKeys]))
        let c = Base64URL.encode(try! JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys]))
        var signature = algorithm.sign(Data("\(h).\(c)".utf8))
        if tamper { signature[signature.count - 1] ^= 0x01 }
        return "\(h).\(c).\(Base64URL.encode(signature))"
    }

    static let now = 1_767_225_600
    static let accessToken = "access-token-for-at-hash"
    static func claims(for algorithm: Algorithm = .rs256) -> [String: Any] {
        [
            "iss": issuer, "aud": "mobile-app", "azp": "mobile-app", "sub": "alice", "exp": now + 300, "iat": now,
            "nonce": "n-0S6_WzA2Mj", "at_hash": algorithm.atHash(accessToken),
        ]
    }
    static var goodClaims: [String: Any] { claims() }

    func validate(
        _ token: String, trusting audiences: Set<String> = [], maxAge: Int = IDTokenValidator.defaultMaxAge
    ) async throws(IDTokenValidator.Failure) -> IDTokenClaims {
        try await IDTokenValidator(
            issuer: Self.issuer, clientID: "mobile-app", trustedAudiences: audiences, maxAge: maxAge
        ).validate(token, jwks: Self.jwks, nonce: "n-0S6_WzA2Mj", accessToken: Self.accessToken, now: Self.now)
    }

    @Test func aProperTokenValidates() async throws {
        let claims = try await validate(Self.token(Self.goodClaims))
        #expect(claims.sub == "alice")
    }

    @Test func everyTamperingIsRefused() async {
        func refused(_ token: String, _ expected: IDTokenValidator.Failure) async {
            await #expect(throws: expected) { _ = try await validate(token) }
        }
        await refused(Self.token(Self.goodClaims, tamper: true), .signature)
        await refused(Self.token(Self.goodClaims, header: ["alg": "none", "kid": "k1"]), .algorithm("none"))
        await refused(Self.token(Self.goodClaims, header: ["alg": "HS256", "kid": "k1"]), .algorithm("HS256"))
        await refused(Self.token(Self.goodClaims, header: ["alg": "RS256", "kid": "other"]), .unknownKey)
        var claims = Self.goodClaims
        claims["iss"] = "http://evil.example"
        await refused(Self.token(claims), .claim("issuer is not \(Self.issuer)"))
        claims = Self.goodClaims
        claims["aud"] = "someone-else"
        await refused(Self.token(claims), .claim("audience does not include mobile-app"))
        claims = Self.goodClaims
        claims["azp"] = "someone-else"
        await refused(Self.token(claims), .claim("authorized party is not mobile-app"))
        claims = Self.goodClaims
        claims["exp"] = Self.now - 61
        await refused(Self.token(claims), .claim("expired"))
        claims = Self.goodClaims
        claims["nonce"] = "replayed"
        await refused(Self.token(claims), .claim("nonce is not the one sent"))
        claims = Self.goodClaims
        claims["at_hash"] = "AAAAAAAAAAAAAAAAAAAAAA"
        await refused(Self.token(claims), .claim("at_hash does not match the access token"))
        await refused("not.a.jwt.at.all", .malformed)
        // No nonce sent (a journey that passes one it never set) matches no token, not even
        // one whose nonce is empty too.
        claims = Self.goodClaims
        claims["nonce"] = ""
        await #expect(throws: IDTokenValidator.Failure.claim("nonce is not the one sent")) {
            _ = try await IDTokenValidator(issuer: Self.issuer, clientID: "mobile-app").validate(
                Self.token(claims), jwks: Self.jwks, nonce: "", accessToken: Self.accessToken, now: Self.now)
        }
    }

    /// OIDC Core §3.1.3.7 step 3: a token for several audiences is for us only if we trust
    /// every one of them; `azp` naming us does not make the others safe.
    @Test func anAudienceListingOthersIsRefusedUnlessTrusted() async throws {
        var claims = Self.goodClaims
        claims["aud"] = ["mobile-app", "reporting-api", "ads-api"]
        let token = Self.token(claims)
        await #expect(
            throws: IDTokenValidator.Failure.claim("audience also names ads-api, reporting-api, which is not trusted")
        ) {
            _ = try await validate(token)
        }
        await #expect(throws: IDTokenValidator.Failure.claim("audience also names ads-api, which is not trusted")) {
            _ = try await validate(token, trusting: ["reporting-api"])
        }
        let trusted = try await validate(token, trusting: ["reporting-api", "ads-api"])
        #expect(trusted.aud == ["mobile-app", "reporting-api", "ads-api"])
        // Trusting others never makes a token that does not name us ours.
        claims["aud"] = ["reporting-api"]
        claims["azp"] = "reporting-api"
        await #expect(throws: IDTokenValidator.Failure.claim("audience does not include mobile-app")) {
            _ = try await validate(Self.token(claims), trusting: ["reporting-api"])
        }
    }

    /// A token issued ten years ago, still unexpired, is not a fresh sign-in: `iat` may be at
    /// most `maxAge` seconds old (600 by default, as AppAuth).
    @Test func anOldTokenIsRefused() async throws {
        var claims = Self.goodClaims
        claims["iat"] = Self.now - 3650 * 86_400
        await #expect(throws: IDTokenValidator.Failure.claim("was issued more than 600 seconds ago")) {
            _ = try await validate(Self.token(claims))
        }
        claims["iat"] = Self.now - 601
        await #expect(throws: IDTokenValidator.Failure.claim("was issued more than 600 seconds ago")) {
            _ = try await validate(Self.token(claims))
        }
        claims["iat"] = Self.now - 600
        _ = try await validate(Self.token(claims))
        claims["iat"] = Self.now - 3000
        _ = try await validate(Self.token(claims), maxAge: 3600)
        await #expect(throws: IDTokenValidator.Failure.claim("was issued more than 60 seconds ago")) {
            _ = try await validate(Self.token(claims), maxAge: 60)
        }
    }

    @Test(arguments: Algorithm.allCases)
    func everySupportedAlgorithmValidates(_ algorithm: Algorithm) async throws {
        let claims = try await validate(Self.token(Self.claims(for: algorithm), algorithm: algorithm))
        #expect(claims.sub == "alice")
    }

    /// The refusals of RS256 hold for every algorithm: a flipped signature bit, `alg: none`,
    /// HMAC, a header that names this algorithm with another key type's key, an unknown key,
    /// and an at_hash taken with the wrong hash.
    @Test(arguments: Algorithm.allCases)
    func everyAlgorithmRefusesTampering(_ algorithm: Algorithm) async {
        func refused(_ token: String, _ expected: IDTokenValidator.Failure) async {
            await #expect(throws: expected) { _ = try await validate(token) }
        }
        let claims = Self.claims(for: algorithm)
        await refused(Self.token(claims, algorithm: algorithm, tamper: true), .signature)
        let forged = Self.token(claims, algorithm: algorithm).split(separator: ".").map(String.init)
        var other = claims
        other["sub"] = "mallory"
        let otherClaims = Self.token(other, algorithm: algorithm).split(separator: ".")[1]
        await refused("\(forged[0]).\(otherClaims).\(forged[2])", .signature)
        await refused(
            Self.token(claims, header: ["alg": "none", "kid": algorithm.kid], algorithm: algorithm), .algorithm("none"))
        await refused("\(Base64URL.encode(Data(#"{"alg":"none"}"#.utf8))).\(forged[1]).", .algorithm("none"))
        await refused(
            Self.token(claims, header: ["alg": "HS256", "kid": algorithm.kid], algorithm: algorithm),
            .algorithm("HS256"))
        await refused(
            Self.token(claims, header: ["alg": algorithm.rawValue, "kid": "not-published"], algorithm: algorithm),
            .unknownKey)
        for confused in Algorithm.allCases where Self.keyType(confused) != Self.keyType(algorithm) {
            // The header names this algorithm but points at a key of another type.
            await refused(
                Self.token(claims, header: ["alg": algorithm.rawValue, "kid": confused.kid], algorithm: algorithm),
                .unknownKey)
        }
        var wrongHash = claims
        wrongHash["at_hash"] = (algorithm == .eddsa ? Algorithm.rs256 : Algorithm.eddsa).atHash(Self.accessToken)
        await refused(Self.token(wrongHash, algorithm: algorithm), .claim("at_hash does not match the access token"))
    }

    static func keyType(_ algorithm: Algorithm) -> String {
        switch algorithm {
        case .rs256, .ps256: "RSA"
        case .es256: "EC"
        case .eddsa: "OKP"
        }
    }

    /// A P-256 key whose x (or y) begins with a zero byte, published as Glewlwyd publishes it
    /// (one key in 128): the coordinate without its leading zeros, 31 bytes where RFC 7518
    /// §6.2.1.2 asks for 32. It names the same point, so its tokens verify; a coordinate longer
    /// than the curve's, or one off the curve, is no key.
    @Test func aP256KeyPublishedWithoutItsLeadingZerosVerifies() async throws {
        var key = P256.Signing.PrivateKey()
        while Array(key.publicKey.rawRepresentation)[0] != 0 && Array(key.publicKey.rawRepresentation)[32] != 0 {
            key = P256.Signing.PrivateKey()
        }
        let point = Array(key.publicKey.rawRepresentation)
        func jwks(x: [UInt8], y: [UInt8]) -> Data {
            Data(
                #"{"keys":[{"kty":"EC","use":"sig","kid":"k-ec","alg":"ES256","crv":"P-256","x":"\#(Base64URL.encode(x))","y":"\#(Base64URL.encode(y))"}]}"#
                    .utf8)
        }
        func trimmed(_ coordinate: [UInt8]) -> [UInt8] { Array(coordinate.drop { $0 == 0 }) }
        let header = Base64URL.encode(Data(#"{"alg":"ES256","kid":"k-ec"}"#.utf8))
        let body = Base64URL.encode(
            try JSONSerialization.data(withJSONObject: Self.claims(for: .es256), options: [.sortedKeys]))
        let signature = try key.signature(for: Data("\(header).\(body)".utf8)).rawRepresentation
        let token = "\(header).\(body).\(Base64URL.encode(signature))"
        let validator = IDTokenValidator(issuer: Self.issuer, clientID: "mobile-app")
        func validate(_ jwks: Data) async throws(IDTokenValidator.Failure) -> IDTokenClaims {
            try await validator.validate(
                token, jwks: jwks, nonce: "n-0S6_WzA2Mj", accessToken: Self.accessToken, now: Self.now)
        }
        let x = Array(point.prefix(32)), y = Array(point.suffix(32))
        #expect(trimmed(x).count < 32 || trimmed(y).count < 32)
        #expect(try await validate(jwks(x: trimmed(x), y: trimmed(y))).sub == "alice")
        #expect(try await validate(jwks(x: x, y: y)).sub == "alice")
        // A coordinate of 33 bytes, even with a zero in front, is not a P-256 coordinate.
        await #expect(throws: IDTokenValidator.Failure.unknownKey) {
            _ = try await validate(jwks(x: [0] + x, y: y))
        }
        // Nor is an empty one.
        await #expect(throws: IDTokenValidator.Failure.unknownKey) { _ = try await validate(jwks(x: [], y: y)) }
    }

    /// A header without `kid` is tried against every key published for its algorithm.
    @Test func aTokenWithoutKeyIdFindsItsKey() async throws {
        let claims = try await validate(
            Self.token(Self.claims(for: .es256), header: ["alg": "ES256"], algorithm: .es256))
        #expect(claims.sub == "alice")
    }
}
