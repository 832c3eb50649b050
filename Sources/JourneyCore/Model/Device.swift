/// The simulated phone a run happens on.
public struct DeviceProfile: Sendable, Hashable {
    /// The biometric sensor a phone has.
    public enum Biometry: String, Sendable, Hashable, CaseIterable {
        case none, touchID, faceID
    }

    /// The phone's biometric sensor, if any.
    public var biometry: Biometry
    /// Whether a fingerprint or face is enrolled.
    public var biometryEnrolled: Bool
    /// Whether the phone has a network; a scenario can take it away and bring it back.
    public var online: Bool
    /// Apps installed on the device, by URL scheme or name.
    public var apps: [String]
    /// Whether the system opens the links an app asks it to; false on a device that refuses
    /// (a managed phone, a blocked domain), so `UIApplication.open` reports failure.
    public var opensLinks: Bool
    /// PBKDF2 rounds for PIN key derivation when lower than the default, for fast test runs.
    /// Transcripts record it in their header, so a weakened run is never mistaken for a real one.
    public var kdfRounds: Int?
    /// Certificate authorities the phone trusts besides the system's, by their ``KeyPin``: the
    /// profile a tester installs to reach a test server. A server is trusted through one when
    /// it presents that CA's certificate in its chain. Transcripts record them in their header.
    public var trustedCAs: [String]

    public init(
        biometry: Biometry = .none, biometryEnrolled: Bool = false, online: Bool = true, apps: [String] = [],
        opensLinks: Bool = true, kdfRounds: Int? = nil, trustedCAs: [String] = []
    ) {
        self.biometry = biometry
        self.biometryEnrolled = biometryEnrolled
        self.online = online
        self.apps = apps
        self.opensLinks = opensLinks
        self.kdfRounds = kdfRounds
        self.trustedCAs = trustedCAs
    }
}

/// The device's changing parts: its persistent store and its clock.
public struct DeviceState: Sendable, Hashable {
    public var profile: DeviceProfile
    /// The persistent key-value store; it survives app restarts.
    public var store: [String: Value]
    /// The virtual clock, in milliseconds since the Unix epoch.
    public var clock: Int
    /// The clock at the start of the run; transcripts count time from here.
    public let startClock: Int

    public init(profile: DeviceProfile = DeviceProfile(), store: [String: Value] = [:], clock: Int = 1_767_225_600_000)
    {
        self.profile = profile
        self.store = store
        self.clock = clock
        self.startClock = clock
    }

    /// Milliseconds since the run started.
    public var elapsed: Int { clock - startClock }
}
