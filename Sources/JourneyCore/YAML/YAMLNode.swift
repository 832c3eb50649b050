/// A YAML node as JourneyKit reads it: scalars keep the exact text written, every node keeps
/// its source location, and mapping entries keep their order.
///
/// No types are guessed: `0012` stays the text `0012` until a journey declares what it is.
public struct YAMLNode: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// A scalar's text; `plain` is false when the scalar was quoted or a block scalar.
        case scalar(String, plain: Bool)
        case mapping([Entry])
        case sequence([YAMLNode])
    }

    public struct Entry: Sendable, Hashable {
        public var key: String
        public var keyLocation: SourceLocation
        public var value: YAMLNode
    }

    public var kind: Kind
    public var location: SourceLocation

    /// The scalar text, or nil for mappings and sequences.
    public var scalar: String? {
        if case .scalar(let text, _) = kind { return text }
        return nil
    }

    /// Whether the node is a plain (unquoted) scalar.
    public var isPlainScalar: Bool {
        if case .scalar(_, let plain) = kind { return plain }
        return false
    }

    /// A word for the node's shape, for messages.
    public var shapeName: String {
        switch kind {
        case .scalar: "a scalar"
        case .mapping: "a mapping"
        case .sequence: "a list"
        }
    }

    /// Whether a plain scalar is YAML's null (`~`, `null` or nothing).
    public var isNull: Bool {
        if case .scalar(let text, true) = kind { return text.isEmpty || text == "~" || text == "null" }
        return false
    }
}
