import JourneyCore

/// A JSON document with its object members in the order written, printed the same way every
/// time: two-space indents, and a container on one line when it fits in ``width`` columns, so
/// that generated files read well and diff line by line.
public indirect enum JSONTree: Sendable {
    case object([(String, JSONTree)])
    case array([JSONTree])
    case string(String)
    case int(Int)
    case bool(Bool)

    /// The widest line a container is kept on, indent included.
    static let width = 100

    /// The document, ending with a newline.
    public var printed: String { render(indent: 0, taken: 0) + "\n" }

    /// The document on one line.
    var compact: String {
        switch self {
        case .object(let members):
            "{" + members.map { "\(JSONLinesEncoder.quoted($0.0)): \($0.1.compact)" }.joined(separator: ", ") + "}"
        case .array(let items): "[" + items.map(\.compact).joined(separator: ", ") + "]"
        case .string(let text): JSONLinesEncoder.quoted(text)
        case .int(let number): String(number)
        case .bool(let flag): flag ? "true" : "false"
        }
    }

    /// - Parameters:
    ///   - indent: the indent of the line the value starts on.
    ///   - taken: the columns already used on that line (indent and member name).
    private func render(indent: Int, taken: Int) -> String {
        let one = compact
        if taken + one.count <= Self.width { return one }
        let inner = String(repeating: " ", count: indent + 2)
        let close = String(repeating: " ", count: indent)
        switch self {
        case .object(let members) where !members.isEmpty:
            let lines = members.map { name, value in
                let key = "\(JSONLinesEncoder.quoted(name)): "
                return inner + key + value.render(indent: indent + 2, taken: indent + 2 + key.count)
            }
            return "{\n" + lines.joined(separator: ",\n") + "\n" + close + "}"
        case .array(let items) where !items.isEmpty:
            let lines = items.map { inner + $0.render(indent: indent + 2, taken: indent + 2) }
            return "[\n" + lines.joined(separator: ",\n") + "\n" + close + "]"
        default:
            return one
        }
    }
}

extension JSONTree {
    /// An object of the members whose value is not nil, in order.
    public static func members(_ members: [(String, JSONTree?)]) -> JSONTree {
        .object(members.compactMap { name, value in value.map { (name, $0) } })
    }

    /// A list of texts.
    public static func strings(_ texts: [String]) -> JSONTree { .array(texts.map(JSONTree.string)) }
}
