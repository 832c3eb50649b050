import Foundation
import Yams

/// Reads untrusted YAML into ``YAMLNode``s, rejecting everything a journey file never needs
/// and everything that could make loading slow or unsafe: files over a size cap, other
/// encodings, control characters, tabs in indentation, anchors and aliases (so no "billion
/// laughs"), explicit tags, more than one document, and nesting beyond a depth cap.
///
/// Every problem is a located ``Diagnostic``; nothing here throws or traps on bad input.
public struct SafeYAML: Sendable {
    /// Caps that keep loading bounded in time and memory.
    public struct Limits: Sendable {
        public var maxBytes: Int
        public var maxDepth: Int
        public var maxNodes: Int
        public var maxScalarBytes: Int

        public init(
            maxBytes: Int = 1 << 20, maxDepth: Int = 64, maxNodes: Int = 200_000, maxScalarBytes: Int = 64 << 10
        ) {
            self.maxBytes = maxBytes
            self.maxDepth = maxDepth
            self.maxNodes = maxNodes
            self.maxScalarBytes = maxScalarBytes
        }
    }

    static let tooLarge = "yaml.too-large"
    static let empty = "yaml.empty"
    static let encoding = "yaml.encoding"
    static let controlCharacter = "yaml.control-character"
    static let tab = "yaml.tab"
    static let lineEnding = "yaml.line-ending"
    static let syntax = "yaml.syntax"
    static let tooDeep = "yaml.too-deep"
    static let alias = "yaml.alias"
    static let tag = "yaml.tag"
    static let multipleDocuments = "yaml.multiple-documents"
    static let duplicateKey = "yaml.duplicate-key"
    static let keyType = "yaml.key"
    static let flowComma = "yaml.flow-comma"

    public var limits: Limits

    /// Yams resolves tags lazily and in place; only mapping keys get resolved while parsing
    /// (Yams hashes them to find duplicates). The basic resolver has no rules, so resolving
    /// costs nothing and always gives `!!str`.
    static let resolver = Resolver.basic
    /// Made once: Yams builds its default constructor's tables on every access. Its tables
    /// are `let`s, so sharing it between threads is safe.
    nonisolated(unsafe) static let constructor = Constructor.default

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// The parse stage (see ``Pipeline``): one YAML document → its tree, or nil with the
    /// problems in `diagnostics`. `path` is only used in diagnostics.
    public func parse(_ data: Data, path: String, into diagnostics: inout DiagnosticList) -> YAMLNode? {
        switch parse(data, path: path) {
        case .success(let root): return root
        case .failure(let failure):
            diagnostics.append(contentsOf: failure.diagnostics)
            return nil
        }
    }

    /// Parses one YAML document. `path` is only used in diagnostics.
    public func parse(_ data: Data, path: String) -> Result<YAMLNode, DiagnosticFailure> {
        var diagnostics = DiagnosticList()
        let start = SourceLocation(file: path, line: 1, column: 1)
        guard data.count <= limits.maxBytes else {
            diagnostics.error(
                Self.tooLarge,
                "file is larger than \(limits.maxBytes) bytes, the limit for journey and scenario files",
                at: start)
            return .failure(DiagnosticFailure(diagnostics))
        }
        guard let text = Self.decodeUTF8(data, path: path, into: &diagnostics) else {
            return .failure(DiagnosticFailure(diagnostics))
        }
        Self.checkCharacters(text, path: path, into: &diagnostics)
        if diagnostics.hasErrors { return .failure(DiagnosticFailure(diagnostics)) }
        if Self.isBlank(text) {
            diagnostics.error(Self.empty, "file is empty; expected a mapping", at: start)
            return .failure(DiagnosticFailure(diagnostics))
        }

        let root: Node
        do {
            let parser = try Parser(yaml: text, resolver: Self.resolver, constructor: Self.constructor, encoding: .utf8)
            guard let node = try parser.singleRoot() else {
                diagnostics.error(Self.empty, "file is empty; expected a mapping", at: start)
                return .failure(DiagnosticFailure(diagnostics))
            }
            // Anchors are weak references held by the parser: convert while it is alive.
            var converter = Converter(path: path, limits: limits, text: text)
            let converted = withExtendedLifetime(parser) { converter.convert(node, depth: 1) }
            diagnostics.append(contentsOf: converter.diagnostics)
            root = node
            if diagnostics.hasErrors { return .failure(DiagnosticFailure(diagnostics)) }
            _ = root
            return .success(converted)
        } catch let error as YamlError {
            diagnostics.append(Self.diagnostic(for: error, path: path))
            return .failure(DiagnosticFailure(diagnostics))
        } catch {
            diagnostics.error(Self.syntax, "cannot read YAML: \(error)", at: start)
            return .failure(DiagnosticFailure(diagnostics))
        }
    }

