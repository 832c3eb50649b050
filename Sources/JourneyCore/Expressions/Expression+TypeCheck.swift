extension Expression {
    /// The expression's type in `scope`, and every unknown name and type error in it.
    ///
    /// The type is nil when it cannot be known (an unknown name, or an operator used on
    /// the wrong types). A value computed from a secret is secret, except the results of
    /// `==`, `!=`, `len` and `matches`; a secret condition of `?:` makes its result secret.
    public func typeCheck(
        in scope: some ExpressionScope
    ) -> (type: TypeInfo?, errors: [ExpressionError]) {
        var checker = ExpressionTypeChecker(tree: tree, scope: scope)
        let type = checker.check(tree.root)
        return (type, checker.errors)
    }
}

/// Walks an expression tree once, computing types and collecting errors.
///
/// A subexpression with an error has no type, and the operators around it do not report
/// it again, so one mistake gives one error. Each kind of node has its own function, which
/// keeps the recursive `check` small on the stack.
struct ExpressionTypeChecker<Scope: ExpressionScope> {
    typealias Ref = ExpressionNode.Ref

    let tree: ExpressionTree
    let scope: Scope
    private(set) var errors: [ExpressionError] = []
    private var knownNames: [String]?

    init(tree: ExpressionTree, scope: Scope) {
        self.tree = tree
        self.scope = scope
    }

    mutating func check(_ ref: Ref) -> TypeInfo? {
        switch tree[ref] {
        case .constant(let constant): tree.constant(constant).typeInfo
        case .list(let start, let count): list(tree.items(start: start, count: count))
        case .name(let path): name(tree.path(path), at: tree.offset(of: ref))
        case .not(let operand): unary("!", .bool, operand, at: tree.offset(of: ref))
        case .negate(let operand): unary("-", .int, operand, at: tree.offset(of: ref))
        case .and(let left, let right): logical("&&", left, right, at: tree.offset(of: ref))
        case .or(let left, let right): logical("||", left, right, at: tree.offset(of: ref))
        case .binary(let op, let left, let right): binary(op, left, right, at: tree.offset(of: ref))
        case .conditional(let condition, let then, let otherwise):
            conditional(condition, then, otherwise, at: tree.offset(of: ref))
        case .call1(let function, let argument): call(function, argument)
        case .call2(let function, let first, let second): call(function, first, second)
        case .matches(let subject, _): matches(subject)
        }
    }

    private mutating func list(_ items: ArraySlice<Ref>) -> TypeInfo {
        var secret = false
        for item in items {
            guard let type = check(item) else { continue }
            secret = secret || type.secret
            if !type.type.fits(.string) {
                fail("list items must be strings, found \(type.type)", at: tree.start(of: item))
            }
        }
        return TypeInfo(.list, secret: secret)
    }

    private mutating func name(_ path: [String], at offset: Int) -> TypeInfo? {
        if let type = scope.type(of: path) { return type }
        let name = path.joined(separator: ".")
        if path.count == 1 {
            errors.append(
                .undefined("'\(name)' is read only where invariants are checked (under 'invariants:')", at: offset))
            return nil
        }
        if knownNames == nil {
            knownNames = scope.knownPaths.map { $0.joined(separator: ".") }
        }
        let hint = Suggestion.hint(for: name, in: knownNames ?? [])
        errors.append(.undefined("unknown name '\(name)'" + hint, at: offset))
        return nil
    }

    private mutating func unary(
        _ op: String, _ needed: ValueType, _ operand: Ref, at offset: Int
    ) -> TypeInfo {
        let type = check(operand)
        if let type, !type.type.fits(needed) {
            let article = needed == .int ? "an" : "a"
            fail("'\(op)' needs \(article) \(needed) operand, found \(type.type)", at: offset)
        }
        return TypeInfo(needed, secret: type?.secret ?? false)
    }

    private mutating func logical(
        _ op: String, _ left: Ref, _ right: Ref, at offset: Int
    ) -> TypeInfo {
        let a = check(left)
        let b = check(right)
        if let a, let b, !a.type.fits(.bool) || !b.type.fits(.bool) {
            fail("'\(op)' needs bool operands, found \(a.type) and \(b.type)", at: offset)
        }
        return TypeInfo(.bool, secret: (a?.secret ?? false) || (b?.secret ?? false))
    }

    private mutating func binary(
        _ op: ExpressionNode.BinaryOperator, _ left: Ref, _ right: Ref, at offset: Int
    ) -> TypeInfo? {
        let type = binaryType(op, left, right, at: offset)
        // Types that fit, but a value that can never be computed.
        if type != nil, let problem = constantProblem(op, left, right) {
            fail(problem, at: offset)
            return nil
        }
        return type
    }

