/// The handlers a journey can name, by id.
public struct HandlerRegistry: Sendable {
    private var handlers: [String: any StepHandler] = [:]

    public init(_ handlers: [any StepHandler] = []) {
        for handler in handlers { register(handler) }
    }

    /// Adds a handler; a later one with the same id replaces an earlier one.
    public mutating func register(_ handler: any StepHandler) {
        handlers[handler.contract.id] = handler
    }

    public subscript(id: String) -> (any StepHandler)? { handlers[id] }

    /// Handler ids in order.
    public var ids: [String] { handlers.keys.sorted() }
}
