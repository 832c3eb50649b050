import Crypto
import CryptoExtras
import Foundation

/// Validates an OpenID Connect id_token (OIDC Core §3.1.3.7): the RS256 signature against the
/// provider's JWKS, then `iss`, `aud`, `azp`, `exp`, `iat`, `nonce` and, when present,
/// `at_hash`. The algorithm comes from the registered expectation (RS256), never from the
/// token's header, so `alg: none` and algorithm confusion fail.
public struct IDTokenValidator: Sendable {
    public var issuer: String
    public var clientID: String
    /// Allowed clock skew, in seconds.
    public var leeway: Int

    public init(issuer: String, clientID: String, leeway: Int = 60) {
        self.issuer = issuer
        self.clientID = clientID
        self.leeway = leeway
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
            case .algorithm(let alg): "the id_token is signed with '\(alg)', not RS256"
            case .unknownKey: "no key in the provider's JWKS matches the id_token"
            case .signature: "the id_token's signature does not verify"
            case .claim(let why): "the id_token's \(why)"
            }
        }
    }

    /// The verified claims.
    public func validate(
        _ token: String, jwks: Data, nonce: String, accessToken: String?, now: Int
    ) throws(Failure) -> [String: Any] {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Base64URL.decode(parts[0]),
            let payloadData = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2]),
            let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any],
            let claims = try? JSONSerialization.jsonObject(with: payloadData) as? [String: Any]
        else { throw .malformed }
        let alg = header["alg"] as? String ?? "none"
        guard alg == "RS256" else { throw .algorithm(alg) }
        let keys = try Self.keys(jwks)
        let kid = header["kid"] as? String
        let candidates = kid.map { kid in keys.filter { $0.kid == kid } } ?? keys
        guard !candidates.isEmpty else { throw .unknownKey }
        let signed = Data("\(parts[0]).\(parts[1])".utf8)
        let digest = SHA256.hash(data: signed)
        let verified = candidates.contains {
            $0.key.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: digest, padding: .insecurePKCS1v1_5)
        }
        guard verified else { throw .signature }

        guard claims["iss"] as? String == issuer else { throw .claim("issuer is not \(issuer)") }
        let audience: [String] =
            if let one = claims["aud"] as? String { [one] } else { claims["aud"] as? [String] ?? [] }
        guard audience.contains(clientID) else { throw .claim("audience does not include \(clientID)") }
        if audience.count > 1 || claims["azp"] != nil {
            guard claims["azp"] as? String == clientID else { throw .claim("authorized party is not \(clientID)") }
        }
        guard let exp = (claims["exp"] as? NSNumber)?.intValue else { throw .claim("expiry is missing") }
        guard now < exp + leeway else { throw .claim("expired") }
        guard let iat = (claims["iat"] as? NSNumber)?.intValue, iat <= now + leeway else {
            throw .claim("issue time is missing or in the future")
        }
        guard let sent = claims["nonce"] as? String, ConstantTime.equal(sent, nonce) else {
            throw .claim("nonce is not the one sent")
        }
        if let atHash = claims["at_hash"] as? String, let accessToken {
            let digest = Array(SHA256.hash(data: Data(accessToken.utf8)))
            guard ConstantTime.equal(atHash, Base64URL.encode(digest.prefix(16))) else {
                throw .claim("at_hash does not match the access token")
            }
        }
        return claims
    }

    struct JWK {
        var kid: String?
        var key: _RSA.Signing.PublicKey
    }

    /// The RSA signing keys of a JWKS document.
    static func keys(_ jwks: Data) throws(Failure) -> [JWK] {
        guard let document = try? JSONSerialization.jsonObject(with: jwks) as? [String: Any],
            let entries = document["keys"] as? [[String: Any]]
        else { throw .unknownKey }
        return entries.compactMap { entry in
            guard entry["kty"] as? String == "RSA", (entry["use"] as? String ?? "sig") == "sig",
                let n = (entry["n"] as? String).flatMap(Base64URL.decode),
                let e = (entry["e"] as? String).flatMap(Base64URL.decode),
                let key = try? _RSA.Signing.PublicKey(n: n, e: e)
            else { return nil }
            return JWK(kid: entry["kid"] as? String, key: key)
        }
    }
}
