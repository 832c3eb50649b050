extension Expression {
    /// The expression's value, read from `context`.
    ///
    /// A secret operand is unwrapped to compute, and the result is secret by the same rule
    /// as ``typeCheck(in:)``. Throws when a name has no value, on division by zero or
    /// integer overflow, or when a value has the wrong type (possible only with `any`);
    /// the message never contains a value.
    public func evaluate(in context: some ValueProvider) throws(EvaluationError) -> Value {
        try tree.evaluate(tree.root, context)
    }
}

/// Evaluation walks the tree recursively; the cases live in their own functions so that
/// the recursive `evaluate` and `evaluateBool` stay small on the stack.
extension ExpressionTree {
    func evaluate<Context: ValueProvider>(
        _ ref: Ref, _ context: Context
    ) throws(EvaluationError) -> Value {
        switch self[ref] {
        case .constant(let constant):
            return self.constant(constant)
        case .name(let path):
            return try name(self.path(path), context)
        case .list(let start, let count):
            return try list(items(start: start, count: count), context)
        case .negate(let operand):
            return try negate(evaluate(operand, context))
        case .binary(let op, let left, let right) where op.isArithmetic:
            return try Self.arithmetic(op, evaluate(left, context), evaluate(right, context))
        case .conditional(let condition, let then, let otherwise):
            let (chosen, secret) = try evaluateBool(condition, context, for: Self.conditionUse)
            let value = try evaluate(chosen ? then : otherwise, context)
            // The branch chosen tells the condition: a secret one makes the result secret.
            return value.secret(if: secret)
        case .call1(let function, let argument) where function.readsClock:
            return try Self.clock(function, evaluate(argument, context), now: name(["device", "now"], context))
        case .call1(let function, let argument):
            return try Self.call(function, evaluate(argument, context))
        case .not, .and, .or, .binary, .call2, .matches:
            let (result, secret) = try evaluateBool(ref, context, for: "")
            return .boolean(result, secret: secret)
        }
    }

    /// The value of a node that must be a bool, and whether it is secret, without boxing
    /// intermediate results. `use` names the place in an error message.
    func evaluateBool<Context: ValueProvider>(
        _ ref: Ref, _ context: Context, for use: String
    ) throws(EvaluationError) -> (Bool, secret: Bool) {
        switch self[ref] {
        case .not(let operand):
            let (value, secret) = try evaluateBool(operand, context, for: "'!'")
            return (!value, secret)
        case .and(let left, let right):
            let (a, secretA) = try evaluateBool(left, context, for: "'&&'")
            if !a { return (false, secretA) }
            let (b, secretB) = try evaluateBool(right, context, for: "'&&'")
            return (b, secretA || secretB)
        case .or(let left, let right):
            let (a, secretA) = try evaluateBool(left, context, for: "'||'")
            if a { return (true, secretA) }
            let (b, secretB) = try evaluateBool(right, context, for: "'||'")
            return (b, secretA || secretB)
        case .binary(let op, let left, let right) where !op.isArithmetic:
            return try Self.relation(op, evaluate(left, context), evaluate(right, context))
        case .conditional(let condition, let then, let otherwise):
            let (chosen, conditionSecret) = try evaluateBool(condition, context, for: Self.conditionUse)
            let (value, secret) = try evaluateBool(chosen ? then : otherwise, context, for: use)
            return (value, secret || conditionSecret)
        case .call2(let function, let first, let second):
            return try Self.call(function, evaluate(first, context), evaluate(second, context))
        case .matches(let subject, let pattern):
            return try Self.matches(evaluate(subject, context), pattern: self.pattern(pattern))
        case .constant(let constant):
            if case .bool(let result) = self.constant(constant) { return (result, false) }
            return try Self.bool(evaluate(ref, context), for: use)
        default:
            return try Self.bool(evaluate(ref, context), for: use)
        }
    }

    private static let conditionUse = "the condition of '?:'"

    private func name<Context: ValueProvider>(
        _ path: [String], _ context: Context
    ) throws(EvaluationError) -> Value {
        guard let value = context.value(at: path) else { throw Self.noValue(path) }
        return value
    }

