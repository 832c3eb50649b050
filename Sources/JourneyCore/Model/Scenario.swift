import Foundation

/// A named script for one journey: the device it runs on, its params, the inputs given at
/// each step (and restarts and clock jumps between them), and what must be true at the end.
public struct Scenario: Sendable {
    public var id: Located<String>
    public var file: String
    public var journey: Located<String>
    public var title: String?
    public var tags: [String]
    public var locale: String?
    public var device: DeviceSetup
    public var params: [(name: Located<String>, value: RawValue)]
    public var script: [ScriptEntry]
    public var expect: Expectation
    /// Responses the scenario's network gives, for servers that cannot run here. Without
    /// stubs the scenario uses the real network.
    public var network: [NetworkStub]
    /// Base URLs of services the scenario needs running (a local OpenID provider, say); when
    /// one does not answer, the scenario is skipped rather than failed. Scenarios needing the
    /// same server run one at a time; one that waits more than two minutes for it fails.
    public var needs: [String]
    public var location: SourceLocation

    public struct DeviceSetup: Sendable {
        public var profile: DeviceProfile
        public var store: [(key: Located<String>, value: RawValue)]
        /// PINs already set on the device, by store key; the PIN handlers seal them as they
        /// would their own before the run starts.
        public var pins: [(key: Located<String>, value: RawValue)]
        /// Milliseconds since the Unix epoch.
        public var clock: Int
    }

    public struct Expectation: Sendable {
        public var end: Located<String>
        public var kind: EndKind?
        public var state: [(name: Located<String>, value: RawValue)]
        public var stored: [(name: Located<String>, value: RawValue)]
    }
}

/// A canned response: requests whose method and URL match get `status` and `body`.
public struct NetworkStub: Sendable, Hashable {
    public var method: String
    /// The URL; `*` matches any run of characters.
    public var url: String
    public var status: Int
    public var body: String
    /// How many requests it answers; nil for any number.
    public var times: Int?
    public var location: SourceLocation

    public init(method: String, url: String, status: Int, body: String, times: Int?, location: SourceLocation) {
        self.method = method
        self.url = url
        self.status = status
        self.body = body
        self.times = times
        self.location = location
    }

    /// Whether the stub answers `request`.
    public func matches(_ request: HTTPRequest) -> Bool {
        request.method.uppercased() == method.uppercased() && Self.glob(url, request.url)
    }

    static func glob(_ pattern: String, _ text: String) -> Bool {
        let p = Array(pattern.unicodeScalars)
        let t = Array(text.unicodeScalars)
        var i = 0, j = 0, star = -1, mark = 0
        while j < t.count {
            if i < p.count && p[i] != "*" && p[i] == t[j] {
                i += 1
                j += 1
            } else if i < p.count && p[i] == "*" {
                star = i
                mark = j
                i += 1
            } else if star >= 0 {
                i = star + 1
                mark += 1
                j = mark
            } else {
                return false
            }
        }
        while i < p.count && p[i] == "*" { i += 1 }
        return i == p.count
    }
}

/// One entry of a scenario's script.
public struct ScriptEntry: Sendable {
    public enum Kind: Sendable {
        /// Inputs for a step, as written; typed by the step's contract when checked.
        case input(step: Located<String>, values: [(name: Located<String>, value: RawValue)])
        case restart
        case advance(milliseconds: Int)
        /// The device's network comes back (true) or goes away (false).
        case online(Bool)
    }

    public var kind: Kind
    public var location: SourceLocation
}

/// The default scenario clock: 2026-01-01T00:00:00Z.
public let defaultScenarioClock = 1_767_225_600_000
