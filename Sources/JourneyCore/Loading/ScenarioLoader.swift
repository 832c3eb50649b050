import Foundation

/// The load stage for scenarios (see ``Pipeline``): a YAML tree → ``Scenario``, shape only;
/// ``ScenarioChecker`` checks it against its journey.
public struct ScenarioLoader: Sendable {
    public var yaml: SafeYAML
    public init(yaml: SafeYAML = SafeYAML()) { self.yaml = yaml }

    static let keys = [
        "scenario", "journey", "title", "tags", "locale", "device", "params", "script", "expect", "sessions", "network",
        "needs",
    ]

    /// Loads a scenario from a parsed YAML document; nil when it has errors.
    public func load(_ root: YAMLNode, path: String, into diagnostics: inout DiagnosticList) -> Scenario? {
        let (scenario, complete) = loadPartially(root, path: path, into: &diagnostics)
        return complete ? scenario : nil
    }

    /// ``load(_:path:into:)``, and with errors, what could be read: a scenario with its id, its
    /// journey and its runs, whatever was wrong left out, so that checking it against its
    /// journey reports the file's other problems too (a device setting out of range no longer
    /// hides a wrong expectation). `complete` is false when anything was left out; such a
    /// scenario is for diagnostics only, never to run.
    public func loadPartially(
        _ root: YAMLNode, path: String, into diagnostics: inout DiagnosticList
    ) -> (scenario: Scenario?, complete: Bool) {
        var r = NodeReader()
        defer { diagnostics.append(contentsOf: r.diagnostics) }
        guard
            let f = r.mapping(
                root, "a scenario", allowed: Self.keys, required: ["scenario", "journey"])
        else { return (nil, false) }
        let id = f["scenario"].flatMap { r.identifier($0, "scenario") } ?? Located("", at: root.location)
        let journey = f["journey"].flatMap { r.located($0, "'journey'") } ?? Located("", at: root.location)
        let title = f["title"].flatMap { r.string($0, "'title'") }
        if let title, title.allSatisfy(\.isWhitespace), let node = f["title"] {
            r.diagnostics.warning(
                JourneyCompiler.emptyText,
                "the scenario's title is empty: write what the scenario plays, or leave the key out (the docs then name it by its id alone)",
                at: node.location)
        }
        let tags = f["tags"].map { r.stringList($0, "'tags'").map(\.value) } ?? []
        let locale = f["locale"].flatMap { r.string($0, "'locale'") }

        let device = f["device"].map { self.device($0, &r) } ?? Self.defaultDevice
        let params = (f["params"].map { r.namedEntries($0, "'params'") } ?? []).map {
            (Located($0.key, at: $0.keyLocation), r.raw($0.value))
        }
        let sessions = self.sessions(f, root, &r)
        var network: [NetworkStub] = []
        if let node = f["network"] {
            if case .sequence(let items) = node.kind {
                network = items.compactMap { stub($0, &r) }
            } else {
                r.diagnostics.error(NodeReader.valueType, "'network' must be a list of stubs", at: node.location)
            }
        }
        let needs = f["needs"].map { r.stringList($0, "'needs'").map(\.value) } ?? []
        let scenario = Scenario(
            id: id, file: path, journey: journey, title: title, tags: tags, locale: locale, device: device,
            params: params, sessions: sessions, network: network, needs: needs,
            location: root.location)
        guard r.diagnostics.hasErrors else { return (scenario, true) }
        // Without its id, its journey or a run, there is nothing to check it against.
        let checkable = !id.value.isEmpty && !journey.value.isEmpty && !sessions.isEmpty
        return (checkable ? scenario : nil, false)
    }

    /// The device a scenario starts on when it says nothing of it.
    static let defaultDevice = Scenario.DeviceSetup(
        profile: DeviceProfile(), store: [], pins: [], clock: defaultScenarioClock)

    /// `device:`: the phone's profile, the values its store holds, the PINs sealed on it and its clock.
    func device(_ node: YAMLNode, _ r: inout NodeReader) -> Scenario.DeviceSetup {
        var device = Self.defaultDevice
        guard
            let df = r.mapping(
                node, "'device'",
                allowed: [
                    "biometry", "enrolled", "online", "apps", "opensLinks", "store", "pins", "clock", "kdfRounds",
                    "trustedCAs",
                ])
        else { return device }
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
        return device
    }

