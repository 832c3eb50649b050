import Foundation

/// A recursive-descent parser for the expression language.
///
/// Precedence, low to high: `?:` (right associative), `||`, `&&`, `==` `!=`,
/// `<` `<=` `>` `>=` `in`, `+` `-`, `*` `/` `%`, unary `!` `-`. The words `and`, `or` and
/// `not` are aliases of `&&`, `||` and `!`.
///
/// Hostile input cannot exhaust the stack: the source is capped at ``maxLength`` scalars,
/// brackets, calls, unary operators and `?:` may nest ``maxNesting`` deep, and the finished
/// tree (which evaluation walks recursively) may be at most ``maxTreeDepth`` deep.
struct ExpressionParser {
    typealias Token = ExpressionLexer.Token
    typealias Symbol = ExpressionLexer.Symbol
    typealias Function = ExpressionNode.Function

    static let maxLength = 4096
    static let maxNesting = 64
    static let maxTreeDepth = 256

    /// The names an expression can start with.
    static let roots = ["params", "state", "stored", "input", "outcome", "limits", "device"]

    static let tooDeep = "expression nests too deeply"

    /// A parsed subtree and its depth.
    private struct Parsed {
        var node: ExpressionNode
        var depth: Int
    }

    private var lexer: ExpressionLexer
    private var current: Token
    private var lookahead: Token?
    private var nesting = 0

    private init(_ scalars: [Unicode.Scalar]) throws(ExpressionError) {
        lexer = ExpressionLexer(scalars)
        current = try lexer.next()
    }

