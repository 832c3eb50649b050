/// Reads ``YAMLNode``s into model values, reporting every problem it finds as a diagnostic
/// (wrong shapes, unknown keys with a "did you mean", missing keys) and carrying on, so that
/// a file's problems are all reported at once.
struct NodeReader {
    static let unknownKey = "key.unknown"
    static let missingKey = "key.missing"
    static let valueType = "value.type"
    static let invalidId = "id.invalid"
    static let outOfRange = "value.range"

    var diagnostics = DiagnosticList()

    /// The entries of a mapping, checked against the keys the context allows. `nested` are keys
    /// that belong in a mapping under one of these (a key → that one): written here, the
    /// error says where they go.
    mutating func mapping(
        _ node: YAMLNode, _ what: String, allowed: [String], required: [String] = [],
        nested: [String: String] = [:]
    ) -> Fields? {
        guard case .mapping(let entries) = node.kind else {
            diagnostics.error(Self.valueType, "\(what) must be a mapping, found \(node.shapeName)", at: node.location)
            return nil
        }
        var fields = Fields(node: node, entries: [:], order: [])
        let given = Set(entries.map(\.key))
        // A misspelt key (`onn:`) is read as the key it is closest to, when that one is not
        // given itself and no other misspelling is closest to it too: the error says so once,
        // and what depends on the key (its outcomes handled, a required key there) is checked
        // from what was meant, not reported again as missing.
        var meant: [String: String] = [:]
        var claims: [String: Int] = [:]
        for entry in entries where !allowed.contains(entry.key) && nested[entry.key] == nil {
            if let closest = Suggestion.closest(to: entry.key, in: allowed), !given.contains(closest) {
                meant[entry.key] = closest
                claims[closest, default: 0] += 1
            }
        }
        for entry in entries {
            if !allowed.contains(entry.key) {
                // Past the file's limit the diagnostic is only counted: skip the suggestion.
                let hint =
                    if let parent = nested[entry.key] {
                        "; it goes under '\(parent):' (\(parent).\(entry.key))"
                    } else if !diagnostics.accepts(file: entry.keyLocation.file) {
                        ""
                    } else if let closest = Suggestion.closest(to: entry.key, in: allowed) {
                        "; did you mean '\(closest)'?"
                    } else if let closest = Suggestion.closest(to: entry.key, in: nested.keys) {
                        "; did you mean '\(nested[closest]!).\(closest)'?"
                    } else {
                        ""
                    }
                diagnostics.error(
                    Self.unknownKey, "unknown key '\(entry.key)' in \(what)\(hint)", at: entry.keyLocation)
                if let key = meant[entry.key], claims[key] == 1 {
                    var entry = entry
                    entry.key = key
                    fields.entries[key] = entry
                    fields.order.append(key)
                }
                continue
            }
            fields.entries[entry.key] = entry
            fields.order.append(entry.key)
        }
        for key in required where fields.entries[key] == nil {
            diagnostics.error(Self.missingKey, "\(what) is missing required key '\(key)'", at: node.location)
        }
        return fields
    }

    /// The entries of a mapping whose keys are names chosen by the author (steps, params, …).
    mutating func namedEntries(_ node: YAMLNode, _ what: String) -> [YAMLNode.Entry] {
        if node.isNull { return [] }
        guard case .mapping(let entries) = node.kind else {
            diagnostics.error(Self.valueType, "\(what) must be a mapping, found \(node.shapeName)", at: node.location)
            return []
        }
        return entries
    }

    mutating func string(_ node: YAMLNode, _ what: String) -> String? {
        guard let text = node.scalar else {
            diagnostics.error(Self.valueType, "\(what) must be a text, found \(node.shapeName)", at: node.location)
            return nil
        }
        return text
    }

    mutating func located(_ node: YAMLNode, _ what: String) -> Located<String>? {
        string(node, what).map { Located($0, at: node.location) }
    }

    mutating func identifier(_ node: YAMLNode, _ what: String) -> Located<String>? {
        guard let text = located(node, what) else { return nil }
        checkIdentifier(text, what)
        return text
    }

    mutating func checkIdentifier(_ id: Located<String>, _ what: String) {
        if !Self.isIdentifier(id.value) {
            diagnostics.error(
                Self.invalidId,
                "\(what) '\(id.value)' is not a valid id; use letters, digits, '_' and '-', starting with a letter",
                at: id.location)
        }
    }

    static func isIdentifier(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first.isASCIILetter, text.unicodeScalars.count <= 64 else {
            return false
        }
        return text.unicodeScalars.allSatisfy { $0.isASCIILetter || $0.isASCIIDigit || $0 == "_" || $0 == "-" }
    }

    mutating func bool(_ node: YAMLNode, _ what: String) -> Bool? {
        switch node.scalar {
        case "true"?: return true
        case "false"?: return false
        default:
            diagnostics.error(
                Self.valueType, "\(what) must be true or false" + (node.scalar.flatMap(LiteralParser.boolHint) ?? ""),
                at: node.location)
            return nil
        }
    }

    mutating func int(_ node: YAMLNode, _ what: String) -> Int? {
        guard let text = node.scalar, let value = LiteralParser.int(text) else {
            diagnostics.error(Self.valueType, "\(what) must be a whole number", at: node.location)
            return nil
        }
        return value
    }

    /// A whole number within `range`; the message says the range.
    mutating func int(_ node: YAMLNode, _ what: String, in range: ClosedRange<Int>) -> Int? {
        let bounds = "from \(range.lowerBound) to \(range.upperBound)"
        guard let text = node.scalar, let value = LiteralParser.int(text) else {
            diagnostics.error(Self.valueType, "\(what) must be a whole number \(bounds)", at: node.location)
            return nil
        }
        guard range.contains(value) else {
            diagnostics.error(Self.outOfRange, "\(what) must be \(bounds), found \(text)", at: node.location)
            return nil
        }
        return value
    }

