/// Where a run's random bytes come from: the salts, keys, PKCE verifiers, `state` and `nonce`
/// that handlers make. Handlers draw from their context's source and from nowhere else.
///
/// ``system`` is the system's cryptographically secure generator (the standard library's
/// `SystemRandomNumberGenerator`: `getrandom` on Linux, `arc4random_buf` on Apple
/// platforms); every normal run uses it. ``seeded(_:)`` is a deterministic generator
/// (SplitMix64) for reproducible exploration and tests: the same seed gives the same bytes,
/// so two runs that make the same draws store the same values. It is not for security: anyone
/// who knows the seed knows every key and salt the run makes.
///
/// A value: copying a seeded source copies its position, so two copies draw the same bytes.
public struct RandomSource: RandomNumberGenerator, Sendable, Hashable {
    /// The SplitMix64 state; nil draws from the system's secure generator.
    private var state: UInt64?

    private init(state: UInt64?) { self.state = state }

    /// The system's cryptographically secure generator.
    public static var system: RandomSource { RandomSource(state: nil) }

    /// A deterministic generator starting at `seed`: for reproducible runs, never for security.
    public static func seeded(_ seed: UInt64) -> RandomSource { RandomSource(state: seed) }

    /// Whether the source is deterministic (``seeded(_:)``).
    public var isSeeded: Bool { state != nil }

    public mutating func next() -> UInt64 {
        guard var z = state else {
            var system = SystemRandomNumberGenerator()
            return system.next()
        }
        // SplitMix64 (Steele, Lea and Flood, 2014): a Weyl sequence through a mixing function.
        z &+= 0x9E37_79B9_7F4A_7C15
        state = z
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `count` random bytes.
    public mutating func bytes(_ count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        while bytes.count < count {
            var word = next()
            for _ in 0..<min(8, count - bytes.count) {
                bytes.append(UInt8(truncatingIfNeeded: word))
                word >>= 8
            }
        }
        return bytes
    }
}
