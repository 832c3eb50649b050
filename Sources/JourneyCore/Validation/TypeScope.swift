/// The names an expression may read at one place in a journey, with their types.
struct TypeScope: ExpressionScope {
    private(set) var types: [String: TypeInfo] = [:]

    func type(of path: [String]) -> TypeInfo? { types[path.joined(separator: ".")] }

    var knownPaths: [[String]] {
        types.keys.sorted().map { $0.split(separator: ".").map(String.init) }
    }

    mutating func declare(_ path: String, _ type: TypeInfo) { types[path] = type }

    /// The names every journey can read: its params, state, stored values, limits and the device.
    init(journey: Journey) {
        for p in journey.params { declare("params." + p.name.value, p.type) }
        for s in journey.state { declare("state." + s.name.value, s.type) }
        for s in journey.stored { declare("stored." + s.name.value, s.type) }
        for limit in journey.limits {
            for (field, type) in Self.limitFields where limit.locksOut || !Self.lockoutFields.contains(field) {
                declare("limits.\(limit.name.value).\(field)", TypeInfo(type))
            }
        }
        // What was declared with errors is read as anything: its declaration's error is enough.
        for name in journey.unloadedNames {
            if name.hasPrefix("limits.") {
                for (field, _) in Self.limitFields { declare("\(name).\(field)", TypeInfo(.any)) }
            } else {
                declare(name, TypeInfo(.any))
            }
        }
        declare("device.biometry", TypeInfo(.string))
        declare("device.biometryEnrolled", TypeInfo(.bool))
        declare("device.online", TypeInfo(.bool))
        declare("device.apps", TypeInfo(.list))
        declare("device.opensLinks", TypeInfo(.bool))
        declare("device.now", TypeInfo(.int))
    }

    /// What an expression reads of a limit (`limits.NAME.FIELD`), with its type.
    static let limitFields: [(String, ValueType)] = [
        ("count", .int), ("max", .int), ("remaining", .int), ("locked", .bool), ("unlocksIn", .duration),
    ]
    /// The fields only a limit with a lockout has.
    static let lockoutFields: Set<String> = ["locked", "unlocksIn"]

    /// Only the journey's params: what a limit's `max` is computed from when the journey starts.
    init(params journey: Journey) {
        for p in journey.params { declare("params." + p.name.value, p.type) }
    }

    /// This scope plus a step's inputs and one outcome's data.
    func adding(inputs: [InputSpec], outcome: [DataSpec]) -> TypeScope {
        var scope = self
        for input in inputs { scope.declare("input." + input.name, input.type) }
        for data in outcome { scope.declare("outcome." + data.name, data.type) }
        return scope
    }
}
