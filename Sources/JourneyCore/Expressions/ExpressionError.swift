/// A problem found while parsing or type-checking an expression or a template.
///
/// The validator turns it into a ``Diagnostic`` by adding `offset` to the location of the
/// expression's text in the journey file.
public struct ExpressionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// `expr.syntax`, `expr.undefined` or `expr.type`.
    public var id: String
    /// Lowercase, no trailing period, e.g. `unknown name 'state.emial'; did you mean 'state.email'?`.
    public var message: String
    /// Where the problem starts: 0-based, in Unicode scalars from the start of the source.
    public var offset: Int

    public init(id: String, message: String, offset: Int) {
        self.id = id
        self.message = message
        self.offset = offset
    }

    public var description: String { "\(offset): \(message) [\(id)]" }

    static let syntaxID = "expr.syntax"
    static let undefinedID = "expr.undefined"
    static let typeID = "expr.type"

    static func syntax(_ message: String, at offset: Int) -> ExpressionError {
        ExpressionError(id: syntaxID, message: message, offset: offset)
    }

    static func undefined(_ message: String, at offset: Int) -> ExpressionError {
        ExpressionError(id: undefinedID, message: message, offset: offset)
    }

    static func type(_ message: String, at offset: Int) -> ExpressionError {
        ExpressionError(id: typeID, message: message, offset: offset)
    }

    /// The same error, `delta` scalars further on: for an expression inside a template.
    func shifted(by delta: Int) -> ExpressionError {
        ExpressionError(id: id, message: message, offset: offset + delta)
    }
}

/// A problem found while evaluating an expression: division by zero, a name without a
/// value, or a value of the wrong type where the journey declared `any`.
///
/// The message never contains the value of a secret (it names types and paths only).
public struct EvaluationError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String

    public init(message: String) {
        self.message = message
    }

    public var description: String { message }
}
