import Crypto
import Foundation
import JourneyCore

/// Base64url without padding (RFC 7515 §2), as OAuth and JOSE use it.
enum Base64URL {
    static func encode(_ data: some DataProtocol) -> String {
        Data(data).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: some StringProtocol) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}

/// Proof Key for Code Exchange (RFC 7636), S256 only: there is no fallback to `plain`.
public struct PKCE: Sendable, Equatable {
    public let verifier: String
    public let challenge: String
    public let method = "S256"

    /// A fresh verifier from 32 random octets (43 characters), as RFC 7636 §4.1 recommends,
    /// drawn from `random` (a handler's context's source).
    public init(using random: inout RandomSource) {
        self.init(verifier: Base64URL.encode(SecureRandom.bytes(32, from: &random)))
    }

    /// The challenge for a given verifier (43 to 128 unreserved characters).
    public init(verifier: String) {
        self.verifier = verifier
        self.challenge = Base64URL.encode(Data(SHA256.hash(data: Data(verifier.utf8))))
    }

    /// Whether a verifier has the length and characters RFC 7636 §4.1 allows.
    public static func isValid(verifier: String) -> Bool {
        (43...128).contains(verifier.count)
            && verifier.unicodeScalars.allSatisfy {
                ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0)
                    || "-._~".unicodeScalars.contains($0)
            }
    }

    /// A random, URL-safe value of `bytes` octets (16, 128 bits, or more), for `state` and
    /// `nonce`, drawn from `random` (a handler's context's source).
    public static func randomToken(bytes: Int = 16, using random: inout RandomSource) -> String {
        Base64URL.encode(SecureRandom.bytes(bytes, from: &random))
    }
}
