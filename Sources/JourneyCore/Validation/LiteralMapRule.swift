/// A handler parameter written as a literal map (a response's captures, a wait's routes) is
/// read when the journey is compiled: it must be a map of texts, or for a `.tables`
/// parameter a map of such maps, and every key, table name and text must be what the
/// handler's contract asks for (a name, a URL scheme, one of a few words). Each problem is
/// reported where it is written.
enum LiteralMapRule {
    static let invalidText = "param.text"

    /// A map of names to texts, in the order written.
    static func map(
        _ raw: RawValue, spec: ParameterSpec, what: String, into d: inout DiagnosticList
    ) -> [(key: String, value: String)]? {
        guard case .map(let pairs, _) = raw else {
            d.error(JourneyCompiler.typeMismatch, "\(what) must be a mapping of names to texts", at: raw.location)
            return nil
        }
        return entries(pairs, spec: spec, what: what, into: &d).map { ($0.key, $0.text) }
    }

    /// A map of texts (one table, `*`, for every name) or a map of names to maps of texts.
    static func tables(
        _ raw: RawValue, spec: ParameterSpec, what: String, into d: inout DiagnosticList
    ) -> LiteralTables? {
        guard case .map(let pairs, _) = raw else {
            d.error(
                JourneyCompiler.typeMismatch,
                "\(what) must be a mapping of names to texts, or of names to such mappings",
                at: raw.location)
            return nil
        }
        let nested = pairs.first.map { if case .map = $0.value { true } else { false } } ?? false
        guard nested else {
            return LiteralTables(
                [.init(name: LiteralTables.anyName, entries: entries(pairs, spec: spec, what: what, into: &d))])
        }
        var tables: [LiteralTables.Table] = []
        for (name, value, keyLocation) in pairs {
            check(name, against: spec.tableNames, subject: "\(what): table '\(name)'", at: keyLocation, into: &d)
            guard case .map(let inner, _) = value else {
                d.error(
                    JourneyCompiler.typeMismatch,
                    "\(what): '\(name)' must be a mapping like the tables before it; write either names → texts, or a table per name",
                    at: value.location)
                continue
            }
            tables.append(.init(name: name, entries: entries(inner, spec: spec, what: "\(what) '\(name)'", into: &d)))
        }
        return LiteralTables(tables)
    }

    private static func entries(
        _ pairs: [(key: String, value: RawValue, keyLocation: SourceLocation)], spec: ParameterSpec, what: String,
        into d: inout DiagnosticList
    ) -> [LiteralTables.Entry] {
        var result: [LiteralTables.Entry] = []
        for (key, value, keyLocation) in pairs {
            guard case .scalar(let text, _, let location) = value else {
                d.error(JourneyCompiler.typeMismatch, "\(what): '\(key)' must be a text", at: value.location)
                continue
            }
            let keyOK = check(key, against: spec.keys, subject: "\(what): key '\(key)'", at: keyLocation, into: &d)
            let textOK = check(
                text, against: spec.texts, subject: "\(what): '\(text)' (for '\(key)')", at: location, into: &d)
            if keyOK && textOK { result.append(.init(key: key, text: text)) }
        }
        return result
    }

    /// Reports `text` (named by `subject` in the message) when the rule does not accept it;
    /// says whether it does.
    @discardableResult
    static func check(
        _ text: String, against rule: ParameterSpec.TextRule, subject: String, at location: SourceLocation,
        into d: inout DiagnosticList
    ) -> Bool {
        guard let problem = problem(with: text, rule) else { return true }
        d.error(invalidText, "\(subject) \(problem)", at: location)
        return false
    }

    /// Why the rule does not accept `text`, or nil when it does.
    static func problem(with text: String, _ rule: ParameterSpec.TextRule) -> String? {
        switch rule {
        case .any:
            return nil
        case .id:
            return NodeReader.isIdentifier(text) ? nil : "is not a name: a letter, then letters, digits, '_' or '-'"
        case .scheme:
            if text == LiteralTables.anyName || isScheme(text) { return nil }
            return "is not a URL scheme (a letter, then letters, digits, '+', '-' or '.', without ':' or '//'),"
                + " nor * for every other scheme"
        case .oneOf(let words):
            return words.contains(text)
                ? nil : "is not one of \(words.joined(separator: ", "))\(Suggestion.hint(for: text, in: words))"
        }
    }

    /// RFC 3986: `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`.
    static func isScheme(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first.isASCIILetter else { return false }
        return text.unicodeScalars.allSatisfy {
            $0.isASCIILetter || $0.isASCIIDigit || "+-.".unicodeScalars.contains($0)
        }
    }
}