    // MARK: - Bytes and characters

    static func decodeUTF8(_ data: Data, path: String, into diagnostics: inout DiagnosticList) -> String? {
        let bytes = [UInt8](data)
        let start = SourceLocation(file: path, line: 1, column: 1)
        let boms: [([UInt8], String)] = [
            ([0x00, 0x00, 0xFE, 0xFF], "UTF-32 BE"), ([0xFF, 0xFE, 0x00, 0x00], "UTF-32 LE"),
            ([0xFE, 0xFF], "UTF-16 BE"), ([0xFF, 0xFE], "UTF-16 LE"),
        ]
        for (bom, name) in boms where bytes.starts(with: bom) {
            diagnostics.error(
                encoding, "file is \(name) (byte order mark found); journey files must be UTF-8", at: start)
            return nil
        }
        var body = bytes[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { body = bytes.dropFirst(3) }
        // Find the first invalid UTF-8 sequence, to report its position.
        var line = 1, column = 1, i = body.startIndex
        while i < body.endIndex {
            let b = body[i]
            var length = 0
            if b < 0x80 {
                length = 1
            } else if b & 0xE0 == 0xC0, b >= 0xC2 {
                length = 2
            } else if b & 0xF0 == 0xE0 {
                length = 3
            } else if b & 0xF8 == 0xF0, b <= 0xF4 {
                length = 4
            }
            var valid = length > 0 && i + length <= body.endIndex
            if valid && length > 1 {
                for k in 1..<length where body[i + k] & 0xC0 != 0x80 { valid = false }
                if valid && length == 3 {
                    let b1 = body[i + 1]
                    if (b == 0xE0 && b1 < 0xA0) || (b == 0xED && b1 >= 0xA0) { valid = false }
                }
                if valid && length == 4 {
                    let b1 = body[i + 1]
                    if (b == 0xF0 && b1 < 0x90) || (b == 0xF4 && b1 >= 0x90) { valid = false }
                }
            }
            guard valid else {
                let hex = String(b, radix: 16, uppercase: true)
                diagnostics.error(
                    encoding, "invalid UTF-8 byte 0x\(hex); journey files must be UTF-8",
                    at: SourceLocation(file: path, line: line, column: column))
                return nil
            }
            if b == 0x0A {
                line += 1
                column = 1
            } else {
                column += 1
            }
            i += length
        }
        return String(decoding: body, as: UTF8.self)
    }

    /// Rejects control characters (other than tab, newline and carriage return) anywhere, and
    /// tabs used for indentation.
    static func checkCharacters(_ text: String, path: String, into diagnostics: inout DiagnosticList) {
        var line = 1, column = 1, atLineStart = true
        // Where a carriage return was, until the next character says whether a line feed follows.
        var carriageReturn: SourceLocation?
        func loneCarriageReturn(at location: SourceLocation) {
            // YAML would read it as a line break, and every line number after it would differ
            // from what an editor that ends lines with LF shows: said rather than guessed.
            diagnostics.error(
                lineEnding,
                "a carriage return (CR) ends a line without a line feed: journey files end their lines with LF or CRLF; save the file with LF line endings",
                at: location)
        }
        for scalar in text.unicodeScalars {
            let v = scalar.value
            if let location = carriageReturn, v != 0x0A {
                loneCarriageReturn(at: location)
                return
            }
            carriageReturn = v == 0x0D ? SourceLocation(file: path, line: line, column: column) : nil
            if v == 0x0A {
                line += 1
                column = 1
                atLineStart = true
                continue
            }
            if v == 0x09 && atLineStart {
                diagnostics.error(
                    tab, "tab used for indentation; indent with spaces",
                    at: SourceLocation(file: path, line: line, column: column))
                return
            }
            if (v < 0x20 && v != 0x09 && v != 0x0D) || v == 0x7F || (0x80...0x9F).contains(v)
                || v == 0xFEFF && !(line == 1 && column == 1)
            {
                diagnostics.error(
                    controlCharacter,
                    "control character U+\(String(format: "%04X", v)) is not allowed",
                    at: SourceLocation(file: path, line: line, column: column))
                return
            }
            if v != 0x20 && v != 0x0D { atLineStart = false }
            column += 1
        }
        if let location = carriageReturn { loneCarriageReturn(at: location) }
    }

    /// Whether the text holds nothing but blank lines, comments and document markers. Stops
    /// at the first line with content, so a real file costs one short look.
    public static func isBlank(_ text: String) -> Bool {
        let bytes = text.utf8
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let end = bytes[index...].firstIndex(of: 0x0A) ?? bytes.endIndex
            let line = bytes[index..<end]
            index = end < bytes.endIndex ? bytes.index(after: end) : end
            let space: (UInt8) -> Bool = {
                $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF
            }
            let content = line.drop(while: space)
            if content.isEmpty || content.first == UInt8(ascii: "#") { continue }
            if content.starts(with: "---".utf8) || content.starts(with: "...".utf8) {
                let rest = content.dropFirst(3).drop(while: space)
                if rest.isEmpty || rest.first == UInt8(ascii: "#") { continue }
            }
            return false
        }
        return true
    }

