/// A parsed expression such as `state.tries + 1` or `outcome.pin == state.firstPin`.
///
/// Parse once when the journey loads, type-check against the journey's names, then
/// evaluate as often as needed: evaluation walks the parsed tree and never re-parses.
/// See "Expressions" in docs/journey-format.md for the language.
public struct Expression: Hashable, Sendable, CustomStringConvertible {
    /// The expression's text, as written.
    public let source: String
    /// The parsed tree, ``Shared``: a copy of an expression (a branch's condition read out of
    /// its journey) takes one reference, not one for each of the tree's lists.
    private let parsed: Shared<ExpressionTree>

    var tree: ExpressionTree { _read { yield parsed.value } }

    init(source: String, tree: ExpressionTree) {
        self.source = source
        self.parsed = Shared(tree)
    }

    /// Parses `source`, or returns its first syntax error or unknown root name or function.
    public static func parse(_ source: String) -> Result<Expression, ExpressionError> {
        do throws(ExpressionError) {
            let tree = try ExpressionParser.parse(Array(source.unicodeScalars))
            return .success(Expression(source: source, tree: tree))
        } catch {
            return .failure(error)
        }
    }

    /// Every name path the expression reads, e.g. `[["state", "email"], ["device", "online"]]`,
    /// in source order, without duplicates.
    public var references: [[String]] {
        var seen = Set<[String]>()
        return tree.paths.filter { seen.insert($0).inserted }
    }

    /// Whether the expression's value can change as the virtual clock moves on: it reads
    /// `device.now`, or calls `since` or `until`. (A limit's lockout is told by the caller,
    /// which knows the limits.)
    public var readsClock: Bool {
        tree.paths.contains(["device", "now"])
            || tree.nodes.contains {
                if case .call1(let function, _) = $0 { function.readsClock } else { false }
            }
    }

    public var description: String { source }

    /// Two expressions are equal when their sources are: the tree follows from the source.
    public static func == (a: Expression, b: Expression) -> Bool { a.source == b.source }

    public func hash(into hasher: inout Hasher) { hasher.combine(source) }
}

/// What an expression may read at check time: the type of every name.
public protocol ExpressionScope {
    /// The type of a name path like `["state", "email"]` or `["limits", "pin", "count"]`,
    /// or nil if unknown.
    func type(of path: [String]) -> TypeInfo?
    /// All known paths, for "did you mean" suggestions.
    var knownPaths: [[String]] { get }
}

/// What an expression reads at run time: the value of every name.
public protocol ValueProvider {
    /// The value at a name path like `["state", "email"]`, or nil if it has none.
    func value(at path: [String]) -> Value?
}
