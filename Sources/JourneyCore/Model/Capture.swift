import Foundation

/// A value a step reads out of a JSON document (an HTTP response) by path, readable in the
/// step's transitions as `outcome.NAME`.
///
/// Written `NAME: PATH` it is of type `any`: whatever JSON value the path finds. Written
/// `NAME: { path: PATH, type: string|int|bool|list, secret: true|false }` it has the declared
/// type: `journey check` types the expressions that read it, and a run fails the step when the
/// document holds another JSON type there.
public struct Capture: Sendable, Hashable {
    /// The types a capture can declare, with the JSON type each reads.
    public enum CapturedType: String, Sendable, Hashable, CaseIterable {
        case string, int, bool, list

        public var valueType: ValueType {
            switch self {
            case .string: .string
            case .int: .int
            case .bool: .bool
            case .list: .list
            }
        }

        /// The JSON a value of this type is read from, as messages name it.
        public var json: String {
            switch self {
            case .string: "a JSON string"
            case .int: "a JSON number without a fraction"
            case .bool: "JSON true or false"
            case .list: "a JSON array"
            }
        }

        /// What an optional capture gives when its path finds nothing, if the type has an
        /// empty value.
        public var empty: Value? {
            switch self {
            case .string: .string("")
            case .list: .list([])
            case .int, .bool: nil
            }
        }
    }

    public var name: String
    public var path: JSONPath
    /// The declared type, or nil for the short form (`any`).
    public var type: CapturedType?
    public var secret: Bool

    public init(name: String, path: JSONPath, type: CapturedType? = nil, secret: Bool = false) {
        self.name = name
        self.path = path
        self.type = type
        self.secret = secret
    }

    /// The type expressions see for `outcome.NAME`.
    public var typeInfo: TypeInfo { TypeInfo(type?.valueType ?? .any, secret: secret) }

    /// Why the capture cannot read what it declares, or nil when it can: a path with `[*]`
    /// gives a list, and an optional path (`?`) needs a type with an empty value.
    public var problem: String? {
        guard let type else { return nil }
        if path.isMany && type != .list {
            return "capture '\(name)' reads '\(path)', which gives a list (it has [*]); declare it 'type: list'"
        }
        if path.isOptional && type.empty == nil {
            return
                "capture '\(name)' is optional ('?'), giving an empty value when '\(path.text)' is absent, but \(type.rawValue) has no empty value; drop the '?' or declare it string"
        }
        return nil
    }

    /// What a capture found: its value, or why it has none, said of the document ("has null
    /// at 'a.b' for capture 'x'"). The reasons name the capture, the path and the JSON types,
    /// never a value (a capture may be secret).
    public enum Reading: Sendable, Hashable {
        case value(Value)
        case failure(String)
    }

    /// Reads the capture from a parsed JSON document (as `JSONSerialization` gives it).
    public func read(from document: Any) -> Reading {
        let found = path.find(in: document)
        if path.isMany {
            return .value(.list(found.compactMap(JSONPath.value)))
        }
        let item = found.first.flatMap { JSONPath.kind(of: $0) == .null ? nil : $0 }
        guard let item else {
            if path.isOptional { return .value(type?.empty ?? .string("")) }
            return .failure("has \(found.isEmpty ? "nothing" : "null") at '\(path.text)' for capture '\(name)'")
        }
        guard let type else {
            guard let value = JSONPath.value(item) else {
                // As it always has, an optional path of the short form reads an object as absent.
                if path.isOptional { return .value(.string("")) }
                return .failure("has a JSON object at '\(path.text)' for capture '\(name)', which is not a value")
            }
            return .value(value)
        }
        let kind = JSONPath.kind(of: item)
        let value: Value? =
            switch (type, kind) {
            case (.string, .string): JSONPath.value(item)
            case (.bool, .boolean): JSONPath.value(item)
            case (.list, .array): JSONPath.value(item)
            case (.int, .number): JSONPath.integer(item).map(Value.int)
            default: nil
            }
        guard let value else {
            let found =
                type == .int && kind == .number
                ? "a JSON number with a fraction or too large for an int" : kind.described
            return .failure(
                "has \(found) at '\(path.text)' for capture '\(name)', which is declared \(type.rawValue) (\(type.json))"
            )
        }
        return .value(value)
    }
}

