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

/// Loads scenario files (shape only; ``ScenarioChecker`` checks them against their journey).
public struct ScenarioLoader: Sendable {
    public var yaml: SafeYAML
    public init(yaml: SafeYAML = SafeYAML()) { self.yaml = yaml }

    static let keys = [
        "scenario", "journey", "title", "tags", "locale", "device", "params", "script", "expect", "network", "needs",
    ]

    public func load(_ data: Data, path: String) -> (scenario: Scenario?, diagnostics: DiagnosticList) {
        switch yaml.parse(data, path: path) {
        case .failure(let failure): return (nil, failure.diagnostics)
        case .success(let root): return load(root, path: path)
        }
    }

    public func load(_ root: YAMLNode, path: String) -> (scenario: Scenario?, diagnostics: DiagnosticList) {
        var r = NodeReader()
        guard
            let f = r.mapping(
                root, "a scenario", allowed: Self.keys, required: ["scenario", "journey", "script", "expect"])
        else { return (nil, r.diagnostics) }
        let id = f["scenario"].flatMap { r.identifier($0, "scenario") } ?? Located("", at: root.location)
        let journey = f["journey"].flatMap { r.located($0, "'journey'") } ?? Located("", at: root.location)
        let title = f["title"].flatMap { r.string($0, "'title'") }
        let tags = f["tags"].map { r.stringList($0, "'tags'").map(\.value) } ?? []
        let locale = f["locale"].flatMap { r.string($0, "'locale'") }

        var device = Scenario.DeviceSetup(profile: DeviceProfile(), store: [], pins: [], clock: defaultScenarioClock)
        if let node = f["device"],
            let df = r.mapping(
                node, "'device'",
                allowed: [
                    "biometry", "enrolled", "online", "apps", "opensLinks", "store", "pins", "clock", "kdfRounds",
                    "trustedCAs",
                ])
        {
            if let rounds = df["kdfRounds"].flatMap({ r.int($0, "'kdfRounds'", in: NumberRange.kdfRounds) }) {
                device.profile.kdfRounds = rounds
            }
            for entry in df["pins"].map({ r.namedEntries($0, "'pins'") }) ?? [] {
                device.pins.append((Located(entry.key, at: entry.keyLocation), r.raw(entry.value)))
            }
            if let b = df["biometry"].flatMap({ r.enumValue($0, "'biometry'", as: DeviceProfile.Biometry.self) }) {
                device.profile.biometry = b
                device.profile.biometryEnrolled = b != .none
            }
            if let e = df["enrolled"].flatMap({ r.bool($0, "'enrolled'") }) { device.profile.biometryEnrolled = e }
            if let o = df["online"].flatMap({ r.bool($0, "'online'") }) { device.profile.online = o }
            if let l = df["opensLinks"].flatMap({ r.bool($0, "'opensLinks'") }) { device.profile.opensLinks = l }
            if let apps = df["apps"] { device.profile.apps = r.stringList(apps, "'apps'").map(\.value) }
            for pin in df["trustedCAs"].map({ r.stringList($0, "'trustedCAs'") }) ?? [] {
                if let problem = KeyPin.problem(pin.value) {
                    r.diagnostics.error(NodeReader.valueType, "'trustedCAs': \(problem)", at: pin.location)
                } else {
                    device.profile.trustedCAs.append(pin.value)
                }
            }
            for entry in df["store"].map({ r.namedEntries($0, "'store'") }) ?? [] {
                device.store.append((Located(entry.key, at: entry.keyLocation), r.raw(entry.value)))
            }
            if let node = df["clock"], let text = r.string(node, "'clock'") {
                if let ms = Self.parseDate(text), NumberRange.clock.contains(ms) {
                    device.clock = ms
                } else if Self.parseDate(text) != nil {
                    r.diagnostics.error(
                        NodeReader.outOfRange,
                        "'clock' must be from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z, found '\(text)'",
                        at: node.location)
                } else {
                    r.diagnostics.error(
                        NodeReader.valueType, "'clock' must be a UTC time like 2026-01-01T09:00:00Z, found '\(text)'",
                        at: node.location)
                }
            }
        }
        let params = (f["params"].map { r.namedEntries($0, "'params'") } ?? []).map {
            (Located($0.key, at: $0.keyLocation), r.raw($0.value))
        }
        var script: [ScriptEntry] = []
        if let node = f["script"] {
            if case .sequence(let items) = node.kind {
                for item in items { if let entry = entry(item, &r) { script.append(entry) } }
            } else {
                r.diagnostics.error(NodeReader.valueType, "'script' must be a list of steps", at: node.location)
            }
        }
        var expect = Scenario.Expectation(end: Located("", at: root.location), kind: nil, state: [], stored: [])
        if let node = f["expect"],
            let ef = r.mapping(node, "'expect'", allowed: ["end", "kind", "state", "stored"], required: ["end"])
        {
            expect.end = ef["end"].flatMap { r.located($0, "'end'") } ?? expect.end
            expect.kind = ef["kind"].flatMap { r.enumValue($0, "'kind'", as: EndKind.self) }
            expect.state = (ef["state"].map { r.namedEntries($0, "'state'") } ?? []).map {
                (Located($0.key, at: $0.keyLocation), r.raw($0.value))
            }
            expect.stored = (ef["stored"].map { r.namedEntries($0, "'stored'") } ?? []).map {
                (Located($0.key, at: $0.keyLocation), r.raw($0.value))
            }
        }
        var network: [NetworkStub] = []
        if let node = f["network"] {
            if case .sequence(let items) = node.kind {
                network = items.compactMap { stub($0, &r) }
            } else {
                r.diagnostics.error(NodeReader.valueType, "'network' must be a list of stubs", at: node.location)
            }
        }
        let needs = f["needs"].map { r.stringList($0, "'needs'").map(\.value) } ?? []
        guard !r.diagnostics.hasErrors else { return (nil, r.diagnostics) }
        return (
            Scenario(
                id: id, file: path, journey: journey, title: title, tags: tags, locale: locale, device: device,
                params: params, script: script, expect: expect, network: network, needs: needs,
                location: root.location),
            r.diagnostics
        )
    }