    private func list<Context: ValueProvider>(
        _ items: ArraySlice<Ref>, _ context: Context
    ) throws(EvaluationError) -> Value {
        var values: [Value] = []
        values.reserveCapacity(items.count)
        var secret = false
        for item in items {
            let (value, itemSecret) = try evaluate(item, context).unwrapped()
            guard case .string = value else {
                throw Self.mismatch("list items must be strings, found \(value.typeName)")
            }
            secret = secret || itemSecret
            values.append(value)
        }
        return Value.list(values).secret(if: secret)
    }

    private func negate(_ operand: consuming Value) throws(EvaluationError) -> Value {
        let (value, secret) = operand.unwrapped()
        guard case .int(let number) = value else {
            throw Self.mismatch("'-' needs an int operand, found \(value.typeName)")
        }
        guard number != .min else { throw Self.overflow("-") }
        return Value.int(-number).secret(if: secret)
    }

    private static func bool(
        _ value: consuming Value, for use: String
    ) throws(EvaluationError) -> (Bool, secret: Bool) {
        let (value, secret) = value.unwrapped()
        guard case .bool(let result) = value else {
            let place = use.isEmpty ? "a condition" : use
            throw mismatch("\(place) needs a bool, found \(value.typeName)")
        }
        return (result, secret)
    }

    // MARK: - Functions

    private static func call(
        _ function: ExpressionNode.Function, _ argument: consuming Value
    ) throws(EvaluationError) -> Value {
        let (value, secret) = argument.unwrapped()
        switch function {
        case .len:
            switch value {
            case .string(let text): return .int(text.count)
            case .list(let items): return .int(items.count)
            default: throw mismatch("'len' needs a string or a list, found \(value.typeName)")
            }
        case .lower, .upper:
            guard case .string(let text) = value else {
                throw mismatch(
                    "'\(function.rawValue)' needs a string, found \(value.typeName)")
            }
            return Value.string(function == .lower ? text.lowercased() : text.uppercased())
                .secret(if: secret)
        case .seconds:
            guard case .duration(let ms) = value else {
                throw mismatch("'seconds' needs a duration, found \(value.typeName)")
            }
            return Value.int(ms / 1000).secret(if: secret)
        default:  // str
            return Value.string(text(of: value).text).secret(if: secret)
        }
    }

    /// `since(t)` and `until(t)`: the duration between `t` and `now`, both seconds since 1970,
    /// never less than 0.
    private static func clock(
        _ function: ExpressionNode.Function, _ argument: consuming Value, now: consuming Value
    ) throws(EvaluationError) -> Value {
        let (value, secret) = argument.unwrapped()
        guard case .int(let time) = value, case .int(let current) = now.revealed else {
            throw mismatch("'\(function.rawValue)' needs an int (seconds since 1970), found \(value.typeName)")
        }
        let (seconds, overflow) =
            function == .since ? current.subtractingReportingOverflow(time) : time.subtractingReportingOverflow(current)
        let (ms, tooLong) = max(0, seconds).multipliedReportingOverflow(by: 1000)
        if overflow || tooLong { throw Self.overflow(function.rawValue) }
        return Value.duration(ms).secret(if: secret)
    }

    private static func call(
        _ function: ExpressionNode.Function, _ first: consuming Value, _ second: consuming Value
    ) throws(EvaluationError) -> (Bool, secret: Bool) {
        let (a, secretA) = first.unwrapped()
        let (b, secretB) = second.unwrapped()
        let secret = secretA || secretB
        guard case .string(let part) = b else {
            throw mismatch(
                "'\(function.rawValue)' needs a string as its second argument, found \(b.typeName)")
        }
        switch (function, a) {
        case (.contains, .list(let items)):
            let (found, secretItem) = try find(b, in: items)
            return (found, secret || secretItem)
        case (.contains, .string(let text)): return (text.contains(part), secret)
        case (.startsWith, .string(let text)): return (text.hasPrefix(part), secret)
        case (.endsWith, .string(let text)): return (text.hasSuffix(part), secret)
        default:
            let what = function == .contains ? "a string or a list" : "a string"
            throw mismatch(
                "'\(function.rawValue)' needs \(what) as its first argument, found \(a.typeName)")
        }
    }

    private static func matches(
        _ subject: consuming Value, pattern: CompiledPattern
    ) throws(EvaluationError) -> (Bool, secret: Bool) {
        let (value, _) = subject.unwrapped()
        guard case .string(let text) = value else {
            throw mismatch(
                "'matches' needs a string as its first argument, found \(value.typeName)")
        }
        return (pattern.matches(text), false)
    }

