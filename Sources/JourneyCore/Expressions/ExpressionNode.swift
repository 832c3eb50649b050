import Foundation

/// The parsed form of an expression: a small tree that evaluation walks without re-parsing.
///
/// Every node keeps the offset of the token that a type error should point at (an
/// operator, a name, a function name, a literal).
indirect enum ExpressionNode: Sendable {
    /// A literal, or a list literal whose items are all literals, built once at parse time.
    case literal(Value, offset: Int)
    /// A list literal with at least one computed item.
    case list([ExpressionNode], offset: Int)
    case name([String], offset: Int)
    case not(ExpressionNode, offset: Int)
    case negate(ExpressionNode, offset: Int)
    case and(ExpressionNode, ExpressionNode, offset: Int)
    case or(ExpressionNode, ExpressionNode, offset: Int)
    case binary(BinaryOperator, ExpressionNode, ExpressionNode, offset: Int)
    /// `condition ? then : else`; the offset is the `?`.
    case conditional(ExpressionNode, ExpressionNode, ExpressionNode, offset: Int)
    case call1(Function, ExpressionNode, offset: Int)
    case call2(Function, ExpressionNode, ExpressionNode, offset: Int)
    /// `matches(s, 'regex')`, with the regex compiled at parse time.
    case matches(ExpressionNode, CompiledPattern, offset: Int)

    /// The operators other than `&&`, `||` and the unary ones.
    enum BinaryOperator: String, Sendable {
        case equal = "==", notEqual = "!=", less = "<", lessEqual = "<=", greater = ">"
        case greaterEqual = ">=", `in` = "in"
        case add = "+", subtract = "-", multiply = "*", divide = "/", remainder = "%"
    }

    /// The closed list of functions an expression may call.
    enum Function: String, Sendable, CaseIterable {
        case len, lower, upper, contains, startsWith, endsWith, matches, str

        var arity: Int {
            switch self {
            case .len, .lower, .upper, .str: 1
            case .contains, .startsWith, .endsWith, .matches: 2
            }
        }
    }

    /// The offset of the token this node is reported at.
    var offset: Int {
        switch self {
        case .literal(_, let offset), .list(_, let offset), .name(_, let offset),
            .not(_, let offset), .negate(_, let offset), .and(_, _, let offset),
            .or(_, _, let offset), .binary(_, _, _, let offset),
            .conditional(_, _, _, let offset), .call1(_, _, let offset),
            .call2(_, _, _, let offset), .matches(_, _, let offset):
            offset
        }
    }

    /// Where the node's text starts: its leftmost token.
    var start: Int {
        switch self {
        case .and(let left, _, _), .or(let left, _, _), .binary(_, let left, _, _),
            .conditional(let left, _, _, _):
            left.start
        default:
            offset
        }
    }

    /// The direct children, in source order.
    var children: [ExpressionNode] {
        switch self {
        case .literal, .name: []
        case .list(let items, _): items
        case .not(let operand, _), .negate(let operand, _), .call1(_, let operand, _),
            .matches(let operand, _, _):
            [operand]
        case .and(let a, let b, _), .or(let a, let b, _), .binary(_, let a, let b, _),
            .call2(_, let a, let b, _):
            [a, b]
        case .conditional(let a, let b, let c, _): [a, b, c]
        }
    }

    /// Every name path read by this node and its children, in source order, with repeats.
    func collectReferences(into paths: inout [[String]]) {
        if case .name(let path, _) = self {
            paths.append(path)
            return
        }
        for child in children { child.collectReferences(into: &paths) }
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

    /// Whether the pattern matches anywhere in `text` (anchor it with `^…$` to match all of it).
    func matches(_ text: String) -> Bool {
        regex.firstMatch(in: text, options: [], range: NSRange(text.startIndex..., in: text)) != nil
    }
}
