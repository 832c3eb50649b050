import Crypto
import Foundation

/// Cryptographically random bytes from swift-crypto's system generator: salts, keys, PKCE
/// verifiers, `state` and `nonce`.
enum SecureRandom {
    static func bytes(_ count: Int) -> Data {
        SymmetricKey(size: SymmetricKeySize(bitCount: count * 8)).withUnsafeBytes { Data($0) }
    }
}
