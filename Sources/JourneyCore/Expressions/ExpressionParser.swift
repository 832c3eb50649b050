import Foundation

/// A recursive-descent parser for the expression language.
///
/// Precedence, low to high: `?:` (right associative), `||`, `&&`, `==` `!=`,
/// `<` `<=` `>` `>=` `in`, `+` `-`, `*` `/` `%`, unary `!` `-`. The words `and`, `or` and
/// `not` are aliases of `&&`, `||` and `!`.
///
/// Hostile input cannot exhaust the stack, even on a 512 KiB thread in a debug build: the
/// source is capped at ``maxLength`` scalars; parentheses, lists, calls, unary operators,
/// `?:` and operators of rising precedence may nest ``maxNesting`` deep while parsing; and
/// the finished tree (which type checking and evaluation walk recursively) may be at most
/// ``maxTreeDepth`` deep, so a chain of 64 operators is too deep as well.
struct ExpressionParser {
    typealias Token = ExpressionLexer.Token
    typealias Symbol = ExpressionLexer.Symbol
    typealias Function = ExpressionNode.Function
    typealias Ref = ExpressionNode.Ref

    static let maxLength = 4096
    static let maxNesting = 64
    static let maxTreeDepth = 64

    /// The names an expression can start with.
    static let roots = ["params", "state", "stored", "input", "outcome", "limits", "device"]
    /// Names read without a path: where an invariant is checked, the step (`step`) and the
    /// kind of end reached (`end`). Other places do not know them, and their type check says so.
    static let bareNames = ["step", "end"]

    static let tooDeep = "expression nests too deeply"

    private var lexer: ExpressionLexer
    private var current: Token
    private var lookahead: Token?
    private var nesting = 0
    private var tree = ExpressionTree()
    /// The depth of each node of `tree`.
    private var depths: [Int] = []

    private init(_ scalars: [Unicode.Scalar]) throws(ExpressionError) {
        lexer = ExpressionLexer(scalars)
        current = try lexer.next()
    }

    /// Parses a whole expression; the first problem found is thrown.
    static func parse(_ scalars: [Unicode.Scalar]) throws(ExpressionError) -> ExpressionTree {
        guard scalars.count <= maxLength else {
            throw .syntax(
                "expression is too long: \(scalars.count) characters, at most \(maxLength)",
                at: maxLength)
        }
        var parser = try ExpressionParser(scalars)
        let root = try parser.parseConditional()
        guard parser.current.kind == .end else {
            throw .syntax("unexpected \(parser.current.quoted)", at: parser.current.offset)
        }
        parser.tree.root = root
        return parser.tree
    }

    // MARK: - Tokens

    private mutating func advance() throws(ExpressionError) {
        if let next = lookahead {
            current = next
            lookahead = nil
        } else {
            current = try lexer.next()
        }
    }

    private mutating func peekNext() throws(ExpressionError) -> Token {
        if let lookahead { return lookahead }
        let next = try lexer.next()
        lookahead = next
        return next
    }

    private func isSymbol(_ symbol: Symbol) -> Bool {
        current.kind == .symbol(symbol)
    }

    private func isWord(_ word: String) -> Bool {
        current.kind == .identifier(word)
    }

    private mutating func accept(_ symbol: Symbol) throws(ExpressionError) -> Bool {
        guard isSymbol(symbol) else { return false }
        try advance()
        return true
    }

    private mutating func expect(_ symbol: Symbol, _ context: String) throws(ExpressionError) {
        guard isSymbol(symbol) else {
            throw .syntax("expected \(context), found \(current.quoted)", at: current.offset)
        }
        try advance()
    }

    // MARK: - Nodes and depth

    private mutating func enter(at offset: Int) throws(ExpressionError) {
        nesting += 1
        if nesting > Self.maxNesting { throw .syntax(Self.tooDeep, at: offset) }
    }

    private mutating func leave() { nesting -= 1 }

    /// Adds a node over `children`, checking the depth of the tree.
    private mutating func add(
        _ node: ExpressionNode, at offset: Int, children: [Ref]
    ) throws(ExpressionError) -> Ref {
        let depth = 1 + children.reduce(0) { max($0, depths[Int($1)]) }
        if depth > Self.maxTreeDepth { throw .syntax(Self.tooDeep, at: offset) }
        let start = children.first.map { min(tree.start(of: $0), offset) } ?? offset
        depths.append(depth)
        return tree.add(node, offset: offset, start: start)
    }

    private mutating func addConstant(_ value: Value, at offset: Int) -> Ref {
        depths.append(1)
        return tree.add(.constant(tree.addConstant(value)), offset: offset, start: offset)
    }

    // MARK: - Operators

