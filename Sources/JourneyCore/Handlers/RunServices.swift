/// What playing a scenario needs from the handlers besides their steps. Whoever puts a run
/// together (the CLI, a test, an app embedding JourneyKit) passes it in: the handlers define
/// how a PIN is kept, so they also say how a scenario's preset PIN is sealed.
public struct RunServices: Sendable {
    /// Seals a scenario's preset PIN (`device.pins`) the way the PIN handlers keep one, with
    /// `rounds` of key derivation (the device's `kdfRounds`; nil for the handlers' default),
    /// drawing its salt and secret from `random`: the run's stream, before its handlers draw.
    /// Returns what is stored under the PIN's key.
    public var sealPIN: @Sendable (_ pin: String, _ rounds: Int?, _ random: inout RandomSource) throws -> String
    /// Makes the real network: for a scenario without stubs, and for the services a scenario
    /// with stubs `needs`.
    public var transport: @Sendable () -> any NetworkTransport
    /// Whether a service a scenario `needs` answers, asked the way the scenario's device would
    /// ask it: trusting the CAs it trusts (their ``KeyPin``s).
    public var probe: @Sendable (_ url: String, _ trustedCAs: [String]) async -> Bool

    public init(
        sealPIN: @escaping @Sendable (_ pin: String, _ rounds: Int?, _ random: inout RandomSource) throws -> String,
        transport: @escaping @Sendable () -> any NetworkTransport,
        probe: @escaping @Sendable (_ url: String, _ trustedCAs: [String]) async -> Bool
    ) {
        self.sealPIN = sealPIN
        self.transport = transport
        self.probe = probe
    }
}