    static let methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"]

    /// `- request: METHOD URL` with `response: {status, json | body}` and optional `times`.
    func stub(_ node: YAMLNode, _ r: inout NodeReader) -> NetworkStub? {
        guard
            let f = r.mapping(
                node, "a network stub", allowed: ["request", "response", "times"], required: ["request", "response"])
        else { return nil }
        // Read first, so that its problem is reported whatever else is wrong with the stub.
        let times = f["times"].flatMap { r.int($0, "'times'", in: NumberRange.stubTimes) }
        guard let requestNode = f["request"], let request = r.string(requestNode, "'request'") else { return nil }
        let parts = request.split(separator: " ", maxSplits: 1).map(String.init)
        guard parts.count == 2, Self.methods.contains(parts[0]) else {
            r.diagnostics.error(
                NodeReader.valueType, "'request' is 'METHOD URL', like 'GET https://example.org/v1/banks'",
                at: requestNode.location)
            return nil
        }
        guard let responseNode = f["response"],
            let rf = r.mapping(responseNode, "'response'", allowed: ["status", "json", "body"], required: ["status"]),
            let status = rf["status"].flatMap({ r.int($0, "'status'", in: NumberRange.httpStatus) })
        else { return nil }
        var body = ""
        if let json = rf["json"] {
            body = JSONText.encode(json)
        } else if let text = rf["body"] {
            body = r.string(text, "'body'") ?? ""
        }
        return NetworkStub(
            method: parts[0], url: parts[1], status: status, body: body, times: times, location: node.location)
    }

    func entry(_ node: YAMLNode, _ r: inout NodeReader) -> ScriptEntry? {
        switch node.kind {
        case .scalar(let text, _):
            if text == "restart" { return ScriptEntry(kind: .restart, location: node.location) }
            r.diagnostics.error(
                NodeReader.valueType,
                "a script entry is '- restart', '- advance: 5m', '- online: false' or '- at: STEP' with inputs, found '\(text)'",
                at: node.location)
            return nil
        case .sequence:
            r.diagnostics.error(
                NodeReader.valueType, "a script entry must be a mapping, found a list", at: node.location)
            return nil
        case .mapping(let entries):
            if let first = entries.first, ["restart", "advance", "online"].contains(first.key) {
                if entries.count > 1 {
                    r.diagnostics.error(
                        NodeReader.unknownKey, "'\(first.key)' stands alone in its script entry",
                        at: entries[1].keyLocation)
                    return nil
                }
                if first.key == "restart" {
                    guard r.bool(first.value, "'restart'") == true else { return nil }
                    return ScriptEntry(kind: .restart, location: node.location)
                }
                if first.key == "online" {
                    guard let online = r.bool(first.value, "'online'") else { return nil }
                    return ScriptEntry(kind: .online(online), location: node.location)
                }
                guard let text = r.string(first.value, "'advance'") else { return nil }
                guard let ms = Duration.parse(text) else {
                    if Duration.isTooLong(text) {
                        r.diagnostics.error(
                            NodeReader.outOfRange, "'advance': \(Duration.problem(with: text) ?? "")",
                            at: first.value.location)
                    } else {
                        r.diagnostics.error(
                            NodeReader.valueType, "'advance' takes \(Duration.rule), found '\(text)'",
                            at: first.value.location)
                    }
                    return nil
                }
                return ScriptEntry(kind: .advance(milliseconds: ms), location: node.location)
            }
            guard let at = entries.first(where: { $0.key == "at" }) else {
                r.diagnostics.error(
                    NodeReader.missingKey, "a script entry needs 'at: STEP' naming the step it gives input for",
                    at: node.location)
                return nil
            }
            guard let step = r.located(at.value, "'at'") else { return nil }
            let values = entries.filter { $0.key != "at" }.map {
                (name: Located($0.key, at: $0.keyLocation), value: r.raw($0.value))
            }
            return ScriptEntry(kind: .input(step: step, values: values), location: node.location)
        }
    }

    /// Parses `2026-01-01T09:00:00Z` (UTC only) into milliseconds since the epoch.
    static func parseDate(_ text: String) -> Int? {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        if let date = formatter.date(from: text) { return Int((date.timeIntervalSince1970 * 1000).rounded()) }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return Int((date.timeIntervalSince1970 * 1000).rounded()) }
        return nil
    }
}