    // MARK: - Yams errors

    /// What to do with an expression YAML reads as a tag, an anchor or an alias.
    static let quoteExpression =
        "an expression that starts with '!', '&' or '*', or holds '&&', is YAML syntax unless quoted: write it in quotes (if: \"!stored.asked && device.online\")"

    static func diagnostic(for error: YamlError, path: String) -> Diagnostic {
        func at(_ mark: Mark) -> SourceLocation {
            SourceLocation(file: path, line: max(mark.line, 1), column: max(mark.column, 1))
        }
        func phrase(_ problem: String, _ context: YamlError.Context?) -> String {
            guard let context, !context.text.isEmpty else { return problem }
            return "\(problem) (\(context.text) at line \(context.mark.line), column \(context.mark.column))"
        }
        switch error {
        case .scanner(let context, let problem, let mark, let text),
            .parser(let context, let problem, let mark, let text):
            if problem.contains("Maximum nesting level") {
                return Diagnostic(
                    .error, tooDeep, "nesting is too deep; journeys nest at most a few levels", at: at(mark))
            }
            if problem.contains("tab character") {
                return Diagnostic(.error, tab, "tab used for indentation; indent with spaces", at: at(mark))
            }
            // `&&`, `*` or `!` at the start of plain text are YAML's anchors, aliases and tags.
            if let context, ["anchor", "alias", "tag"].contains(where: context.text.contains) {
                return Diagnostic(
                    .error, syntax, phrase(problem, context) + "; " + Self.quoteExpression, at: at(mark))
            }
            if let hint = syntaxHint(problem: problem, context: context, mark: mark, text: text) {
                return Diagnostic(
                    .error, syntax, "\(hint.message) (YAML: \(problem))",
                    at: SourceLocation(file: path, line: hint.line, column: hint.column))
            }
            return Diagnostic(.error, syntax, phrase(problem, context), at: at(mark))
        case .composer(let context, let problem, let mark, _):
            if problem.contains("another document") {
                return Diagnostic(
                    .error, multipleDocuments,
                    "a second YAML document starts here; a file holds exactly one journey or scenario",
                    at: at(mark))
            }
            if problem.contains("alias") {
                return Diagnostic(
                    .error, alias,
                    "undefined alias; anchors and aliases are not allowed in JourneyKit's files (journeys, scenarios, the project file)",
                    at: at(mark))
            }
            return Diagnostic(.error, syntax, phrase(problem, context), at: at(mark))
        case .duplicatedKeysInMapping(let duplicates, let context):
            let names = duplicates.map { "'\($0)'" }.joined(separator: ", ")
            let first = at(context.mark)
            guard let key = duplicates.first,
                let again = repeatedKey(key, after: context.mark, in: context.text)
            else {
                return Diagnostic(
                    .error, duplicateKey, "key \(names) is given more than once in one mapping", at: first)
            }
            return Diagnostic(
                .error, duplicateKey, "key '\(key)' is given again; it is already set at line \(first.line)",
                at: SourceLocation(file: path, line: again.line, column: again.column))
        case .reader(let problem, _, _, _):
            return Diagnostic(.error, encoding, problem, at: SourceLocation(file: path, line: 1, column: 1))
        case .dataCouldNotBeDecoded:
            return Diagnostic(
                .error, encoding, "journey files must be UTF-8", at: SourceLocation(file: path, line: 1, column: 1))
        default:
            return Diagnostic(
                .error, syntax, "cannot read YAML: \(error)", at: SourceLocation(file: path, line: 1, column: 1))
        }
    }

