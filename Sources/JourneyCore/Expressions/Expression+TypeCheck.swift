extension Expression {
    /// The expression's type in `scope`, and every unknown name and type error in it.
    ///
    /// The type is nil when it cannot be known (an unknown name, or an operator used on
    /// the wrong types). A value computed from a secret is secret, except the results of
    /// `==`, `!=`, `len` and `matches`; the condition of `?:` does not make it secret.
    public func typeCheck(in scope: some ExpressionScope) -> (type: TypeInfo?, errors: [ExpressionError]) {
        var checker = ExpressionTypeChecker(scope: scope)
        let type = checker.check(root)
        return (type, checker.errors)
    }
}

/// Walks an expression tree once, computing types and collecting errors.
///
/// A subexpression with an error has no type, and the operators around it do not report
/// it again, so one mistake gives one error.
struct ExpressionTypeChecker<Scope: ExpressionScope> {
    let scope: Scope
    private(set) var errors: [ExpressionError] = []
    private var knownNames: [String]?

    init(scope: Scope) {
        self.scope = scope
    }

    mutating func check(_ node: ExpressionNode) -> TypeInfo? {
        switch node {
        case .literal(let value, _):
            return value.typeInfo

        case .list(let items, _):
            var secret = false
            for item in items {
                guard let type = check(item) else { continue }
                secret = secret || type.secret
                if !type.type.fits(.string) {
                    fail("list items must be strings, found \(type.type)", at: item.start)
                }
            }
            return TypeInfo(.list, secret: secret)

        case .name(let path, let offset):
            if let type = scope.type(of: path) { return type }
            let name = path.joined(separator: ".")
            if knownNames == nil { knownNames = scope.knownPaths.map { $0.joined(separator: ".") } }
            let hint = Suggestion.hint(for: name, in: knownNames ?? [])
            errors.append(.undefined("unknown name '\(name)'" + hint, at: offset))
            return nil

        case .not(let operand, let offset):
            let type = check(operand)
            if let type, !type.type.fits(.bool) {
                fail("'!' needs a bool operand, found \(type.type)", at: offset)
            }
            return TypeInfo(.bool, secret: type?.secret ?? false)

        case .negate(let operand, let offset):
            let type = check(operand)
            if let type, !type.type.fits(.int) {
                fail("'-' needs an int operand, found \(type.type)", at: offset)
            }
            return TypeInfo(.int, secret: type?.secret ?? false)

        case .and(let left, let right, let offset):
            return logical("&&", left, right, at: offset)
        case .or(let left, let right, let offset):
            return logical("||", left, right, at: offset)

        case .binary(let op, let left, let right, let offset):
            return binary(op, left, right, at: offset)

        case .conditional(let condition, let then, let otherwise, let offset):
            if let type = check(condition), !type.type.fits(.bool) {
                fail("the condition of '?:' must be bool, found \(type.type)", at: condition.start)
            }
            guard let a = check(then), let b = check(otherwise) else { return nil }
            let secret = a.secret || b.secret
            if a.type == b.type { return TypeInfo(a.type, secret: secret) }
            if a.type == .any || b.type == .any { return TypeInfo(.any, secret: secret) }
            fail("the branches of '?:' must have the same type, found \(a.type) and \(b.type)", at: offset)
            return nil

        case .call1(let function, let argument, _):
            let type = check(argument)
            let secret = type?.secret ?? false
            switch function {
            case .len:
                if let type, !type.type.fits(.string, .list) {
                    fail("'len' needs a string or a list, found \(type.type)", at: argument.start)
                }
                return TypeInfo(.int)
            case .str:
                return TypeInfo(.string, secret: secret)
            default:  // lower, upper
                if let type, !type.type.fits(.string) {
                    fail("'\(function.rawValue)' needs a string, found \(type.type)", at: argument.start)
                }
                return TypeInfo(.string, secret: secret)
            }

        case .call2(let function, let first, let second, _):
            let a = check(first), b = check(second)
            let allowed: [ValueType] = function == .contains ? [.string, .list] : [.string]
            if let a, !a.type.fits(allowed) {
                let what = function == .contains ? "a string or a list" : "a string"
                fail(
                    "'\(function.rawValue)' needs \(what) as its first argument, found \(a.type)",
                    at: first.start)
            }
            if let b, !b.type.fits(.string) {
                fail(
                    "'\(function.rawValue)' needs a string as its second argument, found \(b.type)",
                    at: second.start)
            }
            return TypeInfo(.bool, secret: (a?.secret ?? false) || (b?.secret ?? false))

        case .matches(let subject, _, _):
            if let type = check(subject), !type.type.fits(.string) {
                fail("'matches' needs a string as its first argument, found \(type.type)", at: subject.start)
            }
            return TypeInfo(.bool)
        }
    }