    /// The scenario's runs: `sessions:`, each with its own script and expectation, or the one
    /// run its `script:` and `expect:` make.
    func sessions(_ f: NodeReader.Fields, _ root: YAMLNode, _ r: inout NodeReader) -> [Scenario.Session] {
        var sessions: [Scenario.Session] = []
        if let node = f["sessions"] {
            if let clash = f.keyLocation("sessions") {
                for key in ["script", "expect"] where f[key] != nil {
                    r.diagnostics.error(
                        NodeReader.unknownKey,
                        "a scenario has 'script' and 'expect', or 'sessions' each with its own; '\(key)' cannot sit beside 'sessions'",
                        at: f.keyLocation(key) ?? clash)
                }
            }
            if case .sequence(let items) = node.kind, !items.isEmpty {
                for (index, item) in items.enumerated() {
                    if let session = session(item, first: index == 0, &r) { sessions.append(session) }
                }
            } else {
                r.diagnostics.error(
                    NodeReader.valueType,
                    "'sessions' must be a list of runs, each '- script: […]' with its 'expect'", at: node.location)
            }
        } else {
            for key in ["script", "expect"] where f[key] == nil {
                r.diagnostics.error(
                    NodeReader.missingKey,
                    "a scenario is missing required key '\(key)' (or 'sessions', runs each with its own)",
                    at: root.location)
            }
            if let scriptNode = f["script"], let expectNode = f["expect"] {
                let script = self.script(scriptNode, &r)
                if let expect = expectation(expectNode, &r) {
                    sessions.append(Scenario.Session(script: script, expect: expect, location: root.location))
                }
            }
        }
        return sessions
    }

    /// `- after: 1d` (not on the first), `script: […]` and `expect: {…}`: one run of a scenario
    /// that spans logins.
    func session(_ node: YAMLNode, first: Bool, _ r: inout NodeReader) -> Scenario.Session? {
        guard let f = r.mapping(node, "a session", allowed: ["after", "script", "expect"], required: ["expect"])
        else { return nil }
        var after = 0
        if let afterNode = f["after"] {
            if first {
                r.diagnostics.error(
                    NodeReader.unknownKey,
                    "the first session starts when the scenario does; set its time with the device's 'clock', and use 'after' on later sessions",
                    at: afterNode.location)
            } else if let ms = r.duration(afterNode, "'after'") {
                after = ms
            }
        }
        let script = f["script"].map { self.script($0, &r) } ?? []
        guard let expectNode = f["expect"], let expect = expectation(expectNode, &r) else { return nil }
        return Scenario.Session(after: after, script: script, expect: expect, location: node.location)
    }

    /// A script: a list of entries.
    func script(_ node: YAMLNode, _ r: inout NodeReader) -> [ScriptEntry] {
        guard case .sequence(let items) = node.kind else {
            r.diagnostics.error(NodeReader.valueType, "'script' must be a list of steps", at: node.location)
            return []
        }
        return items.compactMap { entry($0, &r) }
    }

    /// `{end | at [in] [canEnd], kind, state, stored, limits}`; a value is what it must equal,
    /// or `{is: set}` / `{is: empty}`.
    func expectation(_ node: YAMLNode, _ r: inout NodeReader) -> Scenario.Expectation? {
        guard
            let ef = r.mapping(
                node, "'expect'", allowed: ["end", "at", "in", "canEnd", "kind", "state", "stored", "limits"])
        else {
            return nil
        }
        var canEnd: Located<Bool>?
        if let node = ef["canEnd"] {
            if ef["at"] == nil {
                r.diagnostics.error(
                    NodeReader.valueType,
                    "'canEnd' says whether an end can still be reached from the step the run waits 'at', and 'expect' has no 'at'",
                    at: node.location)
            } else if let value = r.bool(node, "'canEnd'") {
                canEnd = Located(value, at: node.location)
            }
        }
        let end = ef["end"].flatMap { r.located($0, "'end'") }
        let at = ef["at"].flatMap { r.located($0, "'at'") }
        let within = ef["in"].flatMap { r.located($0, "'in'") }
        if let node = ef["in"], ef["at"] == nil {
            r.diagnostics.error(
                NodeReader.valueType,
                "'in' names the journey that waits 'at' a step, and 'expect' has no 'at': a run that reached an end waits in none",
                at: node.location)
        }
        switch (ef["end"], ef["at"]) {
        case (nil, nil):
            r.diagnostics.error(
                NodeReader.missingKey,
                "'expect' needs 'end', the end the journey reaches, or 'at', the step it waits at when the script runs out",
                at: node.location)
            return nil
        case (_?, let both?):
            r.diagnostics.error(
                NodeReader.valueType, "'expect' has 'end' and 'at': a journey that waits at a step has not ended",
                at: both.location)
            return nil
        case (nil, _?):
            if let kind = ef["kind"] {
                r.diagnostics.error(
                    NodeReader.valueType, "'kind' is the kind of an end, and 'at' expects no end", at: kind.location)
            }
        default: break
        }
        guard end != nil || at != nil else { return nil }
        func checks(_ key: String) -> [(name: Located<String>, check: ValueCheck<RawValue>)] {
            (ef[key].map { r.namedEntries($0, "'\(key)'") } ?? []).compactMap { entry in
                let name = Located(entry.key, at: entry.keyLocation)
                guard case .mapping(let pairs) = entry.value.kind else {
                    return (name, .equals(r.raw(entry.value)))
                }
                guard pairs.count == 1, pairs[0].key == "is", let text = pairs[0].value.scalar,
                    let check = ValueCheck<RawValue>.named(text)
                else {
                    r.diagnostics.error(
                        NodeReader.valueType,
                        "an expected value is the value itself, or '{is: set}' or '{is: empty}' to say only whether it holds one",
                        at: entry.value.location)
                    return nil
                }
                return (name, check)
            }
        }
        return Scenario.Expectation(
            end: end, at: at, waitingIn: at == nil ? nil : within, canEnd: canEnd,
            kind: ef["kind"].flatMap { r.enumValue($0, "'kind'", as: EndKind.self) },
            state: checks("state"), stored: checks("stored"), limits: checks("limits"))
    }

