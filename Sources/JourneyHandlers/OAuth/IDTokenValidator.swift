import Crypto
import Foundation
import JWTKit

/// Validates an OpenID Connect id_token (OIDC Core §3.1.3.7). jwt-kit reads the provider's
/// JWKS and checks the signature; the claims are checked here, one by one, so that each
/// refusal says which rule failed: `iss`, `aud` (with no audience we do not trust), `azp`,
/// `exp`, `iat` (not in the future, and no older than ``maxAge``), `nonce` and, when present,
/// `at_hash`.
///
/// The algorithm must be one of ``algorithms`` and the key must be one the JWKS publishes for
/// it: `alg: none`, HMAC, and a header naming one key type while pointing at another all fail
/// before any signature is checked.
public struct IDTokenValidator: Sendable {
    /// The signature algorithms accepted: RSA with PKCS#1 v1.5 and with PSS, ECDSA over P-256,
    /// and Ed25519, each with its SHA-2 hash.
    public static let algorithms = ["RS256", "PS256", "ES256", "EdDSA"]
    /// AppAuth's limit on how long ago a token may have been issued (`kOIDAuthorizationSessionIATMaxSkew`).
    public static let defaultMaxAge = 600

    public var issuer: String
    public var clientID: String
    /// Allowed clock skew, in seconds.
    public var leeway: Int
    /// Audiences besides the client that a token may also name.
    public var trustedAudiences: Set<String>
    /// How long ago, in seconds, the token may have been issued.
    public var maxAge: Int

    public init(
        issuer: String, clientID: String, leeway: Int = 60, trustedAudiences: Set<String> = [],
        maxAge: Int = IDTokenValidator.defaultMaxAge
    ) {
        self.issuer = issuer
        self.clientID = clientID
        self.leeway = leeway
        self.trustedAudiences = trustedAudiences
        self.maxAge = maxAge
    }

    /// Why a token was refused. Messages never contain the token.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case malformed
        case algorithm(String)
        case unknownKey
        case signature
        case claim(String)

        public var description: String {
            switch self {
            case .malformed: "the id_token is not a JWT"
            case .algorithm(let alg):
                "the id_token is signed with '\(alg)', not one of \(IDTokenValidator.algorithms.joined(separator: ", "))"
            case .unknownKey: "no key in the provider's JWKS matches the id_token"
            case .signature: "the id_token's signature does not verify"
            case .claim(let why): "the id_token's \(why)"
            }
        }
    }

    /// The verified token's claims. `nonce` is the one sent, which the token must carry; nil
    /// for a token a refresh brought, which carries none of its own (OIDC Core §12.2).
    public func validate(
        _ token: String, jwks: Data, nonce: String?, accessToken: String?, now: Int
    ) async throws(Failure) -> IDTokenClaims {
        let header = try Self.header(of: token)
        guard Self.algorithms.contains(header.alg) else { throw .algorithm(header.alg) }
        let candidates = Self.keys(jwks, for: header)
        guard !candidates.isEmpty else { throw .unknownKey }
        var claims: IDTokenClaims?
        for jwk in candidates {
            let keys = JWTKeyCollection()
            do {
                try await keys.add(jwk: jwk)
                claims = try await keys.verify(token, as: IDTokenClaims.self)
                break
            } catch let error as JWTError where error.errorType == .signatureVerificationFailed {
                continue
            } catch let error as JWTError where error.errorType == .malformedToken {
                throw .malformed
            } catch {
                // A key jwt-kit cannot use (an RSA key under 2048 bits, a point off the curve).
                continue
            }
        }
        guard let claims else { throw .signature }
        try check(claims, algorithm: header.alg, nonce: nonce, accessToken: accessToken, now: now)
        return claims
    }

    /// The OIDC claim rules, in the order OIDC Core §3.1.3.7 lists them.
    func check(
        _ claims: IDTokenClaims, algorithm: String, nonce: String?, accessToken: String?, now: Int
    ) throws(Failure) {
        guard claims.iss == issuer else { throw .claim("issuer is not \(issuer)") }
        // Who the token is about: required, never reassigned (OIDC Core §2).
        guard let sub = claims.sub, !sub.isEmpty else { throw .claim("subject (sub) is missing") }
        guard claims.aud.contains(clientID) else { throw .claim("audience does not include \(clientID)") }
        let untrusted = Set(claims.aud).subtracting([clientID]).subtracting(trustedAudiences).sorted()
        guard untrusted.isEmpty else {
            throw .claim("audience also names \(untrusted.joined(separator: ", ")), which is not trusted")
        }
        if claims.aud.count > 1 || claims.azp != nil {
            guard claims.azp == clientID else { throw .claim("authorized party is not \(clientID)") }
        }
        guard let exp = claims.exp else { throw .claim("expiry is missing") }
        guard now < exp + leeway else { throw .claim("expired") }
        guard let iat = claims.iat, iat <= now + leeway else {
            throw .claim("issue time is missing or in the future")
        }
        guard now - iat <= maxAge else { throw .claim("was issued more than \(maxAge) seconds ago") }
        if let nonce {
            guard !nonce.isEmpty, let sent = claims.nonce, ConstantTime.equal(sent, nonce) else {
                throw .claim("nonce is not the one sent")
            }
        }
        if let atHash = claims.atHash, let accessToken {
            guard ConstantTime.equal(atHash, Self.atHash(accessToken, algorithm: algorithm)) else {
                throw .claim("at_hash does not match the access token")
            }
        }
    }

    /// The left half of the access token's hash: SHA-256 for the algorithms named with 256,
    /// SHA-512 for EdDSA over Ed25519 (OIDC Core §3.1.3.6, errata set 2).
    static func atHash(_ accessToken: String, algorithm: String) -> String {
        let digest: [UInt8] =
            algorithm == "EdDSA"
            ? Array(SHA512.hash(data: Data(accessToken.utf8))) : Array(SHA256.hash(data: Data(accessToken.utf8)))
        return Base64URL.encode(digest.prefix(digest.count / 2))
    }

    struct Header {
        var alg: String
        var kid: String?
    }

    /// The JOSE header's `alg` and `kid`; a token without three parts or a readable header is malformed.
    static func header(of token: String) throws(Failure) -> Header {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let data = Base64URL.decode(parts[0]),
            let header = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { throw .malformed }
        return Header(alg: header["alg"] as? String ?? "none", kid: header["kid"] as? String)
    }

    /// The kinds of key each algorithm verifies with: key type and curve.
    static let keyTypes: [String: (kty: String, crv: String?)] = [
        "RS256": ("RSA", nil), "PS256": ("RSA", nil), "ES256": ("EC", "P-256"), "EdDSA": ("OKP", "Ed25519"),
    ]

    /// The JWKS's signing keys that can verify a token with this header: the one its `kid`
    /// names (or, without a `kid`, every one), of the key type its algorithm needs, and not
    /// published for another algorithm. Each is set to that algorithm, so the header cannot
    /// pick another, and keeps its public part only.
    static func keys(_ jwks: Data, for header: Header) -> [JWK] {
        guard let document = try? JSONSerialization.jsonObject(with: jwks) as? [String: Any],
            let entries = document["keys"] as? [[String: Any]], let kind = keyTypes[header.alg],
            let algorithm = JWK.Algorithm(rawValue: header.alg)
        else { return [] }
        return entries.enumerated().compactMap { index, entry -> JWK? in
            guard (entry["use"] as? String ?? "sig") == "sig", entry["kty"] as? String == kind.kty,
                kind.crv == nil || entry["crv"] as? String == kind.crv,
                (entry["alg"] as? String).map({ $0 == header.alg }) ?? true,
                header.kid == nil || entry["kid"] as? String == header.kid,
                let entry = kind.kty == "EC" ? Self.withFullCoordinates(entry) : entry,
                let data = try? JSONSerialization.data(withJSONObject: entry),
                var jwk = try? JSONDecoder().decode(JWK.self, from: data)
            else { return nil }
            jwk.algorithm = algorithm
            jwk.keyIdentifier = JWKIdentifier(string: header.kid ?? "key-\(index)")
            jwk.privateExponent = nil
            jwk.prime1 = nil
            jwk.prime2 = nil
            return jwk
        }
    }
}

