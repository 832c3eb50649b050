import Foundation

/// Real time, for the few checks that must be made against it: an id_token a live provider
/// issued carries `exp` and `iat` in the provider's real time, not in the device's virtual
/// clock. Handlers read it from their context (``HandlerContext/wallClock``) and from nowhere
/// else; everything a journey sees runs on the virtual clock (``HandlerContext/now``).
public enum WallClock: Sendable, Hashable {
    /// The system's real time.
    case system
    /// A fixed instant, in milliseconds since the Unix epoch: for reproducible runs and tests.
    case pinned(milliseconds: Int)

    /// The time, in milliseconds since the Unix epoch.
    public var milliseconds: Int {
        switch self {
        case .system: Int((Date().timeIntervalSince1970 * 1000).rounded(.down))
        case .pinned(let milliseconds): milliseconds
        }
    }
}