    private mutating func binaryType(
        _ op: ExpressionNode.BinaryOperator, _ left: Ref, _ right: Ref, at offset: Int
    ) -> TypeInfo? {
        let checkedLeft = check(left)
        let checkedRight = check(right)
        let secret = (checkedLeft?.secret ?? false) || (checkedRight?.secret ?? false)
        guard let a = checkedLeft?.type, let b = checkedRight?.type else {
            // An error inside was reported already; the result type may still be known.
            switch op {
            case .add, .subtract, .multiply, .divide: return nil
            case .remainder: return TypeInfo(.int, secret: secret)
            case .equal, .notEqual: return TypeInfo(.bool)
            default: return TypeInfo(.bool, secret: secret)
            }
        }
        let symbol = op.rawValue
        switch op {
        case .add:
            switch (a, b) {
            case (.int, .int), (.int, .any), (.any, .int): return TypeInfo(.int, secret: secret)
            case (.string, .string), (.string, .any), (.any, .string):
                return TypeInfo(.string, secret: secret)
            case (.duration, .duration), (.duration, .any), (.any, .duration):
                return TypeInfo(.duration, secret: secret)
            case (.any, .any): return TypeInfo(.any, secret: secret)
            default:
                let hint =
                    (a == .string) != (b == .string)
                    ? "; use str() to make a string of the other"
                    : (a == .duration) != (b == .duration) ? Self.durationHint : ""
                fail("'+' needs two ints, two durations or two strings, found \(a) and \(b)" + hint, at: offset)
                return nil
            }

        case .subtract:
            switch (a, b) {
            case (.int, .int), (.int, .any), (.any, .int), (.any, .any): return TypeInfo(.int, secret: secret)
            case (.duration, .duration), (.duration, .any), (.any, .duration):
                return TypeInfo(.duration, secret: secret)
            default:
                let hint = (a == .duration) != (b == .duration) ? Self.durationHint : ""
                fail("'-' needs two ints or two durations, found \(a) and \(b)" + hint, at: offset)
                return nil
            }

        case .multiply, .divide:
            switch (a, b) {
            case (.duration, .int), (.duration, .any): return TypeInfo(.duration, secret: secret)
            case (.int, .duration) where op == .multiply, (.any, .duration) where op == .multiply:
                return TypeInfo(.duration, secret: secret)
            default:
                if !a.fits(.int) || !b.fits(.int) {
                    let also = op == .multiply ? ", or a duration and an int" : ", or a duration by an int"
                    fail("'\(symbol)' needs int operands\(also), found \(a) and \(b)", at: offset)
                    return nil
                }
                return TypeInfo(.int, secret: secret)
            }

        case .remainder:
            if !a.fits(.int) || !b.fits(.int) {
                fail("'\(symbol)' needs int operands, found \(a) and \(b)", at: offset)
            }
            return TypeInfo(.int, secret: secret)

        case .less, .lessEqual, .greater, .greaterEqual:
            if !a.fits(.int, .duration, .string) || !b.fits(.int, .duration, .string)
                || (a != b && a != .any && b != .any)
            {
                fail(
                    "'\(symbol)' needs two ints, two durations or two strings, found \(a) and \(b)"
                        + comparisonHint(a, left, b, right),
                    at: offset)
            }
            return TypeInfo(.bool, secret: secret)

        case .equal, .notEqual:
            if a != b, a != .any, b != .any {
                fail("'\(symbol)' needs operands of the same type, found \(a) and \(b)", at: offset)
            }
            return TypeInfo(.bool)

        case .in:
            if !a.fits(.string) || !b.fits(.list) {
                fail(
                    "'in' needs a string on its left and a list on its right, found \(a) and \(b)",
                    at: offset)
            }
            return TypeInfo(.bool, secret: secret)
        }
    }

    private mutating func conditional(
        _ condition: Ref, _ then: Ref, _ otherwise: Ref, at offset: Int
    ) -> TypeInfo? {
        let checkedCondition = check(condition)
        if let type = checkedCondition, !type.type.fits(.bool) {
            fail(
                "the condition of '?:' must be bool, found \(type.type)",
                at: tree.start(of: condition))
        }
        let checkedThen = check(then)
        let checkedOtherwise = check(otherwise)
        guard let a = checkedThen, let b = checkedOtherwise else { return nil }
        // The branch chosen tells the condition: a secret one makes the result secret.
        let secret = a.secret || b.secret || checkedCondition?.secret == true
        if a.type == b.type { return TypeInfo(a.type, secret: secret) }
        if a.type == .any || b.type == .any { return TypeInfo(.any, secret: secret) }
        fail(
            "the branches of '?:' must have the same type, found \(a.type) and \(b.type)",
            at: offset)
        return nil
    }