extension IDTokenValidator {
    /// The size of a P-256 coordinate, in bytes.
    static let p256CoordinateSize = 32

    /// A P-256 key's entry with `x` and `y` each written in full, 32 bytes: a provider that
    /// writes a coordinate as a number, without its leading zero bytes (Glewlwyd does, for one
    /// key in 128), publishes the same point, and a sign-in with it must not fail at random.
    /// A coordinate that is empty, longer than 32 bytes or not base64url is no key (nil); the
    /// point is still checked to be on the curve when the key is made.
    static func withFullCoordinates(_ entry: [String: Any]) -> [String: Any]? {
        var entry = entry
        for name in ["x", "y"] {
            guard let text = entry[name] as? String, let bytes = Base64URL.decode(text),
                (1...p256CoordinateSize).contains(bytes.count)
            else { return nil }
            entry[name] = Base64URL.encode(Data(repeating: 0, count: p256CoordinateSize - bytes.count) + bytes)
        }
        return entry
    }
}

/// The claims of an id_token that validation reads. `aud` may be one text or a list.
public struct IDTokenClaims: JWTPayload, Equatable {
    public var iss: String?
    public var sub: String?
    public var aud: [String]
    public var azp: String?
    public var exp: Int?
    public var iat: Int?
    public var nonce: String?
    public var atHash: String?

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, azp, exp, iat, nonce
        case atHash = "at_hash"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        iss = try container.decodeIfPresent(String.self, forKey: .iss)
        sub = try container.decodeIfPresent(String.self, forKey: .sub)
        if let one = try? container.decode(String.self, forKey: .aud) {
            aud = [one]
        } else {
            aud = try container.decodeIfPresent([String].self, forKey: .aud) ?? []
        }
        azp = try container.decodeIfPresent(String.self, forKey: .azp)
        exp = try Self.seconds(container, .exp)
        iat = try Self.seconds(container, .iat)
        nonce = try container.decodeIfPresent(String.self, forKey: .nonce)
        atHash = try container.decodeIfPresent(String.self, forKey: .atHash)
    }

    /// A NumericDate (seconds since 1970, maybe with a fraction), held to the years 1970–9999.
    static func seconds(_ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> Int? {
        guard let value = try container.decodeIfPresent(Double.self, forKey: key) else { return nil }
        guard value.isFinite, (0...253_402_300_799).contains(value) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "out of range")
        }
        return Int(value)
    }

    /// The claims are checked by ``IDTokenValidator``, each rule with its own message.
    public func verify(using algorithm: some JWTAlgorithm) async throws {}
}

extension IDTokenClaims {
    /// The claims of a token read without checking its signature: for one validated when it
    /// was issued and kept since (the id_token a refresh's new one is compared with); nil for
    /// what is not a JWT.
    static func unverified(_ token: String) -> IDTokenClaims? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64URL.decode(parts[1]) else { return nil }
        return try? JSONDecoder().decode(IDTokenClaims.self, from: payload)
    }
}