    private mutating func parseConditional() throws(ExpressionError) -> Ref {
        let condition = try parseBinary(above: 0)
        guard isSymbol(.question) else { return condition }
        let offset = current.offset
        try enter(at: offset)
        try advance()
        let then = try parseConditional()
        try expect(.colon, "':' after the true branch of '?'")
        let otherwise = try parseConditional()
        leave()
        return try add(
            .conditional(condition, then, otherwise), at: offset,
            children: [condition, then, otherwise])
    }

    /// An infix operator and its precedence level: 1 for `||`, up to 6 for `*`.
    private enum Infix {
        case or, and
        case binary(ExpressionNode.BinaryOperator)
    }

    private var infix: (Infix, level: Int)? {
        switch current.kind {
        case .symbol(.or), .identifier("or"): (.or, 1)
        case .symbol(.and), .identifier("and"): (.and, 2)
        case .symbol(.equal): (.binary(.equal), 3)
        case .symbol(.notEqual): (.binary(.notEqual), 3)
        case .symbol(.less): (.binary(.less), 4)
        case .symbol(.lessEqual): (.binary(.lessEqual), 4)
        case .symbol(.greater): (.binary(.greater), 4)
        case .symbol(.greaterEqual): (.binary(.greaterEqual), 4)
        case .identifier("in"): (.binary(.in), 4)
        case .symbol(.plus): (.binary(.add), 5)
        case .symbol(.minus): (.binary(.subtract), 5)
        case .symbol(.star): (.binary(.multiply), 6)
        case .symbol(.slash): (.binary(.divide), 6)
        case .symbol(.percent): (.binary(.remainder), 6)
        default: nil
        }
    }

    /// Operands joined by infix operators of a level above `minimum`, left associative
    /// (precedence climbing).
    private mutating func parseBinary(above minimum: Int) throws(ExpressionError) -> Ref {
        var left = try parseUnary()
        while let (op, level) = infix, level > minimum {
            let offset = current.offset
            try enter(at: offset)
            try advance()
            let right = try parseBinary(above: level)
            leave()
            left = try join(op, left, right, at: offset)
        }
        return left
    }

    private mutating func join(
        _ op: Infix, _ left: Ref, _ right: Ref, at offset: Int
    ) throws(ExpressionError) -> Ref {
        let node: ExpressionNode
        switch op {
        case .or: node = .or(left, right)
        case .and: node = .and(left, right)
        case .binary(let op): node = .binary(op, left, right)
        }
        return try add(node, at: offset, children: [left, right])
    }

    private mutating func parseUnary() throws(ExpressionError) -> Ref {
        let offset = current.offset
        let negate: Bool
        if isSymbol(.bang) || isWord("not") {
            negate = false
        } else if isSymbol(.minus) {
            negate = true
        } else {
            return try parsePrimary()
        }
        try advance()
        if negate, case .integer(let digits) = current.kind {
            return try negativeNumber(digits, at: offset)
        }
        try enter(at: offset)
        let operand = try parseUnary()
        leave()
        return try add(negate ? .negate(operand) : .not(operand), at: offset, children: [operand])
    }

    /// `-` and a number, folded so that the smallest Int can be written.
    private mutating func negativeNumber(
        _ digits: String, at offset: Int
    ) throws(ExpressionError) -> Ref {
        guard let value = Int("-" + digits) else {
            throw .syntax("the number -\(digits) is too large", at: offset)
        }
        try advance()
        return addConstant(.int(value), at: offset)
    }

    // MARK: - Primaries

    private mutating func parsePrimary() throws(ExpressionError) -> Ref {
        let offset = current.offset
        switch current.kind {
        case .symbol(.leftParen):
            try enter(at: offset)
            try advance()
            let inner = try parseConditional()
            try expect(.rightParen, "')'")
            leave()
            return inner
        case .symbol(.leftBracket):
            return try parseList(at: offset)
        case .identifier(let word) where try peekNext().kind == .symbol(.leftParen):
            return try parseCall(word, at: offset)
        default:
            return try parseOperand()
        }
    }

    /// A literal or a name: a primary that contains no other expression.
    private mutating func parseOperand() throws(ExpressionError) -> Ref {
        let token = current
        switch token.kind {
        case .integer(let digits):
            guard let value = Int(digits) else {
                throw .syntax("the number \(digits) is too large", at: token.offset)
            }
            try advance()
            return addConstant(.int(value), at: token.offset)
        case .duration(let ms):
            try advance()
            return addConstant(.duration(ms), at: token.offset)
        case .string(let text):
            try advance()
            return addConstant(.string(text), at: token.offset)
        case .identifier("true"), .identifier("false"):
            try advance()
            return addConstant(.bool(token.kind == .identifier("true")), at: token.offset)
        case .identifier(let word) where !["and", "or", "in", "not"].contains(word):
            return try parseName(word, at: token.offset)
        case .end:
            throw .syntax(
                "expected an expression, found the end of the expression", at: token.offset)
        default:
            throw .syntax("expected an expression, found \(token.quoted)", at: token.offset)
        }
    }

