/// The handlers a journey can name, by id. Each id names one handler: registering a second
/// handler with an id already taken is an error, never a silent replacement.
public struct HandlerRegistry: Sendable {
    private var handlers: [String: any StepHandler] = [:]

    /// Two handlers claim the same id.
    public struct DuplicateID: Error, Sendable, Equatable, CustomStringConvertible {
        public let id: String
        public init(id: String) { self.id = id }
        public var description: String {
            "two handlers are registered as '\(id)'; each handler id names one handler"
        }
    }

    /// An empty registry.
    public init() {}

    /// A registry of these handlers; throws when two share an id.
    public init(_ handlers: [any StepHandler]) throws(DuplicateID) {
        for handler in handlers { try register(handler) }
    }

    /// Adds a handler; throws, changing nothing, when its id is taken.
    public mutating func register(_ handler: any StepHandler) throws(DuplicateID) {
        let id = handler.contract.id
        guard handlers[id] == nil else { throw DuplicateID(id: id) }
        handlers[id] = handler
    }

    /// This registry with `more` handlers added; throws when an id is taken twice.
    public func adding(_ more: [any StepHandler]) throws(DuplicateID) -> HandlerRegistry {
        var registry = self
        for handler in more { try registry.register(handler) }
        return registry
    }

    /// The handler with this id, if one is registered.
    public subscript(id: String) -> (any StepHandler)? { handlers[id] }

    /// Handler ids in order.
    public var ids: [String] { handlers.keys.sorted() }
}
