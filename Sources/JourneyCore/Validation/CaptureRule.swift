/// A handler's captures (`http.request`'s `captures`) are read when the journey is compiled:
/// a map of names to a JSON path (`name: a.b`, of type `any`) or to
/// `{ path: a.b, type: string|int|bool|list, secret: true|false }`. Every name, path, type and
/// key is checked where it is written, so that `journey check` can type the expressions that
/// read `outcome.NAME`.
enum CaptureRule {
    /// A path that is not a JSON path.
    static let badPath = "capture.path"
    /// A declared type the path cannot give (a list path declared string, say).
    static let badType = "capture.type"

    /// The keys of a capture written as a mapping.
    static let keys = ["path", "type", "secret"]

    /// The captures as written, in order; nil when the parameter is not a mapping.
    static func captures(
        _ raw: RawValue, spec: ParameterSpec, what: String, into d: inout DiagnosticList
    ) -> [Capture]? {
        guard case .map(let pairs, _) = raw else {
            d.error(
                JourneyCompiler.typeMismatch,
                "\(what) must be a mapping of names to JSON paths, or to { path, type, secret }", at: raw.location)
            return nil
        }
        var result: [Capture] = []
        for (name, value, keyLocation) in pairs {
            let nameOK = LiteralMapRule.check(
                name, against: spec.keys, subject: "\(what): capture '\(name)'", at: keyLocation, into: &d)
            if let capture = capture(name, value, what: what, into: &d), nameOK { result.append(capture) }
        }
        return result
    }

    static func capture(_ name: String, _ raw: RawValue, what: String, into d: inout DiagnosticList) -> Capture? {
        let subject = "\(what): capture '\(name)'"
        switch raw {
        case .scalar(let text, let plain, let location):
            return path(text, plain: plain, at: location, subject: subject, into: &d).map {
                Capture(name: name, path: $0)
            }
        case .list(_, let location):
            d.error(
                JourneyCompiler.typeMismatch,
                "\(subject) must be a JSON path (a.b) or a mapping { path: a.b, type: bool }, found a list",
                at: location)
            return nil
        case .map(let fields, let location):
            var path: JSONPath?
            var pathWritten = false
            var type: Capture.CapturedType?
            var typeLocation = location
            var secret = false
            var failed = false
            for (key, value, keyLocation) in fields {
                guard keys.contains(key) else {
                    d.error(
                        NodeReader.unknownKey,
                        "unknown key '\(key)' in \(subject)\(Suggestion.hint(for: key, in: keys)); a capture takes \(keys.joined(separator: ", "))",
                        at: keyLocation)
                    failed = true
                    continue
                }
                guard case .scalar(let text, let plain, let at) = value else {
                    d.error(JourneyCompiler.typeMismatch, "\(subject): '\(key)' must be a text", at: value.location)
                    failed = true
                    continue
                }
                switch key {
                case "path":
                    pathWritten = true
                    path = self.path(text, plain: plain, at: at, subject: subject, into: &d)
                    if path == nil { failed = true }
                case "type":
                    typeLocation = at
                    let names = Capture.CapturedType.allCases.map(\.rawValue)
                    if let declared = Capture.CapturedType(rawValue: text) {
                        type = declared
                    } else {
                        d.error(
                            JourneyCompiler.typeMismatch,
                            "\(subject): 'type' must be one of \(names.joined(separator: ", ")), found '\(text)'\(Suggestion.hint(for: text, in: names))",
                            at: at)
                        failed = true
                    }
                default:
                    if let flag = LiteralParser.bool(text) {
                        secret = flag
                    } else {
                        d.error(
                            JourneyCompiler.typeMismatch,
                            "\(subject): 'secret' must be true or false" + (LiteralParser.boolHint(text) ?? ""), at: at)
                        failed = true
                    }
                }
            }
            if !pathWritten {
                d.error(
                    NodeReader.missingKey, "\(subject) needs 'path', the JSON path it reads (e.g. path: a.b)",
                    at: location)
                return nil
            }
            guard let path, !failed else { return nil }
            let capture = Capture(name: name, path: path, type: type, secret: secret)
            if let problem = capture.problem {
                d.error(badType, "\(what): \(problem)", at: typeLocation)
                return nil
            }
            return capture
        }
    }

    /// A path as written, or nil after reporting where it goes wrong.
    static func path(
        _ text: String, plain: Bool, at location: SourceLocation, subject: String, into d: inout DiagnosticList
    ) -> JSONPath? {
        switch JSONPath.parse(text) {
        case .success(let path): return path
        case .failure(let problem):
            d.error(
                badPath, "\(subject): '\(text)' is not a JSON path: \(problem.message)",
                at: location.advanced(by: problem.offset + (plain ? 0 : 1)))
            return nil
        }
    }
}
