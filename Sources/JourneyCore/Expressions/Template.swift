/// A string with `${expression}` parts, such as `"Hi ${state.name}!"`.
///
/// `$${` writes a literal `${`. A template that is exactly one `${expr}` keeps the
/// expression's type and value; any other template is a string.
public struct Template: Hashable, Sendable, CustomStringConvertible {
    public enum Part: Hashable, Sendable {
        case text(String)
        /// An interpolated expression; `offset` is where its text starts in the template source.
        case expression(Expression, offset: Int)
    }

    /// The template's text, as written.
    public let source: String
    public let parts: [Part]

    /// Whether the template shows nothing: no expression, and no text but spaces and line breaks.
    public var isBlank: Bool {
        parts.allSatisfy { part in
            if case .text(let text) = part { return text.allSatisfy(\.isWhitespace) }
            return false
        }
    }

    /// Parses `source`, or returns the first problem: an unterminated `${` or an error in one
    /// of its expressions, with the offset counted from the start of the template.
    public static func parse(_ source: String) -> Result<Template, ExpressionError> {
        let scalars = Array(source.unicodeScalars)
        var parts: [Part] = []
        var text = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            let c = scalars[index]
            let next = index + 1 < scalars.count ? scalars[index + 1] : nil
            if c == "$", next == "$", index + 2 < scalars.count, scalars[index + 2] == "{" {
                text.append(contentsOf: "${".unicodeScalars)
                index += 3
                continue
            }
            guard c == "$", next == "{" else {
                text.append(c)
                index += 1
                continue
            }
            let start = index + 2
            guard let end = closingBrace(in: scalars, from: start) else {
                return .failure(.syntax("unterminated '${'; close it with '}'", at: index))
            }
            if !text.isEmpty {
                parts.append(.text(String(text)))
                text = String.UnicodeScalarView()
            }
            var inner = String.UnicodeScalarView()
            inner.append(contentsOf: scalars[start..<end])
            switch Expression.parse(String(inner)) {
            case .success(let expression): parts.append(.expression(expression, offset: start))
            case .failure(let error): return .failure(error.shifted(by: start))
            }
            index = end + 1
        }
        if !text.isEmpty { parts.append(.text(String(text))) }
        return .success(Template(source: source, parts: parts))
    }

    /// The `}` that ends an expression starting at `start`, skipping string literals.
    private static func closingBrace(in scalars: [Unicode.Scalar], from start: Int) -> Int? {
        var quote: Unicode.Scalar?
        var index = start
        while index < scalars.count {
            let c = scalars[index]
            if let open = quote {
                if c == "\\" {
                    index += 1
                } else if c == open {
                    quote = nil
                }
            } else if c == "'" || c == "\"" {
                quote = c
            } else if c == "}" {
                return index
            }
            index += 1
        }
        return nil
    }

    /// Exactly one `${expr}` and no text around it.
    public var isSingleExpression: Bool {
        if parts.count == 1, case .expression = parts[0] { return true }
        return false
    }

    /// No expressions: the template is plain text.
    public var isLiteral: Bool {
        !parts.contains { if case .expression = $0 { true } else { false } }
    }

    public var description: String { source }

    /// The names its expressions read, in the order written (a name read twice, twice).
    public var references: [[String]] {
        parts.flatMap { part -> [[String]] in
            if case .expression(let expression, _) = part { expression.references } else { [] }
        }
    }

    /// The names whose value can reach the text (``Expression/carriedReferences``).
    public var carriedReferences: [[String]] {
        parts.flatMap { part -> [[String]] in
            if case .expression(let expression, _) = part { expression.carriedReferences } else { [] }
        }
    }

    /// Whether one of its expressions reads the clock (``Expression/readsClock``).
    public var readsClock: Bool {
        parts.contains { if case .expression(let expression, _) = $0 { expression.readsClock } else { false } }
    }

    /// The single expression's type, or else `string` (secret if any part is secret), with
    /// the errors of every expression; offsets count from the start of the template.
    public func typeCheck(
        in scope: some ExpressionScope
    ) -> (
        type: TypeInfo?, errors: [ExpressionError]
    ) {
        if isSingleExpression, case .expression(let expression, let offset) = parts[0] {
            let (type, errors) = expression.typeCheck(in: scope)
            return (type, errors.map { $0.shifted(by: offset) })
        }
        var errors: [ExpressionError] = []
        var secret = false
        for case .expression(let expression, let offset) in parts {
            let (type, partErrors) = expression.typeCheck(in: scope)
            errors += partErrors.map { $0.shifted(by: offset) }
            secret = secret || (type?.secret ?? false)
        }
        return (TypeInfo(.string, secret: secret), errors)
    }

    /// The single expression's value, or else the joined text, which is secret when any part
    /// of it is.
    public func evaluate(in context: some ValueProvider) throws(EvaluationError) -> Value {
        if isSingleExpression, case .expression(let expression, _) = parts[0] {
            return try expression.evaluate(in: context)
        }
        var result = ""
        var secret = false
        for part in parts {
            switch part {
            case .text(let text):
                try ExpressionTree.requireTextFits(result.utf8.count + text.utf8.count)
                result += text
            case .expression(let expression, _):
                let (text, partSecret) = ExpressionTree.text(
                    of: try expression.evaluate(in: context))
                try ExpressionTree.requireTextFits(result.utf8.count + text.utf8.count)
                result += text
                secret = secret || partSecret
            }
        }
        return Value.string(result).secret(if: secret)
    }

    /// The text to show people: every secret part shows as ``Value/redacted`` (`•••`).
    public func display(in context: some ValueProvider) throws(EvaluationError) -> String {
        var result = ""
        for part in parts {
            switch part {
            case .text(let text): result += text
            case .expression(let expression, _):
                result += try expression.evaluate(in: context).displayText
            }
        }
        return result
    }
}