    private mutating func logical(
        _ op: String, _ left: ExpressionNode, _ right: ExpressionNode, at offset: Int
    ) -> TypeInfo {
        let a = check(left), b = check(right)
        if let a, let b, !a.type.fits(.bool) || !b.type.fits(.bool) {
            fail("'\(op)' needs bool operands, found \(a.type) and \(b.type)", at: offset)
        }
        return TypeInfo(.bool, secret: (a?.secret ?? false) || (b?.secret ?? false))
    }

    private mutating func binary(
        _ op: ExpressionNode.BinaryOperator, _ left: ExpressionNode, _ right: ExpressionNode,
        at offset: Int
    ) -> TypeInfo? {
        let checkedLeft = check(left), checkedRight = check(right)
        let secret = (checkedLeft?.secret ?? false) || (checkedRight?.secret ?? false)
        let symbol = op.rawValue
        switch op {
        case .add:
            guard let a = checkedLeft?.type, let b = checkedRight?.type else { return nil }
            switch (a, b) {
            case (.int, .int), (.int, .any), (.any, .int): return TypeInfo(.int, secret: secret)
            case (.string, .string), (.string, .any), (.any, .string): return TypeInfo(.string, secret: secret)
            case (.any, .any): return TypeInfo(.any, secret: secret)
            default:
                let hint = (a == .string) != (b == .string) ? "; use str() to make a string of the other" : ""
                fail("'+' needs two ints or two strings, found \(a) and \(b)" + hint, at: offset)
                return nil
            }

        case .subtract, .multiply, .divide, .remainder:
            if let a = checkedLeft?.type, let b = checkedRight?.type, !a.fits(.int) || !b.fits(.int) {
                fail("'\(symbol)' needs int operands, found \(a) and \(b)", at: offset)
            }
            return TypeInfo(.int, secret: secret)

        case .less, .lessEqual, .greater, .greaterEqual:
            if let a = checkedLeft?.type, let b = checkedRight?.type,
                !a.fits(.int, .duration, .string) || !b.fits(.int, .duration, .string)
                    || (a != b && a != .any && b != .any)
            {
                fail(
                    "'\(symbol)' needs two ints, two durations or two strings, found \(a) and \(b)",
                    at: offset)
            }
            return TypeInfo(.bool, secret: secret)

        case .equal, .notEqual:
            if let a = checkedLeft?.type, let b = checkedRight?.type, a != b, a != .any, b != .any {
                fail("'\(symbol)' needs operands of the same type, found \(a) and \(b)", at: offset)
            }
            return TypeInfo(.bool)

        case .in:
            if let a = checkedLeft?.type, let b = checkedRight?.type, !a.fits(.string) || !b.fits(.list) {
                fail("'in' needs a string on its left and a list on its right, found \(a) and \(b)", at: offset)
            }
            return TypeInfo(.bool, secret: secret)
        }
    }

    private mutating func fail(_ message: String, at offset: Int) {
        errors.append(.type(message, at: offset))
    }
}

fileprivate extension ValueType {
    /// Whether a value of this type can be used where one of `allowed` is needed.
    func fits(_ allowed: ValueType...) -> Bool { fits(allowed) }

    func fits(_ allowed: [ValueType]) -> Bool { self == .any || allowed.contains(self) }
}
