import Foundation
import JourneyCore

/// Random bytes for salts, keys, nonces, PKCE verifiers, `state` and `nonce`, always drawn from
/// a ``RandomSource`` the caller hands in.
///
/// A handler hands in its context's (`&context.random`): the system's cryptographically secure
/// generator in a normal run, a seeded one when the run asks for reproducible exploration.
/// Nothing in JourneyHandlers takes randomness from anywhere else; a source test checks it.
enum SecureRandom {
    /// `count` bytes from `random`.
    static func bytes(_ count: Int, from random: inout RandomSource) -> Data {
        Data(random.bytes(count))
    }
}