    // MARK: - Operators

    static func arithmetic(
        _ op: ExpressionNode.BinaryOperator, _ left: consuming Value, _ right: consuming Value
    ) throws(EvaluationError) -> Value {
        let (a, secretA) = left.unwrapped()
        let (b, secretB) = right.unwrapped()
        let secret = secretA || secretB
        switch (a, b) {
        case (.int(let x), .int(let y)):
            let result: (partialValue: Int, overflow: Bool)
            switch op {
            case .add: result = x.addingReportingOverflow(y)
            case .subtract: result = x.subtractingReportingOverflow(y)
            case .multiply: result = x.multipliedReportingOverflow(by: y)
            case .divide, .remainder:
                guard y != 0 else {
                    throw EvaluationError(message: "division by zero in '\(op.rawValue)'")
                }
                result =
                    op == .divide
                    ? x.dividedReportingOverflow(by: y)
                    : x.remainderReportingOverflow(dividingBy: y)
            default: preconditionFailure("not an arithmetic operator")
            }
            if result.overflow { throw overflow(op.rawValue) }
            return Value.int(result.partialValue).secret(if: secret)
        case (.string(let x), .string(let y)) where op == .add:
            try Self.requireTextFits(x.utf8.count + y.utf8.count)
            return Value.string(x + y).secret(if: secret)
        case (.duration(let x), .duration(let y)) where op == .add || op == .subtract:
            let result = op == .add ? x.addingReportingOverflow(y) : x.subtractingReportingOverflow(y)
            if result.overflow { throw overflow(op.rawValue) }
            return Value.duration(result.partialValue).secret(if: secret)
        case (.duration(let x), .int(let y)) where op == .multiply || op == .divide,
            (.int(let y), .duration(let x)) where op == .multiply:
            if op == .divide, y == 0 { throw EvaluationError(message: "division by zero in '/'") }
            let result = op == .multiply ? x.multipliedReportingOverflow(by: y) : x.dividedReportingOverflow(by: y)
            if result.overflow { throw overflow(op.rawValue) }
            return Value.duration(result.partialValue).secret(if: secret)
        default:
            if op == .add {
                throw mismatch(
                    "'+' needs two ints, two durations or two strings, found \(a.typeName) and \(b.typeName)")
            }
            throw mismatch(
                "'\(op.rawValue)' needs int operands, found \(a.typeName) and \(b.typeName)")
        }
    }

    /// `==`, `!=`, `<`, `<=`, `>`, `>=` and `in`.
    private static func relation(
        _ op: ExpressionNode.BinaryOperator, _ left: consuming Value, _ right: consuming Value
    ) throws(EvaluationError) -> (Bool, secret: Bool) {
        let (a, secretA) = left.unwrapped()
        let (b, secretB) = right.unwrapped()
        switch op {
        case .equal: return (try equal(a, b, op), false)
        case .notEqual: return (try !equal(a, b, op), false)
        case .in:
            guard case .string = a, case .list(let items) = b else {
                throw mismatch(
                    "'in' needs a string on its left and a list on its right, found \(a.typeName) and \(b.typeName)"
                )
            }
            let (found, secretItem) = try find(a, in: items)
            return (found, secretA || secretB || secretItem)
        default:
            return (try compare(op, a, b), secretA || secretB)
        }
    }

    /// `==` on unwrapped values of the same type; list items are compared unwrapped too.
    private static func equal(
        _ a: Value, _ b: Value, _ op: ExpressionNode.BinaryOperator
    ) throws(EvaluationError) -> Bool {
        switch (a, b) {
        case (.int(let x), .int(let y)): return x == y
        case (.string(let x), .string(let y)): return x == y
        case (.bool(let x), .bool(let y)): return x == y
        case (.duration(let x), .duration(let y)): return x == y
        case (.list(let x), .list(let y)):
            guard x.count == y.count else { return false }
            for (p, q) in zip(x, y) where p.revealed != q.revealed { return false }
            return true
        default:
            throw mismatch(
                "'\(op.rawValue)' needs operands of the same type, found \(a.typeName) and \(b.typeName)"
            )
        }
    }

