/// A value kept behind one reference and never changed: a value type that holds one is copied
/// for one reference count, not one for each of the value's parts (a screen in every event,
/// request and invocation that shows it; an expression's parsed tree). Changing the holder's
/// value makes a new one.
final class Shared<Value: Sendable>: Sendable {
    let value: Value

    init(_ value: Value) { self.value = value }
}

/// The same reference is the same value, found without comparing the value's parts.
extension Shared: Equatable where Value: Equatable {
    static func == (a: Shared, b: Shared) -> Bool { a === b || a.value == b.value }
}

extension Shared: Hashable where Value: Hashable {
    func hash(into hasher: inout Hasher) { hasher.combine(value) }
}