    /// Where a block mapping's key appears a second time: the next line at the same
    /// indentation that starts with the key, before the mapping ends.
    static func repeatedKey(_ key: String, after mark: Mark, in text: String) -> (line: Int, column: Int)? {
        let lines = text.lines
        guard mark.line >= 1, mark.line <= lines.count else { return nil }
        let indent = mark.column - 1
        let forms = [key, "\"\(key)\"", "'\(key)'"]
        for index in mark.line..<lines.count {
            let line = lines[index]
            let content = line.drop { $0 == " " }
            let depth = line.count - content.count
            if content.isEmpty || content.hasPrefix("#") { continue }
            if depth < indent { return nil }
            guard depth == indent else { continue }
            for form in forms where content.hasPrefix(form) {
                let rest = content.dropFirst(form.count).drop { $0 == " " }
                if rest.hasPrefix(":") { return (index + 1, mark.column) }
            }
            if content.hasPrefix("- ") { return nil }
        }
        return nil
    }

    // MARK: - Conversion

    struct Converter {
        let path: String
        let limits: Limits
        /// The file's text, for what the YAML tree does not keep (how an entry was written).
        let text: String
        var diagnostics = DiagnosticList()
        var nodeCount = 0
        var stopped = false
        private var lines: [Substring]?

        init(path: String, limits: Limits, text: String = "") {
            self.path = path
            self.limits = limits
            self.text = text
        }

        /// Whether the key at `location` is followed by `,` or `}` rather than `:` (a key
        /// written with no value in a flow mapping).
        mutating func writtenWithoutColon(_ key: String, at location: SourceLocation) -> Bool {
            if lines == nil { lines = text.lines }
            guard let lines, location.line >= 1, location.line <= lines.count else { return false }
            let line = lines[location.line - 1].unicodeScalars
            guard location.column >= 1, location.column - 1 + key.unicodeScalars.count <= line.count else {
                return false
            }
            let afterKey = line.index(line.startIndex, offsetBy: location.column - 1 + key.unicodeScalars.count)
            let next = line[afterKey...].first { $0 != " " }
            return next == "," || next == "}"
        }

        func location(_ mark: Mark?) -> SourceLocation {
            SourceLocation(file: path, line: mark?.line ?? 1, column: mark?.column ?? 1)
        }

        mutating func fail(_ id: String, _ message: String, _ mark: Mark?) -> YAMLNode {
            diagnostics.error(id, message, at: location(mark))
            stopped = true
            return YAMLNode(kind: .scalar("", plain: true), location: location(mark))
        }

        /// In a flow mapping (`{ … }`) a comma ends the entry, so `{ en: Hello, world }` reads
        /// as `en: Hello` and a key `world` with no value. No value in a journey or scenario is
        /// written that way, so a key without a value after a plain text is reported where it
        /// is, naming the entry it was most likely meant to be part of. Neither the text nor the
        /// key is repeated: this stage does not know what is secret, and the text may be a PIN
        /// (`pin: 98, 76`) or a password.
        mutating func checkCommas(_ entries: [YAMLNode.Entry]) {
            for (previous, entry) in zip(entries, entries.dropFirst()) {
                guard entry.value.isNull, case .scalar(let text, plain: true) = previous.value.kind, !text.isEmpty,
                    writtenWithoutColon(entry.key, at: entry.keyLocation)
                else { continue }
                diagnostics.error(
                    flowComma,
                    "in { … } a comma ends an entry, so the text of '\(previous.key)' was read as two entries, the second a key with no value; quote text that holds a comma, as in \(previous.key): \"…, …\" (the text is not repeated here: it may be a secret)",
                    at: entry.keyLocation)
            }
        }