    private static func compare(
        _ op: ExpressionNode.BinaryOperator, _ a: Value, _ b: Value
    ) throws(EvaluationError) -> Bool {
        switch (a, b) {
        case (.int(let x), .int(let y)), (.duration(let x), .duration(let y)):
            return ordered(op, x, y)
        case (.string(let x), .string(let y)):
            return ordered(op, x, y)
        default:
            throw mismatch(
                "'\(op.rawValue)' needs two ints, two durations or two strings, found \(a.typeName) and \(b.typeName)"
            )
        }
    }

    private static func ordered<T: Comparable>(
        _ op: ExpressionNode.BinaryOperator, _ x: T, _ y: T
    ) -> Bool {
        switch op {
        case .less: x < y
        case .lessEqual: x <= y
        case .greater: x > y
        default: x >= y
        }
    }

    /// Whether `items` holds the string `needle`, and whether the item found was secret.
    private static func find(
        _ needle: Value, in items: [Value]
    ) throws(EvaluationError) -> (found: Bool, secret: Bool) {
        for item in items {
            let (value, secret) = item.unwrapped()
            guard case .string = value else {
                throw mismatch("a list must hold strings, found \(value.typeName)")
            }
            if value == needle { return (true, secret) }
        }
        return (false, false)
    }

    // MARK: - Text

    /// The text a value gives in a template or `str()`, secrets revealed, and whether any
    /// part of it was secret.
    static func text(of value: Value) -> (text: String, secret: Bool) {
        switch value {
        case .string(let text): return (text, false)
        case .int(let number): return (String(number), false)
        case .bool(let flag): return (flag ? "true" : "false", false)
        case .duration(let ms): return (Duration.format(milliseconds: ms), false)
        case .secret(let inner): return (text(of: inner).text, true)
        case .list(let items):
            var secret = false
            let parts = items.map { item in
                let (text, itemSecret) = text(of: item)
                secret = secret || itemSecret
                return text
            }
            return ("[" + parts.joined(separator: ", ") + "]", secret)
        }
    }

    // MARK: - Errors

    private static func noValue(_ path: [String]) -> EvaluationError {
        EvaluationError(message: "'\(path.joined(separator: "."))' has no value")
    }

    private static func mismatch(_ message: String) -> EvaluationError {
        EvaluationError(message: message)
    }

    private static func overflow(_ op: String) -> EvaluationError {
        EvaluationError(message: "integer overflow in '\(op)'")
    }

    /// Refuses a text of `bytes` above ``Value/maxTextBytes``, saying its size only.
    static func requireTextFits(_ bytes: Int) throws(EvaluationError) {
        guard bytes > Value.maxTextBytes else { return }
        throw EvaluationError(
            message: "the text would be \(bytes) bytes, more than the \(Value.maxTextBytes) a text may hold")
    }
}

extension Value {
    /// The value without its secret wrapper, and whether it had one.
    fileprivate consuming func unwrapped() -> (Value, Bool) {
        if case .secret(let inner) = self { return (inner.revealed, true) }
        return (self, false)
    }

    /// The name of the value's type, for error messages (never the value itself).
    fileprivate var typeName: String { revealed.typeInfo.type.rawValue }

    private static let trueValue = Value.bool(true)
    private static let falseValue = Value.bool(false)
    private static let secretTrue = Value.secret(.bool(true))
    private static let secretFalse = Value.secret(.bool(false))

    /// A bool result without allocating a new box.
    fileprivate static func boolean(_ value: Bool, secret: Bool) -> Value {
        secret ? (value ? secretTrue : secretFalse) : (value ? trueValue : falseValue)
    }
}

extension Expression {
    /// Each duration, in milliseconds, a part of the expression computes from what `known`
    /// gives alone (constants, and the params the explorer knows): `params.wait * 3` is 15
    /// minutes where the wait is 5, `5m * 3` is 15 minutes. A part that reads anything else
    /// (the state, the clock) gives none.
    func computedDurations(_ known: some ValueProvider) -> [Int] {
        var found: [Int] = []
        for index in tree.nodes.indices {
            let ref = ExpressionTree.Ref(index)
            switch tree[ref] {
            case .binary(let op, _, _) where op.isArithmetic: break
            case .name, .conditional: break
            default: continue
            }
            guard case .duration(let ms)? = try? tree.evaluate(ref, known).revealed, ms > 0 else { continue }
            found.append(ms)
        }
        return found
    }
}