    /// A duration such as `1h30m`, in milliseconds, at most ``Duration/maximum``; a text that is
    /// not one, or is longer, is reported where it is written.
    mutating func duration(_ node: YAMLNode, _ what: String) -> Int? {
        guard let text = string(node, what) else { return nil }
        guard let ms = Duration.parse(text) else {
            if Duration.isTooLong(text) {
                diagnostics.error(Self.outOfRange, "\(what): \(Duration.problem(with: text) ?? "")", at: node.location)
            } else {
                diagnostics.error(Self.valueType, "\(what) takes \(Duration.rule), found '\(text)'", at: node.location)
            }
            return nil
        }
        return ms
    }

    mutating func stringList(_ node: YAMLNode, _ what: String) -> [Located<String>] {
        if node.isNull { return [] }
        guard case .sequence(let items) = node.kind else {
            diagnostics.error(Self.valueType, "\(what) must be a list, found \(node.shapeName)", at: node.location)
            return []
        }
        return items.compactMap { located($0, what) }
    }

    mutating func enumValue<E: RawRepresentable & CaseIterable>(_ node: YAMLNode, _ what: String, as: E.Type) -> E?
    where E.RawValue == String {
        guard let text = string(node, what) else { return nil }
        if let value = E(rawValue: text) { return value }
        let names = E.allCases.map(\.rawValue)
        diagnostics.error(
            Self.valueType,
            "\(what) must be one of \(names.joined(separator: ", ")), found '\(text)'\(Suggestion.hint(for: text, in: names))",
            at: node.location)
        return nil
    }

    /// A YAML value kept as written, to be typed later.
    mutating func raw(_ node: YAMLNode) -> RawValue {
        switch node.kind {
        case .scalar(let text, let plain): return .scalar(text, plain: plain, node.location)
        case .sequence(let items): return .list(items.map { raw($0) }, node.location)
        case .mapping(let entries):
            return .map(entries.map { ($0.key, raw($0.value), $0.keyLocation) }, node.location)
        }
    }

    mutating func template(_ text: String, at location: SourceLocation) -> Template? {
        switch Template.parse(text) {
        case .success(let template): return template
        case .failure(let error):
            diagnostics.error(error.id, error.message, at: location.advanced(by: error.offset))
            return nil
        }
    }

    /// A text: one string, or a map from locale to string.
    mutating func text(_ node: YAMLNode, _ what: String) -> LocalizedText? {
        switch node.kind {
        case .scalar(let text, _):
            guard let template = template(text, at: node.location) else { return nil }
            return LocalizedText(
                entries: [.init(locale: nil, template: template, location: node.location)], location: node.location)
        case .mapping(let entries):
            var result: [LocalizedText.Entry] = []
            for entry in entries {
                guard let text = string(entry.value, "\(what) in '\(entry.key)'"),
                    let template = template(text, at: entry.value.location)
                else { continue }
                result.append(.init(locale: entry.key, template: template, location: entry.keyLocation))
            }
            return LocalizedText(entries: result, location: node.location)
        case .sequence:
            diagnostics.error(
                Self.valueType, "\(what) must be a text or a map of locale to text, found a list", at: node.location)
            return nil
        }
    }

    /// The checked fields of one mapping.
    struct Fields {
        var node: YAMLNode
        var entries: [String: YAMLNode.Entry]
        var order: [String]

        subscript(key: String) -> YAMLNode? { entries[key]?.value }
        func keyLocation(_ key: String) -> SourceLocation? { entries[key]?.keyLocation }
    }
}

extension Unicode.Scalar {
    var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

/// Reads scalars as the YAML 1.2 core schema would, but only when a type is asked for.
public enum LiteralParser {
    /// A decimal integer with an optional sign and no leading zeros (`0012` is not a number).
    public static func int(_ text: String) -> Int? {
        var digits = Substring(text)
        if digits.first == "-" || digits.first == "+" { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        if digits.count > 1 && digits.first == "0" { return nil }
        return Int(text.first == "+" ? String(text.dropFirst()) : text)
    }

    public static func bool(_ text: String) -> Bool? {
        switch text {
        case "true": true
        case "false": false
        default: nil
        }
    }

    /// What to write instead of `text` where a bool goes, for the words a bool is often written
    /// as: YAML 1.1's `yes`, `no`, `on` and `off` (text in YAML 1.2, which JourneyKit reads, as
    /// they are to a Kubernetes or GitHub Actions file of today), and `True` or `FALSE`. Nil for
    /// anything else.
    public static func boolHint(_ text: String) -> String? {
        let word = text.lowercased()
        if ["true", "false"].contains(word), word != text { return "; write \(word), in lower case" }
        let meant: String? =
            switch word {
            case "yes", "y", "on": "true"
            case "no", "n", "off": "false"
            default: nil
            }
        return meant.map {
            "; '\(text)' is text in YAML 1.2, which JourneyKit reads (YAML 1.1 read it as \($0)): write \($0)"
        }
    }

    /// The value of a scalar written where `type` is expected, or nil when it is not one.
    public static func value(_ text: String, plain: Bool, as type: ValueType) -> Value? {
        switch type {
        case .string, .any:
            if type == .any && plain {
                if let i = int(text) { return .int(i) }
                if let b = bool(text) { return .bool(b) }
            }
            return .string(text)
        case .int: return plain ? int(text).map(Value.int) : nil
        case .bool: return plain ? bool(text).map(Value.bool) : nil
        case .duration: return Duration.parse(text).map(Value.duration)
        case .list: return nil
        }
    }
}