        mutating func convert(_ node: Node, depth: Int, isKey: Bool = false) -> YAMLNode {
            let loc = location(node.mark)
            if stopped { return YAMLNode(kind: .scalar("", plain: true), location: loc) }
            nodeCount += 1
            if nodeCount > limits.maxNodes {
                return fail(tooLarge, "file has more than \(limits.maxNodes) YAML nodes", node.mark)
            }
            if depth > limits.maxDepth {
                return fail(
                    tooDeep, "nesting is deeper than \(limits.maxDepth) levels; journeys nest at most a few levels",
                    node.mark)
            }
            if let anchor = node.anchor {
                return fail(
                    alias,
                    "anchor '&\(anchor.rawValue)' (or an alias to it); anchors, aliases and merge keys are not allowed in JourneyKit's files (journeys, scenarios, the project file)",
                    node.mark)
            }
            if case .alias = node {
                return fail(
                    alias, "aliases are not allowed in JourneyKit's files (journeys, scenarios, the project file)",
                    node.mark)
            }
            let tagName = Self.explicitTag(of: node, isKey: isKey)
            if let tagName {
                return fail(
                    tag,
                    "explicit tag '\(tagName)' is not allowed; journey values are typed by the journey, not by tags"
                        + (tagName.hasPrefix("!!") ? "" : "; " + SafeYAML.quoteExpression),
                    node.mark)
            }
            switch node {
            case .scalar(let scalar):
                let text = scalar.string
                if text.utf8.count > limits.maxScalarBytes {
                    return fail(
                        tooLarge,
                        "a single value is \(text.utf8.count) bytes; values may be at most \(limits.maxScalarBytes) bytes",
                        node.mark)
                }
                if let bad = text.unicodeScalars.first(where: { Self.isForbiddenControl($0) }) {
                    return fail(
                        controlCharacter,
                        "control character U+\(String(format: "%04X", bad.value)) is not allowed in a value",
                        node.mark)
                }
                return YAMLNode(kind: .scalar(text, plain: scalar.style == .plain), location: loc)
            case .sequence(let sequence):
                var items: [YAMLNode] = []
                items.reserveCapacity(sequence.count)
                for item in sequence {
                    items.append(convert(item, depth: depth + 1))
                    if stopped { break }
                }
                return YAMLNode(kind: .sequence(items), location: loc)
            case .mapping(let mapping):
                var entries: [YAMLNode.Entry] = []
                entries.reserveCapacity(mapping.count)
                for (key, value) in mapping {
                    let keyNode = convert(key, depth: depth + 1, isKey: true)
                    if stopped { break }
                    guard let keyText = keyNode.scalar else {
                        return fail(keyType, "mapping keys must be plain names, found \(keyNode.shapeName)", key.mark)
                    }
                    if keyText == "<<" && keyNode.isPlainScalar {
                        return fail(
                            alias,
                            "merge keys ('<<') are not allowed in JourneyKit's files (journeys, scenarios, the project file)",
                            key.mark)
                    }
                    let valueNode = convert(value, depth: depth + 1)
                    if stopped { break }
                    entries.append(YAMLNode.Entry(key: keyText, keyLocation: keyNode.location, value: valueNode))
                }
                if entries.count > 1 { checkCommas(entries) }
                return YAMLNode(kind: .mapping(entries), location: loc)
            case .alias:
                return fail(
                    alias, "aliases are not allowed in JourneyKit's files (journeys, scenarios, the project file)",
                    node.mark)
            }
        }

        static func isForbiddenControl(_ scalar: Unicode.Scalar) -> Bool {
            let v = scalar.value
            return (v < 0x20 && v != 0x0A) || v == 0x7F || (0x80...0x9F).contains(v)
        }

        static func explicitTag(of node: Node, isKey: Bool) -> String? {
            let name: String
            let resolved: String
            switch node {
            case .scalar(let s):
                name = s.tag.rawValue
                // Keys were resolved to `!!str` by Yams' duplicate check; quoted and block
                // scalars carry the non-specific tag `!`, which also reads as `!!str`. A plain
                // value tagged `!!str` (`pin: !!str 0012`) was tagged by its author.
                resolved = s.style == .plain && !isKey ? "" : Tag.Name.str.rawValue
            case .mapping(let m):
                name = m.tag.rawValue
                resolved = Tag.Name.map.rawValue
            case .sequence(let s):
                name = s.tag.rawValue
                resolved = Tag.Name.seq.rawValue
            case .alias: return nil
            }
            if name.isEmpty || name == resolved { return nil }
            return name.hasPrefix("tag:yaml.org,2002:") ? "!!" + name.dropFirst(18) : name
        }
    }
}