    /// Parses a whole expression; the first problem found is thrown.
    static func parse(_ scalars: [Unicode.Scalar]) throws(ExpressionError) -> ExpressionNode {
        guard scalars.count <= maxLength else {
            throw .syntax(
                "expression is too long: \(scalars.count) characters, at most \(maxLength)",
                at: maxLength)
        }
        var parser = try ExpressionParser(scalars)
        let result = try parser.parseConditional()
        guard parser.current.kind == .end else {
            throw .syntax("unexpected \(parser.current.quoted)", at: parser.current.offset)
        }
        return result.node
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

    private mutating func expect(_ symbol: Symbol, _ context: String) throws(ExpressionError) {
        guard isSymbol(symbol) else {
            throw .syntax("expected \(context), found \(current.quoted)", at: current.offset)
        }
        try advance()
    }

    // MARK: - Depth

    private mutating func enter(at offset: Int) throws(ExpressionError) {
        nesting += 1
        if nesting > Self.maxNesting { throw .syntax(Self.tooDeep, at: offset) }
    }

    private mutating func leave() { nesting -= 1 }

    private func make(_ node: ExpressionNode, _ children: Parsed...) throws(ExpressionError) -> Parsed {
        let depth = 1 + children.reduce(0) { max($0, $1.depth) }
        if depth > Self.maxTreeDepth { throw .syntax(Self.tooDeep, at: node.offset) }
        return Parsed(node: node, depth: depth)
    }

    // MARK: - Operators

    private mutating func parseConditional() throws(ExpressionError) -> Parsed {
        let condition = try parseOr()
        guard isSymbol(.question) else { return condition }
        let offset = current.offset
        try enter(at: offset)
        try advance()
        let then = try parseConditional()
        try expect(.colon, "':' after the true branch of '?'")
        let otherwise = try parseConditional()
        leave()
        return try make(
            .conditional(condition.node, then.node, otherwise.node, offset: offset),
            condition, then, otherwise)
    }

    private mutating func parseOr() throws(ExpressionError) -> Parsed {
        var left = try parseAnd()
        while isSymbol(.or) || isWord("or") {
            let offset = current.offset
            try advance()
            let right = try parseAnd()
            left = try make(.or(left.node, right.node, offset: offset), left, right)
        }
        return left
    }

    private mutating func parseAnd() throws(ExpressionError) -> Parsed {
        var left = try parseEquality()
        while isSymbol(.and) || isWord("and") {
            let offset = current.offset
            try advance()
            let right = try parseEquality()
            left = try make(.and(left.node, right.node, offset: offset), left, right)
        }
        return left
    }

    private mutating func parseEquality() throws(ExpressionError) -> Parsed {
        var left = try parseComparison()
        while true {
            let op: ExpressionNode.BinaryOperator
            switch current.kind {
            case .symbol(.equal): op = .equal
            case .symbol(.notEqual): op = .notEqual
            default: return left
            }
            left = try binary(op, left) { parser throws(ExpressionError) in try parser.parseComparison() }
        }
    }

    private mutating func parseComparison() throws(ExpressionError) -> Parsed {
        var left = try parseAdditive()
        while true {
            let op: ExpressionNode.BinaryOperator
            switch current.kind {
            case .symbol(.less): op = .less
            case .symbol(.lessEqual): op = .lessEqual
            case .symbol(.greater): op = .greater
            case .symbol(.greaterEqual): op = .greaterEqual
            case .identifier("in"): op = .in
            default: return left
            }
            left = try binary(op, left) { parser throws(ExpressionError) in try parser.parseAdditive() }
        }
    }

    private mutating func parseAdditive() throws(ExpressionError) -> Parsed {
        var left = try parseMultiplicative()
        while true {
            let op: ExpressionNode.BinaryOperator
            switch current.kind {
            case .symbol(.plus): op = .add
            case .symbol(.minus): op = .subtract
            default: return left
            }
            left = try binary(op, left) { parser throws(ExpressionError) in try parser.parseMultiplicative() }
        }
    }

    private mutating func parseMultiplicative() throws(ExpressionError) -> Parsed {
        var left = try parseUnary()
        while true {
            let op: ExpressionNode.BinaryOperator
            switch current.kind {
            case .symbol(.star): op = .multiply
            case .symbol(.slash): op = .divide
            case .symbol(.percent): op = .remainder
            default: return left
            }
            left = try binary(op, left) { parser throws(ExpressionError) in try parser.parseUnary() }
        }
    }

    /// Reads the operator at `current` and its right operand, and joins them to `left`.
    private mutating func binary(
        _ op: ExpressionNode.BinaryOperator, _ left: Parsed,
        _ operand: (inout ExpressionParser) throws(ExpressionError) -> Parsed
    ) throws(ExpressionError) -> Parsed {
        let offset = current.offset
        try advance()
        let right = try operand(&self)
        return try make(.binary(op, left.node, right.node, offset: offset), left, right)
    }

    private mutating func parseUnary() throws(ExpressionError) -> Parsed {
        let offset = current.offset
        if isSymbol(.bang) || isWord("not") {
            try enter(at: offset)
            try advance()
            let operand = try parseUnary()
            leave()
            return try make(.not(operand.node, offset: offset), operand)
        }
        if isSymbol(.minus) {
            try advance()
            if case .integer(let digits) = current.kind {
                // Folded here so that the smallest Int can be written.
                guard let value = Int("-" + digits) else {
                    throw .syntax("the number -\(digits) is too large", at: offset)
                }
                try advance()
                return Parsed(node: .literal(.int(value), offset: offset), depth: 1)
            }
            try enter(at: offset)
            let operand = try parseUnary()
            leave()
            return try make(.negate(operand.node, offset: offset), operand)
        }
        return try parsePrimary()
    }

    // MARK: - Primaries

    private mutating func parsePrimary() throws(ExpressionError) -> Parsed {
        let token = current
        switch token.kind {
        case .integer(let digits):
            guard let value = Int(digits) else {
                throw .syntax("the number \(digits) is too large", at: token.offset)
            }
            try advance()
            return Parsed(node: .literal(.int(value), offset: token.offset), depth: 1)
        case .string(let text):
            try advance()
            return Parsed(node: .literal(.string(text), offset: token.offset), depth: 1)
        case .identifier(let word):
            return try parseWord(word, at: token.offset)
        case .symbol(.leftParen):
            try enter(at: token.offset)
            try advance()
            let inner = try parseConditional()
            try expect(.rightParen, "')'")
            leave()
            return inner
        case .symbol(.leftBracket):
            return try parseList(at: token.offset)
        case .end:
            throw .syntax("expected an expression, found the end of the expression", at: token.offset)
        case .symbol:
            throw .syntax("expected an expression, found \(token.quoted)", at: token.offset)
        }
    }

    private mutating func parseWord(_ word: String, at offset: Int) throws(ExpressionError) -> Parsed {
        switch word {
        case "true", "false":
            try advance()
            return Parsed(node: .literal(.bool(word == "true"), offset: offset), depth: 1)
        case "and", "or", "in", "not":
            throw .syntax("expected an expression, found '\(word)'", at: offset)
        default:
            break
        }
        if try peekNext().kind == .symbol(.leftParen) {
            return try parseCall(word, at: offset)
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
                throw .syntax("expected a name after '.', found \(current.quoted)", at: current.offset)
            }
            path.append(segment)
            try advance()
        }
        guard path.count > 1 else {
            throw .undefined("'\(word)' needs a name after it, e.g. '\(word).NAME'", at: offset)
        }
        return Parsed(node: .name(path, offset: offset), depth: 1)
    }