    private mutating func call(_ function: ExpressionNode.Function, _ argument: Ref) -> TypeInfo {
        let type = check(argument)
        let secret = type?.secret ?? false
        switch function {
        case .len:
            if let type, !type.type.fits(.string, .list) {
                fail(
                    "'len' needs a string or a list, found \(type.type)",
                    at: tree.start(of: argument))
            }
            return TypeInfo(.int)
        case .str:
            return TypeInfo(.string, secret: secret)
        case .seconds:
            if let type, !type.type.fits(.duration) {
                fail("'seconds' needs a duration, found \(type.type)", at: tree.start(of: argument))
            }
            return TypeInfo(.int, secret: secret)
        case .since, .until:
            if let type, !type.type.fits(.int) {
                fail(
                    "'\(function.rawValue)' needs an int, a time in seconds since 1970 as device.now gives, found \(type.type)",
                    at: tree.start(of: argument))
            }
            return TypeInfo(.duration, secret: secret)
        default:  // lower, upper
            if let type, !type.type.fits(.string) {
                fail(
                    "'\(function.rawValue)' needs a string, found \(type.type)",
                    at: tree.start(of: argument))
            }
            return TypeInfo(.string, secret: secret)
        }
    }

    private mutating func call(
        _ function: ExpressionNode.Function, _ first: Ref, _ second: Ref
    ) -> TypeInfo {
        let a = check(first)
        let b = check(second)
        let allowed: [ValueType] = function == .contains ? [.string, .list] : [.string]
        if let a, !a.type.fits(allowed) {
            let what = function == .contains ? "a string or a list" : "a string"
            fail(
                "'\(function.rawValue)' needs \(what) as its first argument, found \(a.type)",
                at: tree.start(of: first))
        }
        if let b, !b.type.fits(.string) {
            fail(
                "'\(function.rawValue)' needs a string as its second argument, found \(b.type)",
                at: tree.start(of: second))
        }
        return TypeInfo(.bool, secret: (a?.secret ?? false) || (b?.secret ?? false))
    }

    private mutating func matches(_ subject: Ref) -> TypeInfo {
        if let type = check(subject), !type.type.fits(.string) {
            fail(
                "'matches' needs a string as its first argument, found \(type.type)",
                at: tree.start(of: subject))
        }
        return TypeInfo(.bool)
    }

    /// What to say when a duration is compared with an int: a number written alone wants its
    /// unit (`since(t) >= 60` means `60s`); otherwise the functions that turn one into the other.
    private func comparisonHint(_ a: ValueType, _ left: Ref, _ b: ValueType, _ right: Ref) -> String {
        guard (a == .duration && b == .int) || (a == .int && b == .duration) else { return "" }
        guard case .constant(let constant) = tree[a == .int ? left : right],
            case .int(let number) = tree.constant(constant)
        else { return Self.durationHint }
        return "; write \(number)s for \(number) seconds (or \(number)m, \(number)h)"
    }

    /// What to say when ints and durations meet: the functions that turn one into the other.
    private static var durationHint: String {
        "; seconds(d) gives a duration's seconds, since(t) and until(t) the time from or to t"
    }

    /// What evaluating `left op right` throws whenever it runs, when that is known from the
    /// text alone: a division by a literal zero, or arithmetic on two literals that overflows.
    private func constantProblem(_ op: ExpressionNode.BinaryOperator, _ left: Ref, _ right: Ref) -> String? {
        switch op {
        case .add, .subtract, .multiply, .divide, .remainder: break
        default: return nil
        }
        let divisor = literal(right)
        if op == .divide || op == .remainder, divisor == .int(0) { return "division by zero in '\(op.rawValue)'" }
        guard let dividend = literal(left), let divisor else { return nil }
        do {
            _ = try ExpressionTree.arithmetic(op, dividend, divisor)
            return nil
        } catch {
            return error.message
        }
    }

    /// The value of a literal (a number written with a minus too), or nil for anything else.
    private func literal(_ ref: Ref) -> Value? {
        switch tree[ref] {
        case .constant(let constant): return tree.constant(constant)
        case .negate(let operand):
            guard case .constant(let constant) = tree[operand], case .int(let number) = tree.constant(constant),
                number != .min
            else { return nil }
            return .int(-number)
        default: return nil
        }
    }

    private mutating func fail(_ message: String, at offset: Int) {
        errors.append(.type(message, at: offset))
    }
}

extension ValueType {
    /// Whether a value of this type can be used where one of `allowed` is needed.
    fileprivate func fits(_ allowed: ValueType...) -> Bool { fits(allowed) }

    fileprivate func fits(_ allowed: [ValueType]) -> Bool {
        self == .any || allowed.contains(self)
    }
}
