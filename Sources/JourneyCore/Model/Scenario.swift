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
    /// The journey's runs, in order: one, or several when the scenario spans logins. After the
    /// first, each starts with the app launched again: the device store, the clock and the
    /// device are kept from where the previous one ended.
    public var sessions: [Session]
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

    /// One run of the journey: its script and what it must end with.
    public struct Session: Sendable {
        /// How long after the previous session ended the app is launched again, in
        /// milliseconds (0 for the first session).
        public var after: Int
        public var script: [ScriptEntry]
        public var expect: Expectation
        public var location: SourceLocation

        public init(after: Int = 0, script: [ScriptEntry], expect: Expectation, location: SourceLocation) {
            self.after = after
            self.script = script
            self.expect = expect
            self.location = location
        }
    }

    public struct Expectation: Sendable {
        /// The end the journey reaches; nil when the scenario expects it to wait ``at`` a step.
        public var end: Located<String>?
        /// The step the journey waits at when the script runs out: a path that stops mid-way,
        /// such as a counterexample `journey explore` writes.
        public var at: Located<String>? = nil
        /// The journey whose step ``at`` is, when it is one the journey calls (`in:`): `state`
        /// is then that journey's state as the run waits in it. Nil: the root journey's state.
        public var waitingIn: Located<String>? = nil
        /// With ``at``: whether an end can still be reached from where the run waits (`canEnd:`),
        /// found by exploring from there as `journey explore` does. A counterexample of
        /// `explore.reaches-an-end` expects `true`, and fails while the trap is there.
        public var canEnd: Located<Bool>? = nil
        public var kind: EndKind?
        public var state: [(name: Located<String>, check: ValueCheck<RawValue>)]
        public var stored: [(name: Located<String>, check: ValueCheck<RawValue>)]
        /// The counts of attempt limits (`limits: { pinEntry: 1 }`): each its counter's value,
        /// in `state` or in `stored`, wherever the journey keeps it.
        public var limits: [(name: Located<String>, check: ValueCheck<RawValue>)] = []
    }
}

/// What an expectation says of a value: that it equals one the scenario gives, or only that it
/// is set or empty, which is how a scenario speaks of a secret it did not supply (a token, a
/// generated code) without the value ever being written anywhere.
public enum ValueCheck<V: Sendable>: Sendable {
    /// The value equals this one (a secret is compared, never shown).
    case equals(V)
    /// The value is there and not empty (not `""` nor `[]`).
    case isSet
    /// The value is missing, `""` or `[]`.
    case isEmpty

    /// The value it must equal, if it names one.
    public var expected: V? {
        if case .equals(let value) = self { value } else { nil }
    }

    /// `set` or `empty`, as a scenario writes them after `is:`.
    public static func named(_ text: String) -> Self? {
        switch text {
        case "set": .isSet
        case "empty": .isEmpty
        default: nil
        }
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
    /// What the request must hold besides its method and URL; nil for anything.
    public var match: RequestMatch?
    public var location: SourceLocation

    public init(
        method: String, url: String, status: Int, body: String, times: Int?, match: RequestMatch? = nil,
        location: SourceLocation
    ) {
        self.method = method
        self.url = url
        self.status = status
        self.body = body
        self.times = times
        self.match = match
        self.location = location
    }

    /// Whether the request's method and URL are the stub's (`*` in the URL matches anything).
    /// A stub with a `match` and no `?` in its URL is compared without the request's query,
    /// which ``RequestMatch/query`` looks at if it must.
    public func matchesLine(_ request: HTTPRequest) -> Bool {
        guard request.method.uppercased() == method.uppercased() else { return false }
        if match != nil, !url.contains("?") {
            return Self.glob(url, String(request.url.prefix { $0 != "?" && $0 != "#" }))
        }
        return Self.glob(url, request.url)
    }

    public static func glob(_ pattern: String, _ text: String) -> Bool {
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

/// What a stub's request must hold besides its method and URL: query parameters, headers, and
/// a body (exact JSON, a JSON subset, form fields or text). Values are as written in the
/// scenario; `*` in a query, header or form value matches anything.
public struct RequestMatch: Sendable, Hashable {
    public struct Pair: Sendable, Hashable {
        public var name: String
        public var value: String

        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    public enum Body: Sendable, Hashable {
        /// The body is this JSON (keys in any order, numbers by value).
        case json(String)
        /// The body is a JSON object holding at least these members, compared the same way
        /// (objects inside it may hold more; lists must be equal in length).
        case jsonIncludes(String)
        /// The body is a form (`application/x-www-form-urlencoded`) holding these fields.
        case form([Pair])
        /// The body is exactly this text.
        case text(String)
    }

    /// Query parameters the URL must hold, with these values.
    public var query: [Pair]
    /// Headers the request must carry (names in any case), with these values.
    public var headers: [Pair]
    public var body: Body?

    public init(query: [Pair] = [], headers: [Pair] = [], body: Body? = nil) {
        self.query = query
        self.headers = headers
        self.body = body
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
    /// For input: nil when the app must take it; otherwise it must refuse it (an action that is
    /// disabled or not shown), for a reason containing this text ("" for any reason).
    public var refused: String? = nil
}

/// The default scenario clock: 2026-01-01T00:00:00Z.
public let defaultScenarioClock = 1_767_225_600_000