/// A path into a JSON document: keys separated by `.`, each followed by any number of `[N]`
/// (an array's item, from 0) or `[*]` (every item: the path then gives a list), and a
/// trailing `?` when the value may be absent: `session.token`, `items[0].id`,
/// `banks[*].name`, `template.action?`.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    public enum Segment: Sendable, Hashable {
        case key(String)
        case index(Int)
        case all
    }

    public var segments: [Segment]
    /// Written with a trailing `?`: absent is not an error.
    public var isOptional: Bool
    /// The path as written, without its `?`.
    public var text: String

    /// Whether the path has `[*]` and so gives a list.
    public var isMany: Bool { segments.contains(.all) }

    public var description: String { isOptional ? text + "?" : text }

    /// Why a path does not read, with the offset (in characters) of the problem.
    public struct Problem: Error, Sendable, Hashable {
        public var message: String
        public var offset: Int
    }

    /// Reads a path as written, or says where and why it is not one.
    public static func parse(_ written: String) -> Result<JSONPath, Problem> {
        let characters = Array(written)
        func problem(_ message: String, at offset: Int) -> Result<JSONPath, Problem> {
            .failure(Problem(message: message, offset: offset))
        }
        if written.contains("${") {
            return problem(
                "a capture's path is read when the journey is checked; it cannot be a template",
                at: characters.indices.first { characters[$0] == "$" && characters[$0 + 1] == "{" } ?? 0)
        }
        var end = characters.count
        let optional = characters.last == "?"
        if optional { end -= 1 }
        guard end > 0 else {
            return problem("the path is empty; write the JSON keys to read, e.g. session.token", at: 0)
        }
        var segments: [Segment] = []
        var i = 0
        var startOfPart = true
        while i < end {
            let c = characters[i]
            switch c {
            case ".":
                if startOfPart {
                    return problem("a '.' must come between two keys; this part of the path is empty", at: i)
                }
                startOfPart = true
                i += 1
                if i == end { return problem("the path ends with '.'; write the key that follows it", at: i - 1) }
            case "[":
                guard let close = characters[i..<end].firstIndex(of: "]") else {
                    return problem("'[' has no closing ']'", at: i)
                }
                let inner = String(characters[(i + 1)..<close])
                if inner == "*" {
                    segments.append(.all)
                } else if !inner.isEmpty, inner.allSatisfy({ $0.isASCII && $0.isNumber }),
                    let index = Int(inner), index <= 1_000_000
                {
                    segments.append(.index(index))
                } else {
                    return problem(
                        "'[\(inner)]' is not an array index: write a number from 0 (items[0]) or * for every item (items[*])",
                        at: i)
                }
                startOfPart = false
                i = close + 1
                if i < end, characters[i] != ".", characters[i] != "[" {
                    return problem("after ']' comes '.', '[' or the end of the path", at: i)
                }
            case "]":
                return problem("']' without '['", at: i)
            case "?":
                return problem("'?' may only end the path, making it optional", at: i)
            default:
                if c.isWhitespace || c.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                    return problem("a path has no spaces or control characters", at: i)
                }
                var j = i
                while j < end, !".[]?".contains(characters[j]), !characters[j].isWhitespace { j += 1 }
                segments.append(.key(String(characters[i..<j])))
                startOfPart = false
                i = j
            }
        }
        return .success(JSONPath(segments: segments, isOptional: optional, text: String(characters[0..<end])))
    }

    /// The JSON values the path leads to in `document`: none when it leads nowhere, one for
    /// a path without `[*]`.
    public func find(in document: Any) -> [Any] {
        var current: [Any] = [document]
        for segment in segments {
            var next: [Any] = []
            for item in current {
                switch segment {
                case .key(let key):
                    if let object = item as? [String: Any], let value = object[key] { next.append(value) }
                case .index(let index):
                    if let array = item as? [Any], array.indices.contains(index) { next.append(array[index]) }
                case .all:
                    if let array = item as? [Any] { next.append(contentsOf: array) }
                }
            }
            current = next
        }
        return current
    }

    /// The JSON types, as messages name them.
    public enum Kind: Sendable, Hashable {
        case string, number, boolean, array, object, null

        public var described: String {
            switch self {
            case .string: "a JSON string"
            case .number: "a JSON number"
            case .boolean: "JSON true or false"
            case .array: "a JSON array"
            case .object: "a JSON object"
            case .null: "null"
            }
        }
    }

    /// The JSON type of a value `JSONSerialization` gave.
    public static func kind(of json: Any) -> Kind {
        switch json {
        case is String: return .string
        case let n as NSNumber:
            // JSON booleans arrive as NSNumbers of Objective-C type "c" (char).
            return String(cString: n.objCType) == "c" ? .boolean : .number
        case is Bool: return .boolean
        case is [Any]: return .array
        case is [String: Any]: return .object
        default: return .null
        }
    }

    /// A JSON value as a journey value: a string, a bool, an int (a number's whole part), or a
    /// list of such values (items that are none are left out); nil for an object or null.
    public static func value(_ json: Any) -> Value? {
        switch json {
        case let s as String: return .string(s)
        case let n as NSNumber:
            if String(cString: n.objCType) == "c" { return .bool(n.boolValue) }
            return .int(n.intValue)
        case let b as Bool: return .bool(b)
        case let a as [Any]: return .list(a.compactMap(value))
        default: return nil
        }
    }

    /// A JSON number without a fraction that fits an int, or nil.
    static func integer(_ json: Any) -> Int? {
        guard let n = json as? NSNumber, String(cString: n.objCType) != "c" else { return nil }
        switch String(cString: n.objCType) {
        case "f", "d":
            let d = n.doubleValue
            guard d == d.rounded(), d >= -9.2e18, d <= 9.2e18 else { return nil }
            return Int(d)
        case "Q", "L":
            return n.uint64Value <= UInt64(Int.max) ? Int(n.uint64Value) : nil
        default:
            return n.intValue
        }
    }
}