    private mutating func parseName(_ word: String, at offset: Int) throws(ExpressionError) -> Ref {
        if Self.bareNames.contains(word) {
            try advance()
            return try add(.name(tree.addPath([word])), at: offset, children: [])
        }
        guard Self.roots.contains(word) else {
            if Function(rawValue: word) != nil {
                throw .undefined("'\(word)' is a function; call it as '\(word)(…)'", at: offset)
            }
            let hint = Suggestion.hint(for: word, in: Self.roots)
            let help = hint.isEmpty ? "; names start with " + Self.rootList : hint
            throw .undefined("unknown name '\(word)'" + help, at: offset)
        }
        try advance()
        var path = [word]
        while isSymbol(.dot) {
            try advance()
            guard case .identifier(let segment) = current.kind else {
                throw .syntax(
                    "expected a name after '.', found \(current.quoted)", at: current.offset)
            }
            path.append(segment)
            try advance()
        }
        guard path.count > 1 else {
            throw .undefined("'\(word)' needs a name after it, e.g. '\(word).NAME'", at: offset)
        }
        return try add(.name(tree.addPath(path)), at: offset, children: [])
    }

    private static let rootList =
        roots.dropLast().map { "'\($0).'" }.joined(separator: ", ") + " or '\(roots.last!).'"

    private static let functionList =
        Function.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")

    private mutating func parseCall(_ name: String, at offset: Int) throws(ExpressionError) -> Ref {
        guard let function = Function(rawValue: name) else {
            throw Self.unknownFunction(name, at: offset)
        }
        try enter(at: offset)
        try advance()  // the name
        try advance()  // '('
        var arguments: [Ref] = []
        if !isSymbol(.rightParen) {
            repeat {
                arguments.append(try parseConditional())
            } while try accept(.comma)
        }
        if !isSymbol(.rightParen) { throw Self.unclosedCall(name, at: current) }
        try advance()
        leave()
        return try call(function, arguments, at: offset)
    }

    // MARK: - Calls and lists

    private static func unknownFunction(_ name: String, at offset: Int) -> ExpressionError {
        let hint = Suggestion.hint(for: name, in: Function.allCases.map(\.rawValue))
        let help = hint.isEmpty ? "; functions are " + functionList : hint
        return .undefined("unknown function '\(name)'" + help, at: offset)
    }

    private static func unclosedCall(_ name: String, at token: Token) -> ExpressionError {
        .syntax(
            "expected ',' or ')' in the call of '\(name)', found \(token.quoted)", at: token.offset)
    }

    /// The node of a call whose arguments are parsed.
    private mutating func call(
        _ function: Function, _ arguments: [Ref], at offset: Int
    ) throws(ExpressionError) -> Ref {
        guard arguments.count == function.arity else {
            let expected = function.arity == 1 ? "1 argument" : "\(function.arity) arguments"
            throw .syntax(
                "'\(function.rawValue)' takes \(expected), found \(arguments.count)", at: offset)
        }
        switch function {
        case .matches:
            let patternNode = arguments[1]
            guard case .constant(let ref) = tree[patternNode],
                case .string(let pattern) = tree.constant(ref)
            else {
                throw .syntax(
                    "the pattern of 'matches' must be a string literal",
                    at: tree.start(of: patternNode))
            }
            let regex: NSRegularExpression
            do {
                regex = try NSRegularExpression(pattern: pattern)
            } catch {
                throw .syntax(
                    "invalid regular expression '\(pattern)'", at: tree.offset(of: patternNode))
            }
            let compiled = tree.addPattern(CompiledPattern(pattern: pattern, regex: regex))
            return try add(
                .matches(arguments[0], pattern: compiled), at: offset, children: [arguments[0]])
        case _ where function.arity == 1:
            return try add(.call1(function, arguments[0]), at: offset, children: arguments)
        default:
            return try add(
                .call2(function, arguments[0], arguments[1]), at: offset, children: arguments)
        }
    }

    private mutating func parseList(at offset: Int) throws(ExpressionError) -> Ref {
        try enter(at: offset)
        try advance()
        var items: [Ref] = []
        while !isSymbol(.rightBracket) {
            items.append(try parseConditional())
            guard try accept(.comma) else { break }
        }
        try expect(.rightBracket, "',' or ']' in the list")
        leave()
        return try list(items, at: offset)
    }

    /// The node of a list whose items are parsed. A list of string literals is built once, here.
    private mutating func list(_ items: [Ref], at offset: Int) throws(ExpressionError) -> Ref {
        var strings: [Value] = []
        for item in items {
            guard case .constant(let ref) = tree[item], case .string = tree.constant(ref) else {
                break
            }
            strings.append(tree.constant(ref))
        }
        if strings.count == items.count {
            return addConstant(.list(strings), at: offset)
        }
        let start = tree.addListItems(items)
        return try add(.list(start: start, count: Ref(items.count)), at: offset, children: items)
    }
}