    private static let rootList =
        roots.dropLast().map { "'\($0).'" }.joined(separator: ", ") + " or '\(roots.last!).'"

    private mutating func parseCall(_ name: String, at offset: Int) throws(ExpressionError) -> Parsed {
        guard let function = Function(rawValue: name) else {
            let hint = Suggestion.hint(for: name, in: Function.allCases.map(\.rawValue))
            let help = hint.isEmpty ? "; functions are " + Self.functionList : hint
            throw .undefined("unknown function '\(name)'" + help, at: offset)
        }
        try enter(at: offset)
        try advance()  // the name
        try advance()  // '('
        var arguments: [Parsed] = []
        if !isSymbol(.rightParen) {
            repeat {
                arguments.append(try parseConditional())
            } while try accept(.comma)
        }
        try expect(.rightParen, "',' or ')' in the call of '\(name)'")
        leave()
        guard arguments.count == function.arity else {
            let expected = function.arity == 1 ? "1 argument" : "\(function.arity) arguments"
            throw .syntax("'\(name)' takes \(expected), found \(arguments.count)", at: offset)
        }
        switch function {
        case .matches:
            guard case .literal(.string(let pattern), let patternOffset) = arguments[1].node else {
                throw .syntax(
                    "the pattern of 'matches' must be a string literal", at: arguments[1].node.start)
            }
            let regex: NSRegularExpression
            do {
                regex = try NSRegularExpression(pattern: pattern)
            } catch {
                throw .syntax("invalid regular expression '\(pattern)'", at: patternOffset)
            }
            let compiled = CompiledPattern(pattern: pattern, regex: regex)
            return try make(
                .matches(arguments[0].node, compiled, offset: offset), arguments[0])
        case _ where function.arity == 1:
            return try make(.call1(function, arguments[0].node, offset: offset), arguments[0])
        default:
            return try make(
                .call2(function, arguments[0].node, arguments[1].node, offset: offset),
                arguments[0], arguments[1])
        }
    }

    private static let functionList =
        Function.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")

    private mutating func accept(_ symbol: Symbol) throws(ExpressionError) -> Bool {
        guard isSymbol(symbol) else { return false }
        try advance()
        return true
    }

    private mutating func parseList(at offset: Int) throws(ExpressionError) -> Parsed {
        try enter(at: offset)
        try advance()
        var items: [Parsed] = []
        while !isSymbol(.rightBracket) {
            items.append(try parseConditional())
            guard try accept(.comma) else { break }
        }
        try expect(.rightBracket, "',' or ']' in the list")
        leave()
        // A list of string literals is built once, here.
        var strings: [Value] = []
        for item in items {
            guard case .literal(.string, _) = item.node, case .literal(let value, _) = item.node else {
                break
            }
            strings.append(value)
        }
        if strings.count == items.count {
            return Parsed(node: .literal(.list(strings), offset: offset), depth: 1)
        }
        let depth = 1 + items.reduce(0) { max($0, $1.depth) }
        if depth > Self.maxTreeDepth { throw .syntax(Self.tooDeep, at: offset) }
        return Parsed(node: .list(items.map(\.node), offset: offset), depth: depth)
    }
}
