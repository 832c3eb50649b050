import JourneyCore
import Testing

/// A scope with a fixed table of names, as the validator builds from a journey.
struct ExprTestScope: ExpressionScope {
    var types: [[String]: TypeInfo]

    init(_ types: [String: TypeInfo]) {
        self.types = Dictionary(
            uniqueKeysWithValues: types.map {
                ($0.key.split(separator: ".").map(String.init), $0.value)
            })
    }

    func type(of path: [String]) -> TypeInfo? { types[path] }

    var knownPaths: [[String]] {
        types.keys.sorted { $0.joined(separator: ".") < $1.joined(separator: ".") }
    }

    /// The names most tests use.
    static let standard = ExprTestScope([
        "state.email": TypeInfo(.string),
        "state.name": TypeInfo(.string),
        "state.tries": TypeInfo(.int),
        "state.done": TypeInfo(.bool),
        "state.tags": TypeInfo(.list),
        "state.delay": TypeInfo(.duration),
        "state.firstPin": TypeInfo(.string, secret: true),
        "state.pinCount": TypeInfo(.int, secret: true),
        "outcome.pin": TypeInfo(.string, secret: true),
        "outcome.data": TypeInfo(.any),
        "outcome.flag": TypeInfo(.bool, secret: true),
        "params.pinLength": TypeInfo(.int),
        "params.timeout": TypeInfo(.duration),
        "limits.pin.count": TypeInfo(.int),
        "device.online": TypeInfo(.bool),
        "device.apps": TypeInfo(.list),
    ])
}

/// A dictionary-backed value provider.
struct ExprTestValues: ValueProvider {
    var values: [[String]: Value]

    init(_ values: [String: Value]) {
        self.values = Dictionary(
            uniqueKeysWithValues: values.map {
                ($0.key.split(separator: ".").map(String.init), $0.value)
            })
    }

    func value(at path: [String]) -> Value? { values[path] }

    static let standard = ExprTestValues([
        "state.email": .string("ada@example.org"),
        "state.name": .string("Ada"),
        "state.tries": .int(2),
        "state.done": .bool(false),
        "state.tags": .list([.string("a"), .string("b")]),
        "state.delay": .duration(1500),
        "state.firstPin": .secret(.string("123456")),
        "state.pinCount": .secret(.int(6)),
        "outcome.pin": .secret(.string("123456")),
        "outcome.flag": .secret(.bool(true)),
        "params.pinLength": .int(6),
        "params.timeout": .duration(5000),
        "limits.pin.count": .int(1),
        "device.online": .bool(true),
        "device.apps": .list([.string("mail"), .string("bank")]),
    ])
}

enum Expr {
    static func parse(_ source: String) throws -> Expression {
        try Expression.parse(source).get()
    }

    /// The error parsing `source` gives, or nil if it parses.
    static func parseError(_ source: String) -> ExpressionError? {
        if case .failure(let error) = Expression.parse(source) { return error }
        return nil
    }

    static func eval(_ source: String, _ values: ExprTestValues = .standard) throws -> Value {
        try parse(source).evaluate(in: values)
    }

    /// The evaluation error `source` gives, or nil if it evaluates.
    static func evalError(
        _ source: String, _ values: ExprTestValues = .standard
    ) throws
        -> EvaluationError?
    {
        do {
            _ = try parse(source).evaluate(in: values)
            return nil
        } catch let error as EvaluationError {
            return error
        }
    }

    static func check(
        _ source: String, _ scope: ExprTestScope = .standard
    ) throws -> (
        type: TypeInfo?, errors: [ExpressionError]
    ) {
        try parse(source).typeCheck(in: scope)
    }
}
