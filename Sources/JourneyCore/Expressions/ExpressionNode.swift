import Foundation

/// One node of a parsed expression.
///
/// Nodes live in one flat array (``ExpressionTree/nodes``) and name their children by
/// index, so a node is a few plain words: evaluation walks the tree without copying or
/// reference-counting anything but the values it computes.
enum ExpressionNode: Sendable {
    /// An index into one of the tree's arrays.
    typealias Ref = Int32

    /// A literal, or a list of string literals built once at parse time: `constants[ref]`.
    case constant(Ref)
    /// A name path: `paths[ref]`.
    case name(Ref)
    /// A list literal with computed items: `listItems[start ..< start + count]`.
    case list(start: Ref, count: Ref)
    case not(Ref)
    case negate(Ref)
    case and(Ref, Ref)
    case or(Ref, Ref)
    case binary(BinaryOperator, Ref, Ref)
    /// `condition ? then : else`.
    case conditional(Ref, Ref, Ref)
    case call1(Function, Ref)
    case call2(Function, Ref, Ref)
    /// `matches(s, 'regex')`, with the regex compiled at parse time: `patterns[pattern]`.
    case matches(Ref, pattern: Ref)

    /// The operators other than `&&`, `||` and the unary ones.
    enum BinaryOperator: String, Sendable {
        case equal = "=="
        case notEqual = "!="
        case less = "<"
        case lessEqual = "<="
        case greater = ">"
        case greaterEqual = ">="
        case `in` = "in"
        case add = "+"
        case subtract = "-"
        case multiply = "*"
        case divide = "/"
        case remainder = "%"

        var isArithmetic: Bool {
            switch self {
            case .add, .subtract, .multiply, .divide, .remainder: true
            default: false
            }
        }
    }

    /// The closed list of functions an expression may call.
    enum Function: String, Sendable, CaseIterable {
        case len, lower, upper, contains, startsWith, endsWith, matches, str
        /// `seconds(d)`: a duration's whole seconds, an int.
        case seconds
        /// `since(t)` and `until(t)`: the duration from a time (seconds since 1970, as
        /// `device.now` gives) to the virtual clock's now, or from now to it; 0 rather than less.
        case since, until

        var arity: Int {
            switch self {
            case .len, .lower, .upper, .str, .seconds, .since, .until: 1
            case .contains, .startsWith, .endsWith, .matches: 2
            }
        }

        /// Whether the function reads the virtual clock.
        var readsClock: Bool { self == .since || self == .until }
    }
}

/// The parsed form of an expression: its nodes and the tables they refer to.
///
/// Children are added before their parents, and names in source order.
struct ExpressionTree: Sendable {
    typealias Ref = ExpressionNode.Ref

    private(set) var nodes: [ExpressionNode] = []
    /// For each node, the offset of the token a type error points at (an operator, a name,
    /// a function name, a literal).
    private(set) var offsets: [Int32] = []
    /// For each node, where its text starts: its leftmost token.
    private(set) var starts: [Int32] = []
    private(set) var constants: [Value] = []
    private(set) var paths: [[String]] = []
    private(set) var listItems: [Ref] = []
    private(set) var patterns: [CompiledPattern] = []

    /// The node of the whole expression.
    var root: Ref = 0

    subscript(_ ref: Ref) -> ExpressionNode { nodes[Int(ref)] }

    func offset(of ref: Ref) -> Int { Int(offsets[Int(ref)]) }

    func start(of ref: Ref) -> Int { Int(starts[Int(ref)]) }

    func constant(_ ref: Ref) -> Value { constants[Int(ref)] }

    func path(_ ref: Ref) -> [String] { paths[Int(ref)] }

    func items(start: Ref, count: Ref) -> ArraySlice<Ref> {
        listItems[Int(start)..<Int(start + count)]
    }

    func pattern(_ ref: Ref) -> CompiledPattern { patterns[Int(ref)] }

    // MARK: - Building

    mutating func add(_ node: ExpressionNode, offset: Int, start: Int) -> Ref {
        nodes.append(node)
        offsets.append(Int32(offset))
        starts.append(Int32(start))
        return Ref(nodes.count - 1)
    }

    /// Adds an entry to a table and returns its index, for the node that refers to it.
    mutating func addConstant(_ value: Value) -> Ref {
        constants.append(value)
        return Ref(constants.count - 1)
    }

    mutating func addPath(_ path: [String]) -> Ref {
        paths.append(path)
        return Ref(paths.count - 1)
    }

    mutating func addPattern(_ pattern: CompiledPattern) -> Ref {
        patterns.append(pattern)
        return Ref(patterns.count - 1)
    }

    /// Adds list items and returns where they start.
    mutating func addListItems(_ items: [Ref]) -> Ref {
        listItems += items
        return Ref(listItems.count - items.count)
    }
}

/// A regular expression compiled once, when the expression is parsed.
///
/// `NSRegularExpression` is immutable and documented as safe to use from several threads.
final class CompiledPattern: @unchecked Sendable {
    let pattern: String
    let regex: NSRegularExpression

    init(pattern: String, regex: NSRegularExpression) {
        self.pattern = pattern
        self.regex = regex
    }

    /// Whether the pattern matches one text and nothing else: anchored at both ends, and
    /// between them only characters that stand for themselves (letters, digits, and others
    /// escaped with `\`), at least one of them: `^4826$`, `^s3cr\.t$`.
    var isOneText: Bool {
        var scalars = Substring(pattern).unicodeScalars
        guard scalars.first == "^", scalars.last == "$", scalars.count > 2 else { return false }
        scalars = scalars.dropFirst().dropLast()
        var escaped = false
        for scalar in scalars {
            if escaped {
                // `\d`, `\w`, `\b`, …: a class or an assertion, not the letter.
                if scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) { return false }
                escaped = false
            } else if scalar == "\\" {
                escaped = true
            } else if !(scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                || " -_@:/,;='\"!%&~<>#".unicodeScalars.contains(scalar))
            {
                return false
            }
        }
        return !escaped
    }

    /// Whether the pattern matches anywhere in `text` (anchor it with `^…$` to match all of it).
    func matches(_ text: String) -> Bool {
        regex.firstMatch(in: text, options: [], range: NSRange(text.startIndex..., in: text)) != nil
    }
}
