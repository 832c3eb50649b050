import JourneyCore

extension FormHandler: ExplorableHandler {
    /// `valid`: the submit action with every field filled as its checks accept: once with
    /// each text the starting point typed into the fields that passes (a right and a wrong
    /// code are both valid to the form; the server tells them apart), else with a value made
    /// for the field's kind and length; `invalid`: the submit action with every field failing
    /// a check, when some check can fail. A field no value passes leaves `valid` out.
    public func explorationChoices(
        _ request: InputRequest, invocation: HandlerInvocation, device: DeviceState, hints: ExplorationHints
    ) -> [ExplorationChoice] {
        let submit = Self.submit(of: invocation)
        let fields = invocation.screen?.fields ?? []
        var choices: [ExplorationChoice] = []
        var passing: [[Value]] = []
        for field in fields {
            let typed = (hints.typed[field.name] ?? []).map(Value.string).filter {
                Self.problem(with: $0, in: field) == nil
            }
            let made = Self.made(for: field).first { Self.problem(with: $0, in: field) == nil }
            passing.append(typed.isEmpty ? made.map { [$0] } ?? [] : typed)
        }
        if !passing.contains(where: \.isEmpty) {
            var seen = Set<[String: Value]>()
            for round in 0..<(passing.map(\.count).max() ?? 1) {
                var values: [String: Value] = ["action": .string(submit)]
                for (field, candidates) in zip(fields, passing) {
                    values[field.name] = candidates[min(round, candidates.count - 1)]
                }
                guard seen.insert(values).inserted else { continue }
                choices.append(ExplorationChoice(label: round == 0 ? "valid" : "valid-\(round + 1)", values: values))
            }
        }
        var invalid: [String: Value] = ["action": .string(submit)]
        var fails = false
        for (field, candidates) in zip(fields, passing) {
            let wrong: [Value] =
                field.kind == .switch
                ? [.bool(false)] : [.string(""), .string("x"), .string(String(repeating: "x", count: 300))]
            if let value = wrong.first(where: { Self.problem(with: $0, in: field) != nil }) {
                invalid[field.name] = value
                fails = true
            } else {
                invalid[field.name] = candidates.first
            }
        }
        if fails { choices.append(ExplorationChoice(label: "invalid", values: invalid)) }
        return choices
    }

    /// Values made for a field's kind, as long as its length rules ask, then of other lengths
    /// (a `pattern` such as `^[0-9]{6}$` may want one): the first that passes is played.
    static func made(for field: RenderedScreen.Field) -> [Value] {
        if field.kind == .switch { return [.bool(true)] }
        let length = max(field.minLength ?? 1, min(field.maxLength ?? 8, 8))
        let lengths = [length] + (1...24).filter { $0 != length }
        func repeated(_ pattern: String) -> [Value] {
            lengths.map { count in
                .string(String(String(repeating: pattern, count: count / pattern.count + 1).prefix(count)))
            }
        }
        switch field.kind {
        case .email: return [.string("user@example.org")]
        case .phone: return [.string("+31 612345678")]
        case .digits: return repeated("2580369147")
        default: return repeated("explored") + repeated("2580369147")
        }
    }
}

extension LinkWaitHandler: ExplorableHandler {
    /// A link for each route, in the order the routes are written (the first link tried of
    /// the route's scheme that the handler routes there), then links no route takes: one of
    /// each scheme the routes name and one of another scheme, each whose outcome is not yet
    /// played.
    public func explorationChoices(
        _ request: InputRequest, invocation: HandlerInvocation, device: DeviceState, hints: ExplorationHints
    ) -> [ExplorationChoice] {
        guard request.inputs.contains(where: { $0.name == "link" }) else { return [] }
        var choices: [ExplorationChoice] = []
        var labels = Set<String>()
        // A host the app takes http(s) links from, when it names them (`*.` a host under it).
        let home = Self.domains(invocation)?.first.map { $0.hasPrefix("*.") ? "app" + $0.dropFirst() : $0 }
        for table in invocation.tables["routes"]?.tables ?? [] {
            let scheme = table.name == LiteralTables.anyName ? "https" : table.name.lowercased()
            for entry in table.entries where !labels.contains(entry.key) {
                let text = entry.text
                let candidates =
                    [
                        "\(scheme)://\(text)", "\(scheme)://app.example/\(text)", "\(scheme)://app.example\(text)",
                        "\(scheme)://\(text)?explored=1", "\(scheme):\(text)",
                    ] + (home.map { ["\(scheme)://\($0)/\(text)", "\(scheme)://\($0)\(text)"] } ?? [])
                    + (hints.typed["link"] ?? [])
                if let link = candidates.first(where: { Self.route($0, invocation) == entry.key }) {
                    labels.insert(entry.key)
                    choices.append(ExplorationChoice(label: entry.key, values: ["link": .string(link)]))
                }
            }
        }
        // Links no route takes: one of each scheme the routes name, then one of a scheme none
        // does. With `domains`, an https one is tried however the routes are written (from
        // another host it opens in the browser), and each is tried from the app's own host too.
        var schemes = (invocation.tables["routes"]?.tables ?? []).map(\.name).filter { $0 != LiteralTables.anyName }
        if home != nil, !schemes.contains(where: { $0.lowercased() == "https" }) { schemes.append("https") }
        for scheme in schemes.map({ $0.lowercased() }) + ["unrouted-scheme"] {
            let strays =
                ["\(scheme)://nowhere.example/explored"] + (home.map { ["\(scheme)://\($0)/nowhere-explored"] } ?? [])
            for stray in strays {
                let fallback = Self.route(stray, invocation)
                if labels.insert(fallback).inserted {
                    choices.append(ExplorationChoice(label: fallback, values: ["link": .string(stray)]))
                }
            }
        }
        return choices
    }
}