    static let methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"]

    /// `- request: METHOD URL` with `response: {status, json | body}` and optional `times`.
    func stub(_ node: YAMLNode, _ r: inout NodeReader) -> NetworkStub? {
        guard
            let f = r.mapping(
                node, "a network stub", allowed: ["request", "match", "response", "times"],
                required: ["request", "response"])
        else { return nil }
        // Read first, so that its problem is reported whatever else is wrong with the stub.
        let times = f["times"].flatMap { r.int($0, "'times'", in: NumberRange.stubTimes) }
        let match = f["match"].map { requestMatch($0, &r) }
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
        guard let match else {
            return NetworkStub(
                method: parts[0], url: parts[1], status: status, body: body, times: times, location: node.location)
        }
        guard let match else { return nil }
        return NetworkStub(
            method: parts[0], url: parts[1], status: status, body: body, times: times, match: match,
            location: node.location)
    }

    static let matchKeys = ["query", "headers", "json", "jsonIncludes", "form", "body"]

    /// A stub's `match:`: nil when it has errors.
    func requestMatch(_ node: YAMLNode, _ r: inout NodeReader) -> RequestMatch? {
        let errors = r.diagnostics.errorCount
        guard let f = r.mapping(node, "'match'", allowed: Self.matchKeys) else { return nil }
        func pairs(_ key: String) -> [RequestMatch.Pair] {
            (f[key].map { r.namedEntries($0, "'\(key)'") } ?? []).compactMap { entry in
                guard let value = entry.value.scalar else {
                    r.diagnostics.error(
                        NodeReader.valueType, "'\(key)' values are texts, found \(entry.value.shapeName)",
                        at: entry.value.location)
                    return nil
                }
                return RequestMatch.Pair(entry.key, value)
            }
        }
        var match = RequestMatch(query: pairs("query"), headers: pairs("headers"))
        let bodies = ["json", "jsonIncludes", "form", "body"].filter { f[$0] != nil }
        if bodies.count > 1, let second = f.entries[bodies[1]] {
            r.diagnostics.error(
                NodeReader.valueType,
                "'match' looks at the body one way: 'json', 'jsonIncludes', 'form' or 'body', not both '\(bodies[0])' and '\(bodies[1])'",
                at: second.keyLocation)
        }
        if let json = f["json"] {
            match.body = .json(JSONText.encode(json))
        } else if let json = f["jsonIncludes"] {
            guard case .mapping = json.kind else {
                r.diagnostics.error(
                    NodeReader.valueType, "'jsonIncludes' must be a mapping of the members the body holds",
                    at: json.location)
                return nil
            }
            match.body = .jsonIncludes(JSONText.encode(json))
        } else if f["form"] != nil {
            match.body = .form(pairs("form"))
        } else if let text = f["body"] {
            match.body = r.string(text, "'body'").map(RequestMatch.Body.text)
        }
        return r.diagnostics.errorCount == errors ? match : nil
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
                guard let ms = r.duration(first.value, "'advance'") else { return nil }
                return ScriptEntry(kind: .advance(milliseconds: ms), location: node.location)
            }
            guard let at = entries.first(where: { $0.key == "at" }) else {
                r.diagnostics.error(
                    NodeReader.missingKey, "a script entry needs 'at: STEP' naming the step it gives input for",
                    at: node.location)
                return nil
            }
            guard let step = r.located(at.value, "'at'") else { return nil }
            let values = entries.filter { $0.key != "at" && $0.key != "refused" }.map {
                (name: Located($0.key, at: $0.keyLocation), value: r.raw($0.value))
            }
            var refused: String?
            if let node = entries.first(where: { $0.key == "refused" })?.value {
                // `refused: true`, or the text the reason must contain.
                if let flag = node.scalar.flatMap(LiteralParser.bool), node.isPlainScalar {
                    guard flag else {
                        r.diagnostics.error(
                            NodeReader.valueType,
                            "'refused' is true, or the text the refusal's reason contains; leave it out for input that is taken",
                            at: node.location)
                        return nil
                    }
                    refused = ""
                } else {
                    guard let text = r.string(node, "'refused'") else { return nil }
                    refused = text
                }
            }
            return ScriptEntry(kind: .input(step: step, values: values), location: node.location, refused: refused)
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
